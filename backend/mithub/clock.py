"""UTC-aware time, injectable so time-based triggers are testable; and a meeting's own clock:
stored instants stay UTC, what a person reads (times, dates, due dates) is in the meeting's
time zone (`MeetingClock`, `local_date`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta, timezone, tzinfo

from pydantic import BaseModel, Field, model_validator

Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


class ManualClock:
    """A clock that moves only when told to (tests, replays with recorded timestamps)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or datetime(2026, 1, 1, tzinfo=timezone.utc)
        if self._now.tzinfo is None:
            raise ValueError("ManualClock needs a timezone-aware start time")

    def __call__(self) -> datetime:
        return self._now

    def advance(self, **delta: float) -> datetime:
        self._now += timedelta(**delta)
        return self._now

    def set(self, moment: datetime) -> None:
        if moment.tzinfo is None:
            raise ValueError("ManualClock.set needs a timezone-aware datetime")
        self._now = moment


def display_zone(name: str) -> tzinfo:
    """The time zone a meeting keeps: "UTC", a UTC offset ("+09:00", "-05:00") or an IANA
    name ("Asia/Seoul"); UTC and offsets need no zone database."""
    text = name.strip()
    if text.upper() in ("UTC", "Z", ""):
        return timezone.utc
    if _OFFSET.fullmatch(text):
        return _offset_zone(text)
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from mithub.errors import ConfigError

    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"unknown time zone {name!r}; use an IANA name such as Asia/Seoul or an "
                          "offset such as +09:00 (install the tzdata package if the system has no "
                          "zone database)") from exc


_OFFSET = re.compile(r"(?:UTC)?([+-])(\d{1,2})(?::?(\d{2}))?", re.IGNORECASE)


def _offset_zone(text: str) -> tzinfo:
    match = _OFFSET.fullmatch(text)
    assert match is not None
    sign, hours, minutes = match.group(1), int(match.group(2)), int(match.group(3) or 0)
    offset = timedelta(hours=hours, minutes=minutes)
    if offset >= timedelta(hours=24) or minutes >= 60:
        from mithub.errors import ConfigError

        raise ConfigError(f"time zone offset {text!r} is out of range; use e.g. +09:00")
    return timezone.utc if not offset else timezone(-offset if sign == "-" else offset)


def zone_name(moment_or_zone: datetime | tzinfo) -> str:
    """How a meeting's zone is stored: the IANA name when the datetime has one, else its
    offset ("+09:00"), "UTC" for UTC. `display_zone(zone_name(x))` gives the zone back."""
    if isinstance(moment_or_zone, datetime):
        zone = moment_or_zone.tzinfo
        if zone is None:
            raise ValueError("a meeting's time zone needs a timezone-aware datetime")
        offset = moment_or_zone.utcoffset()
    else:
        zone, offset = moment_or_zone, moment_or_zone.utcoffset(None)
    key = getattr(zone, "key", None)  # zoneinfo.ZoneInfo
    if isinstance(key, str):
        return key
    if offset is None:
        raise ValueError(f"time zone {zone!r} has no fixed offset and no IANA name")
    return _offset_text(offset)


def _offset_text(offset: timedelta) -> str:
    """"+09:00", "-05:00"; "UTC" for no offset."""
    if not offset:
        return "UTC"
    sign = "-" if offset < timedelta(0) else "+"
    minutes = abs(offset) // timedelta(minutes=1)
    return f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"


def default_meeting_timezone() -> str:
    """MEETING_TIMEZONE: the zone of a meeting nothing else names one for."""
    from mithub.config import get_meeting_config

    return get_meeting_config().timezone


def meeting_timezone(started_at: datetime | None = None, named: str | None = None) -> str:
    """A new meeting's zone: the one its room names, else the offset of the start time a
    person gave (`replay --started-at 2026-05-04T08:30+09:00`), else MEETING_TIMEZONE."""
    if named and named.strip():
        return zone_name(display_zone(named))
    if started_at is not None:
        return zone_name(started_at)
    return default_meeting_timezone()


def local_time(instant: datetime, zone: tzinfo | str) -> datetime:
    """`instant` (any aware datetime, stored instants are UTC) on the meeting's clock."""
    if instant.tzinfo is None:
        raise ValueError("local_time needs a timezone-aware datetime")
    return instant.astimezone(display_zone(zone) if isinstance(zone, str) else zone)


def stamp(moment: datetime, seconds: bool = False) -> str:
    """A time as a person reads it, with the offset it is on: "2026-05-04 10:00 +09:00"."""
    offset = moment.utcoffset()
    if offset is None:
        raise ValueError("stamp needs a timezone-aware datetime")
    return f"{moment:%Y-%m-%d %H:%M{':%S' if seconds else ''}} {_offset_text(offset)}"


def local_date(instant: datetime, zone: tzinfo | str) -> date:
    """The meeting's calendar day of `instant`: what "오늘", "다음 주 금요일" and the meeting's
    label count from. The UTC date is the wrong day for a morning in Seoul or an evening in
    New York."""
    return local_time(instant, zone).date()


_ZONE = Field("UTC", description="the meeting's own time zone (IANA name, +HH:MM or UTC); its "
              "instants are given with this zone's offset")


class MeetingClock(BaseModel):
    """A meeting's instants are shown on its own clock: the store keeps UTC and the zone, and
    hands them back with the zone's offset (so `started_at.date()` is the meeting's day).
    Without a `timezone`, a `started_at` names the zone by its own offset."""

    timezone: str = _ZONE

    @property
    def zone(self) -> tzinfo:
        return display_zone(self.timezone)

    def local(self, instant: datetime) -> datetime:
        return local_time(instant, self.zone)

    @model_validator(mode="after")
    def _on_meeting_clock(self) -> MeetingClock:
        started = getattr(self, "started_at", None)
        if "timezone" not in self.model_fields_set and isinstance(started, datetime):
            self.timezone = zone_name(started)  # a start given on the meeting's clock names its zone
        on_meeting_clock(self, self.zone)
        return self


def on_meeting_clock(model: BaseModel, zone: tzinfo | str) -> None:
    """Give a model's instants, and those of the models in its lists (a record's decisions,
    action items), the meeting's offset, in place: the same instants, read on the meeting's
    wall clock wherever they are printed or serialised."""
    zone = display_zone(zone) if isinstance(zone, str) else zone
    for name in type(model).model_fields:
        value = getattr(model, name, None)
        if isinstance(value, datetime) and value.tzinfo is not None:
            # Past the field validators on purpose: some of them normalise to UTC for storage.
            object.__setattr__(model, name, value.astimezone(zone))
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, BaseModel):
                    on_meeting_clock(item, zone)
