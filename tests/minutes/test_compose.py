"""The minutes of the two demo meetings, as the replay stored them when each ended: their
decisions, the two changes the follow-up makes to the first meeting's decisions (GPU servers
4 → 3, the beta 7월 22일 → 8월 5일), action items with owners and due dates, open items and
the topic timeline, every item citing the transcript line it comes from (speaker, time)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from mithub.config import LLMConfig
from mithub.llm.openai_compat import OpenAICompatibleClient
from mithub.minutes.compose import compose_minutes
from mithub.minutes.models import Minutes

from .conftest import read_store, with_store

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def stored(demo_url) -> dict[str, tuple[Minutes, dict]]:
    """Each demo meeting's stored minutes and its transcript by seq."""
    async def read(store):  # noqa: ANN001, ANN202
        found = {}
        for meeting_id in ("demo-ko-1", "demo-ko-2"):
            turns = {u.id: u for u in await store.get_utterances(meeting_id)}
            found[meeting_id] = (await store.get_minutes(meeting_id), turns)
        return found
    return read_store(demo_url, read)


def _cited_items(minutes: Minutes) -> list:
    return [*minutes.decisions, *minutes.action_items, *minutes.open_questions]


@pytest.mark.parametrize("meeting_id", ["demo-ko-1", "demo-ko-2"])
def test_every_item_cites_the_line_it_comes_from(stored, meeting_id: str) -> None:
    minutes, turns = stored[meeting_id]
    assert minutes is not None, "the replay stores the minutes when the meeting ends"
    items = _cited_items(minutes)
    assert len(minutes.decisions) >= 5 and len(minutes.action_items) >= 5
    for item in items:
        line = turns[item.seq]
        assert item.time == line.absolute_timestamp, item
        assert item.time.utcoffset() == timedelta(hours=9), "times are on the meeting's clock"
    for decision in minutes.decisions:  # the decision's words are its line's
        assert decision.speaker == turns[decision.seq].speaker_name
        assert decision.quote and decision.quote in " ".join(turns[decision.seq].text.split())


def test_the_follow_up_shows_both_changes_to_last_weeks_decisions(stored) -> None:
    minutes, turns = stored["demo-ko-2"]
    assert (minutes.language, minutes.mode, minutes.date) == ("ko", "extractive", date(2026, 5, 11))
    changes = {c.seq: c for c in minutes.changes()}
    assert len(changes) == 2, [c.text for c in changes.values()]
    gpu = next(c for c in changes.values() if "GPU 3대" in c.text)
    assert "3대" in gpu.value and "4대" in gpu.changed_since_last.value
    assert "GPU 4대" in gpu.changed_since_last.quote
    beta = next(c for c in changes.values() if "8월 5일" in c.text)
    assert "7월 22일" in beta.changed_since_last.value and "7월 22일" in beta.changed_since_last.quote
    for change in (gpu, beta):
        past = change.changed_since_last
        assert (change.speaker, past.speaker) == ("김지현", "김지현")
        assert (past.meeting_id, past.date) == ("demo-ko-1", date(2026, 5, 4))
        assert past.meeting_title == "ko_product_planning.jsonl"
    first, _ = stored["demo-ko-1"]
    assert first.changes() == [], "the first meeting of the series changes nothing"
    # The earlier quote is the first meeting's own line.
    first_lines = {d.seq: d.quote for d in first.decisions}
    assert first_lines[gpu.changed_since_last.seq] == gpu.changed_since_last.quote


def test_action_items_have_owners_and_due_dates_on_the_meetings_calendar(stored) -> None:
    minutes, _ = stored["demo-ko-2"]
    by_task = {a.task: a for a in minutes.action_items}
    quote = next(t for t in by_task if "3대 기준으로 최종 견적" in t)
    assert (by_task[quote].owner, by_task[quote].speaker, by_task[quote].due) == ("박서준", "김지현", date(2026, 5, 15))
    mail = next(t for t in by_task if "안내 메일" in t)
    assert (by_task[mail].owner, by_task[mail].due) == ("이수민", date(2026, 5, 12))
    first, _ = stored["demo-ko-1"]
    owners = {(a.owner, a.due) for a in first.action_items}
    assert ("박서준", date(2026, 5, 8)) in owners  # 세 번째 견적, 이번 주 금요일까지
    assert ("이수민", date(2026, 7, 12)) in owners  # 한빛금융 체크리스트 답변서


def test_decisions_open_items_topics_and_talk_time(stored) -> None:
    first, turns = stored["demo-ko-1"]
    texts = " ".join(d.text for d in first.decisions)
    assert "2억 4천만 원" in texts and "GPU 4대" in texts and "7월 22일" in texts
    second, turns2 = stored["demo-ko-2"]
    assert any("대성제약" in q.text for q in second.open_questions)
    # The timeline covers the meeting in order, each topic summarised.
    assert len(second.topics) >= 3
    assert second.topics[0].first_seq == 1 and second.topics[-1].last_seq == max(turns2)
    assert all(t.summary and t.start <= t.end for t in second.topics)
    assert [t.start for t in second.topics] == sorted(t.start for t in second.topics)
    # Talk time: every turn's duration, per speaker, most first.
    total = sum(u.end_ms - u.start_ms for u in turns.values()) / 1000
    assert sum(p.talk_seconds for p in first.participants) == pytest.approx(total, abs=0.5)
    assert sum(p.turns for p in first.participants) == len(turns)
    assert [p.talk_seconds for p in first.participants] == sorted((p.talk_seconds for p in first.participants),
                                                                  reverse=True)
    assert {p.name for p in first.participants} == {"김지현", "박서준", "이수민", "최민호"}


def test_composing_again_gives_the_stored_minutes(demo_url, stored) -> None:
    again = read_store(demo_url, lambda store: compose_minutes(store, "demo-ko-2"))
    kept, _ = stored["demo-ko-2"]
    assert again.model_dump(exclude={"composed_at"}) == kept.model_dump(exclude={"composed_at"})


async def test_an_llm_that_cannot_be_reached_leaves_the_extractive_minutes(demo_url, unused_tcp_port) -> None:
    client = OpenAICompatibleClient(LLMConfig(base_url=f"http://127.0.0.1:{unused_tcp_port}/v1", model="x",
                                              timeout_seconds=2, max_retries=0))
    try:
        minutes = await with_store(demo_url, lambda store: compose_minutes(store, "demo-ko-2", llm=client))
    finally:
        await client.aclose()
    plain = await with_store(demo_url, lambda store: compose_minutes(store, "demo-ko-2"))
    assert minutes.mode == "extractive"
    assert minutes.model_dump(exclude={"composed_at"}) == plain.model_dump(exclude={"composed_at"})


@pytest.mark.llm
async def test_a_real_llm_may_only_reword_the_summaries(demo_url, llm_server) -> None:
    client = OpenAICompatibleClient(LLMConfig(base_url=llm_server, model="smollm2"))
    try:
        minutes = await with_store(demo_url, lambda store: compose_minutes(store, "demo-ko-2", llm=client))
    finally:
        await client.aclose()
    plain = await with_store(demo_url, lambda store: compose_minutes(store, "demo-ko-2"))
    assert minutes.mode in ("llm", "extractive")  # a 135M model may well give nothing usable
    keep = {"composed_at", "mode", "topics"}
    assert minutes.model_dump(exclude=keep) == plain.model_dump(exclude=keep), "items and citations are the record's"
    assert [t.model_dump(exclude={"summary"}) for t in minutes.topics] == \
        [t.model_dump(exclude={"summary"}) for t in plain.topics]
    if minutes.mode == "extractive":
        assert [t.summary for t in minutes.topics] == [t.summary for t in plain.topics]
    else:
        assert all(t.summary.strip() for t in minutes.topics)
