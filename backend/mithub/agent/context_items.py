"""What the model saw: the evidence items of a built context, for debugging and evaluation
(`"include_context": true` on the API, `mithub ask --show-context`). Built only when asked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import AwareDatetime, BaseModel

from mithub.context.formatting import (
    past_topic_lines,
    past_utterance_line,
    segment_lines,
    topic_label,
    utterance_line,
)
from mithub.context.models import AgentContext


class ContextItem(BaseModel):
    kind: Literal["utterance", "topic", "document"]
    meeting_id: str | None = None
    seq: int | None = None
    speaker: str | None = None
    time: AwareDatetime | None = None
    quote: str
    tokens: int


def context_items(ctx: AgentContext, count: Callable[[str], int]) -> list[ContextItem]:
    """Every item in prompt order: today's topics, today's quoted turns, past topics and
    turns, documents, the recent turns. `tokens` is the item's formatted lines."""
    items: list[ContextItem] = []
    for s in ctx.topic_segments or []:
        items.append(ContextItem(kind="topic", meeting_id=ctx.meeting_id, seq=s.start_utterance_id,
                                 quote=s.summary or s.name,
                                 tokens=sum(count(x) for x in segment_lines(s, topic_label(s)))))
    zone = ctx.current_time.tzinfo  # today's meeting's clock; a past turn is on its meeting's
    for u in (u for e in ctx.transcript_excerpts for u in e.utterances):
        items.append(ContextItem(kind="utterance", meeting_id=ctx.meeting_id, seq=u.id,
                                 speaker=u.speaker_name, time=u.absolute_timestamp.astimezone(zone), quote=u.text,
                                 tokens=count(utterance_line(u))))
    for t in ctx.past_topics:
        items.append(ContextItem(kind="topic", meeting_id=t.meeting.meeting_id,
                                 seq=t.segment.start_utterance_id, time=t.meeting.started_at,
                                 quote=t.segment.summary or t.segment.name,
                                 tokens=sum(count(x) for x in past_topic_lines(t.meeting, t.segment))))
    for e in ctx.past_excerpts:
        for u in e.utterances:
            items.append(ContextItem(kind="utterance", meeting_id=e.meeting.meeting_id, seq=u.id,
                                     speaker=u.speaker_name, quote=u.text,
                                     time=u.absolute_timestamp.astimezone(e.meeting.started_at.tzinfo),
                                     tokens=count(past_utterance_line(e.meeting, u))))
    for d in ctx.documents:
        items.append(ContextItem(kind="document", quote=d.text, speaker=None,
                                 tokens=count(f"[D0] {d.source}: {d.text}")))
    for u in ctx.recent_utterances or []:
        items.append(ContextItem(kind="utterance", meeting_id=ctx.meeting_id, seq=u.id,
                                 speaker=u.speaker_name, time=u.absolute_timestamp.astimezone(zone), quote=u.text,
                                 tokens=count(utterance_line(u))))
    return items
