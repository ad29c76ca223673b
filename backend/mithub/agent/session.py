"""A meeting as the agent pipeline sees it: its ContextManager and the search index over its
stored transcript, kept in step with the store before every call."""

from __future__ import annotations

import asyncio
from datetime import datetime

from mithub.context.manager import ContextManager
from mithub.context.repository import MeetingRepository
from mithub.context.transcript_index import TranscriptIndex
from mithub.record.meeting_record import MeetingRecord, extract_record


class MeetingSession:
    def __init__(
        self, manager: ContextManager, repository: MeetingRepository, transcript: TranscriptIndex,
        *, series_id: str | None = None, started_at: datetime | None = None,
    ) -> None:
        self.manager = manager
        self.series_id = series_id
        self.started_at = started_at
        self._record: MeetingRecord | None = None
        self.repository = repository
        self.transcript = transcript
        self._lock = asyncio.Lock()

    @property
    def meeting_id(self) -> str:
        return self.manager.meeting_id

    async def sync_transcript(self) -> int:
        """Index the turns stored since the last call; returns how many were added."""
        async with self._lock:
            fresh = await self.repository.get_utterances(self.meeting_id, after_seq=self.transcript.last_seq)
            if fresh:
                await asyncio.to_thread(self.transcript.add, fresh)
            return len(fresh)

    async def meeting_record(self) -> MeetingRecord | None:
        """What the meeting has settled so far (decisions, action items, pending items),
        extracted from its transcript LLM-free; again only when new turns came in."""
        turns = self.transcript.utterances
        if not turns:
            return None
        if self._record is None or self._record.last_seq != turns[-1].id:
            started = self.started_at or turns[0].absolute_timestamp
            self._record = await asyncio.to_thread(
                extract_record, self.meeting_id, self.series_id or self.meeting_id, started, turns)
        return self._record
