"""A meeting as the agent pipeline sees it: its ContextManager and the search index over its
stored transcript, kept in step with the store before every call."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import date, datetime

import structlog

from mithub.context.manager import ContextManager
from mithub.context.repository import MeetingRepository
from mithub.context.models import Utterance
from mithub.context.transcript_index import TranscriptIndex
from mithub.memory.cache import CachedMeeting
from mithub.record.meeting_record import EarlierSource, MeetingRecord, earlier_meetings, extract_record

Prepared = Callable[[str, str], CachedMeeting | None]
logger = structlog.get_logger(__name__)


class MeetingSession:
    def __init__(
        self, manager: ContextManager, repository: MeetingRepository, transcript: TranscriptIndex,
        *, series_id: str | None = None, started_at: datetime | None = None,
        prepared: Prepared | None = None,
    ) -> None:
        """`prepared(meeting_id, model_id)` gives a finished meeting's turns with their vectors
        and search tokens as the organisation memory holds them (None if it holds none)."""
        self.manager = manager
        self.series_id = series_id
        self.started_at = started_at
        self._record: MeetingRecord | None = None
        self._earlier: list[tuple[date, list[Utterance]]] | None = None
        self.repository = repository
        self.transcript = transcript
        self._prepared = prepared
        self._lock = asyncio.Lock()

    @property
    def meeting_id(self) -> str:
        return self.manager.meeting_id

    async def sync_transcript(self) -> int:
        """Index the turns stored since the last call; returns how many were added."""
        async with self._lock:
            fresh = await self.repository.get_utterances(self.meeting_id, after_seq=self.transcript.last_seq)
            if fresh:
                await asyncio.to_thread(self._index, fresh)
            return len(fresh)

    def _index(self, fresh: list[Utterance]) -> None:
        cached = None
        if self._prepared is not None and self.transcript.last_seq == 0:
            cached = self._prepared(self.meeting_id, self.transcript.model_id)
        held = len(cached.utterances) if cached is not None else 0
        if cached is not None and held <= len(fresh) and all(
                a.id == b.id and a.text == b.text and a.speaker_name == b.speaker_name
                for a, b in zip(cached.utterances, fresh, strict=False)):
            self.transcript.add(fresh[:held], vectors=cached.vectors, tokens=cached.tokens)
            fresh = fresh[held:]
        self.transcript.add(fresh)

    async def meeting_record(self, records: EarlierSource | None = None) -> MeetingRecord | None:
        """What the meeting has settled so far (decisions, action items, pending items),
        extracted from its transcript LLM-free; again only when new turns came in. `records`:
        the store of the series' finished meetings, whose dated events a deadline today may
        hang on ("출시 2주 전까지"), as in the record stored when the meeting ends."""
        turns = self.transcript.utterances
        if not turns:
            return None
        if self._record is None or self._record.last_seq != turns[-1].id:
            started = self.started_at or turns[0].absolute_timestamp
            earlier = await self._earlier_meetings(records)
            self._record = await asyncio.to_thread(
                extract_record, self.meeting_id, self.series_id or self.meeting_id, started, turns, earlier=earlier)
        return self._record

    async def _earlier_meetings(self, records: EarlierSource | None) -> list[tuple[date, list[Utterance]]]:
        """The series' earlier meetings, read once: they are finished and do not change while
        this one runs. Unreadable, the record goes on without them."""
        if self._earlier is not None or records is None or self.series_id is None:
            return self._earlier or []
        try:
            started = self.started_at or self.transcript.utterances[0].absolute_timestamp
            self._earlier = await earlier_meetings(records, self.series_id, self.meeting_id, started)
        except Exception as exc:  # noqa: BLE001 - deadlines on earlier events stay undated
            logger.warning("earlier_meetings_unavailable", meeting_id=self.meeting_id, error=str(exc))
            self._earlier = []
        return self._earlier
