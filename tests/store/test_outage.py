"""A PostgreSQL outage: writes are queued in order, the caller is told when the queue is
full, and everything accepted is stored once the server is back."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from mithub.config import DatabaseConfig
from mithub.errors import BackPressureError
from mithub.store.open import open_database
from mithub.store.resilient import ResilientRepository
from mithub.store.sql import SqlRepository
from mithub_databases import create_pg_database, start_postgres, stop_postgres, subprocess_env
from mithub_meetings import varied_meeting, write_meeting
from structlog.testing import capture_logs

from .test_repository import make_segment, make_state, make_utterance

pytestmark = pytest.mark.postgres


@pytest.fixture
def own_server():
    """A server of this test's own: it is stopped and started mid-test."""
    executor = start_postgres()
    yield executor
    stop_postgres(executor)


async def test_outage_queues_in_order_pushes_back_when_full_and_flushes(own_server):
    _, url = create_pg_database(own_server)
    database = await open_database(url, DatabaseConfig(connect_timeout_seconds=1))
    repo = ResilientRepository(
        SqlRepository(database),
        max_queued_utterances=30,
        retry_initial_seconds=0.1,
        retry_max_seconds=0.4,
    )
    for seq in range(1, 11):
        await repo.append_utterances("m1", [make_utterance(seq)])
    assert repo.queued == 0  # healthy: write-through

    await asyncio.to_thread(own_server.stop)
    with capture_logs() as logs:
        for seq in range(11, 41):
            await repo.append_utterances("m1", [make_utterance(seq)])
        await repo.save_l1_update(
            "m1",
            utterance=make_utterance(40),
            segments=[make_segment(1, 1, 38)],
            state=make_state(40),
        )
        assert repo.queued == 30
        with pytest.raises(BackPressureError, match="DB_WRITE_QUEUE_MAX"):
            await repo.append_utterances("m1", [make_utterance(41)])
        await asyncio.sleep(1.0)  # a few retries against the stopped server
        await asyncio.to_thread(own_server.start)
        await repo.drain()
        await repo.append_utterances("m1", [make_utterance(41)])  # the refused one, retried

    events = [e["event"] for e in logs]
    assert events.count("db_outage_started") == 1 and events.count("db_outage_ended") == 1
    assert events.count("db_write_retry") >= 2
    ended = next(e for e in logs if e["event"] == "db_outage_ended")
    assert ended["flushed_utterances"] == 30
    stored = await repo.get_utterances("m1")
    assert [u.id for u in stored] == list(range(1, 42))
    assert stored == [make_utterance(seq) for seq in range(1, 42)]
    state, segments = await repo.load_state("m1")
    assert state == make_state(40) and segments == [make_segment(1, 1, 38)]
    assert repo.queued == 0 and repo.outages == 1
    await database.dispose()


@pytest.mark.slow
async def test_replay_rides_out_a_postgres_outage(own_server, tmp_path):
    """The server stops for several seconds mid-replay and comes back: the replay finishes,
    nothing is lost, and the outage is in the logs."""
    _, url = create_pg_database(own_server)
    transcript = write_meeting(tmp_path / "meeting.jsonl", varied_meeting(300))
    log = tmp_path / "replay.log"
    expected = await _in_memory_report(transcript)

    watcher = SqlRepository(await open_database(url))
    with log.open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "mithub.cli",
            "--log-level",
            "INFO",
            "--log-json",
            "replay",
            str(transcript),
            "--database-url",
            url,
            "--meeting-id",
            "m1",
            "--json",
            "--no-progress",
            stdout=asyncio.subprocess.PIPE,
            stderr=err,
            env=subprocess_env(DB_RETRY_INITIAL_SECONDS="0.1", DB_RETRY_MAX_SECONDS="1"),
        )
        while await watcher.last_seq("m1") < 60:
            assert process.returncode is None, log.read_text(encoding="utf-8")[-2000:]
            await asyncio.sleep(0.01)
        await watcher.database.dispose()
        await asyncio.to_thread(own_server.stop)
        await asyncio.sleep(5)
        await asyncio.to_thread(own_server.start)
        out, _ = await asyncio.wait_for(process.communicate(), timeout=300)
    assert process.returncode == 0, log.read_text(encoding="utf-8")[-3000:]

    events = [
        json.loads(line)
        for line in log.read_text(encoding="utf-8").splitlines()
        if line.startswith("{")
    ]
    names = [e["event"] for e in events]
    assert "db_outage_started" in names and "db_outage_ended" in names
    assert names.count("db_write_retry") >= 3
    assert sum(e["flushed_utterances"] for e in events if e["event"] == "db_outage_ended") > 0
    assert json.loads(out) == expected

    repository = SqlRepository(await open_database(url))
    stored = await repository.get_utterances("m1")
    assert [u.id for u in stored] == list(range(1, 301))
    await repository.database.dispose()


async def _in_memory_report(transcript) -> dict:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "mithub.cli",
        "replay",
        str(transcript),
        "--meeting-id",
        "m1",
        "--json",
        "--no-progress",
        stdout=asyncio.subprocess.PIPE,
        env=subprocess_env(),
    )
    out, _ = await process.communicate()
    assert process.returncode == 0
    return json.loads(out)
