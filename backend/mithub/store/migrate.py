"""Alembic migrations run from code (`mithub db upgrade`, stores opened with auto-migrate).

The migrations live in the top-level `migrations/` folder; the Alembic config is built here,
so no alembic.ini or working directory is needed.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import structlog
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection

from mithub.errors import StoreError
from mithub.store.database import (
    LOCK_STEP_SECONDS,
    LOCK_WAIT_OPTION,
    WRITE_OPTION,
    Database,
    is_locked,
)

logger = structlog.get_logger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parents[3] / "migrations"


def alembic_config(url: str | None = None) -> Config:
    if not (MIGRATIONS_DIR / "env.py").is_file():
        raise StoreError(
            f"migrations not found at {MIGRATIONS_DIR}; run mithub from a source "
            "checkout or an editable install (pip install -e .)"
        )
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    if url is not None:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "migrations/versions holds no revision"
    return head


def _current(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


async def current_revision(database: Database) -> str | None:
    async with database.engine.connect() as connection:
        return await connection.run_sync(_current)


# Alembic keeps the running migration's context in module globals: two upgrades at once in
# one process (meetings starting together in a worker's job threads) would mix them up.
_UPGRADE_LOCK = threading.Lock()


async def upgrade(database: Database, revision: str = "head") -> tuple[str | None, str]:
    """Apply migrations up to `revision`. Returns (revision before, revision after)."""
    await asyncio.to_thread(_UPGRADE_LOCK.acquire)
    try:
        if revision != "head":
            return await _upgrade(database, revision)
        return await _upgrade_to_head(database)
    finally:
        _UPGRADE_LOCK.release()


async def _upgrade_to_head(database: Database) -> tuple[str | None, str]:
    """A store already at head needs no write lock: a second process opening a meeting's SQLite
    file while the first one writes it must reach the lease check (which names the writer),
    not wait for the write lock the first one keeps taking. Two processes migrating a new file
    at once: the one that waits takes the lock in short steps and looks at the revision
    between them (a plain read), so it finds the schema the other one made even while that
    one goes on writing back to back (SQLite's busy handler polls and can starve)."""
    head = head_revision()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + database.lock_wait_seconds
    locked: Exception | None = None
    while True:
        if await current_revision(database) == head:
            return head, head
        if locked is not None and loop.time() >= deadline:
            raise locked
        step = min(LOCK_STEP_SECONDS, max(deadline - loop.time(), 0.0))
        try:
            return await _upgrade(database, "head", lock_wait=step)
        except Exception as exc:
            if not is_locked(exc):
                raise
            locked = exc


async def _upgrade(
    database: Database, revision: str, *, lock_wait: float | None = None
) -> tuple[str | None, str]:
    config = alembic_config()
    scripts = ScriptDirectory.from_config(config)

    def _run(connection: Connection) -> tuple[str | None, str]:
        before = _current(connection)
        if before is not None and scripts.get_revision(before) is None:
            raise StoreError(
                f"{database.display_url} is at schema revision {before}, which this version of "
                "MitHub does not know; upgrade MitHub or point DATABASE_URL elsewhere"
            )
        config.attributes["connection"] = connection
        command.upgrade(config, revision)
        return before, _current(connection) or ""

    async with database.engine.connect() as connection:
        sqlite = database.dialect == "sqlite"
        if sqlite:
            await _sqlite_foreign_keys(connection, on=False)
        try:
            options: dict[str, object] = {WRITE_OPTION: True}
            if lock_wait is not None:
                options[LOCK_WAIT_OPTION] = lock_wait
            writer = await connection.execution_options(**options)
            async with writer.begin():
                before, after = await writer.run_sync(_run)
        finally:
            if sqlite:
                await _sqlite_foreign_keys(connection, on=True)
    if before != after:
        logger.info(
            "db_migrated", url=database.display_url, from_revision=before, to_revision=after
        )
    return before, after


async def _sqlite_foreign_keys(connection: AsyncConnection, *, on: bool) -> None:
    """SQLite changes a column by rebuilding its table, and dropping the old table with
    foreign keys on deletes every row that points at it (ON DELETE CASCADE): a migration runs
    with them off. The pragma is ignored inside a transaction, so it goes to the driver
    before SQLAlchemy begins one."""
    raw = await connection.get_raw_connection()
    await raw.driver_connection.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")


async def require_schema(database: Database) -> None:
    current = await current_revision(database)
    head = head_revision()
    if current != head:
        raise StoreError(
            f"{database.display_url} schema is at {current or 'no revision'}, "
            f"expected {head}; run `mithub db upgrade --database-url URL`"
        )
