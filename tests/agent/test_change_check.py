"""Changes to past decisions with an LLM configured: the LLM-free detector proposes, a real
llama.cpp server (SmolLM2-135M) is asked about the pair, its "no" vetoes the notice, and a
server that does not answer leaves the LLM-free verdict in place."""

from __future__ import annotations

import socket

import pytest
from mithub_series import launch_watch

from mithub.config import LLMConfig
from mithub.llm.openai_compat import OpenAICompatibleClient

async def test_without_an_llm_the_detector_decides():
    watch, line = await launch_watch(None)
    assert [c.kind for c in await watch.observe([line])] == ["explicit"]


@pytest.mark.llm
async def test_the_llm_is_asked_and_its_verdict_counts(llm_server):
    client = OpenAICompatibleClient(LLMConfig(base_url=llm_server, model="smollm2"))
    try:
        watch, line = await launch_watch(client)
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
        watch, line = await launch_watch(client)
        found = await watch.observe([line])
    finally:
        await client.aclose()
    assert [c.kind for c in found] == ["explicit"] and not watch.vetoed
