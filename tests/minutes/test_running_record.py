"""A running meeting's minutes (the recap page and the API compose them at every view) extract
its record once per stored turn, not at every view."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from mithub.context.models import Utterance
from mithub.minutes import compose
from mithub.store.memory import InMemoryRepository

START = datetime(2026, 5, 4, 1, 0, tzinfo=timezone.utc)
SAID = ["좋습니다. 베타 출시는 7월 22일로 하겠습니다.", "네, 안내 메일은 제가 금요일까지 보낼게요.",
        "그럼 예산은 1억 원 한도로 하죠."]


def _turn(i: int) -> Utterance:
    return Utterance(id=i + 1, speaker_id=f"s{i % 2}", speaker_name=["김지현", "이수민"][i % 2], text=SAID[i],
                     absolute_timestamp=START + timedelta(seconds=10 * i), start_ms=10_000 * i,
                     end_ms=10_000 * i + 4000)


async def test_a_running_meetings_record_is_extracted_once_per_new_turn(monkeypatch):
    calls = []
    real = compose.extract_record

    def counting(*args, **kwargs):
        calls.append(len(args[3]))
        return real(*args, **kwargs)

    monkeypatch.setattr(compose, "extract_record", counting)
    repository = InMemoryRepository()
    await repository.ensure_meeting("running-1", title="running", series_id="s", started_at=START)
    await repository.append_utterances("running-1", [_turn(0), _turn(1)])
    first = await compose.compose_minutes(repository, "running-1")
    again = await compose.compose_minutes(repository, "running-1")
    assert calls == [2]
    assert again.decisions == first.decisions and again.action_items == first.action_items
    await repository.append_utterances("running-1", [_turn(2)])
    later = await compose.compose_minutes(repository, "running-1")
    assert calls == [2, 3]
    assert len(later.decisions) >= len(first.decisions)
