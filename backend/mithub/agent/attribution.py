"""Citations: the ids the model cited, mapped back to speaker, time and quote (or topic and
document); when it cited nothing usable, the context items that share most words with the
answer are cited instead."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mithub.agent.answer import Citation
from mithub.context.formatting import topic_label
from mithub.context.models import AgentContext
from mithub.text import content_tokens

_ID = re.compile(r"\b([UTD])\s*-?(\d+)\b", re.IGNORECASE)
_QUOTE_CHARS = 160


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 1].rstrip() + "…"


def context_citations(ctx: AgentContext) -> dict[str, Citation]:
    """Every citable item of the context, by the id the prompt showed."""
    items: dict[str, Citation] = {}
    utterances = [*(ctx.recent_utterances or []), *(u for e in ctx.transcript_excerpts for u in e.utterances)]
    for u in utterances:
        items[f"U{u.id}"] = Citation(kind="utterance", id=f"U{u.id}", speaker=u.speaker_name,
                                     time=u.absolute_timestamp, quote=_short(u.text))
    for segment in ctx.topic_segments or []:
        label = topic_label(segment)
        items[label] = Citation(kind="topic", id=label, title=segment.name,
                                quote=_short(segment.summary.splitlines()[0] if segment.summary else ""))
    for i, doc in enumerate(ctx.documents, start=1):
        items[f"D{i}"] = Citation(kind="document", id=f"D{i}", title=doc.title, path=doc.source,
                                  quote=_short(doc.text))
    return items


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
