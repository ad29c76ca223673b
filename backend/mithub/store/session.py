"""Attaching a writer to one meeting: open the store, take the meeting's lease, and hand out
the repository a ContextManager writes through. Used by the replay CLI and the worker.

    async with attach_meeting(url, "m1") as session:
        manager = create_context_manager("m1", session.repository)
        await manager.restore_from_db()
        ...

On exit every accepted write is flushed (waiting out an outage), then the lease is released
so another worker may take the meeting at once; after a crash the lease lapses by itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

import structlog

from mithub.config import DatabaseConfig, get_database_config
from mithub.store.database import Database
from mithub.store.lease import MeetingLease
from mithub.store.open import meeting_repository, open_database
from mithub.store.resilient import ResilientRepository

logger = structlog.get_logger(__name__)


@dataclass
class MeetingSession:
    meeting_id: str
    database: Database
    repository: ResilientRepository
    lease: MeetingLease


def lease_wait_seconds(config: DatabaseConfig) -> float:
    """Default wait for another writer's lease: long enough for a crashed one's to lapse."""
    if config.lease_wait_seconds >= 0:
        return config.lease_wait_seconds
    return config.lease_ttl_seconds + 5.0


@asynccontextmanager
async def attach_meeting(
    url: str | None, meeting_id: str, *, title: str | None = None,
    wait_seconds: float | None = None, config: DatabaseConfig | None = None,
) -> AsyncIterator[MeetingSession]:
    config = config or get_database_config()
    database = await open_database(url, config)
    try:
        repository = meeting_repository(database, config)
        await repository.inner.ensure_meeting(meeting_id, title=title)
        lease = await repository.inner.acquire_lease(
            meeting_id, ttl_seconds=config.lease_ttl_seconds,
            wait_seconds=lease_wait_seconds(config) if wait_seconds is None else wait_seconds,
        )
        try:
            yield MeetingSession(meeting_id, database, repository, lease)
            await repository.drain()
        finally:
            await _release(lease, meeting_id)
    finally:
        await database.dispose()


async def _release(lease: MeetingLease, meeting_id: str) -> None:
    try:
        await lease.release()
    except Exception as exc:  # noqa: BLE001 - the lease lapses by itself; say so and go on
        logger.warning("meeting_lease_release_failed", meeting_id=meeting_id,
                       error=f"{type(exc).__name__}: {exc}")
