"""The minutes as text: Markdown (the export, the stored copy) and a short chat message the
bot posts before it leaves. Headings follow the meeting's language; every item ends with its
citation (speaker, time on the meeting's clock, transcript line #seq). The text is the
record's own words: a renderer into HTML escapes it (the page does)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime

from mithub.minutes.models import Minutes, MinutesActionItem, MinutesDecision

LABELS = {
    "ko": {
        "minutes": "회의록", "date": "일시", "participants": "참석자", "topics": "주제",
        "decisions": "결정 사항", "actions": "액션 아이템", "open": "미결 사항",
        "changed": "지난 회의 대비 변경", "due": "기한", "none": "없음", "turns": "발언",
        "mode_llm": "요약 문장은 LLM이 다듬었고, 항목과 인용은 회의 기록 그대로입니다.",
        "mode_extractive": "LLM 없이 회의 기록에서 그대로 작성했습니다.",
        "meeting_of": "{m}월 {d}일 회의", "counts": "결정 {d}건 · 변경 {c}건 · 액션 아이템 {a}건",
        "more": "외 {n}건", "page": "전체 회의록", "was": "이전",
    },
    "en": {
        "minutes": "Minutes", "date": "Date", "participants": "Participants", "topics": "Topics",
        "decisions": "Decisions", "actions": "Action items", "open": "Open questions",
        "changed": "Changed since the last meeting", "due": "due", "none": "none", "turns": "turns",
        "mode_llm": "Summaries' wording polished by the LLM; items and citations are the record's.",
        "mode_extractive": "Composed from the meeting record without an LLM.",
        "meeting_of": "meeting of {b} {d}", "counts": "{d} decisions · {c} changes · {a} action items",
        "more": "{n} more", "page": "Full minutes", "was": "was",
    },
}


def _labels(minutes: Minutes) -> dict[str, str]:
    return LABELS[minutes.language]


def one_line(text: str) -> str:
    """The text on one line, its runs of white space as single spaces."""
    return " ".join(text.split())


def _clock(moment: datetime) -> str:
    return f"{moment:%H:%M}"


def _duration(seconds: float, language: str) -> str:
    minutes, rest = divmod(int(round(seconds)), 60)
    if language == "ko":
        return f"{minutes}분 {rest}초" if minutes else f"{rest}초"
    return f"{minutes}m {rest}s" if minutes else f"{rest}s"


def cite(speaker: str, moment: datetime, seq: int) -> str:
    """"김지현 10:07 #62": who, when on the meeting's clock, which line."""
    return f"{speaker} {_clock(moment)} #{seq}"


def meeting_label(minutes: Minutes, day: date) -> str:
    """How the minutes name an earlier meeting: "5월 4일 회의", "meeting of May 4"."""
    return _labels(minutes)["meeting_of"].format(m=day.month, d=day.day, b=f"{day:%b}")


def to_markdown(minutes: Minutes) -> str:
    t = _labels(minutes)
    end = f"–{_clock(minutes.ended_at)}" if minutes.ended_at else ""
    lines = [f"# {t['minutes']}: {one_line(minutes.title)}", "",
             f"- **{t['date']}**: {minutes.date.isoformat()} {_clock(minutes.started_at)}{end} ({minutes.timezone})",
             f"- **{t['participants']}**: " + (", ".join(
                 f"{p.name} ({_duration(p.talk_seconds, minutes.language)}, {t['turns']} {p.turns})"
                 for p in minutes.participants) or t["none"]), ""]
    lines += _section(t["topics"], [
        f"{i}. **{one_line(topic.title)}** ({_clock(topic.start)}–{_clock(topic.end)}, "
        f"#{topic.first_seq}–#{topic.last_seq}): {one_line(topic.summary)}"
        for i, topic in enumerate(minutes.topics, 1)], t)
    lines += _section(t["decisions"], [_decision_markdown(d, minutes) for d in minutes.decisions], t)
    lines += _section(t["actions"], [f"- [ ] {action_text(a, t)} ({cite(a.speaker, a.time, a.seq)})"
                                     for a in minutes.action_items], t)
    lines += _section(t["open"], [f"- {one_line(q.text)} ({cite(q.speaker, q.time, q.seq)})"
                                  for q in minutes.open_questions], t)
    lines.append(f"_{t['mode_llm'] if minutes.mode == 'llm' else t['mode_extractive']}_")
    return "\n".join(lines) + "\n"


def _section(heading: str, items: list[str], t: dict[str, str]) -> list[str]:
    return [f"## {heading}", "", *(items or [f"- {t['none']}"]), ""]


def _decision_markdown(decision: MinutesDecision, minutes: Minutes) -> str:
    t = _labels(minutes)
    line = f"- {one_line(decision.text)} ({cite(decision.speaker, decision.time, decision.seq)})"
    past = decision.changed_since_last
    if past is None:
        return line
    said = f"{past.speaker} " if past.speaker else ""
    values = f"{past.value} → {decision.value}: " if past.value and decision.value else ""
    return (f"{line}\n  - ⚠ **{t['changed']}** ({values}{meeting_label(minutes, past.date)}, {said}#{past.seq}): "
            f"\"{one_line(past.quote)}\"")


def action_text(action: MinutesActionItem, t: dict[str, str],
                bold: Callable[[str], str] = lambda text: f"**{text}**") -> str:
    """"owner: task — due date (as said)", the owner set off by `bold` (Markdown by default; the
    webhook payloads pass their own markup)."""
    due = ""
    if action.due is not None:
        due = f" — {t['due']} {action.due.isoformat()}" + (f" ({action.due_text})" if action.due_text else "")
    elif action.due_text:
        due = f" — {action.due_text}"
    return f"{bold(action.owner)}: {one_line(action.task)}{due}"


# ---------------------------------------------------------------------- chat

ITEM_CHARS = 140  # one item's words in the chat version, before its citation


def _short(text: str, limit: int = ITEM_CHARS) -> str:
    text = one_line(text)
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def to_chat(minutes: Minutes, *, limit_chars: int, page_url: str | None = None) -> str:
    """The short version for the room chat, at most `limit_chars` characters: the counts, then
    the changes, decisions and action items that fit (most important first), then the link
    to the page when there is one."""
    t = _labels(minutes)
    changes = minutes.changes()
    head = [f"📝 {t['minutes']}: {one_line(minutes.title)} ({minutes.date.isoformat()})",
            counts_line(minutes)]
    tail = [f"{t['page']}: {page_url}"] if page_url else []
    body: list[str] = []
    groups: list[tuple[str, list[str]]] = [
        (t["changed"], [_change_chat(d, t) for d in changes]),
        (t["decisions"], [f"- {_short(d.text)} ({cite(d.speaker, d.time, d.seq)})"
                          for d in minutes.decisions if d.changed_since_last is None]),
        (t["actions"], [f"- {_short(action_text(a, t).replace('**', ''))} ({cite(a.speaker, a.time, a.seq)})"
                        for a in minutes.action_items]),
    ]

    def fits(extra: list[str]) -> bool:
        return len("\n".join(head + body + extra + tail)) <= limit_chars

    for heading, items in groups:
        shown = 0
        for item in items:
            block = ([f"{heading}:"] if shown == 0 else []) + [item]
            if not fits(block):
                break
            body += block
            shown += 1
        left = len(items) - shown
        if shown and left and fits([f"  ({t['more'].format(n=left)})"]):
            body.append(f"  ({t['more'].format(n=left)})")
    text = "\n".join(head + body + tail)
    return text if len(text) <= limit_chars else text[: max(0, limit_chars - 1)] + "…"


def counts_line(minutes: Minutes) -> str:
    """"결정 9건 · 변경 2건 · 액션 아이템 10건", "1 decision · 0 changes · 2 action items"."""
    decisions, changes, actions = len(minutes.decisions), len(minutes.changes()), len(minutes.action_items)
    if minutes.language == "ko":
        return _labels(minutes)["counts"].format(d=decisions, c=changes, a=actions)

    def plural(n: int, word: str) -> str:
        return f"{n} {word}" if n == 1 else f"{n} {word}s"

    return f"{plural(decisions, 'decision')} · {plural(changes, 'change')} · {plural(actions, 'action item')}"


def _change_chat(decision: MinutesDecision, t: dict[str, str]) -> str:
    past = decision.changed_since_last
    assert past is not None
    values = f"{past.value} → {decision.value}" if past.value and decision.value else \
        f"{t['was']} \"{_short(past.quote, 60)}\""
    return f"- ⚠ {values}: {_short(decision.text)} ({cite(decision.speaker, decision.time, decision.seq)})"
