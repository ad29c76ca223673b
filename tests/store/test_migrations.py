"""The schema comes only from the Alembic migrations, and they match the models."""

from __future__ import annotations

import asyncio

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from mithub.config import DatabaseConfig
from mithub.errors import StoreError
from mithub.store.database import create_database
from mithub.store.migrate import current_revision, head_revision, upgrade
from mithub.store.open import open_database
from mithub.store.tables import Base
from sqlalchemy import inspect


def _diff(connection):
    context = MigrationContext.configure(connection, opts={"compare_type": True})
    return compare_metadata(context, Base.metadata)


async def test_models_and_migrations_agree(database):
    async with database.engine.connect() as connection:
        assert await connection.run_sync(_diff) == []


async def test_upgrade_creates_every_table_once(database_url):
    database = create_database(database_url)
    try:
        assert await upgrade(database) == (None, head_revision())
        assert await upgrade(database) == (head_revision(), head_revision())
        async with database.engine.connect() as connection:
            tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
        assert set(Base.metadata.tables) | {"alembic_version"} == tables
    finally:
        await database.dispose()


async def test_a_database_without_schema_is_refused_when_auto_migrate_is_off(database_url):
    with pytest.raises(StoreError, match="mithub db upgrade"):
        await open_database(database_url, DatabaseConfig(auto_migrate=False))


async def test_open_database_migrates_by_default(database_url):
    database = await open_database(database_url, DatabaseConfig())
    try:
        assert await current_revision(database) == head_revision()
    finally:
        await database.dispose()


async def test_an_unreachable_server_is_one_clear_error():
    with pytest.raises(StoreError, match="cannot reach the database"):
        await open_database(
            "postgresql+asyncpg://nobody@127.0.0.1:9/none",
            DatabaseConfig(connect_timeout_seconds=2),
        )


async def test_stores_opened_at_once_in_one_process_all_migrate(tmp_path):
    """Alembic's context is process-global: meetings starting together in a worker's job
    threads open (and migrate) their stores at the same moment."""
    databases = await asyncio.gather(*(
        open_database(f"sqlite+aiosqlite:///{tmp_path / f'm{i}.db'}") for i in range(4)))
    try:
        for database in databases:
            assert await current_revision(database) == head_revision()
    finally:
        for database in databases:
            await database.dispose()
