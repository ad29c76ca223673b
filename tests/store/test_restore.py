"""A manager restored from SQLite or PostgreSQL behaves exactly like one that never stopped."""

from __future__ import annotations

import pytest
from mithub.clock import ManualClock
from mithub.context.factory import create_context_manager
from mithub.context.report import meeting_report
from mithub.context.transcript import DEFAULT_MEETING_START
from mithub.store.database import create_database
from mithub.store.migrate import upgrade
from mithub.store.sql import SqlRepository
from mithub_meetings import sample_lines


async def _open(url: str) -> SqlRepository:
    database = create_database(url)
    await upgrade(database)
    return SqlRepository(database)


async def _feed(manager, clock, lines) -> None:
    for line in lines:
        clock.set(line.absolute_timestamp)
        await manager.add_utterance(line)


@pytest.mark.slow
async def test_restored_manager_matches_one_that_never_stopped(new_database_url):
    meeting = sample_lines()[:120]
    clock = ManualClock(DEFAULT_MEETING_START)
    reference_repo = await _open(new_database_url())
    reference = create_context_manager("m1", reference_repo, clock=clock)
    await _feed(reference, clock, meeting)
    await reference.finalize()

    for stop in (9, 47, 88):
        repo = await _open(new_database_url())
        clock = ManualClock(DEFAULT_MEETING_START)
        first = create_context_manager("m1", repo, clock=clock)
        await _feed(first, clock, meeting[:stop])
        restored = create_context_manager("m1", repo, clock=clock)
        assert await restored.restore_from_db() == stop
        assert restored.get_l0_utterances() == first.get_l0_utterances()
        assert restored.get_topic_utterances() == first.get_topic_utterances()
        assert restored.state() == first.state(), f"stopped after {stop}"
        await _feed(restored, clock, meeting[stop:])
        await restored.finalize()
        assert meeting_report(restored) == meeting_report(reference), f"stopped after {stop}"
        assert restored.get_l0_utterances() == reference.get_l0_utterances()
        assert await repo.get_utterances("m1") == await reference_repo.get_utterances("m1")
        assert await repo.load_state("m1") == await reference_repo.load_state("m1")
        await repo.database.dispose()
    await reference_repo.database.dispose()
