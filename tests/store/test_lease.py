"""One writer per meeting: refused second writer, heartbeat, takeover, fencing."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

import pytest
from mithub.clock import ManualClock
from mithub.errors import LeaseError
from mithub.store.sql import SqlRepository
from structlog.testing import capture_logs

from .test_repository import make_utterance

NOW = datetime(2026, 3, 2, 5, 0, tzinfo=timezone.utc)


def _pair(database, clock=None):
    clock = clock or ManualClock(NOW)
    return (
        SqlRepository(database, owner="worker-a", clock=clock),
        SqlRepository(database, owner="worker-b", clock=clock),
        clock,
    )


async def test_a_second_writer_is_refused_with_owner_and_expiry(database):
    first, second, _ = _pair(database)
    await first.acquire_lease("m1", ttl_seconds=30, heartbeat=False)
    with pytest.raises(LeaseError) as refused:
        await second.acquire_lease("m1", ttl_seconds=30, heartbeat=False)
    message = str(refused.value)
    assert "meeting m1" in message and "worker-a" in message
    assert "2026-03-02T05:00:30+00:00 (30 s from now)" in message
    await first.acquire_lease("m2", ttl_seconds=30, heartbeat=False)  # other meetings are free


async def test_an_expired_lease_is_taken_over_and_the_old_writer_is_fenced(database):
    first, second, clock = _pair(database)
    await first.acquire_lease("m1", ttl_seconds=10, heartbeat=False)
    await first.append_utterances("m1", [make_utterance(1)])
    clock.advance(seconds=11)
    with capture_logs() as logs:
        await second.acquire_lease("m1", ttl_seconds=10, heartbeat=False)
    assert any(
        e["event"] == "meeting_lease_taken_over" and e["previous_owner"] == "worker-a" for e in logs
    )

    with pytest.raises(LeaseError, match="lost its writer lease to worker-b"):
        await first.append_utterances("m1", [make_utterance(2)])
    assert await second.last_seq("m1") == 1  # the fenced write left no row
    await second.append_utterances("m1", [make_utterance(2)])
    assert [u.id for u in await second.get_utterances("m1")] == [1, 2]


async def test_writes_renew_the_lease(database):
    first, second, clock = _pair(database)
    await first.acquire_lease("m1", ttl_seconds=10, heartbeat=False)
    for seq in range(1, 4):
        clock.advance(seconds=8)
        await first.append_utterances("m1", [make_utterance(seq)])
    with pytest.raises(LeaseError):
        await second.acquire_lease("m1", ttl_seconds=10, heartbeat=False)


async def test_the_heartbeat_keeps_an_idle_lease_alive(database):
    first = SqlRepository(database, owner="worker-a")
    second = SqlRepository(database, owner="worker-b")
    # Idle for over two TTLs; a TTL of whole seconds so a loaded machine's late heartbeat
    # does not let it lapse.
    lease = await first.acquire_lease("m1", ttl_seconds=2.0)
    await asyncio.sleep(5)
    with pytest.raises(LeaseError):
        await second.acquire_lease("m1", ttl_seconds=2.0, heartbeat=False)
    await lease.release()
    await second.acquire_lease("m1", ttl_seconds=2.0, heartbeat=False)  # released: free at once


async def test_waiting_for_a_lease_succeeds_once_it_lapses(database):
    first = SqlRepository(database, owner="worker-a")
    second = SqlRepository(database, owner="worker-b")
    await first.acquire_lease("m1", ttl_seconds=2.0, heartbeat=False)
    with pytest.raises(LeaseError):
        await second.acquire_lease("m1", ttl_seconds=5, wait_seconds=0.2, heartbeat=False)
    lease = await second.acquire_lease("m1", ttl_seconds=5, wait_seconds=8, heartbeat=False)
    assert lease.meeting_id == "m1" and second.leases.held == {"m1": 5}
