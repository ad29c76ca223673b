"""ContextManager behaviour with the real embedder, detector and extractive summarizer."""

from datetime import timedelta

import pytest
from structlog.testing import capture_logs

from mithub.clock import ManualClock
from mithub.config import ContextConfig
from mithub.context.factory import create_context_manager
from mithub.context.report import meeting_report
from mithub.store.memory import InMemoryRepository

from .conftest import T0, new_utterance

BUDGET = [
    "3분기 클라우드 예산 집행률을 먼저 보겠습니다.",
    "클라우드 예산 중 GPU 인스턴스 비용이 가장 큽니다.",
    "예산 초과분은 다음 분기 예산에서 조정해야 합니다.",
    "클라우드 비용 절감안으로 예약 인스턴스를 검토했습니다.",
    "예산 보고서에는 월별 클라우드 사용량을 넣어 주세요.",
]
HIRING = [
    "백엔드 개발자 채용 공고는 이번 주에 올립니다.",
    "면접 일정은 채용 담당자와 조율하겠습니다.",
    "신입 개발자 채용 인원은 두 명으로 생각하고 있습니다.",
    "채용 과제 전형은 온라인 코딩 테스트로 진행합니다.",
    "면접관은 팀마다 한 명씩 배정해 주세요.",
]
SPEAKERS = [("kim", "김지현"), ("park", "박서준"), ("lee", "이민아")]


def _line(i: int, texts: list[str]):
    sid, name = SPEAKERS[i % 3]
    return new_utterance(texts[i % len(texts)], sid, name, at_s=i * 5)


def _manager(repo=None, clock=None, **overrides):
    config = ContextConfig(**overrides)
    clock = clock or ManualClock(T0)
    return create_context_manager("m1", repo or InMemoryRepository(), config=config, clock=clock)


async def _feed(manager, count: int, texts: list[str], start: int = 0, clock=None):
    for i in range(start, start + count):
        line = _line(i, texts)
        if clock is not None:
            clock.set(line.absolute_timestamp)
        await manager.add_utterance(line)


async def test_turn_limit_updates_the_same_segment_recursively():
    manager = _manager()
    settle = manager._detector.lookahead + 1
    await _feed(manager, 24 + settle, BUDGET)
    assert manager.get_l1_segments() == []
    await _feed(manager, 1, BUDGET, start=24 + settle)
    [segment] = manager.get_l1_segments()
    assert (segment.start_utterance_id, segment.end_utterance_id, segment.version) == (1, 25, 1)
    assert segment.summary and segment.summary_mode == "extractive"

    await _feed(manager, 25, BUDGET, start=25 + settle)
    [segment] = manager.get_l1_segments()  # one segment per topic however long it runs
    assert (segment.end_utterance_id, segment.version) == (50, 2)
    assert manager.last_summarized_utterance_id == 50


async def test_topic_change_opens_a_new_segment_with_overlap():
    manager = _manager()
    await _feed(manager, 30, BUDGET)
    await manager.add_utterance(new_utterance("자 그럼 다음 안건으로 넘어가죠. 채용 건입니다.", "kim", "김지현", 200))
    await _feed(manager, manager._detector.lookahead + 1, HIRING, start=41)
    segments = manager.get_l1_segments()
    assert len(segments) == 1 and segments[0].end_utterance_id == 30
    assert manager.current_topic_id == "m1:t2" and manager.current_topic != segments[0].name
    topic_turns = manager.get_topic_utterances()
    assert [u.id for u in topic_turns[:3]] == [29, 30, 31]  # two turns of overlap, then the cue
    assert all(u.topic_id == "m1:t2" for u in topic_turns if u.id >= 31)
    assert all(u.topic_id == "m1:t1" for u in manager.get_l0_utterances() if u.id <= 30)


async def test_time_limit_with_a_fake_clock():
    clock = ManualClock(T0)
    manager = _manager(clock=clock)
    settle = manager._detector.lookahead + 1
    await _feed(manager, 5 + settle, BUDGET, clock=clock)
    assert manager.get_l1_segments() == []
    clock.advance(minutes=16)
    await manager.add_utterance(_line(99, BUDGET).model_copy(update={"absolute_timestamp": clock()}))
    [segment] = manager.get_l1_segments()
    assert segment.end_utterance_id == 6


async def test_time_limit_needs_enough_new_utterances():
    clock = ManualClock(T0)
    manager = _manager(clock=clock)
    await _feed(manager, 3, BUDGET, clock=clock)
    clock.advance(minutes=30)
    await manager.add_utterance(_line(3, BUDGET))
    assert await manager.tick() is False
    assert manager.get_l1_segments() == []


async def test_hard_token_limit_summarizes_before_the_turn_limit():
    manager = _manager(l0_topic_buffer_max_tokens=600)
    long_text = " ".join(BUDGET) * 2
    settle = manager._detector.lookahead + 1
    for i in range(settle + 8):
        await manager.add_utterance(new_utterance(long_text, "park", "박서준", i * 30))
    with capture_logs() as logs:
        await manager.add_utterance(new_utterance(long_text, "park", "박서준", 999))
    assert manager.get_l1_segments(), "token limit should have produced a summary"
    assert any(e.get("reason") == "token_limit" for e in logs)
    assert manager.get_l1_segments()[0].end_utterance_id < 25


async def test_no_utterance_is_summarized_twice():
    manager = _manager()
    with capture_logs() as logs:
        await _feed(manager, 120, BUDGET)
        await manager.add_utterance(new_utterance("다음 안건으로 넘어가죠.", "kim", "김지현", 700))
        await _feed(manager, 60, HIRING, start=200)
        await manager.finalize()
    updates = [e for e in logs if e["event"] in ("l1_segment_created", "l1_segment_updated")]
    covered = []
    for event in updates:
        covered.extend(range(event["end_seq"] - event["summarized"] + 1, event["end_seq"] + 1))
    assert len(covered) == len(set(covered)) == manager.last_seq


async def test_oversize_utterance_is_split_and_each_piece_stored():
    repo = InMemoryRepository()
    manager = _manager(repo, utterance_max_tokens=40)
    stored = await manager.add_utterance(new_utterance(" ".join(BUDGET * 3), "park", "박서준"))
    assert len(stored) > 1 and [u.id for u in stored] == list(range(1, len(stored) + 1))
    assert await repo.last_seq("m1") == len(stored)


@pytest.mark.slow
async def test_buffers_stay_bounded_over_ten_thousand_utterances():
    manager = _manager()
    texts = BUDGET + HIRING
    for i in range(10_000):
        await manager.add_utterance(_line(i, texts))
    cfg = manager.config
    assert len(manager.l0_buffer) <= cfg.l0_max_turns and manager.l0_buffer.tokens <= cfg.l0_max_tokens
    assert len(manager.l0_topic_buffer) <= cfg.l0_topic_buffer_max_turns
    assert all(len(b) <= cfg.speaker_buffer_max_per_speaker
               for b in manager.speaker_context.speaker_buffers.values())
    assert manager.last_summarized_utterance_id >= 10_000 - 25 - manager._detector.lookahead - 1


async def test_restored_manager_matches_one_that_never_stopped():
    meeting = [_line(i, BUDGET) for i in range(40)]
    meeting.append(new_utterance("다음 안건으로 넘어가죠. 채용 건입니다.", "kim", "김지현", 300))
    meeting += [_line(i, HIRING) for i in range(50, 90)]

    async def run(stop_after: int | None):
        repo = InMemoryRepository()
        clock = ManualClock(T0)
        manager = _manager(repo, clock)
        for line in meeting[:stop_after]:
            clock.set(line.absolute_timestamp)
            await manager.add_utterance(line)
        if stop_after is None:
            return manager
        restored = _manager(repo, clock)
        assert await restored.restore_from_db() == stop_after
        for line in meeting[stop_after:]:
            clock.set(line.absolute_timestamp)
            await restored.add_utterance(line)
        return restored

    reference = await run(None)
    for stop in (7, 33, 41, 58):
        restored = await run(stop)
        assert meeting_report(restored) == meeting_report(reference), f"stopped after {stop}"
        assert restored.get_l0_utterances() == reference.get_l0_utterances()
        assert restored.get_topic_utterances() == reference.get_topic_utterances()


async def test_utterances_are_durable_before_add_returns():
    repo = InMemoryRepository()
    manager = _manager(repo)
    for i in range(3):
        await manager.add_utterance(_line(i, BUDGET))
        assert await repo.last_seq("m1") == i + 1


def test_timestamps_must_be_timezone_aware():
    from pydantic import ValidationError

    line = _line(0, BUDGET)
    with pytest.raises(ValidationError):
        line.model_validate({**line.model_dump(), "absolute_timestamp": (T0 + timedelta(0)).replace(tzinfo=None)})
