import pytest

from mithub.budget import TokenBudgetManager
from mithub.context.extractive import ExtractiveSummarizer
from mithub.context.models import TopicSegment
from mithub.context.summary import segment_tokens

from .conftest import utterance

BUDGET_TALK = [
    ("kim", "김지현", "오늘 첫 안건은 3분기 클라우드 예산입니다. 현재 사용량부터 볼까요?"),
    ("park", "박서준", "지난 분기 클라우드 비용은 월 평균 천팔백만 원이었고 GPU 인스턴스가 그중 70퍼센트를 차지했습니다."),
    ("lee", "이민아", "STT 모델을 돌리는 비용이 계속 늘고 있어서 예산을 늘려야 할 것 같습니다."),
    ("park", "박서준", "온프레미스 GPU 서버를 들이면 1년 안에 비용을 회수할 수 있다는 계산이 나왔습니다."),
    ("kim", "김지현", "그럼 3분기 예산은 2억 4천만 원으로 확정하겠습니다."),
    ("kim", "김지현", "서준 님이 다음 주 금요일까지 GPU 견적 두 곳 받아 주세요."),
    ("lee", "이민아", "예비비 항목은 아직 미정이라 다음 회의에서 다시 논의하죠."),
    ("park", "박서준", "네 알겠습니다."),
]


def _utterances(start: int = 1):
    return [utterance(start + i, text, sid, name) for i, (sid, name, text) in enumerate(BUDGET_TALK)]


async def test_fills_every_field_for_real(embedder):
    summarizer = ExtractiveSummarizer(embedder, TokenBudgetManager(), 500)
    result = await summarizer.summarize("예산", _utterances())
    assert result.mode == "extractive"
    assert result.summary and all(": " in line for line in result.summary.splitlines())
    assert any("2억 4천만" in d for d in result.decisions)
    assert any("미정" in p for p in result.pending)
    assert any(a.startswith("박서준: ") and "금요일까지" in a for a in result.action_items)
    assert result.participants == ["김지현", "박서준", "이민아"]
    assert "예산" in result.keywords and "gpu" in result.keywords
    assert "네 알겠습니다." not in result.summary  # backchannel is never salient


async def test_stays_within_the_token_cap(embedder):
    budget = TokenBudgetManager()
    long_talk = _utterances() * 6
    relabelled = [u.model_copy(update={"id": i + 1}) for i, u in enumerate(long_talk)]
    result = await ExtractiveSummarizer(embedder, budget, 120).summarize("예산", relabelled)
    assert segment_tokens(result, budget) <= 120


async def test_recursive_update_keeps_earlier_decisions(embedder):
    summarizer = ExtractiveSummarizer(embedder, TokenBudgetManager(), 500)
    first = await summarizer.summarize("예산", _utterances())
    previous = TopicSegment(
        id="m:t1", name="예산", summary=first.summary, start_utterance_id=1, end_utterance_id=8,
        key_points=first.key_points, keywords=first.keywords, key_decisions=first.decisions,
        pending_items=first.pending, action_items=first.action_items, participants=first.participants,
    )
    later = [utterance(9, "GPU 서버는 4대로 도입하기로 결정했습니다.", "kim", "김지현"),
             utterance(10, "설치는 5월 중으로 끝내겠습니다.", "park", "박서준")]
    second = await summarizer.summarize("예산", later, previous)
    assert any("2억 4천만" in d for d in second.decisions)
    assert any("4대" in d for d in second.decisions)
    assert second.participants[:3] == ["김지현", "박서준", "이민아"]


@pytest.mark.llm
async def test_llm_summarizer_falls_back_on_broken_json_from_a_real_server(embedder, llm_server):
    from mithub.config import LLMConfig
    from mithub.context.summarizer import LLMSummarizer
    from mithub.llm.openai_compat import OpenAICompatibleClient

    budget = TokenBudgetManager()
    extractive = ExtractiveSummarizer(embedder, budget, 500)
    client = OpenAICompatibleClient(LLMConfig(base_url=llm_server, model="smollm2"))
    # An answer cut off after 8 tokens is never complete JSON: the extractive summary steps in.
    summarizer = LLMSummarizer(client, extractive, budget, 500, max_output_tokens=8)
    result = await summarizer.summarize("예산", _utterances())
    assert result.mode == "extractive" and summarizer.fallbacks == 1
    assert any("2억 4천만" in d for d in result.decisions)
    await client.aclose()


@pytest.mark.llm
async def test_llm_summarizer_uses_the_llm_when_it_answers(embedder, llm_server):
    from mithub.config import LLMConfig
    from mithub.context.summarizer import LLMSummarizer
    from mithub.llm.openai_compat import OpenAICompatibleClient

    budget = TokenBudgetManager()
    client = OpenAICompatibleClient(LLMConfig(base_url=llm_server, model="smollm2", timeout_seconds=120))
    summarizer = LLMSummarizer(client, ExtractiveSummarizer(embedder, budget, 500), budget, 500,
                               max_output_tokens=250)
    result = await summarizer.summarize("예산", _utterances())
    # A 135M model's JSON may still break; either way the result is complete and labelled.
    assert result.mode in ("llm", "extractive") and result.summary
    assert summarizer.fallbacks == (1 if result.mode == "extractive" else 0)
    assert segment_tokens(result, budget) <= 500
    await client.aclose()
