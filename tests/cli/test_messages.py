"""Messages that say what happened (issue 19 item 9): an unknown series is not an empty store,
an empty transcript or corpus names the input and does not point at warnings never printed."""

from __future__ import annotations

import pytest
import structlog

from mithub.cli import main
from mithub.store.sql import SqlRepository


@pytest.fixture(autouse=True)
def _restore_logging():
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


async def test_meetings_list_of_an_unknown_series_names_the_series_there_are(database, database_url, capsys):
    repository = SqlRepository(database)
    await repository.ensure_meeting("w1", series_id="planning", title="week 1")
    await repository.ensure_meeting("w2", series_id="planning", title="week 2")
    await repository.ensure_meeting("r1", series_id="retro", title="retro")

    assert await main_async(["meetings", "list", "--series", "nope", "--database-url", database_url]) == 0

    out = capsys.readouterr().out.strip()
    assert "no meetings in series nope" in out
    assert "planning (2)" in out and "retro (1)" in out
    assert "no meetings in sqlite" not in out


async def main_async(argv: list[str]) -> int:
    """`main` runs its own event loop: call it from a thread, as a shell would."""
    import asyncio

    return await asyncio.to_thread(main, argv)
