"""Finished meetings as retrieval chunks, so "what did we decide about X last week?" finds
them: one chunk per topic segment (name, summary, decisions, actions) and one per utterance
(speaker and words), each carrying meeting, topic, speaker and time for citation."""

from __future__ import annotations

from collections.abc import Sequence

from mithub.context.models import TopicSegment, Utterance
from mithub.retrieval.models import Chunk, Source


def meeting_doc_id(meeting_id: str) -> str:
    return f"meeting:{meeting_id}"


def _segment_text(segment: TopicSegment) -> str:
    lines = [segment.name, segment.summary]
    for label, items in (
        ("Key points", segment.key_points),
        ("Decisions", segment.key_decisions),
        ("Pending", segment.pending_items),
        ("Action items", segment.action_items),
    ):
        if items:
            lines.append(f"{label}: " + "; ".join(items))
    return "\n".join(line for line in lines if line.strip())


def meeting_chunks(
    meeting_id: str, segments: Sequence[TopicSegment], utterances: Sequence[Utterance]
) -> list[Chunk]:
    doc_id = meeting_doc_id(meeting_id)
    by_seq = {u.id: u for u in utterances}
    chunks: list[Chunk] = []
    for segment in segments:
        first = by_seq.get(segment.start_utterance_id)
        source = Source(
            kind="meeting_topic",
            meeting_id=meeting_id,
            topic=segment.name,
            speaker=", ".join(segment.participants) or None,
            time=first.absolute_timestamp if first else segment.updated_at,
        )
        text = _segment_text(segment)
        if text:
            chunks.append(Chunk(id=f"{doc_id}:topic:{segment.id}", doc_id=doc_id, text=text, source=source))
    for utterance in utterances:
        source = Source(
            kind="meeting_utterance",
            meeting_id=meeting_id,
            topic=utterance.topic,
            speaker=utterance.speaker_name,
            time=utterance.absolute_timestamp,
        )
        chunks.append(
            Chunk(
                id=f"{doc_id}:u{utterance.id}",
                doc_id=doc_id,
                text=f"{utterance.speaker_name}: {utterance.text}",
                source=source,
            )
        )
    return chunks
