"""The meeting record with an LLM configured: a real llama.cpp server (SmolLM2-135M) extracts
it window by window; whatever it returns is checked against the transcript, and where it does
not answer the LLM-free record stands."""

from __future__ import annotations

import socket
from datetime import datetime, timezone

import pytest
from mithub_meetings import sample_lines

from mithub.config import LLMConfig
from mithub.context.models import Utterance
from mithub.llm.openai_compat import OpenAICompatibleClient
from mithub.record.llm_record import extract_record_with_llm
from mithub.record.meeting_record import extract_record

STARTED = datetime(2026, 5, 4, 1, 0, tzinfo=timezone.utc)


def _turns(n: int) -> list[Utterance]:
    return [Utterance(id=i + 1, **u.model_dump(exclude={"confidence"})) for i, u in enumerate(sample_lines()[:n])]


@pytest.mark.llm
async def test_a_real_llm_record_cites_turns_of_the_meeting(llm_server):
    turns = _turns(60)
    client = OpenAICompatibleClient(LLMConfig(base_url=llm_server, model="smollm2"))
    try:
        record = await extract_record_with_llm(client, "m", "s", STARTED, turns, max_tokens=200)
    finally:
        await client.aclose()
    assert record.mode in ("llm", "mixed")
    seqs = {u.id for u in turns}
    names = {u.speaker_name for u in turns}
    items = [*record.decisions, *record.action_items, *record.pending_items]
    assert all(item.seq in seqs for item in items)
    assert all(a.owner in names for a in record.action_items)
    by_seq = {u.id: u for u in turns}
    assert all(a.due_text is None or a.due_date is None or a.due_text in by_seq[a.seq].text
               for a in record.action_items), "due dates come from the words said"
    from mithub.record.pair_model import key_terms

    assert all(key_terms(by_seq[d.seq].text) <= set(d.discussed) for d in record.decisions), \
        "a decision keeps the terms of the talk that led to it, its own line's included"


async def test_an_llm_that_does_not_answer_leaves_the_llm_free_record():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = OpenAICompatibleClient(LLMConfig(base_url=f"http://127.0.0.1:{port}/v1", model="none",
                                              timeout_seconds=2, max_retries=0))
    turns = _turns(181)
    try:
        record = await extract_record_with_llm(client, "m", "s", STARTED, turns)
    finally:
        await client.aclose()
    plain = extract_record("m", "s", STARTED, turns)
    assert record.mode == "mixed"
    assert (record.decisions, record.action_items, record.pending_items) == \
        (plain.decisions, plain.action_items, plain.pending_items)
