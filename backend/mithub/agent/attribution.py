"""Citations: the ids the model cited, mapped back to speaker, time and quote (or topic and
document); when it cited nothing usable, the context items that share most words with the
answer are cited instead."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mithub.agent.answer import Citation
from mithub.context.formatting import topic_label
from mithub.context.ledger_evidence import note
from mithub.context.models import AgentContext, PastMeetingRef
from mithub.text import content_tokens

_ID = re.compile(r"\b(PT|[UTDP])\s*-?(\d+)\b", re.IGNORECASE)
_QUOTE_CHARS = 160


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1].rstrip() + "…"


def context_citations(ctx: AgentContext) -> dict[str, Citation]:
    """Every citable item of the context, by the id the prompt showed."""
    items: dict[str, Citation] = {}
    utterances = [*(ctx.recent_utterances or []), *(u for e in ctx.transcript_excerpts for u in e.utterances)]
    # A citation quotes what was said; the prompt may have held a condensed form of it.
    said = {u.id: text for e in ctx.transcript_excerpts for u, text in zip(e.utterances, e.said, strict=False)}
    for u in utterances:
        items[f"U{u.id}"] = Citation(kind="utterance", id=f"U{u.id}", speaker=u.speaker_name,
                                     time=u.absolute_timestamp.astimezone(ctx.current_time.tzinfo),
                                     quote=_short(said.get(u.id, u.text)), seq=u.id)
    for segment in ctx.topic_segments or []:
        label = topic_label(segment)
        items[label] = Citation(kind="topic", id=label, title=segment.name,
                                quote=_short(segment.summary.splitlines()[0] if segment.summary else ""))
    items.update(past_citations(ctx))
    for i, doc in enumerate(ctx.documents, start=1):
        items[f"D{i}"] = Citation(kind="document", id=f"D{i}", title=doc.title, path=doc.source,
                                  quote=_short(doc.text))
    return items


def past_citations(ctx: AgentContext) -> dict[str, Citation]:
    """Past topics (PT<n>) and turns (P<n>), numbered as the prompt shows them, each naming
    its meeting (id, title, date)."""
    items: dict[str, Citation] = {}
    for k, topic in enumerate(ctx.past_topics, start=1):
        items[f"PT{k}"] = Citation(kind="topic", id=f"PT{k}", title=topic.segment.name,
                                   quote=_short(topic.segment.summary.splitlines()[0] if topic.segment.summary else ""),
                                   **_meeting_fields(topic.meeting))
    k = 0
    notes = {(c.meeting_id, c.seq): note(c) for c in ctx.decision_changes}
    for excerpt in ctx.past_excerpts:
        said = dict(zip((u.id for u in excerpt.utterances), excerpt.said, strict=False))
        for u in excerpt.utterances:
            k += 1
            # A changed decision's mark stays whole however long the turn is.
            marked = notes.get((excerpt.meeting.meeting_id, u.id), "")
            words = said.get(u.id, u.text)
            quote = _short(words.removesuffix(marked)) + marked if marked and words.endswith(marked) else _short(words)
            items[f"P{k}"] = Citation(kind="utterance", id=f"P{k}", speaker=u.speaker_name,
                                      time=u.absolute_timestamp.astimezone(excerpt.meeting.started_at.tzinfo),
                                      quote=quote, seq=u.id, **_meeting_fields(excerpt.meeting))
    return items


def _meeting_fields(meeting: PastMeetingRef) -> dict:
    return {"meeting_id": meeting.meeting_id, "meeting_title": meeting.title,
            "meeting_date": meeting.started_at.date(), "meeting_label": meeting.label}


def cited(ids: Iterable[str], available: dict[str, Citation]) -> list[Citation]:
    """The citations named by `ids` ("U12", "[U12]", "u 12"), once each, unknown ids dropped."""
    out: dict[str, Citation] = {}
    for raw in ids:
        for kind, number in _ID.findall(str(raw)):
            key = f"{kind.upper()}{int(number)}"
            if key in available:
                out.setdefault(key, available[key])
    return list(out.values())


def best_supporting(answer: str, available: dict[str, Citation], limit: int = 3) -> list[Citation]:
    """Context items sharing the most content words with the answer (at least two)."""
    words = set(content_tokens(answer))
    scored = []
    for key, citation in available.items():
        text = " ".join(filter(None, [citation.quote, citation.title]))
        overlap = len(words & set(content_tokens(text)))
        if overlap >= 2:
            scored.append((overlap, key))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [available[key] for _, key in scored[:limit]]


def attribute(answer: str, ids: Sequence[str], ctx: AgentContext) -> list[Citation]:
    available = context_citations(ctx)
    return cited(ids, available) or best_supporting(answer, available)
