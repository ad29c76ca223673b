"""Attaching a writer to one meeting: open the store, take the meeting's lease, and hand out
the repository a ContextManager writes through. Used by the replay CLI and the worker.

    async with attach_meeting(url, "m1") as session:
        embedder = await session.meeting_embedder(load_embedder(config.embedding_model))
        manager = create_context_manager("m1", session.repository, embedder=embedder)
        await manager.restore_from_db()
        ...

On exit every accepted write is flushed (waiting out an outage), then the lease is released
so another worker may take the meeting at once; after a crash the lease lapses by itself.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime

import structlog

from mithub.config import DatabaseConfig, get_database_config
from mithub.embedders.base import Embedder
from mithub.store.database import Database
from mithub.store.embedding_cache import MeetingEmbeddings
from mithub.store.lease import MeetingLease
from mithub.store.open import meeting_repository, open_database, reach
from mithub.store.resilient import ResilientRepository

logger = structlog.get_logger(__name__)


EMBEDDING_FLUSH_SECONDS = 2.0


@dataclass
class AttachedMeeting:
    meeting_id: str
    database: Database
    repository: ResilientRepository
    lease: MeetingLease
    embedding_cache: bool = True
    _embeddings: MeetingEmbeddings | None = field(default=None, repr=False)
    _flusher: asyncio.Task[None] | None = field(default=None, repr=False)

    async def meeting_embedder(self, inner: Embedder) -> Embedder:
        """The embedder for this meeting's manager: `inner`, backed by the store's embedding
        cache (DB_EMBEDDING_CACHE) with the meeting's recent vectors loaded, so a restore
        embeds almost nothing. New vectors are saved in the background."""
        if not self.embedding_cache:
            return inner
        if self._embeddings is None:
            store = self.repository.inner
            self._embeddings = MeetingEmbeddings(inner, store, self.meeting_id)
            loaded = await self._embeddings.preload(await store.last_seq(self.meeting_id))
            logger.info("embedding_cache_loaded", meeting_id=self.meeting_id, vectors=loaded)
            self._flusher = asyncio.create_task(self._flush_every(EMBEDDING_FLUSH_SECONDS))
        return self._embeddings

    async def _flush_every(self, seconds: float) -> None:
        while True:
            await asyncio.sleep(seconds)
            await self.flush_embeddings()

    async def flush_embeddings(self) -> None:
        if self._embeddings is None:
            return
        try:
            seq = await self.repository.inner.last_seq(self.meeting_id)
            await self._embeddings.flush(seq)
        except Exception as exc:  # noqa: BLE001 - a cache: the vectors are computed again if lost
            logger.info(
                "embedding_cache_flush_failed",
                meeting_id=self.meeting_id,
                error=f"{type(exc).__name__}: {exc}",
            )

    async def close_embeddings(self) -> None:
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
            self._flusher = None
        await self.flush_embeddings()


def lease_wait_seconds(config: DatabaseConfig) -> float:
    """Default wait for another writer's lease: long enough for a crashed one's to lapse."""
    if config.lease_wait_seconds >= 0:
        return config.lease_wait_seconds
    return config.lease_ttl_seconds + 5.0


@asynccontextmanager
async def attach_meeting(
    url: str | None,
    meeting_id: str,
    *,
    title: str | None = None,
    series_id: str | None = None,
    started_at: datetime | None = None,
    timezone: str | None = None,
    wait_seconds: float | None = None,
    config: DatabaseConfig | None = None,
) -> AsyncIterator[AttachedMeeting]:
    config = config or get_database_config()
    database = await open_database(url, config)
    try:
        repository = meeting_repository(database, config)
        # The lease comes first, in one short transaction that also makes a new meeting's row:
        # a second writer touches nothing of the meeting before it is told who writes it.
        lease = await repository.inner.acquire_lease(
            meeting_id,
            ttl_seconds=config.lease_ttl_seconds,
            wait_seconds=lease_wait_seconds(config) if wait_seconds is None else wait_seconds,
            started_at=started_at,
        )
        session = AttachedMeeting(
            meeting_id, database, repository, lease, embedding_cache=config.embedding_cache
        )
        try:
            # A writer attaching to a finalized meeting continues it (a restarted job whose
            # room still lives): it is no longer finished until it ends again.
            await reach(database, repository.inner.ensure_meeting(
                meeting_id, title=title, series_id=series_id, started_at=started_at,
                timezone=timezone, reopen=True))
            yield session
            await repository.drain()
        finally:
            await session.close_embeddings()
            await _release(lease, meeting_id)
    finally:
        await database.dispose()


async def _release(lease: MeetingLease, meeting_id: str) -> None:
    try:
        await lease.release()
    except Exception as exc:  # noqa: BLE001 - the lease lapses by itself; say so and go on
        logger.warning(
            "meeting_lease_release_failed",
            meeting_id=meeting_id,
            error=f"{type(exc).__name__}: {exc}",
        )
