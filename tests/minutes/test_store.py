"""Stored minutes round-trip on SQLite and PostgreSQL (and the in-memory repository): the
same minutes back, on the meeting's clock, replaced when composed again; and a failure to
compose or store them never stops the meeting's end (`close_minutes` logs it)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from structlog.testing import capture_logs

from mithub.minutes.closing import close_minutes
from mithub.minutes.models import (
    Minutes,
    MinutesActionItem,
    MinutesDecision,
    MinutesParticipant,
    MinutesTopic,
    PreviousDecision,
)
from mithub.store.memory import InMemoryRepository
from mithub.context.models import Utterance

KST = timezone(timedelta(hours=9))
START = datetime(2026, 5, 11, 10, 0, tzinfo=KST)


def sample() -> Minutes:
    at = START + timedelta(minutes=7)
    return Minutes(
        meeting_id="m2", series_id="s", title="주간 회의 <2>", date=date(2026, 5, 11), started_at=START,
        ended_at=START + timedelta(minutes=13), timezone="Asia/Seoul", language="ko",
        participants=[MinutesParticipant(name="김지현", talk_seconds=268.4, turns=42)],
        topics=[MinutesTopic(title="GPU 서버", start=START, end=at, summary="3대로 줄인다.", first_seq=1, last_seq=62)],
        decisions=[MinutesDecision(text="GPU 3대로 가죠 & <확정>", value="3대", quote="GPU 3대로 가죠", speaker="김지현",
                                   time=at, seq=62, confidence=0.96,
                                   changed_since_last=PreviousDecision(value="4대", quote="GPU 4대", speaker="김지현",
                                                                       meeting_id="m1", date=date(2026, 5, 4), seq=66))],
        action_items=[MinutesActionItem(task="최종 견적", owner="박서준", due=date(2026, 5, 15), due_text="이번 주 금요일까지",
                                        speaker="김지현", time=at, seq=64, confidence=0.99)],
        composed_at=datetime(2026, 5, 11, 1, 14, tzinfo=timezone.utc),
    )


async def test_minutes_round_trip(repository) -> None:
    """On SQLite and on a real PostgreSQL (the `repository` fixture runs on both)."""
    await repository.ensure_meeting("m2", series_id="s", started_at=START, timezone="Asia/Seoul")
    assert await repository.get_minutes("m2") is None
    minutes = sample()
    await repository.save_minutes("m2", minutes)
    back = await repository.get_minutes("m2")
    assert back == minutes
    assert back.decisions[0].time.isoformat() == "2026-05-11T10:07:00+09:00"
    assert back.composed_at.isoformat() == "2026-05-11T10:14:00+09:00"
    assert back.decisions[0].text == "GPU 3대로 가죠 & <확정>"  # raw, as said
    again = minutes.model_copy(update={"mode": "llm", "title": "다시"})
    await repository.save_minutes("m2", again)
    assert (await repository.get_minutes("m2")).title == "다시"


async def test_in_memory_round_trip() -> None:
    store = InMemoryRepository()
    minutes = sample()
    await store.save_minutes("m2", minutes)
    assert await store.get_minutes("m2") == minutes
    assert await store.get_minutes("other") is None


class _FullDisk(InMemoryRepository):
    async def save_minutes(self, meeting_id: str, minutes: Minutes) -> None:
        raise OSError("disk full")


async def test_a_failure_is_logged_and_ends_nothing() -> None:
    store = _FullDisk()
    await store.ensure_meeting("m", series_id="s", started_at=START, timezone="Asia/Seoul")
    await store.append_utterances("m", [Utterance(id=1, speaker_id="k", speaker_name="김지현", text="예산은 3억으로 확정합니다.",
                                                  start_ms=0, end_ms=2000, absolute_timestamp=START)])
    with capture_logs() as logs:
        assert await close_minutes(store, "m") is None
    (event,) = [e for e in logs if e["event"] == "minutes_not_composed"]
    assert event["meeting_id"] == "m" and "disk full" in event["error"]
    assert await close_minutes(store, "unknown") is None  # an unknown meeting: logged, not raised


async def test_close_minutes_stores_what_it_composed() -> None:
    store = InMemoryRepository()
    await store.ensure_meeting("m", series_id="s", started_at=START, timezone="Asia/Seoul")
    assert await close_minutes(store, "m") is None, "nobody spoke: no minutes"
    await store.append_utterances("m", [Utterance(id=1, speaker_id="k", speaker_name="김지현", text="예산은 3억 원으로 확정하겠습니다.",
                                                  start_ms=0, end_ms=2000, absolute_timestamp=START)])
    minutes = await close_minutes(store, "m")
    assert minutes is not None and await store.get_minutes("m") == minutes
    assert minutes.language == "ko" and minutes.participants[0].talk_seconds == 2.0
