"""The SQL MeetingRepository (SQLite or PostgreSQL): the ContextManager's source of truth.

Write-through: each call is one transaction, committed before it returns, so an utterance
is durable when `add_utterance` returns and an L1 update lands together with its trigger
utterance and the manager state. Utterance inserts are `ON CONFLICT DO NOTHING` on
(meeting_id, seq): a resumed replay writing the same turns again changes nothing.

Fencing: once this repository holds a meeting's writer lease (`acquire_lease`), every write
to that meeting first renews the lease row *in the same transaction*, conditioned on still
owning it. A worker that lost its lease (paused past expiry, taken over) therefore cannot
write a single row more; it gets a LeaseError and its transaction rolls back.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np
import structlog
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from mithub.clock import Clock, utc_now
from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState
from mithub.store.catalog import SEGMENTS, STATES, UTTERANCES
from mithub.store.codec import (
    segment_from_row,
    segment_values,
    state_from_row,
    state_values,
    utterance_from_row,
    utterance_values,
)
from mithub.store.database import Database
from mithub.store.embedding_cache import stored_vectors
from mithub.store.lease import LeaseManager, MeetingLease, default_owner
from mithub.store.metrics import DB_WRITE_SECONDS
from mithub.store.pg_fast import PG_FENCED_INSERT_UTTERANCE, PG_INSERT_UTTERANCE
from mithub.store.record_store import SqlRecordStore

logger = structlog.get_logger(__name__)


class SqlRepository(SqlRecordStore):
    """MeetingRepository + MeetingCatalog + meeting records + writer leases over one `Database`."""

    def __init__(
        self, database: Database, *, owner: str | None = None, clock: Clock = utc_now
    ) -> None:
        super().__init__(database, clock=clock)
        self.leases = LeaseManager(self, owner or default_owner())
        # Built once: it runs in every write-through.
        self._insert_utterance = self._insert(UTTERANCES).on_conflict_do_nothing(
            index_elements=["meeting_id", "seq"]
        )
        self._one_statement = database.dialect == "postgresql"
        self._autocommit = database.engine.execution_options(isolation_level="AUTOCOMMIT")

    async def stored_vectors(self, meeting_id: str, model_id: str) -> dict[bytes, np.ndarray]:
        return await stored_vectors(self, meeting_id, model_id)

    @property
    def owner(self) -> str:
        return self.leases.owner

    async def acquire_lease(
        self,
        meeting_id: str,
        *,
        ttl_seconds: float,
        wait_seconds: float = 0.0,
        heartbeat: bool = True,
        started_at: datetime | None = None,
    ) -> MeetingLease:
        """Become the meeting's only writer (see `mithub.store.lease`)."""
        return await self.leases.acquire(
            meeting_id, ttl_seconds=ttl_seconds, wait_seconds=wait_seconds, heartbeat=heartbeat,
            started_at=started_at,
        )

    # ------------------------------------------------------------------ writes

    async def append_utterances(self, meeting_id: str, utterances: Sequence[Utterance]) -> None:
        if not utterances:
            return
        started = time.perf_counter()
        if self._one_statement and len(utterances) == 1 and meeting_id in self._known_meetings:
            await self._append_one_postgres(meeting_id, utterances[0])
        else:
            async with self.database.begin() as conn:
                await self.leases.fence(conn, meeting_id)
                await self._ensure_meeting(conn, meeting_id)
                await self._insert_utterances(conn, meeting_id, utterances)
        DB_WRITE_SECONDS.labels(operation="append_utterances").observe(
            time.perf_counter() - started
        )

    async def _append_one_postgres(self, meeting_id: str, utterance: Utterance) -> None:
        """The live path on PostgreSQL: fence and insert in one autocommit statement, one
        round trip instead of four (see `pg_fast`)."""
        values = utterance_values(meeting_id, utterance, self._clock())
        ttl = self.leases.held.get(meeting_id)
        async with self._autocommit.connect() as conn:
            if ttl is None:
                await conn.execute(PG_INSERT_UTTERANCE, values)
                return
            now = self._clock()
            fenced = await conn.execute(
                PG_FENCED_INSERT_UTTERANCE,
                {
                    **values,
                    "owner": self.owner,
                    "now": now,
                    "expires": now + timedelta(seconds=ttl),
                },
            )
            if fenced.scalar() != 1:
                self.leases.held.pop(meeting_id, None)
                raise await self.leases.describe(conn, meeting_id, lost=True)

    async def save_l1_update(
        self,
        meeting_id: str,
        *,
        utterance: Utterance | None,
        segments: Sequence[TopicSegment],
        state: ManagerState,
    ) -> None:
        started = time.perf_counter()
        async with self.database.begin() as conn:
            await self.leases.fence(conn, meeting_id)
            await self._ensure_meeting(conn, meeting_id)
            if utterance is not None:
                await self._insert_utterances(conn, meeting_id, [utterance])
            for segment in segments:
                await conn.execute(
                    self._upsert(
                        SEGMENTS, segment_values(meeting_id, segment), ("meeting_id", "segment_id")
                    )
                )
            await conn.execute(
                self._upsert(STATES, state_values(state, self._clock()), ("meeting_id",))
            )
        DB_WRITE_SECONDS.labels(operation="save_l1_update").observe(time.perf_counter() - started)

    async def _insert_utterances(
        self, conn: AsyncConnection, meeting_id: str, utterances: Sequence[Utterance]
    ) -> None:
        now = self._clock()
        rows = [utterance_values(meeting_id, u, now) for u in utterances]
        await conn.execute(self._insert_utterance, rows)

    # ------------------------------------------------------------------ reads

    async def load_state(self, meeting_id: str) -> tuple[ManagerState | None, list[TopicSegment]]:
        async with self.database.engine.connect() as conn:
            state_row = (
                await conn.execute(select(STATES).where(STATES.c.meeting_id == meeting_id))
            ).first()
            segment_rows = (
                await conn.execute(
                    select(SEGMENTS)
                    .where(SEGMENTS.c.meeting_id == meeting_id)
                    .order_by(SEGMENTS.c.start_seq)
                )
            ).all()
        state = state_from_row(state_row) if state_row is not None else None
        return state, [segment_from_row(r) for r in segment_rows]

    async def get_utterances(
        self,
        meeting_id: str,
        *,
        after_seq: int = 0,
        until_seq: int | None = None,
        limit: int | None = None,
    ) -> list[Utterance]:
        query = (
            select(UTTERANCES)
            .where(UTTERANCES.c.meeting_id == meeting_id, UTTERANCES.c.seq > after_seq)
            .order_by(UTTERANCES.c.seq)
        )
        if until_seq is not None:
            query = query.where(UTTERANCES.c.seq <= until_seq)
        if limit is not None:
            query = query.limit(limit)
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [utterance_from_row(r) for r in rows]

    async def get_last_utterances(
        self,
        meeting_id: str,
        limit: int,
        *,
        until_seq: int | None = None,
        speaker_id: str | None = None,
    ) -> list[Utterance]:
        if limit <= 0:
            return []
        query = (
            select(UTTERANCES)
            .where(UTTERANCES.c.meeting_id == meeting_id)
            .order_by(UTTERANCES.c.seq.desc())
            .limit(limit)
        )
        if until_seq is not None:
            query = query.where(UTTERANCES.c.seq <= until_seq)
        if speaker_id is not None:
            query = query.where(UTTERANCES.c.speaker_id == speaker_id)
        async with self.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        return [utterance_from_row(r) for r in reversed(rows)]

    async def get_speaker_ids(self, meeting_id: str, *, until_seq: int | None = None) -> list[str]:
        """Speakers in order of their first utterance (as the in-memory repository)."""
        first = func.min(UTTERANCES.c.seq)
        query = (
            select(UTTERANCES.c.speaker_id, first.label("first"))
            .where(UTTERANCES.c.meeting_id == meeting_id)
            .group_by(UTTERANCES.c.speaker_id)
            .order_by(first)
        )
        if until_seq is not None:
            query = query.where(UTTERANCES.c.seq <= until_seq)
        async with self.database.engine.connect() as conn:
            return [row.speaker_id for row in (await conn.execute(query)).all()]

    async def last_seq(self, meeting_id: str) -> int:
        query = select(func.max(UTTERANCES.c.seq)).where(UTTERANCES.c.meeting_id == meeting_id)
        async with self.database.engine.connect() as conn:
            return int((await conn.execute(query)).scalar() or 0)

    async def count_utterances(self, meeting_id: str) -> int:
        query = (
            select(func.count())
            .select_from(UTTERANCES)
            .where(UTTERANCES.c.meeting_id == meeting_id)
        )
        async with self.database.engine.connect() as conn:
            return int((await conn.execute(query)).scalar() or 0)
