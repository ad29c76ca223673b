"""The minutes of a meeting, composed from what the store already holds (issue 20 part 1):
the meeting's record (decisions, action items, open items), the series' changes to earlier
decisions, the topic segments with their summaries, and the turns' durations (talk time).

    minutes = await compose_minutes(repository, meeting_id)            # LLM-free
    minutes = await compose_minutes(repository, meeting_id, llm=llm)   # summaries' prose polished

Every item is the record's, citing the speaker, time and line (seq) it comes from; an LLM
only rewords the topic summaries (`minutes.polish`), and when it fails the extractive
summaries stay and `mode` says "extractive". Times are on the meeting's own clock.
"""

from __future__ import annotations

import asyncio
import bisect
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Protocol

from mithub.clock import Clock, local_date, utc_now
from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState
from mithub.errors import MeetingNotFoundError
from mithub.llm import LLMClient
from mithub.minutes.models import (
    Minutes,
    MinutesActionItem,
    MinutesDecision,
    MinutesLanguage,
    MinutesParticipant,
    MinutesQuestion,
    MinutesTopic,
    PreviousDecision,
)
from mithub.minutes.polish import polish_summaries
from mithub.record.meeting_record import MeetingRecord, earlier_meetings, extract_record
from mithub.record.models import Decision, DecisionChange
from mithub.store.records import MeetingInfo
from mithub.text import has_hangul

KOREAN_SHARE = 0.3  # a meeting is Korean when this share of its turns holds Hangul


class MinutesStore(Protocol):
    """What composing and keeping the minutes reads and writes (the SQL and in-memory
    repositories both are one)."""

    async def meeting_info(self, meeting_id: str) -> MeetingInfo | None: ...

    async def get_utterances(self, meeting_id: str, *, after_seq: int = 0, until_seq: int | None = None,
                             limit: int | None = None) -> list[Utterance]: ...

    async def load_state(self, meeting_id: str) -> tuple[ManagerState | None, list[TopicSegment]]: ...

    async def series_records(self, series_id: str) -> list[MeetingRecord]: ...

    async def series_changes(self, series_id: str) -> list[DecisionChange]: ...

    async def save_minutes(self, meeting_id: str, minutes: Minutes) -> None: ...

    async def get_minutes(self, meeting_id: str) -> Minutes | None: ...


async def compose_minutes(repository: MinutesStore, meeting_id: str, *, llm: LLMClient | None = None,
                          clock: Clock = utc_now) -> Minutes:
    """The meeting's minutes; raises MeetingNotFoundError for an id the store does not know.
    A meeting whose record was not stored yet (still running) gets one extracted LLM-free,
    not stored."""
    info = await repository.meeting_info(meeting_id)
    if info is None:
        raise MeetingNotFoundError(meeting_id)
    turns = await repository.get_utterances(meeting_id)
    _, segments = await repository.load_state(meeting_id)
    records = await repository.series_records(info.series_id)
    record = next((r for r in records if r.meeting_id == meeting_id), None)
    if record is None and turns:
        record = await _running_record(repository, meeting_id, info, turns, records)
    changes = [c for c in await repository.series_changes(info.series_id)
               if c.meeting_id == meeting_id and not c.candidate]
    past = {r.meeting_id: r for r in records if r.meeting_id != meeting_id}
    earlier = {m: await repository.meeting_info(m) for m in {c.past.meeting_id for c in changes}}
    minutes = Minutes(
        meeting_id=meeting_id, series_id=info.series_id, title=info.title or meeting_id,
        date=local_date(info.started_at, info.zone), started_at=info.started_at,
        ended_at=info.ended_at or _last_end(turns), timezone=info.timezone, language=meeting_language(turns),
        participants=participants(turns), topics=topics(segments, turns),
        decisions=decisions(record, changes, past, {m: i for m, i in earlier.items() if i is not None}),
        action_items=action_items(record), open_questions=open_questions(record),
        composed_at=clock(),
    )
    if llm is not None and minutes.topics:
        polished = await polish_summaries(llm, [t.summary for t in minutes.topics],
                                          [t.title for t in minutes.topics], minutes.language)
        if polished is not None:
            for topic, summary in zip(minutes.topics, polished, strict=True):
                topic.summary = summary
            minutes.mode = "llm"
    return minutes


# A running meeting's record, extracted LLM-free (1.7 s at 2,000 turns), kept per meeting until
# a new turn is stored: the recap page and the API compose its minutes at every view. The
# series' earlier meetings it reads for event deadlines are finished: kept until it ends.
_RUNNING_RECORDS: OrderedDict[str, tuple[tuple[int, int], MeetingRecord, list[tuple[date, list[Utterance]]]]] = \
    OrderedDict()
RUNNING_RECORDS_KEPT = 16


async def _running_record(repository: MinutesStore, meeting_id: str, info: MeetingInfo, turns: list[Utterance],
                          records: Sequence[MeetingRecord]) -> MeetingRecord:
    key = (len(turns), turns[-1].id)
    held = _RUNNING_RECORDS.get(meeting_id)
    if held is not None and held[0] == key:
        _RUNNING_RECORDS.move_to_end(meeting_id)
        return held[1]
    earlier = held[2] if held is not None else await earlier_meetings(
        repository, info.series_id, meeting_id, info.started_at, records=records)
    record = await asyncio.to_thread(extract_record, meeting_id, info.series_id, info.started_at, turns,
                                     earlier=earlier)
    _RUNNING_RECORDS[meeting_id] = (key, record, earlier)
    _RUNNING_RECORDS.move_to_end(meeting_id)
    while len(_RUNNING_RECORDS) > RUNNING_RECORDS_KEPT:
        _RUNNING_RECORDS.popitem(last=False)
    return record


async def stored_or_composed(repository: MinutesStore, meeting_id: str) -> Minutes:
    """The stored minutes (`mithub minutes`, the API); else composed now, LLM-free, and kept
    once the meeting has ended. Raises MeetingNotFoundError for an unknown id."""
    minutes = await repository.get_minutes(meeting_id)
    if minutes is not None:
        return minutes
    info = await repository.meeting_info(meeting_id)
    if info is None:
        raise MeetingNotFoundError(meeting_id)
    minutes = await compose_minutes(repository, meeting_id)
    if info.ended_at is not None:
        await repository.save_minutes(meeting_id, minutes)
    return minutes


def meeting_language(turns: Sequence[Utterance]) -> MinutesLanguage:
    """Korean when enough of its turns hold Hangul (English terms in a Korean meeting do not
    make it English); an empty meeting reads in English."""
    if not turns:
        return "en"
    korean = sum(1 for u in turns if has_hangul(u.text))
    return "ko" if korean >= KOREAN_SHARE * len(turns) else "en"


def participants(turns: Sequence[Utterance]) -> list[MinutesParticipant]:
    """Each speaker's talk time (the sum of their turns' durations) and turns, most talk first."""
    seconds: dict[str, float] = defaultdict(float)
    counts: Counter[str] = Counter()
    for u in turns:
        seconds[u.speaker_name] += max(0, u.end_ms - u.start_ms) / 1000
        counts[u.speaker_name] += 1
    found = [MinutesParticipant(name=n, talk_seconds=round(seconds[n], 1), turns=counts[n]) for n in counts]
    return sorted(found, key=lambda p: (-p.talk_seconds, -p.turns, p.name))


def topics(segments: Sequence[TopicSegment], turns: Sequence[Utterance]) -> list[MinutesTopic]:
    """The topic timeline: each segment's span on the clock, its summary and its speakers."""
    if not turns:
        return []
    seqs = [u.id for u in turns]
    found = []
    for segment in sorted(segments, key=lambda s: (s.start_utterance_id, s.end_utterance_id)):
        inside = turns[bisect.bisect_left(seqs, segment.start_utterance_id):
                       bisect.bisect_right(seqs, segment.end_utterance_id)]
        if not inside:
            continue
        speakers = Counter(u.speaker_name for u in inside)
        found.append(MinutesTopic(
            title=segment.name, start=inside[0].absolute_timestamp, end=_end(inside[-1]),
            summary=segment.summary, first_seq=inside[0].id, last_seq=inside[-1].id,
            speakers=[name for name, _ in speakers.most_common()]))
    return found


def decisions(record: MeetingRecord | None, changes: Sequence[DecisionChange],
              past: dict[str, MeetingRecord], meetings: dict[str, MeetingInfo]) -> list[MinutesDecision]:
    """The meeting's decisions above the settle model's threshold, each change of an earlier
    decision on the line that made it (a change the record did not keep as a decision of its
    own is listed on its own line)."""
    earlier = {d.id: (d, r) for r in past.values() for d in r.decisions}
    by_seq = {c.seq: c for c in changes}
    found = []
    for d in (record.decisions if record else []):
        if d.candidate:
            continue
        change = by_seq.pop(d.seq, None)
        found.append(MinutesDecision(
            text=d.quote, value=d.value or None, quote=d.quote, speaker=d.speaker, time=d.time, seq=d.seq,
            confidence=d.confidence, changed_since_last=_previous(change, earlier, meetings)))
    for c in by_seq.values():
        found.append(MinutesDecision(text=c.quote, quote=c.quote, speaker=c.speaker, time=c.time, seq=c.seq,
                                     confidence=c.confidence, changed_since_last=_previous(c, earlier, meetings)))
    return sorted(found, key=lambda d: d.seq)


def _previous(change: DecisionChange | None, earlier: dict[str, tuple[Decision, MeetingRecord]],
              meetings: dict[str, MeetingInfo]) -> PreviousDecision | None:
    """The earlier decision a line changed, dated on its own meeting's calendar."""
    if change is None:
        return None
    info = meetings.get(change.past.meeting_id)
    title = info.title if info else None
    decision, record = earlier.get(change.decision_id, (None, None))
    if decision is None or record is None:  # its record is gone: the change's own quote of it
        day = local_date(info.started_at, info.zone) if info else change.time.date()
        return PreviousDecision(quote=change.past.quote, speaker="", meeting_id=change.past.meeting_id,
                                meeting_title=title, date=day, seq=change.past.seq)
    return PreviousDecision(value=decision.value or None, quote=decision.quote, speaker=decision.speaker,
                            meeting_id=record.meeting_id, meeting_title=title,
                            date=local_date(decision.time, record.zone), seq=decision.seq)


def action_items(record: MeetingRecord | None) -> list[MinutesActionItem]:
    """Who does what by when (the meeting's calendar), above the commitment model's threshold."""
    return [MinutesActionItem(task=a.task, owner=a.owner, due=a.due_date, due_text=a.due_text, speaker=a.speaker,
                              time=a.time, seq=a.seq, confidence=a.confidence)
            for a in (record.action_items if record else []) if not a.candidate]


def open_questions(record: MeetingRecord | None) -> list[MinutesQuestion]:
    return [MinutesQuestion(text=p.text, speaker=p.speaker, time=p.time, seq=p.seq)
            for p in (record.pending_items if record else [])]


def _end(turn: Utterance) -> datetime:
    return turn.absolute_timestamp + timedelta(milliseconds=max(0, turn.end_ms - turn.start_ms))


def _last_end(turns: Sequence[Utterance]) -> datetime | None:
    return _end(turns[-1]) if turns else None
