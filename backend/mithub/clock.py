"""UTC-aware time; injectable so time-based triggers are testable."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta, timezone, tzinfo

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
    """The time zone a setting names (MEMORY_TIMEZONE); UTC needs no zone database."""
    if name.upper() in ("UTC", "Z", ""):
        return timezone.utc
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from mithub.errors import ConfigError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ConfigError(f"unknown time zone {name!r}; use an IANA name such as Asia/Seoul "
                          "(install the tzdata package if the system has no zone database)") from exc
