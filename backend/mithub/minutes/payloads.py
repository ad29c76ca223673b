"""The body a webhook receives (MINUTES_WEBHOOK_FORMAT), as the exact bytes that are signed.

- `json`: the minutes JSON as stored (`Minutes`), for a receiver of one's own.
- `slack`: a Slack incoming-webhook message: `text` (the notification's fallback) and `blocks`
  (a header, then mrkdwn sections). Slack's limits are kept: a header's text at most 150
  characters, a section's 3,000, a message's blocks 50; `&`, `<` and `>` in meeting text are
  escaped (Slack reads `<!channel>` as a mention).
- `teams`: a Teams message with one Adaptive Card attachment, the shape the Workflows "post to
  a channel when a webhook request is received" template and the older incoming webhooks both
  accept (Workflows take Adaptive Cards only, not MessageCards).

Headings follow the meeting's language (`render.LABELS`); every item ends with its citation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from mithub.minutes.models import Minutes, MinutesActionItem, MinutesDecision
from mithub.minutes.render import LABELS, action_text, cite, counts_line, meeting_label, one_line

FORMATS: tuple[str, ...] = ("json", "slack", "teams")  # MINUTES_WEBHOOK_FORMAT

SLACK_HEADER_CHARS = 150
SLACK_SECTION_CHARS = 3000
SLACK_MAX_BLOCKS = 50
ADAPTIVE_CARD_VERSION = "1.4"
# A chat tool shows a summary (the page and the JSON hold every item): at most this many items a
# section, each cut to ITEM_CHARS, fewer until the body is under MAX_CHAT_BYTES (Teams refuses a
# message over about 28 KB, Slack one over 50 blocks or about 40,000 characters).
ITEMS_PER_SECTION = (25, 10, 5, 2)
ITEM_CHARS = 600
MAX_CHAT_BYTES = 24_000


def payload_body(minutes: Minutes, format: str, *, page_url: str | None = None) -> bytes:
    """The body POSTed for `minutes` in `format`, UTF-8 JSON."""
    if format == "json":
        return minutes.model_dump_json().encode("utf-8")
    builders = {"slack": slack_message, "teams": teams_message}
    if format not in builders:
        raise ValueError(f"unknown webhook format {format!r}; use one of {', '.join(FORMATS)}")
    for per_section in ITEMS_PER_SECTION:
        body = _dumps(builders[format](minutes, page_url=page_url, per_section=per_section))
        if len(body) <= MAX_CHAT_BYTES:
            break
    return body


def _dumps(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# ---------------------------------------------------------------------- shared text


def _summary_line(minutes: Minutes) -> str:
    t = LABELS[minutes.language]
    return f"{t['minutes']}: {one_line(minutes.title)} ({minutes.date.isoformat()}) — {counts_line(minutes)}"


def _date_line(minutes: Minutes) -> str:
    t = LABELS[minutes.language]
    end = f"–{minutes.ended_at:%H:%M}" if minutes.ended_at else ""
    people = ", ".join(p.name for p in minutes.participants) or t["none"]
    return (f"{t['date']}: {minutes.date.isoformat()} {minutes.started_at:%H:%M}{end} ({minutes.timezone})"
            f" · {t['participants']}: {people}")


def _decision(decision: MinutesDecision, minutes: Minutes, bold: Callable[[str], str]) -> str:
    line = f"{one_line(decision.text)} ({cite(decision.speaker, decision.time, decision.seq)})"
    past = decision.changed_since_last
    if past is None:
        return line
    t = LABELS[minutes.language]
    values = f"{past.value} → {decision.value}, " if past.value and decision.value else ""
    return (f"⚠ {bold(t['changed'])} ({values}{meeting_label(minutes, past.date)}: "
            f"\"{one_line(past.quote)}\" — {past.speaker} #{past.seq}): {line}")


def _action(action: MinutesActionItem, minutes: Minutes, bold: Callable[[str], str]) -> str:
    return f"{action_text(action, LABELS[minutes.language], bold)} ({cite(action.speaker, action.time, action.seq)})"


def _sections(minutes: Minutes, bold: Callable[[str], str], per_section: int) -> list[tuple[str, list[str]]]:
    """(heading, items) of the minutes, in reading order; empty sections are left out."""
    t = LABELS[minutes.language]
    sections = [
        (t["topics"], [f"{bold(one_line(topic.title))} ({topic.start:%H:%M}–{topic.end:%H:%M}): "
                       f"{one_line(topic.summary)}" for topic in minutes.topics]),
        (t["decisions"], [_decision(d, minutes, bold) for d in minutes.decisions]),
        (t["actions"], [_action(a, minutes, bold) for a in minutes.action_items]),
        (t["open"], [f"{one_line(q.text)} ({cite(q.speaker, q.time, q.seq)})" for q in minutes.open_questions]),
    ]
    return [(heading, _capped(items, per_section, t["more"])) for heading, items in sections if items]


def _capped(items: list[str], per_section: int, more: str) -> list[str]:
    shown = [_cut(item, ITEM_CHARS) for item in items[:per_section]]
    return shown + ([f"… ({more.format(n=len(items) - per_section)})"] if len(items) > per_section else [])


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---------------------------------------------------------------------- Slack


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _slack_bold(text: str) -> str:
    return f"*{text}*"


def slack_message(minutes: Minutes, *, page_url: str | None = None,
                  per_section: int = ITEMS_PER_SECTION[0]) -> dict[str, Any]:
    """Slack incoming-webhook message: `text` + `blocks` (header, context, mrkdwn sections)."""
    t = LABELS[minutes.language]
    header = _cut(f"{t['minutes']}: {one_line(minutes.title)}", SLACK_HEADER_CHARS)  # plain_text
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": header, "emoji": True}},
        {"type": "context", "elements": [
            {"type": "mrkdwn", "text": _cut(_slack_escape(_date_line(minutes)), SLACK_SECTION_CHARS)}]},
    ]
    for heading, items in _sections(_slack_escaped(minutes), _slack_bold, per_section):
        blocks += [{"type": "section", "text": {"type": "mrkdwn", "text": text}}
                   for text in _slack_chunks(f"*{heading}*", items)]
    if page_url:
        blocks.append({"type": "section", "text": {"type": "mrkdwn",
                                                   "text": f"<{page_url}|{_slack_escape(t['page'])}>"}})
    if len(blocks) > SLACK_MAX_BLOCKS:
        blocks = blocks[: SLACK_MAX_BLOCKS - 1] + [
            {"type": "context", "elements": [{"type": "mrkdwn", "text": f"… ({t['page']}: MitHub)"}]}]
    return {"text": _slack_escape(_summary_line(minutes)), "blocks": blocks}


def _slack_escaped(minutes: Minutes) -> Minutes:
    """The minutes with every meeting text escaped for mrkdwn (the labels are ours)."""
    data = minutes.model_dump()
    _escape_strings(data)
    return Minutes.model_validate(data)


def _escape_strings(value: Any) -> Any:
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = _escape_strings(item)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            value[index] = _escape_strings(item)
    elif isinstance(value, str):
        return _slack_escape(value)
    return value


def _slack_chunks(heading: str, items: Iterable[str]) -> list[str]:
    """`heading` and its bullet items as section texts of at most 3,000 characters each."""
    chunks: list[str] = []
    current = heading
    for item in items:
        line = "\n• " + _cut(item, SLACK_SECTION_CHARS - len(heading) - 4)
        if len(current) + len(line) > SLACK_SECTION_CHARS:
            chunks.append(current)
            current = heading
        current += line
    chunks.append(current)
    return chunks


# ---------------------------------------------------------------------- Teams


def _teams_bold(text: str) -> str:
    return f"**{text}**"


def teams_message(minutes: Minutes, *, page_url: str | None = None,
                  per_section: int = ITEMS_PER_SECTION[0]) -> dict[str, Any]:
    """A Teams message carrying one Adaptive Card: title, date line, then a heading and a
    bulleted TextBlock per section (TextBlock reads a Markdown subset: bold, lists)."""
    t = LABELS[minutes.language]
    body: list[dict[str, Any]] = [
        {"type": "TextBlock", "text": f"{t['minutes']}: {one_line(minutes.title)}", "size": "Large",
         "weight": "Bolder", "wrap": True},
        {"type": "TextBlock", "text": _date_line(minutes), "isSubtle": True, "wrap": True},
    ]
    for heading, items in _sections(minutes, _teams_bold, per_section):
        body += [{"type": "TextBlock", "text": heading, "weight": "Bolder", "size": "Medium",
                  "separator": True, "wrap": True},
                 {"type": "TextBlock", "text": "\n".join(f"- {item}" for item in items), "wrap": True}]
    card: dict[str, Any] = {"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
                            "type": "AdaptiveCard", "version": ADAPTIVE_CARD_VERSION, "body": body,
                            "msteams": {"width": "Full"}}
    if page_url:
        card["actions"] = [{"type": "Action.OpenUrl", "title": t["page"], "url": page_url}]
    return {"type": "message",
            "attachments": [{"contentType": "application/vnd.microsoft.card.adaptive",
                             "contentUrl": None, "content": card}]}
