"""Zero-loss crash recovery: `mithub replay --database-url` of a 500-utterance meeting is
killed with SIGKILL at 20 random points and rerun each time; the end result equals a run
that was never interrupted, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from pathlib import Path

import pytest
from mithub.context.factory import create_context_manager
from mithub.context.report import meeting_report
from mithub.store.database import create_database
from mithub.store.migrate import upgrade
from mithub.store.sql import SqlRepository
from mithub_databases import subprocess_env
from mithub_meetings import varied_meeting, write_meeting

UTTERANCES = 500
KILLS = 20
LEASE_TTL = "1.5"  # a killed replay's lease lapses quickly, so the rerun does not wait long


def _command(transcript: Path, url: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "mithub.cli",
        "replay",
        str(transcript),
        "--database-url",
        url,
        "--meeting-id",
        "crash",
        "--json",
        "--no-progress",
    ]


async def _spawn(transcript: Path, url: str, log: Path) -> asyncio.subprocess.Process:
    with log.open("ab") as err:
        return await asyncio.create_subprocess_exec(
            *_command(transcript, url),
            stdout=asyncio.subprocess.PIPE,
            stderr=err,
            env=subprocess_env(DB_LEASE_TTL_SECONDS=LEASE_TTL),
        )


async def _kill_when_stored(process, repository: SqlRepository, target: int, jitter: float) -> int:
    """SIGKILL the replay once `target` utterances are stored (plus a little random time);
    returns how many were stored when it died."""
    while await repository.last_seq("crash") < target:
        if process.returncode is not None:
            pytest.fail(f"replay exited with {process.returncode} before utterance {target}")
        await asyncio.sleep(0.005)
    await asyncio.sleep(jitter)
    process.kill()
    await process.wait()
    return await repository.last_seq("crash")


async def _finish(transcript: Path, url: str, log: Path) -> dict:
    process = await _spawn(transcript, url, log)
    out, _ = await process.communicate()
    assert process.returncode == 0, log.read_text(encoding="utf-8")[-3000:]
    return json.loads(out)


async def _open(url: str) -> SqlRepository:
    database = create_database(url)
    await upgrade(database)
    return SqlRepository(database)


async def _restored(repository: SqlRepository):
    manager = create_context_manager("crash", repository)
    await manager.restore_from_db()
    return manager


@pytest.mark.slow
async def test_killed_replays_resume_to_the_uninterrupted_result(new_database_url, tmp_path):
    transcript = write_meeting(tmp_path / "meeting.jsonl", varied_meeting(UTTERANCES))
    log = tmp_path / "replay.log"
    reference_url, crash_url = new_database_url(), new_database_url()
    reference_report = await _finish(transcript, reference_url, log)

    crashed = await _open(crash_url)
    rng = random.Random(20260302)
    kills: list[int] = []
    for target in sorted(rng.sample(range(2, UTTERANCES - 2 * KILLS), KILLS)):
        target = max(target, kills[-1] + 2 if kills else 0)  # each run gets past the last kill
        process = await _spawn(transcript, crash_url, log)
        kills.append(await _kill_when_stored(process, crashed, target, rng.uniform(0, 0.03)))
    final_report = await _finish(transcript, crash_url, log)

    assert len(kills) == KILLS and kills[-1] < UTTERANCES
    assert log.read_text(encoding="utf-8").count("resuming meeting crash") == KILLS
    reference = await _open(reference_url)
    stored = await crashed.get_utterances("crash")
    assert [u.id for u in stored] == list(range(1, UTTERANCES + 1))  # every one, exactly once
    assert await crashed.count_utterances("crash") == UTTERANCES
    assert stored == await reference.get_utterances("crash")
    assert await crashed.load_state("crash") == await reference.load_state("crash")

    assert final_report == reference_report
    restored, uninterrupted = await _restored(crashed), await _restored(reference)
    assert restored.get_l1_segments() == uninterrupted.get_l1_segments()
    assert restored.get_l0_utterances() == uninterrupted.get_l0_utterances()
    assert restored.current_topic == uninterrupted.current_topic
    assert meeting_report(restored) == meeting_report(uninterrupted) == reference_report
    for repository in (crashed, reference):
        await repository.database.dispose()
