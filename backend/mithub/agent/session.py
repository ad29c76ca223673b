"""A meeting as the agent pipeline sees it: its ContextManager and the search index over its
stored transcript, kept in step with the store before every call."""

from __future__ import annotations

import asyncio

from mithub.context.manager import ContextManager
from mithub.context.repository import MeetingRepository
from mithub.context.transcript_index import TranscriptIndex


class MeetingSession:
    def __init__(
        self, manager: ContextManager, repository: MeetingRepository, transcript: TranscriptIndex,
        *, series_id: str | None = None,
    ) -> None:
        self.manager = manager
        self.series_id = series_id
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
