"""What the agent shows is on the meeting's own clock: prompt lines, citations and change
notices (issue 19 item 1). Stored instants stay UTC."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from mithub.agent.attribution import context_citations
from mithub.agent.decision_watch import DecisionWatch
from mithub.context.formatting import format_context_as_system_prompt
from mithub.context.models import AgentContext
from mithub.embedders import load_embedder
from mithub.record.meeting_record import extract_record
from mithub.store.memory import InMemoryRepository
from mithub_series import LAST_WEEK, TODAY, turn

SEOUL = timezone(timedelta(hours=9))
NEW_YORK = timezone(timedelta(hours=-5))


@pytest.mark.parametrize(("start", "shown"), [
    (datetime(2026, 5, 4, 10, 0, tzinfo=SEOUL), "10:02:00"),  # the demo meeting
    (datetime(2026, 5, 4, 8, 30, tzinfo=SEOUL), "08:32:00"),
    (datetime(2026, 5, 4, 22, 30, tzinfo=NEW_YORK), "22:32:00"),
])
def test_prompt_lines_and_citations_are_on_the_meeting_clock(start, shown):
    said = turn(7, ("kim", "김지현"), "예산은 2억으로 확정하죠.", start + timedelta(minutes=2))
    assert said.absolute_timestamp.tzinfo == timezone.utc  # stored as UTC
    ctx = AgentContext(meeting_id="m", current_time=start + timedelta(minutes=3), call_type="IMMEDIATE_RESPONSE",
                       recent_utterances=[said])
    assert f"[U7] [{shown}] 김지현" in format_context_as_system_prompt(ctx)
    cited = context_citations(ctx)["U7"].time
    assert cited == said.absolute_timestamp and cited.strftime("%H:%M:%S") == shown


@pytest.mark.parametrize(("week_one", "label", "then", "now"), [
    (datetime(2026, 5, 4, 8, 30, tzinfo=SEOUL), "meeting of May 4", "08:30", "08:30"),
    (datetime(2026, 5, 4, 22, 30, tzinfo=NEW_YORK), "meeting of May 4", "22:30", "22:30"),
])
async def test_a_change_notice_names_the_past_meeting_and_times_on_their_clocks(week_one, label, then, now):
    store = InMemoryRepository()
    week_two = week_one + timedelta(days=7)
    zone = "+09:00" if week_one.utcoffset() == timedelta(hours=9) else "-05:00"
    await store.ensure_meeting("week-1", series_id="launch", started_at=week_one, timezone=zone)
    await store.ensure_meeting("week-2", series_id="launch", started_at=week_two, timezone=zone)
    turns = [turn(i + 1, (sid, name), text, week_one + timedelta(seconds=5 * i))
             for i, (sid, name, text) in enumerate(LAST_WEEK)]
    info = await store.meeting_info("week-1")
    await store.save_meeting_record(extract_record("week-1", "launch", info.started_at, turns))
    notices: list[str] = []

    async def posted(_change, _decision, notice: str) -> None:  # noqa: ANN001
        notices.append(notice)

    watch = DecisionWatch(store, load_embedder(), meeting_id="week-2", series_id="launch",
                          started_at=(await store.meeting_info("week-2")).started_at, on_change=posted)
    assert await watch.start() == 1
    await watch.observe([turn(1, ("alice", "Alice"), TODAY, week_two)])
    [notice] = notices
    assert f"decided ({label}) Alice {then}:" in notice and f"today Alice {now}:" in notice
