"""Opening the store for a process: engine, schema check, repository stack.

`open_database` applies pending migrations (DB_AUTO_MIGRATE, the default) or refuses a
database whose schema is behind; `meeting_repository` builds the SQL repository wrapped in
the outage-tolerant `ResilientRepository`, which is what a ContextManager writes through.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from mithub.config import DatabaseConfig, get_database_config
from mithub.errors import StoreError
from mithub.store.availability import is_unavailable
from mithub.store.database import Database, create_database, is_locked
from mithub.store.migrate import require_schema, upgrade
from mithub.store.resilient import ResilientRepository
from mithub.store.sql import SqlRepository

T = TypeVar("T")


async def reach(database: Database, operation: Awaitable[T]) -> T:
    """Await a database operation; "cannot connect" becomes one clear StoreError."""
    try:
        return await operation
    except Exception as exc:
        if is_locked(exc):
            raise StoreError(
                f"{database.display_url} is locked: another process kept writing it for longer "
                "than DB_CONNECT_TIMEOUT_SECONDS; retry when it is done"
            ) from exc
        if is_unavailable(exc):
            raise StoreError(
                f"cannot reach the database at {database.display_url} "
                f"({type(exc).__name__}: {exc}); check DATABASE_URL and that the "
                "server is running"
            ) from exc
        raise


async def open_database(
    url: str | None = None, config: DatabaseConfig | None = None, *, create: bool = True
) -> Database:
    """Open and migrate (or check) the store. `create=False` refuses to start a new SQLite
    file, for commands that only read."""
    config = config or get_database_config()
    database = create_database(url or config.url, config, create=create)
    try:
        await reach(
            database, upgrade(database) if config.auto_migrate else require_schema(database)
        )
    except BaseException:
        await database.dispose()
        raise
    return database


def meeting_repository(
    database: Database, config: DatabaseConfig | None = None, *, owner: str | None = None
) -> ResilientRepository:
    config = config or get_database_config()
    return ResilientRepository(
        SqlRepository(database, owner=owner),
        max_queued_utterances=config.write_queue_max,
        retry_initial_seconds=config.retry_initial_seconds,
        retry_max_seconds=config.retry_max_seconds,
    )
