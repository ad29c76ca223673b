"""pytest plugin: database fixtures. Every store test runs on SQLite and on a real PostgreSQL
server that pytest-postgresql starts from the system binaries (through tests/support/pg_ctl,
which runs them as the postgres user when the tests run as root). The schema always comes
from the Alembic migrations."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import port_for
import pytest
from pytest_postgresql.executors import PostgreSQLExecutor
from pytest_postgresql.janitor import DatabaseJanitor

PG_CTL = Path(__file__).resolve().parent / "pg_ctl"
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgresql", id="postgresql", marks=pytest.mark.postgres),
]


def start_postgres(postgres_options: str = "") -> PostgreSQLExecutor:
    """A fresh PostgreSQL server in its own folder on a free loopback port; stop() it after."""
    base = Path(tempfile.mkdtemp(prefix="mithub-pg-"))
    base.chmod(0o755)  # the postgres user walks into it
    executor = PostgreSQLExecutor(
        executable=str(PG_CTL),
        host="127.0.0.1",
        port=port_for.select_random(),
        datadir=str(base / "data"),
        unixsocketdir=str(base),
        logfile=str(base / "postgres.log"),
        startparams="-w",
        dbname="mithub",
        user="postgres",
        postgres_options=postgres_options,
    )
    executor.start()
    return executor


def stop_postgres(executor: PostgreSQLExecutor) -> None:
    executor.stop()
    shutil.rmtree(Path(executor.datadir).parent, ignore_errors=True)


def postgres_url(executor: PostgreSQLExecutor, dbname: str) -> str:
    return f"postgresql+asyncpg://{executor.user}@{executor.host}:{executor.port}/{dbname}"


def create_pg_database(executor: PostgreSQLExecutor) -> tuple[DatabaseJanitor, str]:
    name = f"t_{uuid.uuid4().hex[:12]}"
    janitor = DatabaseJanitor(
        user=executor.user, host=executor.host, port=executor.port, dbname=name
    )
    janitor.init()
    return janitor, postgres_url(executor, name)


@pytest.fixture(scope="session")
def postgresql_server() -> Iterator[PostgreSQLExecutor]:
    executor = start_postgres()
    yield executor
    stop_postgres(executor)


@pytest.fixture(params=BACKENDS)
def new_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], str]]:
    """Makes empty databases (no schema yet) on the test's backend; all dropped afterwards."""
    janitors: list[DatabaseJanitor] = []

    def make() -> str:
        if request.param == "sqlite":
            return f"sqlite+aiosqlite:///{tmp_path / f'mithub-{uuid.uuid4().hex[:8]}.db'}"
        janitor, url = create_pg_database(request.getfixturevalue("postgresql_server"))
        janitors.append(janitor)
        return url

    yield make
    for janitor in janitors:
        janitor.drop()


@pytest.fixture
def database_url(new_database_url: Callable[[], str]) -> str:
    return new_database_url()


@pytest.fixture
async def database(database_url: str) -> AsyncIterator:
    from mithub.store.database import create_database
    from mithub.store.migrate import upgrade

    db = create_database(database_url)
    await upgrade(db)
    yield db
    await db.dispose()


@pytest.fixture
async def repository(database):
    from mithub.store.sql import SqlRepository

    return SqlRepository(database)


def subprocess_env(**extra: str) -> dict[str, str]:
    """Environment for `mithub` subprocesses: this venv, no stray settings from the caller."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DB_", "DATABASE_", "CONTEXT_", "LLM_"))
    }
    env.update(extra)
    return env
