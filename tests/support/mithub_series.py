"""A two-meeting series for the tests: last week's meeting settled the launch date (its
record in an in-memory store); today's line moves it, and says so."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mithub.agent.decision_watch import DecisionWatch
from mithub.context.models import Utterance
from mithub.embedders import load_embedder
from mithub.record.meeting_record import extract_record
from mithub.store.memory import InMemoryRepository

WEEK_ONE = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)
LAST_WEEK = [("alice", "Alice", "Let's settle the launch date."), ("bob", "Bob", "I propose June 12."),
             ("alice", "Alice", "Okay, we'll go with June 12 for the launch date. That's final."),
             ("bob", "Bob", "Sounds good.")]
TODAY = "Last week we set the launch for June 12. We are moving the launch date to July 3."


def turn(seq: int, speaker: tuple[str, str], text: str, at: datetime) -> Utterance:
    return Utterance(id=seq, speaker_id=speaker[0], speaker_name=speaker[1], text=text, absolute_timestamp=at)


async def launch_watch(llm=None) -> tuple[DecisionWatch, Utterance]:  # noqa: ANN001
    """A started DecisionWatch for today's meeting, and today's line that changes the date."""
    store = InMemoryRepository()
    await store.ensure_meeting("week-1", series_id="launch", started_at=WEEK_ONE)
    await store.ensure_meeting("week-2", series_id="launch", started_at=WEEK_ONE + timedelta(days=7))
    turns = [turn(i + 1, (sid, name), text, WEEK_ONE + timedelta(seconds=5 * i))
             for i, (sid, name, text) in enumerate(LAST_WEEK)]
    await store.save_meeting_record(extract_record("week-1", "launch", WEEK_ONE, turns))
    watch = DecisionWatch(store, load_embedder(), meeting_id="week-2", series_id="launch",
                          started_at=WEEK_ONE + timedelta(days=7), llm=llm)
    assert await watch.start() == 1
    return watch, turn(1, ("alice", "Alice"), TODAY, WEEK_ONE + timedelta(days=7))
