"""The OpenAI-compatible client against a real llama.cpp server (SmolLM2-135M)."""

import socket

import pytest

from mithub.config import LLMConfig
from mithub.errors import LLMError, LLMOutputError
from mithub.llm.json_output import parse_json_object
from mithub.llm.openai_compat import OpenAICompatibleClient

pytestmark = pytest.mark.llm

SCHEMA = {
    "type": "object",
    "properties": {"topic_changed": {"type": "boolean"}, "current_topic": {"type": "string"}},
    "required": ["topic_changed", "current_topic"],
}


def _client(base_url: str, **overrides) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(LLMConfig(base_url=base_url, model="smollm2", **overrides))


async def test_schema_constrained_answer_parses(llm_server):
    client = _client(llm_server)
    text = await client.complete_json(
        system="Answer in JSON.", user="Did the topic change from budget to hiring? Name the topic.",
        schema=SCHEMA, max_tokens=60,
    )
    data = parse_json_object(text)
    assert isinstance(data["topic_changed"], bool) and isinstance(data["current_topic"], str)
    await client.aclose()


async def test_answer_cut_at_max_tokens_is_an_output_error(llm_server):
    client = _client(llm_server)
    text = await client.complete_json(system="Answer in JSON.", user="Describe the meeting.",
                                      schema=SCHEMA, max_tokens=3)
    with pytest.raises(LLMOutputError):
        parse_json_object(text)
    await client.aclose()


async def test_unreachable_server_raises_after_retries():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = _client(f"http://127.0.0.1:{port}/v1", max_retries=2, timeout_seconds=1)
    with pytest.raises(LLMError, match="unreachable"):
        await client.complete_json(system="s", user="u", schema=SCHEMA, max_tokens=5)
    await client.aclose()


def test_llm_free_mode_has_no_client():
    from mithub.llm.factory import create_llm_client

    assert create_llm_client(LLMConfig(base_url="")) is None
    with pytest.raises(LLMError, match="LLM_BASE_URL"):
        OpenAICompatibleClient(LLMConfig(base_url=" "))


async def test_exact_token_count_from_the_server_tokenizer(llm_server):
    client = _client(llm_server)
    short = await client.count_tokens("hello")
    longer = await client.count_tokens("hello " * 50)
    assert short is not None and 1 <= short <= 3
    assert longer is not None and longer > 40
    await client.aclose()


async def test_token_count_is_none_without_a_server():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = _client(f"http://127.0.0.1:{port}/v1", timeout_seconds=1)
    assert await client.count_tokens("hello") is None
    await client.aclose()
