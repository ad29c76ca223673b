"""Two writers on one SQLite meeting: the second gets the lease error naming the owner and its
expiry, never "database is locked" (issue 19 item 4)."""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from mithub.clock import ManualClock
from mithub.config import DatabaseConfig
from mithub.errors import LeaseError
from mithub.store.database import create_database
from mithub.store.migrate import current_revision, head_revision, upgrade
from mithub.store.session import attach_meeting
from mithub.store.sql import SqlRepository
from mithub_databases import subprocess_env
from sqlalchemy import text

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "meetings"
NOW = datetime(2026, 3, 2, 5, 0, tzinfo=timezone.utc)


async def test_a_writer_busy_with_a_transaction_still_gets_the_lease_error(tmp_path):
    """The owner is inside a write transaction for longer than the second process waits for
    SQLite's lock (busy timeout): the second is told who writes the meeting, not "locked"."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'two.db'}"
    first_db = create_database(url)
    second_db = create_database(url, DatabaseConfig(connect_timeout_seconds=0.3))
    await upgrade(first_db)
    clock = ManualClock(NOW)
    first = SqlRepository(first_db, owner="worker-a", clock=clock)
    second = SqlRepository(second_db, owner="worker-b", clock=clock)
    try:
        await first.acquire_lease("two", ttl_seconds=30, heartbeat=False)
        async with first_db.engine.begin() as busy:  # holds SQLite's write lock
            await busy.execute(text("UPDATE meetings SET title = 'busy' WHERE id = 'two'"))
            with pytest.raises(LeaseError) as refused:
                await second.acquire_lease("two", ttl_seconds=30, wait_seconds=0.5, heartbeat=False)
        message = str(refused.value)
        assert "meeting two is being written by worker-a" in message
        assert "2026-03-02T05:00:30+00:00 (30 s from now)" in message
    finally:
        await first_db.dispose()
        await second_db.dispose()


async def test_a_writer_committing_back_to_back_is_named_within_the_lease_wait(tmp_path):
    """The second writer waits for SQLite's write lock while the first takes the lease and goes
    on writing back to back (SQLite's busy handler polls and misses the gaps): it is told who
    writes the meeting within its lease wait, not after the whole busy timeout."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'two.db'}"
    first_db = create_database(url)
    second_db = create_database(url)  # busy timeout 5 s
    await upgrade(first_db)
    first = SqlRepository(first_db, owner="worker-a")
    second = SqlRepository(second_db, owner="worker-b")
    await first.acquire_lease("two", ttl_seconds=30, heartbeat=False)
    writer = sqlite3.connect(tmp_path / "two.db", isolation_level=None, check_same_thread=False)
    lease = writer.execute("SELECT * FROM meeting_leases WHERE meeting_id = 'two'").fetchone()
    writer.execute("DELETE FROM meeting_leases")  # not taken yet when the second one starts
    writer.execute("BEGIN IMMEDIATE")

    def take_the_lease_and_keep_writing() -> None:
        time.sleep(0.3)
        writer.execute("INSERT INTO meeting_leases VALUES (?, ?, ?, ?, ?)", lease)
        writer.execute("COMMIT")
        writer.execute("BEGIN IMMEDIATE")
        time.sleep(2.5)
        writer.execute("COMMIT")

    try:
        holding = asyncio.create_task(asyncio.to_thread(take_the_lease_and_keep_writing))
        started = time.monotonic()
        with pytest.raises(LeaseError, match="meeting two is being written by worker-a; its lease"):
            await second.acquire_lease("two", ttl_seconds=30, wait_seconds=0.5, heartbeat=False)
        assert time.monotonic() - started < 2.0
        await holding
    finally:
        writer.close()
        await first_db.dispose()
        await second_db.dispose()


async def test_a_new_file_another_process_turns_into_wal_is_waited_for_not_locked(tmp_path):
    """Two processes opening a new file both switch it to WAL; SQLite answers the one that
    loses with "database is locked" at once, busy timeout or not. The store waits instead."""
    path = tmp_path / "two.db"
    other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    try:
        other.execute("CREATE TABLE other (a)")  # still a rollback-journal file
        other.execute("BEGIN IMMEDIATE")  # what the other process's switch to WAL holds
        other.execute("INSERT INTO other VALUES (1)")
        database = create_database(f"sqlite+aiosqlite:///{path}")
        try:
            opening = asyncio.create_task(upgrade(database))
            await asyncio.sleep(0.5)
            assert not opening.done(), opening  # waiting, not failed with "database is locked"
            other.execute("COMMIT")
            await opening
            assert await current_revision(database) == head_revision()
        finally:
            await database.dispose()
    finally:
        other.close()


async def test_a_refused_writer_changes_nothing_of_the_meeting(tmp_path):
    """The lease is decided before anything of the meeting is written: a second writer that is
    refused has not renamed the meeting or moved it to another series."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'two.db'}"
    config = DatabaseConfig(connect_timeout_seconds=1.0)
    async with attach_meeting(url, "two", title="first", series_id="s1", config=config,
                              wait_seconds=0) as first:
        with pytest.raises(LeaseError, match="meeting two is being written by "):
            async with attach_meeting(url, "two", title="second", series_id="s2", config=config,
                                      wait_seconds=0):
                pass
        info = await first.repository.inner.meeting_info("two")
    assert info is not None and (info.title, info.series_id) == ("first", "s1")


def _replay(transcript: Path, url: str, log: Path, **env: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "mithub.cli", "replay", str(transcript), "--meeting-id", "two",
               "--database-url", url, "--no-progress"]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log.open("w"),
                            env=subprocess_env(LOG_LEVEL="WARNING", **env))


def _long_meeting(path: Path, copies: int) -> Path:
    lines = [json.loads(line) for line in (EXAMPLES / "ko_product_planning.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    span = max(line["end_ms"] for line in lines) + 1000
    with path.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            for line in lines:
                shifted = {**line, "start_ms": line["start_ms"] + copy * span, "end_ms": line["end_ms"] + copy * span}
                out.write(json.dumps(shifted, ensure_ascii=False) + "\n")
    return path


@pytest.mark.slow
def test_two_replays_of_one_meeting_the_second_is_told_who_writes_it(tmp_path):
    """Both start at once on a new file (both migrate it), as `mithub replay FILE --meeting-id
    two --database-url sqlite+aiosqlite:///two.db` twice; one writes, the other says in one line
    who holds the meeting and until when."""
    transcript = _long_meeting(tmp_path / "long.jsonl", copies=4)
    url = f"sqlite+aiosqlite:///{tmp_path / 'two.db'}"
    logs = [tmp_path / "a.log", tmp_path / "b.log"]
    processes = [_replay(transcript, url, log, DB_LEASE_WAIT_SECONDS="3") for log in logs]
    codes = [p.wait(timeout=600) for p in processes]
    errors = [log.read_text(encoding="utf-8") for log in logs]
    assert sorted(codes) == [0, 1], errors
    refused = errors[codes.index(1)]
    assert refused.count("\n") == 1, refused
    assert "mithub: error: meeting two is being written by " in refused and "its lease expires 20" in refused

