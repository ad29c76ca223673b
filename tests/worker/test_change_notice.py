"""A change to a past decision, said in the room, is noticed live: the bot posts a notice
with both quotes (who, which meeting, when), the change is stored and counted, and the
series ledger marks the old decision changed. When the bot leaves it posts the minutes'
short version (the change, the link to the page) and stores the minutes. Real VAD, Whisper tiny.en and espeak-ng
speech; the first meeting of the series is a stored, finished meeting."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

pytest.importorskip("livekit.agents", reason="needs the worker extra: pip install 'mithub[worker]'")

from livekit_fakes import FakeRoom, wait_for  # noqa: E402
from speech_samples import espeak_wav  # noqa: E402
from worker_harness import counted, make_resources, store_finished_meeting  # noqa: E402

from mithub.agent.decision_watch import series_ledger  # noqa: E402
from mithub.config import PublicConfig  # noqa: E402
from mithub.store.open import open_database  # noqa: E402
from mithub.store.sql import SqlRepository  # noqa: E402
from mithub_worker.meeting import MeetingBot  # noqa: E402
from mithub_worker.playback import PlaybackAudioInput  # noqa: E402

pytestmark = [pytest.mark.worker, pytest.mark.slow]

SERIES = "launch-sync"
WEEK_ONE = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)
LAST_WEEK = [
    ("alice", "Alice", "Let's settle the launch date."),
    ("bob", "Bob", "I propose June 12."),
    ("alice", "Alice", "Okay, we'll go with June 12 for the launch date. That's final."),
    ("bob", "Bob", "Sounds good."),
]
ALICE_SAYS = "Last week we set the launch for June twelfth. We are moving the launch date to July third."


async def finished_first_meeting(database_url: str) -> None:
    decisions = await store_finished_meeting(database_url, "week-1", series=SERIES, started_at=WEEK_ONE,
                                             lines=LAST_WEEK)
    assert decisions, "the first meeting settled the date"


def _changes_counted(kind: str) -> float:
    return counted("mithub_decision_changes_total", "kind", kind)


async def test_a_changed_decision_is_announced_stored_and_marked_in_the_ledger(
    worker_models: tuple, database_url: str, tmp_path: Path
) -> None:
    await finished_first_meeting(database_url)
    counted = _changes_counted("explicit")
    room = FakeRoom(SERIES)
    room.add_participant("alice", "Alice")
    audio = PlaybackAudioInput({"alice": [0.3, espeak_wav(ALICE_SAYS, tmp_path / "alice.wav"), 1.5]})
    resources = make_resources(worker_models, database_url)
    resources.public = PublicConfig(base_url="https://mithub.example.com/")
    bot = MeetingBot(room.room, "week-2", resources, audio=audio, series_id=SERIES, title=SERIES)
    await bot.start()
    try:
        await wait_for(lambda: bot.manager.last_seq >= 1, timeout=90, what="alice's line")
        said = bot.manager.get_l0_utterances(5)[-1].text
        await wait_for(lambda: room.chat_replies(), timeout=30, what=f"the change notice for {said!r}")
        notice = room.chat_replies()[0].text
    finally:
        await bot.aclose()
    posted = [m.text for m in room.chat_replies()]

    assert "Past decision changed" in notice and "explicit" in notice, notice
    assert "Alice" in notice and "June 12 for the launch date" in notice, notice
    assert "meeting of May 4" in notice and "July 3" in notice, notice
    assert _changes_counted("explicit") == counted + 1

    database = await open_database(database_url)
    try:
        ledger = await series_ledger(SqlRepository(database), SERIES)
    finally:
        await database.dispose()
    (change,) = ledger.changes
    assert (change.meeting_id, change.kind, change.past.meeting_id, change.past.seq) == ("week-2", "explicit", "week-1", 3)
    changed = [d for d in ledger.decisions if d.meeting_id == "week-1"]
    assert [(d.status, d.changed_by) for d in changed] == [("changed", f"week-2:{change.seq}")]

    # Leaving, the bot posted the minutes' short version after the notice, and stored them.
    assert len(posted) == 2, posted
    summary = posted[1]
    assert summary.startswith("📝 Minutes: launch-sync (2026-"), summary
    assert "· 1 change ·" in summary and "June 12" in summary and "(Alice " in summary, summary
    assert summary.endswith("Full minutes: https://mithub.example.com/ui/meetings/week-2"), summary
    assert len(summary) <= resources.worker.chat_max_chars
    database = await open_database(database_url)
    try:
        minutes = await SqlRepository(database).get_minutes("week-2")
    finally:
        await database.dispose()
    (changed_now,) = minutes.changes()
    assert (changed_now.seq, changed_now.speaker) == (change.seq, "Alice")
    assert (changed_now.changed_since_last.meeting_id, changed_now.changed_since_last.seq) == ("week-1", 3)
    assert minutes.language == "en" and [p.name for p in minutes.participants] == ["Alice"]
