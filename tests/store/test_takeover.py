"""Two managers on one meeting: the second is refused; once the first one's lease lapses the
second takes the meeting over and continues it without losing an utterance."""

from __future__ import annotations

import pytest
from mithub.clock import ManualClock
from mithub.config import DatabaseConfig
from mithub.context.factory import create_context_manager
from mithub.context.report import meeting_report
from mithub.context.transcript import DEFAULT_MEETING_START
from mithub.errors import LeaseError
from mithub.store.memory import InMemoryRepository
from mithub.store.open import meeting_repository, open_database
from mithub.store.session import attach_meeting
from mithub_meetings import sample_lines


async def _feed(manager, clock, lines) -> None:
    for line in lines:
        clock.set(line.absolute_timestamp)
        await manager.add_utterance(line)


@pytest.mark.slow
async def test_second_manager_is_refused_then_takes_over_without_loss(database_url):
    meeting = sample_lines()[:70]
    # The TTL must outlast the 40 writes and the refused attach on a loaded machine (with 1 s a
    # slow CI run saw the lease lapse before the check), and the takeover waits it out.
    config = DatabaseConfig(lease_ttl_seconds=5.0)
    database = await open_database(database_url, config)
    first_repo = meeting_repository(database, config, owner="worker-a")
    # worker-a hangs after 40 utterances: its writes renewed the lease, no heartbeat runs.
    await first_repo.inner.acquire_lease("m1", ttl_seconds=5.0, heartbeat=False)
    clock = ManualClock(DEFAULT_MEETING_START)
    first = create_context_manager("m1", first_repo, clock=clock)
    await _feed(first, clock, meeting[:40])

    with pytest.raises(LeaseError, match="being written by worker-a"):
        async with attach_meeting(database_url, "m1", wait_seconds=0, config=config):
            pass

    async with attach_meeting(database_url, "m1", wait_seconds=20, config=config) as session:
        second_clock = ManualClock(clock())
        second = create_context_manager("m1", session.repository, clock=second_clock)
        assert await second.restore_from_db() == 40
        with pytest.raises(LeaseError, match="lost its writer lease"):
            await first.add_utterance(meeting[40])  # the old writer wakes up: fenced
        await _feed(second, second_clock, meeting[40:])
        await second.finalize()
        stored = await session.repository.get_utterances("m1")

    reference_clock = ManualClock(DEFAULT_MEETING_START)
    reference = create_context_manager("m1", InMemoryRepository(), clock=reference_clock)
    await _feed(reference, reference_clock, meeting)
    await reference.finalize()
    assert [u.id for u in stored] == list(range(1, 71))
    assert [u.text for u in stored] == [u.text for u in meeting]
    assert meeting_report(second) == meeting_report(reference)
    await database.dispose()
