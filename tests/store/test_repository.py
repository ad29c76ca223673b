"""The SQL repository on SQLite and PostgreSQL behaves like the in-memory reference."""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone

import pytest
from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState, MeetingRepository
from mithub.store.codec import STATE_FIELDS
from mithub.store.memory import InMemoryRepository
from mithub.store.tables import ManagerStateRow

KST = timezone(timedelta(hours=9))
T0 = datetime(2026, 3, 2, 14, 0, 0, 123456, tzinfo=KST)
SPEAKERS = [("kim", "김지현"), ("park", "박서준"), ("lee", "이민아"), ("choi", "최민호")]


def make_utterance(seq: int, speaker: int | None = None, text: str | None = None) -> Utterance:
    sid, name = SPEAKERS[(seq * 7 % 5) % 4 if speaker is None else speaker]
    return Utterance(
        id=seq,
        speaker_id=sid,
        speaker_name=name,
        text=text or f"{seq}번째 발화입니다. 예산은 2억.",
        start_ms=seq * 3000,
        end_ms=seq * 3000 + 2500,
        confidence=0.5 + (seq % 5) / 10,
        absolute_timestamp=T0 + timedelta(seconds=seq * 3, microseconds=seq),
        topic=f"주제 {seq // 20}",
        topic_id=f"m1:t{seq // 20 + 1}",
    )


def make_segment(index: int, start: int, end: int, version: int = 1) -> TopicSegment:
    return TopicSegment(
        id=f"m1:t{index}",
        name=f"예산 {index}",
        summary=f"요약 {index} v{version}",
        start_utterance_id=start,
        end_utterance_id=end,
        key_points=["a", "b"],
        keywords=["예산"],
        key_decisions=["2억 확정"],
        pending_items=["인력"],
        action_items=["박서준: 보고서 (3/5)"],
        participants=["김지현"],
        summary_mode="extractive",
        version=version,
        updated_at=T0 + timedelta(minutes=index),
    )


def make_state(last_seq: int) -> ManagerState:
    return ManagerState(
        meeting_id="m1",
        last_seq=last_seq,
        current_topic="채용",
        current_topic_id="m1:t3",
        topic_index=3,
        topic_start_seq=last_seq - 4,
        topic_buffer_start_seq=last_seq - 6,
        last_summarized_seq=last_seq - 5,
        turn_count_since_l1=5,
        last_l1_update=T0 + timedelta(seconds=last_seq),
        l1_update_count=7,
        detector_state={
            "window": [0.125, 0.5],
            "last_check_seq": last_seq,
            "nested": {"b": 1, "a": [1, 2]},
        },
        speaker_state={
            "stats": [{"user_id": "kim", "utterance_count": 3}],
            "interactions": [["kim", "park", 2]],
            "last_speaker_id": "park",
        },
    )


async def test_repository_satisfies_the_manager_port(repository):
    assert isinstance(repository, MeetingRepository)


async def test_appending_the_same_seq_again_changes_nothing(repository):
    await repository.append_utterances("m1", [make_utterance(i) for i in (1, 2, 3)])
    rewritten = make_utterance(2, text="다른 내용")
    await repository.append_utterances("m1", [rewritten, make_utterance(4)])
    await repository.append_utterances("m1", [make_utterance(4)])
    stored = await repository.get_utterances("m1")
    assert [u.id for u in stored] == [1, 2, 3, 4]
    assert stored[1] == make_utterance(2)  # the first write wins, as in a resumed replay
    assert await repository.count_utterances("m1") == 4


async def test_an_utterance_comes_back_with_every_field_and_in_utc(repository):
    original = make_utterance(5)
    await repository.append_utterances("m1", [original])
    [stored] = await repository.get_utterances("m1")
    assert stored == original
    assert stored.absolute_timestamp.tzinfo == timezone.utc
    assert stored.absolute_timestamp == T0 + timedelta(seconds=15, microseconds=5)


async def test_single_live_writes_keep_every_field_and_are_idempotent(repository):
    """One utterance at a time to a known meeting: PostgreSQL's one-statement path."""
    await repository.append_utterances("m1", [make_utterance(1)])
    await repository.acquire_lease("m1", ttl_seconds=30, heartbeat=False)
    for seq in (2, 3, 3, 2):
        await repository.append_utterances("m1", [make_utterance(seq)])
    await repository.append_utterances("m1", [make_utterance(3, text="다시 쓴 내용")])
    assert await repository.get_utterances("m1") == [make_utterance(s) for s in (1, 2, 3)]


async def test_reads_match_the_in_memory_reference(repository):
    reference = InMemoryRepository()
    rng = random.Random(7)
    seqs = sorted(rng.sample(range(1, 200), 90))
    for chunk in (seqs[:30], seqs[30:31], seqs[31:]):
        batch = [make_utterance(s) for s in chunk]
        await reference.append_utterances("m1", batch)
        await repository.append_utterances("m1", batch)
    await repository.append_utterances("other", [make_utterance(1)])
    for after, until, limit in [
        (0, None, None),
        (10, 120, None),
        (50, None, 7),
        (0, 60, 3),
        (199, None, None),
    ]:
        assert await repository.get_utterances(
            "m1", after_seq=after, until_seq=until, limit=limit
        ) == await reference.get_utterances("m1", after_seq=after, until_seq=until, limit=limit)
    for speaker in (None, "kim", "lee", "nobody"):
        for limit, until in [(25, None), (5, 100), (1000, 150), (0, None)]:
            assert await repository.get_last_utterances(
                "m1", limit, until_seq=until, speaker_id=speaker
            ) == await reference.get_last_utterances(
                "m1", limit, until_seq=until, speaker_id=speaker
            )
    for until in (None, 3, 40, 120):
        assert await repository.get_speaker_ids(
            "m1", until_seq=until
        ) == await reference.get_speaker_ids("m1", until_seq=until)
    assert await repository.last_seq("m1") == await reference.last_seq("m1") == seqs[-1]
    assert await repository.last_seq("unknown") == 0


async def test_l1_update_stores_trigger_segments_and_state_together(repository):
    await repository.append_utterances("m1", [make_utterance(i) for i in range(1, 30)])
    assert await repository.load_state("m1") == (None, [])
    await repository.save_l1_update(
        "m1", utterance=make_utterance(30), segments=[make_segment(1, 1, 25)], state=make_state(30)
    )
    await repository.save_l1_update(
        "m1",
        utterance=make_utterance(31),
        segments=[make_segment(2, 26, 31), make_segment(1, 1, 25, version=2)],
        state=make_state(31),
    )
    state, segments = await repository.load_state("m1")
    assert state == make_state(31)
    assert segments == [make_segment(1, 1, 25, version=2), make_segment(2, 26, 31)]
    assert await repository.last_seq("m1") == 31
    await repository.save_l1_update("m1", utterance=None, segments=[], state=make_state(32))
    assert (await repository.load_state("m1"))[0] == make_state(32)


async def test_every_manager_state_field_has_a_column():
    columns = set(ManagerStateRow.__table__.columns.keys())
    assert set(STATE_FIELDS.values()) <= columns
    assert set(ManagerState.model_fields) - {"meeting_id"} == set(STATE_FIELDS)


async def test_naive_datetimes_are_refused(repository):
    bad = make_state(30).model_copy(update={"last_l1_update": datetime(2026, 1, 1)})
    with pytest.raises(Exception, match="timezone-aware"):
        await repository.save_l1_update("m1", utterance=None, segments=[], state=bad)
