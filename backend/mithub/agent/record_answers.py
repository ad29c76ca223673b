"""SUMMARY and ACTION_EXTRACTION answered from the meeting's record without an LLM: the
decisions, action items and pending items extracted from what was said, each citing the
utterance that settled it (speaker, time, quote); due dates as dates; in a series, the past
decisions changed today."""

from __future__ import annotations

from collections.abc import Sequence

from mithub.agent.answer import Citation
from mithub.context.models import AgentContext
from mithub.record.meeting_record import MeetingRecord
from mithub.record.models import DecisionChange

_LABELS = {
    True: {"summary": "회의 요약 (LLM 없이 회의 기록에서 정리)", "topics": "토픽", "decisions": "결정",
           "changes": "오늘 바뀐 지난 결정", "pending": "미해결", "actions": "액션 아이템 (발언에서 추출)",
           "due": "기한", "changed_from": "지난 결정"},
    False: {"summary": "Meeting summary (compiled from the record, no LLM)", "topics": "Topics",
            "decisions": "Decided", "changes": "Past decisions changed today", "pending": "Open",
            "actions": "Action items (from what was said)", "due": "due", "changed_from": "was"},
}


def _cite(meeting_id: str, seq: int, speaker: str, time, quote: str) -> Citation:  # noqa: ANN001
    return Citation(kind="utterance", id=f"U{seq}", speaker=speaker, time=time, quote=quote, seq=seq,
                    meeting_id=meeting_id)


def record_summary(ctx: AgentContext, record: MeetingRecord, changes: Sequence[DecisionChange],
                   korean: bool) -> tuple[str, list[Citation]] | None:
    # Candidates (below the models' thresholds) are stored, never shown in an answer.
    decisions = [d for d in record.decisions if not d.candidate]
    changes = [c for c in changes if not c.candidate]
    if not (decisions or record.pending_items or changes or ctx.topic_segments):
        return None
    labels = _LABELS[korean]
    lines = [labels["summary"]]
    if ctx.topic_segments:
        lines.append(f"• {labels['topics']}: " + " / ".join(s.name for s in ctx.topic_segments))
        for segment in ctx.topic_segments:
            first = next((line for line in segment.summary.splitlines() if line.strip()), "")
            if first:
                lines.append(f"   - {segment.name}: {first}")
    citations: list[Citation] = []
    if decisions:
        lines.append(f"• {labels['decisions']}:")
        for d in decisions:
            lines.append(f"   - {d.quote} ({d.speaker} {d.time:%H:%M}) [U{d.seq}]")
            citations.append(_cite(d.meeting_id, d.seq, d.speaker, d.time, d.quote))
    if changes:
        lines.append(f"• {labels['changes']}:")
        for c in changes:
            lines.append(f"   - {c.quote} ({c.speaker} {c.time:%H:%M}) [U{c.seq}] — "
                         f"{labels['changed_from']}: \"{c.past.quote}\"")
            citations.append(_cite(c.meeting_id, c.seq, c.speaker, c.time, c.quote))
    if record.pending_items:
        lines.append(f"• {labels['pending']}:")
        for p in record.pending_items:
            lines.append(f"   - {p.text} ({p.speaker} {p.time:%H:%M}) [U{p.seq}]")
            citations.append(_cite(p.meeting_id, p.seq, p.speaker, p.time, p.quote))
    return "\n".join(lines), _unique(citations)


def record_actions(record: MeetingRecord, korean: bool) -> tuple[str, list[Citation]] | None:
    shown = [a for a in record.action_items if not a.candidate]  # candidates only on request
    if not shown:
        return None
    labels = _LABELS[korean]
    lines = [labels["actions"]]
    citations = []
    for a in shown:
        due = ""
        if a.due_date is not None:
            due = f" — {labels['due']} {a.due_date.isoformat()}" + (f" ({a.due_text})" if a.due_text else "")
        elif a.due_text:
            due = f" — {a.due_text}"
        lines.append(f"• {a.owner}: {a.task}{due} [U{a.seq}]")
        citations.append(_cite(a.meeting_id, a.seq, a.speaker, a.time, a.quote))
    return "\n".join(lines), _unique(citations)


def _unique(citations: list[Citation]) -> list[Citation]:
    return list({c.id: c for c in citations}.values())
