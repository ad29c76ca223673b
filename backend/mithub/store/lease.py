"""One writer per meeting: a lease row (meeting_id, owner, expires_at) with a heartbeat.

A row rather than a PostgreSQL advisory lock, so SQLite behaves the same and the lease
outlives a dropped connection (a database blip must not hand the meeting to a second
worker). The owner renews the lease every TTL/3 and on every write (see `fence`); anyone
may take a lease whose `expires_at` has passed, which is how another worker picks up the
meeting of a crashed one. Times are the workers' UTC clocks: keep them NTP-synchronised,
with a TTL far above their skew.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

import structlog
from sqlalchemy import bindparam, select
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection

from mithub.errors import LeaseError
from mithub.store.catalog import LEASES
from mithub.store.database import LOCK_STEP_SECONDS, is_locked

if TYPE_CHECKING:
    from mithub.store.catalog import SqlCatalog

logger = structlog.get_logger(__name__)


# Built once: it runs inside every fenced write.
_EXTEND = (
    LEASES.update()
    .where(LEASES.c.meeting_id == bindparam("m"), LEASES.c.owner == bindparam("me"))
    .values(heartbeat_at=bindparam("now"), expires_at=bindparam("expires"))
)


def default_owner() -> str:
    """host:pid:random — unique per process, readable in an error message."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


@dataclass
class MeetingLease:
    """A held lease. `release()` ends it; the heartbeat task renews it until then."""

    manager: LeaseManager
    meeting_id: str
    ttl_seconds: float
    lost: bool = False
    _heartbeat: asyncio.Task[None] | None = field(default=None, repr=False)

    def start_heartbeat(self) -> None:
        self._heartbeat = asyncio.create_task(
            self._beat(), name=f"lease-heartbeat-{self.meeting_id}"
        )

    async def _beat(self) -> None:
        interval = self.ttl_seconds / 3
        while True:
            await asyncio.sleep(interval)
            try:
                still_owner = await self.manager.renew(self.meeting_id)
            except Exception as exc:  # noqa: BLE001 - a failed heartbeat must not kill the worker
                logger.warning(
                    "meeting_lease_heartbeat_failed",
                    meeting_id=self.meeting_id,
                    error=f"{type(exc).__name__}: {exc}",
                )
                continue
            if not still_owner:
                self.lost = True
                logger.error(
                    "meeting_lease_lost", meeting_id=self.meeting_id, owner=self.manager.owner
                )
                return

    async def release(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._heartbeat
            self._heartbeat = None
        if not self.lost:
            await self.manager.release(self.meeting_id)


class LeaseManager:
    """Takes, renews, checks and releases meeting leases for one owner."""

    def __init__(self, catalog: SqlCatalog, owner: str) -> None:
        self._catalog = catalog
        self.owner = owner
        self.held: dict[str, float] = {}  # meeting_id -> TTL seconds

    def _now(self) -> datetime:
        return self._catalog._clock()

    async def acquire(
        self,
        meeting_id: str,
        *,
        ttl_seconds: float,
        wait_seconds: float = 0.0,
        heartbeat: bool = True,
        started_at: datetime | None = None,
    ) -> MeetingLease:
        """Take the meeting's lease, waiting up to `wait_seconds` for another owner's lease to
        expire. Raises LeaseError naming the owner and the expiry when it stays taken. A new
        meeting's row is made in the same transaction (starting at `started_at`, else now)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + max(wait_seconds, 0.0)
        while True:
            error = await self._try_acquire(meeting_id, ttl_seconds, started_at)
            if error is None:
                break
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise error
            logger.info("meeting_lease_wait", meeting_id=meeting_id, reason=str(error))
            await asyncio.sleep(min(remaining, max(ttl_seconds / 10, 0.1)))
        self.held[meeting_id] = ttl_seconds
        lease = MeetingLease(self, meeting_id, ttl_seconds)
        if heartbeat:
            lease.start_heartbeat()
        return lease

    async def _try_acquire(
        self, meeting_id: str, ttl_seconds: float, started_at: datetime | None
    ) -> LeaseError | None:
        """One attempt. A lease another owner holds is read without the write lock (WAL), so
        a second writer is told who writes the meeting however busy the file is; otherwise the
        lease is taken, waiting for SQLite's write lock in short steps and looking at the lease
        again between them, up to DB_CONNECT_TIMEOUT_SECONDS."""
        database = self._catalog.database
        loop = asyncio.get_running_loop()
        deadline = loop.time() + database.lock_wait_seconds
        while True:
            held = await self._held_elsewhere(meeting_id)
            if held is not None:
                return held
            step = min(LOCK_STEP_SECONDS, max(deadline - loop.time(), 0.0))
            try:
                return await self._take(meeting_id, ttl_seconds, started_at, lock_wait=step)
            except OperationalError as exc:
                if not is_locked(exc):
                    raise
                if loop.time() >= deadline:
                    return await self._busy_error(meeting_id)

    async def _held_elsewhere(self, meeting_id: str) -> LeaseError | None:
        """The lease error when another owner's lease on the meeting is live; a plain read."""
        async with self._catalog.database.engine.connect() as conn:
            row = (await conn.execute(select(LEASES).where(LEASES.c.meeting_id == meeting_id))).first()
            if row is not None and row.owner != self.owner and row.expires_at > self._now():
                return await self.describe(conn, meeting_id)
        return None

    async def _busy_error(self, meeting_id: str) -> LeaseError:
        """SQLite stayed locked past the busy timeout: another process is writing the file. The
        lease row is still readable (WAL), so the error names the meeting's writer if it has one."""
        held = await self._held_elsewhere(meeting_id)
        if held is not None:
            return held
        return LeaseError(
            f"meeting {meeting_id}: {self._catalog.database.display_url} stayed locked by another "
            "process writing it (DB_CONNECT_TIMEOUT_SECONDS); retry when it is done, or give this "
            "meeting its own database file")

    async def _take(
        self,
        meeting_id: str,
        ttl_seconds: float,
        started_at: datetime | None = None,
        *,
        lock_wait: float | None = None,
    ) -> LeaseError | None:
        now = self._now()
        values = {
            "meeting_id": meeting_id,
            "owner": self.owner,
            "acquired_at": now,
            "heartbeat_at": now,
            "expires_at": now + timedelta(seconds=ttl_seconds),
        }
        async with self._catalog.database.begin(lock_wait_seconds=lock_wait) as conn:
            await self._catalog._ensure_meeting(conn, meeting_id, started_at=started_at)
            before = (
                await conn.execute(select(LEASES).where(LEASES.c.meeting_id == meeting_id))
            ).first()
            statement = self._catalog._insert(LEASES).values(values)
            statement = statement.on_conflict_do_update(
                index_elements=["meeting_id"],
                set_={
                    k: statement.excluded[k]
                    for k in ("owner", "acquired_at", "heartbeat_at", "expires_at")
                },
                where=(LEASES.c.owner == self.owner) | (LEASES.c.expires_at <= now),
            )
            await conn.execute(statement)
            after = (
                await conn.execute(select(LEASES.c.owner).where(LEASES.c.meeting_id == meeting_id))
            ).scalar()
            if after != self.owner:
                return await self.describe(conn, meeting_id)
        if before is not None and before.owner != self.owner:
            logger.warning(
                "meeting_lease_taken_over",
                meeting_id=meeting_id,
                owner=self.owner,
                previous_owner=before.owner,
                expired_at=before.expires_at.isoformat(),
            )
        else:
            logger.info(
                "meeting_lease_acquired",
                meeting_id=meeting_id,
                owner=self.owner,
                ttl_seconds=ttl_seconds,
            )
        return None

    async def renew(self, meeting_id: str) -> bool:
        """Extend the lease if this owner still has it; False when it was taken over."""
        ttl = self.held.get(meeting_id)
        if ttl is None:
            return False
        async with self._catalog.database.begin() as conn:
            owned = await self._extend(conn, meeting_id, ttl)
        if not owned:
            self.held.pop(meeting_id, None)
        return owned

    async def _extend(self, conn: AsyncConnection, meeting_id: str, ttl: float) -> bool:
        now = self._now()
        result = await conn.execute(
            _EXTEND,
            {
                "m": meeting_id,
                "me": self.owner,
                "now": now,
                "expires": now + timedelta(seconds=ttl),
            },
        )
        return result.rowcount == 1

    async def fence(self, conn: AsyncConnection, meeting_id: str) -> None:
        """Inside a write transaction: renew this owner's lease or refuse the write. A no-op
        for meetings this process never leased (tools, tests, imports)."""
        ttl = self.held.get(meeting_id)
        if ttl is None:
            return
        if not await self._extend(conn, meeting_id, ttl):
            self.held.pop(meeting_id, None)
            raise await self.describe(conn, meeting_id, lost=True)

    async def release(self, meeting_id: str) -> None:
        self.held.pop(meeting_id, None)
        async with self._catalog.database.begin() as conn:
            await conn.execute(
                LEASES.delete().where(
                    LEASES.c.meeting_id == meeting_id, LEASES.c.owner == self.owner
                )
            )
        logger.info("meeting_lease_released", meeting_id=meeting_id, owner=self.owner)

    async def describe(
        self, conn: AsyncConnection, meeting_id: str, *, lost: bool = False
    ) -> LeaseError:
        row = (await conn.execute(select(LEASES).where(LEASES.c.meeting_id == meeting_id))).first()
        if row is None:
            return LeaseError(
                f"meeting {meeting_id}: this worker ({self.owner}) no longer holds its "
                "writer lease (released); attach to the meeting again"
            )
        seconds = (row.expires_at - self._now()).total_seconds()
        when = (
            f"{row.expires_at.isoformat()} ({seconds:.0f} s from now)"
            if seconds > 0
            else f"{row.expires_at.isoformat()} (expired)"
        )
        if lost:
            return LeaseError(
                f"meeting {meeting_id}: this worker ({self.owner}) lost its writer lease to "
                f"{row.owner}, whose lease expires {when}; nothing more was written here - the "
                "meeting continues on that worker"
            )
        return LeaseError(
            f"meeting {meeting_id} is being written by {row.owner}; its lease expires {when}. "
            "Stop that worker, or retry after the lease expires (a crashed worker's lease "
            "lapses by itself)"
        )
