"""Alembic environment (async). The schema changes only through these migrations.

Runs three ways: `mithub db upgrade` / `mithub.store.migrate` hand over an open connection
(`config.attributes["connection"]`); the plain `alembic` command uses `sqlalchemy.url` from
alembic.ini or DATABASE_URL; `--sql` renders offline SQL.
"""

from __future__ import annotations

import asyncio

from alembic import context
from mithub.config import DatabaseConfig
from mithub.store.database import create_database
from mithub.store.tables import Base
from sqlalchemy import text
from sqlalchemy.engine import Connection

config = context.config
target_metadata = Base.metadata

# Any fixed number: serializes concurrent upgrades of one PostgreSQL database (two workers
# starting together), since each holds this lock for its whole migration transaction.
MIGRATION_LOCK_KEY = 7_316_402_551


def _database_url() -> str:
    return config.get_main_option("sqlalchemy.url") or DatabaseConfig().url


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",  # SQLite cannot ALTER most things
        compare_type=True,
    )


def do_run_migrations(connection: Connection) -> None:
    _configure(connection)
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(
                text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY}
            )
        context.run_migrations()


async def run_async_migrations() -> None:
    database = create_database(_database_url())
    try:
        async with database.engine.connect() as connection:
            await connection.run_sync(do_run_migrations)
            await connection.commit()
    finally:
        await database.dispose()


def run_migrations_offline() -> None:
    context.configure(
        url=_database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
elif (connection := config.attributes.get("connection")) is not None:
    do_run_migrations(connection)
else:
    asyncio.run(run_async_migrations())
