"""A meeting keeps its own time zone: the store keeps UTC instants and the zone, and gives
the meeting's instants back on its own clock (issue 19 item 1)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from mithub.clock import display_zone, local_date, meeting_timezone, zone_name
from mithub.config import MeetingConfig
from mithub.errors import ConfigError
from mithub.record.meeting_record import MeetingRecord
from mithub.store.database import create_database
from mithub.store.memory import InMemoryRepository
from mithub.store.migrate import head_revision, upgrade
from mithub.store.sql import SqlRepository
from sqlalchemy import text

SEOUL_MORNING = datetime.fromisoformat("2026-05-04T08:30:00+09:00")  # 2026-05-03 23:30 UTC
NEW_YORK_EVENING = datetime.fromisoformat("2026-05-04T22:30:00-05:00")  # 2026-05-05 03:30 UTC


@pytest.mark.parametrize(("started", "zone", "day"), [
    (SEOUL_MORNING, "+09:00", "2026-05-04"),
    (NEW_YORK_EVENING, "-05:00", "2026-05-04"),
])
async def test_a_meeting_comes_back_on_its_own_clock(repository, started, zone, day):
    await repository.ensure_meeting("m", series_id="s", started_at=started, timezone=meeting_timezone(started))
    info = await repository.meeting_info("m")
    assert info.timezone == zone
    assert info.started_at == started and info.started_at.utcoffset() == started.utcoffset()
    assert info.started_at.date().isoformat() == day
    overview = await repository.get_meeting("m")
    assert overview.timezone == zone and overview.started_at.isoformat() == started.isoformat()
    assert overview.created_at.utcoffset() == started.utcoffset()
    async with repository.database.engine.connect() as connection:  # the instant is stored in UTC
        stored = (await connection.execute(text("SELECT started_at FROM meetings"))).scalar()
    as_utc = stored if isinstance(stored, datetime) else datetime.fromisoformat(stored)
    assert as_utc.replace(tzinfo=None) == started.astimezone(timezone.utc).replace(tzinfo=None)


async def test_a_meeting_nothing_names_a_zone_for_takes_the_setting(repository, monkeypatch):
    from mithub import config

    monkeypatch.setenv("MEETING_TIMEZONE", "Asia/Seoul")
    config.get_meeting_config.cache_clear()
    try:
        await repository.ensure_meeting("m", started_at=datetime(2026, 5, 3, 23, 30, tzinfo=timezone.utc))
    finally:
        monkeypatch.undo()
        config.get_meeting_config.cache_clear()
    info = await repository.meeting_info("m")
    assert info.timezone == "Asia/Seoul"
    assert info.started_at.isoformat() == "2026-05-04T08:30:00+09:00"


async def test_the_record_keeps_the_meeting_zone(repository):
    await repository.ensure_meeting("m", series_id="s", started_at=NEW_YORK_EVENING, timezone="-05:00")
    await repository.save_meeting_record(MeetingRecord(meeting_id="m", series_id="s", started_at=NEW_YORK_EVENING))
    [record] = await repository.series_records("s")
    assert record.timezone == "-05:00" and record.started_at.isoformat() == "2026-05-04T22:30:00-05:00"


async def test_the_in_memory_store_keeps_the_zone_too():
    memory = InMemoryRepository()
    await memory.ensure_meeting("m", started_at=SEOUL_MORNING, timezone="+09:00")
    await memory.end_meeting("m", at=SEOUL_MORNING + timedelta(hours=1))
    [info] = await memory.finished_meetings()
    assert info.started_at.hour == 8 and info.ended_at.isoformat() == "2026-05-04T09:30:00+09:00"


async def test_upgrade_gives_existing_meetings_the_setting(new_database_url, monkeypatch):
    database = create_database(new_database_url())
    try:
        await upgrade(database, "0003")
        async with database.engine.begin() as connection:
            await connection.execute(text(
                "INSERT INTO meetings (id, series_id, title, created_at, started_at) "
                "VALUES ('old', 'old', 'old', :at, :at)"), {"at": datetime(2026, 5, 3, 23, 30, tzinfo=timezone.utc)})
            await connection.execute(text(
                "INSERT INTO meeting_records (meeting_id, series_id, started_at, last_seq, decisions, action_items, "
                "pending_items, extracted_at) VALUES ('old', 'old', :at, 0, '[]', '[]', '[]', :at)"),
                {"at": datetime(2026, 5, 3, 23, 30, tzinfo=timezone.utc)})
        monkeypatch.setenv("MEETING_TIMEZONE", "+09:00")
        assert await upgrade(database) == ("0003", head_revision())
        repository = SqlRepository(database)
        info = await repository.meeting_info("old")
        [record] = await repository.series_records("old")
        assert (info.timezone, record.timezone) == ("+09:00", "+09:00")
        assert local_date(record.started_at, record.timezone).isoformat() == "2026-05-04"
    finally:
        await database.dispose()


@pytest.mark.parametrize(("name", "stored"), [
    ("UTC", "UTC"), ("+09:00", "+09:00"), ("+9", "+09:00"), ("-05:00", "-05:00"), ("UTC+05:30", "+05:30"),
    ("Asia/Seoul", "Asia/Seoul"), ("America/New_York", "America/New_York"),
])
def test_zone_names_round_trip(name, stored):
    assert zone_name(display_zone(name)) == stored
    assert MeetingConfig(timezone=name).timezone == stored


@pytest.mark.parametrize("name", ["Mars/Olympus", "+25:00", "+09:75"])
def test_an_unknown_zone_is_a_config_error(name):
    with pytest.raises(ConfigError, match="time zone"):
        display_zone(name)


def test_memory_timezone_stays_an_alias(monkeypatch):
    monkeypatch.delenv("MEETING_TIMEZONE", raising=False)
    monkeypatch.setenv("MEMORY_TIMEZONE", "Asia/Seoul")
    assert MeetingConfig().timezone == "Asia/Seoul"
    monkeypatch.setenv("MEETING_TIMEZONE", "-05:00")
    assert MeetingConfig().timezone == "-05:00"


@pytest.mark.parametrize(("started", "named", "zone"), [
    (SEOUL_MORNING, None, "+09:00"),
    (NEW_YORK_EVENING, None, "-05:00"),
    (SEOUL_MORNING, "America/New_York", "America/New_York"),
    (None, None, "UTC"),
])
def test_where_a_new_meeting_takes_its_zone(started, named, zone, monkeypatch):
    monkeypatch.delenv("MEETING_TIMEZONE", raising=False)
    monkeypatch.delenv("MEMORY_TIMEZONE", raising=False)
    from mithub import config

    config.get_meeting_config.cache_clear()
    assert meeting_timezone(started, named) == zone
