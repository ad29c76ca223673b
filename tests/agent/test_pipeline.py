"""Agent calls end to end: LLM-free templates, and a real llama.cpp server that answers, is
stopped, is too slow, or returns JSON cut off mid-way."""

import json
import re
import socket

import pytest

from mithub.agent import AgentPipeline
from mithub.config import LLMConfig
from mithub.context.models import AGENT_CALL_TYPES
from mithub.llm.breaker import CircuitBreaker
from mithub.llm.openai_compat import OpenAICompatibleClient

from .conftest import EXAMPLES


def _closed_port_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def _client(url: str, **overrides) -> OpenAICompatibleClient:
    return OpenAICompatibleClient(LLMConfig(base_url=url, model="smollm2", max_retries=0, **overrides))


@pytest.mark.parametrize("call_type", AGENT_CALL_TYPES)
async def test_llm_free_answers_are_templates_with_citations(korean_meeting, call_type):
    session, builder = korean_meeting
    query = "GPU 서버는 몇 대 도입하기로 했나요?" if call_type in ("IMMEDIATE_RESPONSE", "SEARCH") else None
    answer = await AgentPipeline(builder).call(session, call_type, query)
    assert answer.mode in ("template", "retrieval_only") and answer.answer
    assert answer.citations and answer.context_tokens > 0
    assert f"(mode: {answer.mode})" in answer.render_text()


@pytest.mark.parametrize("call_type", ["IMMEDIATE_RESPONSE", "SEARCH"])
async def test_question_template_quotes_the_turn_with_the_answer(korean_meeting, call_type):
    # SEARCH has room for a long stretch of discussion: the template quotes the turns of it
    # that share the question's words, not the stretch's first two.
    session, builder = korean_meeting
    answer = await AgentPipeline(builder).call(session, call_type, "Q3 클라우드 예산은 얼마로 확정했나요?")
    assert answer.mode == "template"
    assert any("2억 4천만" in (c.quote or "") for c in answer.citations if c.kind == "utterance")


async def test_summary_template_lists_topics_decisions_and_pending(korean_meeting):
    session, builder = korean_meeting
    answer = await AgentPipeline(builder).call(session, "SUMMARY")
    assert answer.mode == "template"
    for segment in session.manager.get_l1_segments():
        assert segment.name in answer.answer
    assert "2억 4천만" in answer.answer and "보류" in answer.answer
    # Decisions are cited by the utterances that settled them, with speaker and time.
    facts = json.loads((EXAMPLES / "ko_product_planning.facts.json").read_text(encoding="utf-8"))
    assert {c.kind for c in answer.citations} == {"utterance"}
    assert all(c.speaker and c.time and c.quote for c in answer.citations)
    cited = {c.seq for c in answer.citations}
    assert {d["seq"] for d in facts["decisions"]} <= cited, cited


async def test_action_template_has_owners_and_due_dates(korean_meeting):
    session, builder = korean_meeting
    facts = json.loads((EXAMPLES / "ko_product_planning.facts.json").read_text(encoding="utf-8"))
    answer = await AgentPipeline(builder).call(session, "ACTION_EXTRACTION")
    assert answer.mode == "template"
    owners = {item["owner"] for item in facts["action_items"]}
    assert all(owner in answer.answer for owner in owners)
    # Due dates as dates, and each item cites the utterance that settled it.
    assert re.search(r"\d{4}-\d{2}-\d{2} \(다음 주 화요일까지\)", answer.answer), answer.answer
    cited = {c.seq for c in answer.citations}
    # an item cites where it was settled: the request, or the acceptance just before or after it
    assert all(cited & {item["seq"] - 1, item["seq"], item["seq"] + 1} for item in facts["action_items"]), cited
    assert all(c.speaker and c.time for c in answer.citations)


async def test_question_answer_quotes_the_speaker_and_time(english_meeting):
    session, builder = english_meeting
    answer = await AgentPipeline(builder).call(session, "IMMEDIATE_RESPONSE",
                                               "How many story points did we commit to?")
    utterances = [c for c in answer.citations if c.kind == "utterance"]
    assert utterances and all(c.speaker and c.time for c in utterances)
    assert any("36" in (c.quote or "") for c in utterances)


@pytest.mark.llm
async def test_real_llm_answer_is_parsed_and_cached(korean_meeting, llm_server):
    session, builder = korean_meeting
    pipeline = AgentPipeline(builder, llm=_client(llm_server, timeout_seconds=180), max_output_tokens=200)
    first = await pipeline.call(session, "IMMEDIATE_RESPONSE", "베타 출시일은 언제로 정했나요?")
    # A 135M model can still cut its JSON short; then the template answers, labelled as such.
    assert first.mode in ("llm", "template")
    if first.mode == "llm":
        again = await pipeline.call(session, "IMMEDIATE_RESPONSE", "베타 출시일은 언제로 정했나요?")
        assert again.mode == "cache" and again.answer == first.answer


@pytest.mark.llm
async def test_cut_off_json_falls_back_to_the_template(korean_meeting, llm_server):
    session, builder = korean_meeting
    pipeline = AgentPipeline(builder, llm=_client(llm_server), max_output_tokens=4)
    answer = await pipeline.call(session, "SUMMARY")
    assert answer.mode == "template" and answer.citations
    assert pipeline.breaker.state == "closed"  # the server is fine; only its output was not


@pytest.mark.llm
async def test_slow_server_times_out_to_the_template(korean_meeting, llm_server):
    session, builder = korean_meeting
    # A short answer budget: the server keeps generating for the abandoned request, and the
    # next test's request waits behind it.
    pipeline = AgentPipeline(builder, llm=_client(llm_server, timeout_seconds=0.05), max_output_tokens=16)
    answer = await pipeline.call(session, "IMMEDIATE_RESPONSE", "보안 감사 로그는 며칠 보관하나요?")
    assert answer.mode == "template"
    assert any("180일" in (c.quote or "") for c in answer.citations)


@pytest.mark.llm
async def test_circuit_breaker_opens_on_a_stopped_server_and_recovers(korean_meeting, llm_server):
    session, builder = korean_meeting
    now = [0.0]
    breaker = CircuitBreaker(failure_threshold=2, reset_seconds=30, clock=lambda: now[0])
    pipeline = AgentPipeline(builder, llm=_client(_closed_port_url()), breaker=breaker, max_output_tokens=120)
    for _ in range(2):
        assert (await pipeline.call(session, "SUMMARY")).mode == "template"
    assert breaker.state == "open"
    assert (await pipeline.call(session, "SUMMARY")).mode == "template"  # fails fast, no request

    now[0] += 31  # the server is back and the breaker lets one trial call through
    pipeline._llm = _client(llm_server, timeout_seconds=300)
    pipeline._max_output_tokens = 60
    answer = await pipeline.call(session, "IMMEDIATE_RESPONSE", "최민호 님은 무슨 말을 했나요?")
    assert answer.mode in ("llm", "template")
    assert breaker.state == "closed"


@pytest.mark.llm
async def test_exact_token_count_cuts_a_context_the_window_cannot_hold(korean_meeting, llm_server):
    from mithub.config import ContextConfig
    from mithub.context.builder import ContextBuilder
    from mithub.embedders import load_embedder

    session, _ = korean_meeting
    # Korean text costs this model's tokenizer far more than the estimate: the exact count
    # must catch it before the request overflows a small window.
    small = ContextBuilder(config=ContextConfig(model_context_window=2048, budget_summary=1800),
                           embedder=load_embedder())
    pipeline = AgentPipeline(small, llm=_client(llm_server, timeout_seconds=300), max_output_tokens=8)
    answer = await pipeline.call(session, "SUMMARY")
    assert answer.context_tokens <= 2048 - 8 - 64
    assert answer.mode in ("llm", "template", "retrieval_only") and answer.answer.strip()


async def test_citations_quote_what_was_said_not_the_condensed_prompt_line(korean_meeting):
    """Long turns are condensed for the prompt ("…"); their citations quote the words said."""
    session, builder = korean_meeting
    answer = await AgentPipeline(builder).call(session, "SEARCH", "GPU 서버 예산 한도는 얼마로 정했나요?",
                                               include_context=True)
    condensed = {(i.seq, i.quote) for i in answer.context if "…" in i.quote}
    assert condensed, "the question's context condenses some long turn"
    said = {u.id: u.text for u in session.transcript.utterances}
    quoted = [c for c in answer.citations if c.kind == "utterance"]
    assert quoted and all(c.seq for c in quoted)
    assert all(said[c.seq].startswith(c.quote.rstrip("…")) for c in quoted), [c.quote for c in quoted]
