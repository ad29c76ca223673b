"""In-memory MeetingRepository: the embedded default for the demo and a reference for tests.

It keeps copies, never the manager's own objects, so a "restore" really rebuilds state.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from datetime import datetime

import numpy as np

from mithub.clock import meeting_timezone, on_meeting_clock, utc_now
from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState
from mithub.minutes.models import Minutes
from mithub.record.meeting_record import MeetingRecord
from mithub.record.models import DecisionChange
from mithub.store.records import MeetingInfo


class InMemoryRepository:
    def __init__(self) -> None:
        self._utterances: dict[str, dict[int, Utterance]] = {}
        self._order: dict[str, list[int]] = {}
        self._segments: dict[str, dict[str, TopicSegment]] = {}
        self._states: dict[str, ManagerState] = {}
        self._meetings: dict[str, MeetingInfo] = {}
        self._records: dict[str, MeetingRecord] = {}
        self._changes: dict[tuple[str, int], tuple[str, DecisionChange]] = {}
        self._minutes: dict[str, Minutes] = {}
        self.commits = 0

    # The meeting record and the changes detected live (the series ledger's sources).

    async def save_meeting_record(self, record: MeetingRecord) -> None:
        self._records[record.meeting_id] = record.model_copy(deep=True)

    async def series_records(self, series_id: str) -> list[MeetingRecord]:
        found = [r for r in self._records.values() if r.series_id == series_id]
        return sorted(found, key=lambda r: (r.started_at, r.meeting_id))

    async def save_decision_change(self, series_id: str, change: DecisionChange) -> None:
        self._changes[(change.meeting_id, change.seq)] = (series_id, change.model_copy(deep=True))

    async def series_changes(self, series_id: str) -> list[DecisionChange]:
        found = [c.model_copy() for s, c in self._changes.values() if s == series_id]
        for change in found:  # each on its own meeting's clock
            known = self._meetings.get(change.meeting_id)
            on_meeting_clock(change, known.zone if known else "UTC")
        return sorted(found, key=lambda c: (c.time, c.meeting_id, c.seq))

    # The minutes composed when the meeting ended.

    async def save_minutes(self, meeting_id: str, minutes: Minutes) -> None:
        self._minutes[meeting_id] = minutes.model_copy(deep=True)

    async def get_minutes(self, meeting_id: str) -> Minutes | None:
        found = self._minutes.get(meeting_id)
        return found.model_copy(deep=True) if found else None

    # The meeting catalog part the organisation's memory reads (a series of replays in one
    # process, as in the demo): identity, dates and the end of each meeting.

    async def ensure_meeting(
        self, meeting_id: str, *, title: str | None = None, series_id: str | None = None,
        started_at: datetime | None = None, timezone: str | None = None, reopen: bool = False,
    ) -> None:
        known = self._meetings.get(meeting_id)
        info = known or MeetingInfo(id=meeting_id, series_id=series_id or meeting_id, title=title,
                                    started_at=started_at or utc_now(),
                                    timezone=timezone or meeting_timezone())
        update = {k: v for k, v in (("title", title), ("series_id", series_id), ("timezone", timezone))
                  if v is not None}
        if reopen:
            update["ended_at"] = None
        self._meetings[meeting_id] = MeetingInfo.model_validate({**info.model_dump(), **update})

    async def end_meeting(self, meeting_id: str, *, at: datetime | None = None) -> None:
        await self.ensure_meeting(meeting_id)
        info = self._meetings[meeting_id]
        self._meetings[meeting_id] = MeetingInfo.model_validate({**info.model_dump(), "ended_at": at or utc_now()})

    async def meeting_info(self, meeting_id: str) -> MeetingInfo | None:
        return self._meetings.get(meeting_id)

    async def finished_meetings(self, series_id: str | None = None) -> list[MeetingInfo]:
        found = [m for m in self._meetings.values()
                 if m.ended_at is not None and series_id in (None, m.series_id)]
        return sorted(found, key=lambda m: (m.started_at, m.id))

    async def stored_vectors(self, meeting_id: str, model_id: str) -> dict[bytes, np.ndarray]:
        return {}  # nothing is stored in memory: the process-wide embedder cache has them

    async def append_utterances(self, meeting_id: str, utterances: Sequence[Utterance]) -> None:
        self._append(meeting_id, utterances)
        self.commits += 1

    def _append(self, meeting_id: str, utterances: Sequence[Utterance]) -> None:
        stored = self._utterances.setdefault(meeting_id, {})
        order = self._order.setdefault(meeting_id, [])
        for utterance in utterances:
            if utterance.id not in stored:
                stored[utterance.id] = utterance.model_copy()
                bisect.insort(order, utterance.id)

    async def save_l1_update(
        self,
        meeting_id: str,
        *,
        utterance: Utterance | None,
        segments: Sequence[TopicSegment],
        state: ManagerState,
    ) -> None:
        if utterance is not None:
            self._append(meeting_id, [utterance])
        stored = self._segments.setdefault(meeting_id, {})
        for segment in segments:
            stored[segment.id] = segment.model_copy(deep=True)
        self._states[meeting_id] = state.model_copy(deep=True)
        self.commits += 1

    async def load_state(self, meeting_id: str) -> tuple[ManagerState | None, list[TopicSegment]]:
        state = self._states.get(meeting_id)
        segments = sorted(self._segments.get(meeting_id, {}).values(), key=lambda s: s.start_utterance_id)
        return (state.model_copy(deep=True) if state else None,
                [s.model_copy(deep=True) for s in segments])

    async def get_utterances(
        self, meeting_id: str, *, after_seq: int = 0, until_seq: int | None = None,
        limit: int | None = None,
    ) -> list[Utterance]:
        order = self._order.get(meeting_id, [])
        start = bisect.bisect_right(order, after_seq)
        end = len(order) if until_seq is None else bisect.bisect_right(order, until_seq)
        seqs = order[start:end][:limit] if limit is not None else order[start:end]
        stored = self._utterances[meeting_id] if seqs else {}
        return [stored[s] for s in seqs]

    async def get_last_utterances(
        self, meeting_id: str, limit: int, *, until_seq: int | None = None,
        speaker_id: str | None = None,
    ) -> list[Utterance]:
        candidates = await self.get_utterances(meeting_id, until_seq=until_seq)
        if speaker_id is not None:
            candidates = [u for u in candidates if u.speaker_id == speaker_id]
        return candidates[-limit:] if limit > 0 else []

    async def get_speaker_ids(self, meeting_id: str, *, until_seq: int | None = None) -> list[str]:
        return list(dict.fromkeys(u.speaker_id for u in await self.get_utterances(meeting_id, until_seq=until_seq)))

    async def last_seq(self, meeting_id: str) -> int:
        order = self._order.get(meeting_id)
        return order[-1] if order else 0

    def meeting_ids(self) -> list[str]:
        return sorted(self._utterances)
