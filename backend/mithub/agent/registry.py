"""Meeting sessions by id. A process that owns a meeting (the worker) attaches its live
session; any other process (the API) gets a read-only replica restored from the store, and
a fresh one as soon as the store holds turns the replica has not seen."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from mithub.agent.session import MeetingSession
from mithub.context.builder import ContextBuilder
from mithub.context.manager import ContextManager
from mithub.context.repository import MeetingRepository
from mithub.errors import MitHubError
from mithub.store.readonly import ReadOnlyRepository

ManagerFactory = Callable[[str, MeetingRepository], ContextManager]


class UnknownMeetingError(MitHubError):
    def __init__(self, meeting_id: str) -> None:
        super().__init__(f"meeting {meeting_id!r} has no stored utterances; check the id "
                         "(`mithub meetings list`) or wait until someone has spoken")
        self.meeting_id = meeting_id


class SessionRegistry:
    def __init__(
        self, repository: MeetingRepository, manager_factory: ManagerFactory, builder: ContextBuilder
    ) -> None:
        self._repository = repository
        self._factory = manager_factory
        self._builder = builder
        self._sessions: dict[str, MeetingSession] = {}
        self._live: set[str] = set()
        self._lock = asyncio.Lock()

    def attach(self, session: MeetingSession) -> None:
        """Register the writer's own session: it is always current, never replaced."""
        self._sessions[session.meeting_id] = session
        self._live.add(session.meeting_id)

    def detach(self, meeting_id: str) -> None:
        self._live.discard(meeting_id)
        self._sessions.pop(meeting_id, None)

    async def get(self, meeting_id: str) -> MeetingSession:
        if meeting_id in self._live:
            return self._sessions[meeting_id]
        async with self._lock:
            stored = await self._repository.last_seq(meeting_id)
            if stored == 0:
                raise UnknownMeetingError(meeting_id)
            current = self._sessions.get(meeting_id)
            if current is not None and current.manager.last_seq >= stored:
                return current
            manager = self._factory(meeting_id, ReadOnlyRepository(self._repository))
            await manager.restore_from_db(warm_detector=False)  # a replica never ingests
            transcript = current.transcript if current else self._builder.new_transcript_index()
            info = await self._repository.meeting_info(meeting_id) \
                if hasattr(self._repository, "meeting_info") else None
            session = MeetingSession(manager, self._repository, transcript,
                                     series_id=info.series_id if info else None,
                                     started_at=info.started_at if info else None,
                                     prepared=getattr(self._builder.past, "prepared", None))
            self._sessions[meeting_id] = session
            return session
