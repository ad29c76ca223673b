"""Changes to past decisions with an LLM configured: the LLM-free detector proposes, a real
llama.cpp server (SmolLM2-135M) is asked about the pair, its "no" vetoes the notice, and a
server that does not answer leaves the LLM-free verdict in place."""

from __future__ import annotations

import socket
from datetime import datetime, timedelta, timezone

import pytest

from mithub.agent.decision_watch import DecisionWatch
from mithub.config import LLMConfig
from mithub.context.models import Utterance
from mithub.embedders import load_embedder
from mithub.llm.openai_compat import OpenAICompatibleClient
from mithub.record.meeting_record import extract_record
from mithub.store.memory import InMemoryRepository

WEEK_ONE = datetime(2026, 5, 4, 9, 0, tzinfo=timezone.utc)
LAST_WEEK = [("alice", "Alice", "Let's settle the launch date."), ("bob", "Bob", "I propose June 12."),
             ("alice", "Alice", "Okay, we'll go with June 12 for the launch date. That's final."),
             ("bob", "Bob", "Sounds good.")]
TODAY = "Last week we set the launch for June 12. We are moving the launch date to July 3."


def _turn(seq: int, speaker: tuple[str, str], text: str, at: datetime) -> Utterance:
    return Utterance(id=seq, speaker_id=speaker[0], speaker_name=speaker[1], text=text, absolute_timestamp=at)


async def _watch(llm) -> tuple[DecisionWatch, Utterance]:  # noqa: ANN001
    store = InMemoryRepository()
    await store.ensure_meeting("week-1", series_id="launch", started_at=WEEK_ONE)
    await store.ensure_meeting("week-2", series_id="launch", started_at=WEEK_ONE + timedelta(days=7))
    turns = [_turn(i + 1, (sid, name), text, WEEK_ONE + timedelta(seconds=5 * i))
             for i, (sid, name, text) in enumerate(LAST_WEEK)]
    await store.save_meeting_record(extract_record("week-1", "launch", WEEK_ONE, turns))
    watch = DecisionWatch(store, load_embedder(), meeting_id="week-2", series_id="launch",
                          started_at=WEEK_ONE + timedelta(days=7), llm=llm)
    assert await watch.start() == 1
    return watch, _turn(1, ("alice", "Alice"), TODAY, WEEK_ONE + timedelta(days=7))


async def test_without_an_llm_the_detector_decides():
    watch, line = await _watch(None)
    assert [c.kind for c in await watch.observe([line])] == ["explicit"]


@pytest.mark.llm
async def test_the_llm_is_asked_and_its_verdict_counts(llm_server):
    client = OpenAICompatibleClient(LLMConfig(base_url=llm_server, model="smollm2"))
    try:
        watch, line = await _watch(client)
        found = await watch.observe([line])
    finally:
        await client.aclose()
    # SmolLM2-135M's judgement is not meant to be good, only real: it either confirmed the
    # change (noticed) or vetoed it (recorded as vetoed); never both, never neither.
    assert len(found) + len(watch.vetoed) == 1
    assert found == watch.changes


async def test_an_llm_that_does_not_answer_keeps_the_llm_free_verdict():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # nothing listens here once the socket closes
    client = OpenAICompatibleClient(LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="none",
                                              timeout_seconds=2, max_retries=0))
    try:
        watch, line = await _watch(client)
        found = await watch.observe([line])
    finally:
        await client.aclose()
    assert [c.kind for c in found] == ["explicit"] and not watch.vetoed
