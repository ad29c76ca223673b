"""TopicDetector: cue phrases, semantic boundaries with lookahead, state restore, LLM evidence."""

import json

import pytest

from mithub.config import ContextConfig
from mithub.errors import LLMError
from mithub.topics.cues import cue_strength
from mithub.topics.detector import (
    TopicChange,
    TopicDetector,
    detect_boundaries,
    parse_topic_verdict,
)

from .topic_meetings import BUDGET, HIRING, meeting, topic_turns


@pytest.fixture
def detector(embedder) -> TopicDetector:
    return TopicDetector(ContextConfig(), embedder)


@pytest.fixture
def shift_detector(embedder) -> TopicDetector:
    """The semantic-shift detector alone (what runs when the boundary model's weights are gone)."""
    return TopicDetector(ContextConfig(), embedder, boundary_model=None)


def two_topics():
    """30 turns about the marketing budget, then 30 about hiring: the new topic starts at 31."""
    return meeting(topic_turns(BUDGET, 30), topic_turns(HIRING, 30, offset=1))


def three_topics():
    return meeting(topic_turns(BUDGET, 35), topic_turns(HIRING, 35, 1), topic_turns(BUDGET, 35, 2))


@pytest.mark.parametrize("text", [
    "자, 그럼 다음 안건으로 넘어가죠.",
    "그건 그렇고 채용 건은 어떻게 됐어요?",
    "이 건은 여기서 마무리하고 예산 얘기를 하죠.",
    "다음으로 출시 일정을 보겠습니다.",
    "Okay, let's move on to the budget.",
    "Next item on the agenda is hiring.",
    "Moving on, the release plan.",
    "Let 's switch to marketing then .",
    "The next thing is the vendor contract.",
])
def test_quick_check_finds_cue_phrases(detector, text):
    assert detector.quick_check(text)


@pytest.mark.parametrize("text", [
    "이제 시작할게요.",
    "정리하면 예산은 2억입니다.",
    "다음 주에 다시 보죠.",
    "네",
    "The next release ships in May.",
    "I think the budget is fine.",
    "Anyway, that number looks wrong.",
])
def test_quick_check_ignores_generic_words(detector, text):
    assert not detector.quick_check(text)


def test_generic_words_are_weak_cues_only():
    assert 0 < cue_strength("이제 예산을 보죠") < cue_strength("다음 안건으로 넘어가죠") == 1.0
    assert cue_strength("예산 초과분은 어떻게 하죠") == 0.0


async def observe_all(detector, utterances):
    """(seq of the observe call, change) for every change reported."""
    out = []
    for u in utterances:
        change = await detector.observe(u, current_topic="예산")
        if change is not None:
            out.append((u.id, change))
    return out


async def test_two_topic_meeting_yields_one_boundary_in_the_past(shift_detector):
    detector = shift_detector
    reported = await observe_all(detector, two_topics())

    assert len(reported) == 1
    seen_at, change = reported[0]
    assert change.detector == "semantic"
    assert abs(change.boundary_seq - 31) <= 3
    assert change.boundary_seq < seen_at <= change.boundary_seq + detector.lookahead
    assert 0.5 <= change.confidence <= 1.0
    assert "채용" in change.topic_name


async def test_a_topic_starts_at_its_first_turn_not_in_the_backchannel_before_it(shift_detector):
    lull = [("lee", "이지은", "네"), ("park", "박서준", "음"), ("kim", "김민수", "네 맞아요"),
            ("lee", "이지은", "그렇죠"), ("park", "박서준", "네")]
    utterances = meeting(topic_turns(BUDGET, 30), lull, topic_turns(HIRING, 30, offset=1))

    changes = await detect_boundaries(shift_detector, utterances)

    assert [c.boundary_seq for c in changes] == [36]  # the first hiring turn, after the lull


async def test_single_topic_meeting_has_no_boundary(detector):
    assert await detect_boundaries(detector, meeting(topic_turns(BUDGET, 70))) == []


async def test_boundaries_strictly_increase_and_never_at_the_first_turn(embedder):
    # Without the raise per boundary found: the third topic returns to the first one, which the
    # detector's memory still holds, so its evidence is weaker than the first change's.
    detector = TopicDetector(ContextConfig(topic_boundary_step=0.0), embedder, boundary_model=None)
    changes = await detect_boundaries(detector, three_topics())

    seqs = [c.boundary_seq for c in changes]
    assert len(seqs) == 2 and seqs == sorted(set(seqs)) and seqs[0] > 1
    assert abs(seqs[0] - 36) <= 3 and abs(seqs[1] - 71) <= 3


async def test_each_boundary_found_raises_the_bar_for_the_next(embedder):
    detector = TopicDetector(ContextConfig(topic_boundary_step=0.0), embedder, boundary_model=None)
    loose = await detect_boundaries(detector, three_topics())
    strict = await detect_boundaries(TopicDetector(ContextConfig(), embedder, boundary_model=None), three_topics())

    assert [c.boundary_seq for c in strict] == [c.boundary_seq for c in loose][:1]
    assert "threshold 0.60" in strict[0].reason


@pytest.mark.parametrize("model", ["shipped", None])
async def test_state_of_an_older_detector_is_dropped_not_fatal(embedder, model):
    detector = TopicDetector(ContextConfig(), embedder, boundary_model=model)
    detector.load_state({"shift": {"version": 1}, "llm_names": []}, two_topics()[:40])

    fresh = TopicDetector(ContextConfig(), embedder, boundary_model=model)
    assert await detect_boundaries(detector, two_topics()) == await detect_boundaries(fresh, two_topics())


@pytest.mark.parametrize("split", [20, 45, 80])
@pytest.mark.parametrize("model", ["shipped", None])
async def test_restored_detector_behaves_like_one_that_never_stopped(embedder, split, model):
    utterances = three_topics()
    uninterrupted = await detect_boundaries(TopicDetector(ContextConfig(), embedder, boundary_model=model), utterances)

    first = TopicDetector(ContextConfig(), embedder, boundary_model=model)
    changes = [c for _, c in await observe_all(first, utterances[:split])]
    state = json.loads(json.dumps(first.state_dict()))  # what the store keeps
    restored = TopicDetector(ContextConfig(), embedder, boundary_model=model)
    restored.load_state(state, utterances[:split][-restored.history_turns:])
    changes += [c for _, c in await observe_all(restored, utterances[split:])]
    changes += await restored.finish()

    assert changes == uninterrupted


class ScriptedLLM:
    """An LLM server stand-in answering every topic check with the same text."""

    model = "scripted"

    def __init__(self, answer: str | Exception) -> None:
        self.answer = answer
        self.calls = 0

    async def complete_json(self, *, system: str, user: str, schema: dict, max_tokens: int) -> str:
        self.calls += 1
        assert "```transcript" in user and "never instructions" in system
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


@pytest.mark.parametrize("broken", [
    '{"topic_changed": true, "current_topic": "채용", "confidence": 0.9',
    "네, 토픽이 바뀌었습니다.",
    '{"topic_changed": "maybe", "confidence": "high"}',
    "",
])
def test_broken_llm_json_parses_to_nothing(broken):
    assert parse_topic_verdict(broken) is None


def test_llm_json_with_repairable_glitches_parses():
    verdict = parse_topic_verdict('```json\n{"topic_changed": true, "current_topic": "채용",'
                                  ' "confidence": 1.4, "reason": "새 안건\n시작",}\n```')
    assert verdict is not None and verdict.topic_changed and verdict.confidence == 1.0


@pytest.mark.parametrize("answer", [
    '{"topic_changed": true, "confidence": 0.9, "current_topic": "채용"',  # cut off
    LLMError("connection refused"),
])
async def test_broken_or_failing_llm_leaves_the_llm_free_decision(embedder, answer):
    llm_free = await detect_boundaries(TopicDetector(ContextConfig(), embedder), two_topics())
    llm = ScriptedLLM(answer)
    with_llm = await detect_boundaries(TopicDetector(ContextConfig(), embedder, llm), two_topics())

    assert llm.calls >= 60 // ContextConfig().l1_topic_check_interval_turns
    assert with_llm == llm_free


async def test_llm_verdict_names_the_topic_and_adds_evidence(embedder):
    answer = json.dumps({"topic_changed": True, "previous_topic": "예산", "current_topic": "개발자 채용",
                         "confidence": 0.9, "reason": "채용 이야기로 바뀜"}, ensure_ascii=False)
    changes = await detect_boundaries(
        TopicDetector(ContextConfig(), embedder, ScriptedLLM(answer)), two_topics())

    assert changes and isinstance(changes[0], TopicChange)
    assert abs(changes[0].boundary_seq - 31) <= 3
    assert changes[0].topic_name == "개발자 채용"
