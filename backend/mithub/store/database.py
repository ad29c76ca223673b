"""Opening the meeting store: one async engine for SQLite (embedded) or PostgreSQL.

The same code path serves both; only connection set-up differs. SQLite gets WAL (readers
never block the writer), a busy timeout (a second process waits instead of failing) and
real transactions (pysqlite's implicit ones would not cover reads before a write).
"""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from contextlib import AbstractAsyncContextManager as AsyncContextManager
from typing import Any

import structlog
from sqlalchemy import event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from mithub.config import DatabaseConfig
from mithub.errors import ConfigError, StoreError

logger = structlog.get_logger(__name__)

SUPPORTED = ("sqlite+aiosqlite", "postgresql+asyncpg")
WRITE_OPTION = "mithub_write"  # execution option of `Database.begin()` connections
LOCK_WAIT_OPTION = "mithub_lock_wait_seconds"  # SQLite: how long that BEGIN waits for the lock
_BUSY_MS = "mithub_busy_timeout_ms"  # the connection's busy timeout now, in its `info`
# How long one attempt waits for SQLite's write lock before it looks again, without the lock,
# at what it waits for (the lease, the schema): SQLite's busy handler polls, so a process
# committing back to back can keep another one in it for the whole busy timeout.
LOCK_STEP_SECONDS = 0.1
_LOCKED = ("database is locked", "database is busy")


def is_locked(exc: BaseException) -> bool:
    """SQLite's "database is locked" / "database is busy": another process held the write
    lock for longer than the busy timeout."""
    return isinstance(exc, OperationalError) and any(text in str(exc.orig) for text in _LOCKED)


async def _use_wal(connection: Any, timeout_seconds: float) -> None:
    """PRAGMA journal_mode=WAL, waiting out another process that converts the same new file.

    Turning a rollback-journal file into WAL reads its header, then upgrades to a write lock.
    SQLite never calls the busy handler for that upgrade (waiting while holding the read lock
    could deadlock), so two processes opening a new file at once can get "database is locked"
    within a millisecond whatever the busy timeout: retry until DB_CONNECT_TIMEOUT_SECONDS. A
    file already in WAL answers at once."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_seconds
    delay = 0.005
    while True:
        try:
            async with connection.execute("PRAGMA journal_mode=WAL"):
                return
        except sqlite3.OperationalError as exc:
            if not any(text in str(exc) for text in _LOCKED) or loop.time() + delay > deadline:
                raise
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.1)


def parse_database_url(url: str) -> URL:
    """Validate a DATABASE_URL; the error names the two supported forms."""
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise ConfigError(
            f"DATABASE_URL {url!r} is not a database URL; use "
            "sqlite+aiosqlite:///PATH or postgresql+asyncpg://USER@HOST/DB"
        ) from exc
    if parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+asyncpg")
    if parsed.drivername not in SUPPORTED:
        raise ConfigError(
            f"DATABASE_URL driver {parsed.drivername!r} is not supported; use "
            "sqlite+aiosqlite:///PATH or postgresql+asyncpg://USER@HOST/DB"
        )
    if parsed.drivername.startswith("sqlite") and parsed.database in (None, "", ":memory:"):
        raise ConfigError(
            "an in-memory SQLite database is lost on exit; give a file path, "
            "e.g. sqlite+aiosqlite:///./data/mithub.db"
        )
    return parsed


@dataclass(frozen=True)
class Database:
    """An open store: the engine and what kind of database is behind it."""

    engine: AsyncEngine
    url: URL
    lock_wait_seconds: float = 5.0  # DB_CONNECT_TIMEOUT_SECONDS: SQLite's busy timeout

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @property
    def display_url(self) -> str:
        return self.url.render_as_string(hide_password=True)

    def begin(
        self, *, lock_wait_seconds: float | None = None
    ) -> AsyncContextManager[AsyncConnection]:
        """A write transaction. SQLite takes its write lock at BEGIN (IMMEDIATE), so a second
        process waits its busy timeout (`lock_wait_seconds`, else DB_CONNECT_TIMEOUT_SECONDS)
        for the lock; a deferred transaction that read first would instead fail at once with
        "database is locked" when another process wrote in between (its snapshot is stale)."""
        options: dict[str, Any] = {WRITE_OPTION: True}
        if lock_wait_seconds is not None:
            options[LOCK_WAIT_OPTION] = lock_wait_seconds
        return self.engine.execution_options(**options).begin()

    async def dispose(self) -> None:
        await self.engine.dispose()


def _sqlite_engine(url: URL, config: DatabaseConfig, *, create: bool) -> AsyncEngine:
    assert url.database is not None
    path = Path(url.database).expanduser()
    if not create and not path.is_file():
        # sqlite3 would create an empty file on connect: a command that only reads must not.
        raise StoreError(f"no database at {url.database}; replay a meeting with --database-url "
                         "first, run `mithub db upgrade`, or point DATABASE_URL at the right file")
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_async_engine(
        url,
        connect_args={"timeout": config.connect_timeout_seconds},
        pool_timeout=config.pool_timeout_seconds,
    )
    synchronous = config.sqlite_synchronous
    busy_ms = int(config.connect_timeout_seconds * 1000)

    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, record: Any) -> None:
        # Autocommit at the driver level; SQLAlchemy's "begin" event below opens the
        # transaction, so a transaction covers every statement, reads included.
        dbapi_connection.isolation_level = None
        dbapi_connection.run_async(lambda raw: _use_wal(raw, config.connect_timeout_seconds))
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA synchronous={synchronous}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={busy_ms}")
        cursor.close()
        record.info[_BUSY_MS] = busy_ms

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        options = connection.get_execution_options()
        wait = options.get(LOCK_WAIT_OPTION)
        wanted = busy_ms if wait is None else int(wait * 1000)
        if connection.info.get(_BUSY_MS) != wanted:
            connection.exec_driver_sql(f"PRAGMA busy_timeout={wanted}")
            connection.info[_BUSY_MS] = wanted
        connection.exec_driver_sql("BEGIN IMMEDIATE" if options.get(WRITE_OPTION) else "BEGIN")

    return engine


def _postgres_engine(url: URL, config: DatabaseConfig) -> AsyncEngine:
    return create_async_engine(
        url,
        pool_size=config.pool_size,
        max_overflow=config.max_overflow,
        pool_timeout=config.pool_timeout_seconds,
        connect_args={"timeout": config.connect_timeout_seconds},
    )


def create_database(url: str, config: DatabaseConfig | None = None, *, create: bool = True) -> Database:
    """An engine for `url` (no I/O yet). Apply migrations with `mithub.store.migrate`.
    `create=False` refuses a SQLite file that does not exist (StoreError) rather than making
    an empty one, for commands that only read."""
    config = config or DatabaseConfig()
    parsed = parse_database_url(url)
    if parsed.drivername.startswith("sqlite"):
        engine = _sqlite_engine(parsed, config, create=create)
    else:
        engine = _postgres_engine(parsed, config)
    return Database(engine=engine, url=parsed, lock_wait_seconds=config.connect_timeout_seconds)
