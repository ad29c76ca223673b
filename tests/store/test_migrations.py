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


async def test_upgrade_from_the_previous_schema_keeps_meetings_as_series_of_their_own(database_url):
    """A database made by revision 0001 (before series): each meeting becomes its own series
    and starts at its first stored utterance (or when it was created, if it has none)."""
    from datetime import datetime, timezone

    from sqlalchemy import text

    from mithub.store.sql import SqlRepository

    database = create_database(database_url)
    try:
        await upgrade(database, "0001")
        created = datetime(2026, 5, 1, 9, 0, tzinfo=timezone.utc)
        spoken = datetime(2026, 5, 4, 1, 0, 5, tzinfo=timezone.utc)
        async with database.engine.begin() as connection:
            for meeting_id in ("weekly", "empty"):
                await connection.execute(text(
                    "INSERT INTO meetings (id, title, created_at) VALUES (:id, :title, :created)"),
                    {"id": meeting_id, "title": f"{meeting_id} room", "created": created})
            await connection.execute(text(
                "INSERT INTO utterances (meeting_id, seq, speaker_id, speaker_name, text, start_ms, "
                "end_ms, confidence, absolute_timestamp, stored_at) VALUES ('weekly', 1, 'u1', 'Kim', "
                "'hello', 0, 900, 1.0, :at, :at)"), {"at": spoken})
        assert await upgrade(database) == ("0001", head_revision())
        meetings = {m.id: m for m in await SqlRepository(database).list_meetings()}
        assert {m: (o.series_id, o.started_at, o.title) for m, o in meetings.items()} == {
            "weekly": ("weekly", spoken, "weekly room"),
            "empty": ("empty", created, "empty room"),
        }
        async with database.engine.connect() as connection:
            assert await connection.run_sync(_diff) == []
    finally:
        await database.dispose()


async def test_upgrading_an_old_database_keeps_every_row(database_url):
    """SQLite rebuilds a table to change a column (0002 makes series_id NOT NULL); with foreign
    keys on, dropping the old `meetings` deleted every row pointing at it (cascade)."""
    from datetime import datetime, timezone

    from sqlalchemy import text

    database = create_database(database_url)
    try:
        await upgrade(database, "0001")
        at = datetime(2026, 5, 4, 1, 0, tzinfo=timezone.utc)
        async with database.engine.begin() as connection:
            await connection.execute(text("INSERT INTO meetings (id, title, created_at) VALUES ('m', 't', :at)"), {"at": at})
            await connection.execute(text(
                "INSERT INTO utterances (meeting_id, seq, speaker_id, speaker_name, text, start_ms, end_ms, confidence, "
                "absolute_timestamp, stored_at) VALUES ('m', 1, 'u', 'Kim', 'hello', 0, 900, 1.0, :at, :at)"), {"at": at})
            await connection.execute(text("INSERT INTO participants (meeting_id, user_id, name) VALUES ('m', 'u', 'Kim')"))
        await upgrade(database)
        async with database.engine.connect() as connection:
            counts = [(await connection.execute(text(f"SELECT count(*) FROM {t}"))).scalar() for t in ("utterances", "participants")]
            assert counts == [1, 1]
            if database.dialect == "sqlite":  # and the foreign keys are on again for what follows
                assert (await connection.execute(text("PRAGMA foreign_keys"))).scalar() == 1
    finally:
        await database.dispose()
