"""The demo series stored as `make demo` stores it: the Korean sample meeting and its
follow-up a week later, replayed into one SQLite file; each replay ends its meeting, which
composes and stores its minutes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from mithub.cli import main
from mithub.store.open import open_database
from mithub.store.sql import SqlRepository

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"
TOKEN = "test-token-0123456789"
DEMO = [("ko_product_planning", "demo-ko-1", "2026-05-04T10:00:00+09:00"),
        ("ko_product_planning_2", "demo-ko-2", "2026-05-11T10:00:00+09:00")]
T = TypeVar("T")


@pytest.fixture(scope="session")
def demo_url(tmp_path_factory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('minutes') / 'mithub.db'}"
    for name, meeting_id, started in DEMO:
        assert main(["replay", str(EXAMPLES / f"{name}.jsonl"), "--meeting-id", meeting_id, "--series", "demo-ko",
                     "--started-at", started, "--database-url", url, "--no-progress", "--json"]) == 0
    return url


async def with_store(url: str, work: Callable[[SqlRepository], Awaitable[T]]) -> T:
    database = await open_database(url)
    try:
        return await work(SqlRepository(database))
    finally:
        await database.dispose()


def read_store(url: str, work: Callable[[SqlRepository], Awaitable[T]]) -> T:
    return asyncio.run(with_store(url, work))
