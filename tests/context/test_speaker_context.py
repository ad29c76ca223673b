from datetime import datetime, timezone

import pytest

from mithub.context.models import Utterance
from mithub.context.speaker_context import SpeakerContext, is_question

T0 = datetime(2026, 3, 2, 5, 0, tzinfo=timezone.utc)


def _u(seq: int, speaker: str, text: str) -> Utterance:
    return Utterance(id=seq, speaker_id=speaker, speaker_name=speaker.title(), text=text,
                     absolute_timestamp=T0)


@pytest.mark.parametrize(
    "text",
    ["예산은 얼마로 할까요?", "이 일정으로 진행해도 될까요", "서버는 언제 들어오나요", "혹시 다른 의견 있으신가요",
     "What do you think about the budget", "Can we ship by Friday?"],
)
def test_questions_in_korean_and_english(text):
    assert is_question(text)


@pytest.mark.parametrize(
    "text",
    ["예산은 2억으로 확정했습니다.", "네 좋습니다", "그건 제가 정리하겠습니다",
     "We decided to ship on Friday.", "The budget is fine."],
)
def test_statements_are_not_questions(text):
    assert not is_question(text)


def _meeting() -> SpeakerContext:
    ctx = SpeakerContext(max_buffer_per_speaker=5)
    lead = ["오늘 회의 시작하겠습니다. 첫 안건은 예산인데 어떻게 생각하세요?", "그럼 서버는 언제 들어오나요?",
            "다음 안건으로 넘어가죠. 일정은 어떻게 될까요?", "정리하면 2억으로 확정이죠. 다른 의견 있으신가요?"]
    presenter = ("이번 분기 클라우드 비용은 월 천팔백만 원 수준이고 GPU 서버를 도입하면 "
                 "연간 약 이억 원 정도를 절감할 수 있습니다. 세부 견적은 벤더 두 곳에서 받았습니다.")
    seq = 0
    for i in range(8):
        seq += 1
        ctx.add_utterance(_u(seq, "lead", lead[i % len(lead)]))
        seq += 1
        ctx.add_utterance(_u(seq, "tech", presenter))
        seq += 1
        ctx.add_utterance(_u(seq, "dev", "네 그 부분은 저도 동의합니다"))
    seq += 1
    ctx.add_utterance(_u(seq, "intern", "네"))
    return ctx


def test_roles_facilitator_presenter_participant_observer():
    roles = _meeting().infer_roles()
    assert roles == {"lead": "facilitator", "tech": "presenter", "dev": "participant",
                     "intern": "observer"}


def test_stats_buffers_and_interactions():
    ctx = _meeting()
    assert ctx.speaker_stats["lead"].question_count == 8
    assert ctx.speaker_stats["tech"].statement_count == 8
    assert len(ctx.speaker_buffers["tech"]) == 5  # bounded per speaker
    assert ctx.interaction_matrix[("lead", "tech")] == 8
    assert ctx.interaction_matrix[("tech", "dev")] == 8
    assert ctx.interaction_matrix[("dev", "lead")] == 7


def test_state_round_trip_keeps_counters_and_roles():
    ctx = _meeting()
    restored = SpeakerContext(max_buffer_per_speaker=5)
    history = [u for buffer in ctx.speaker_buffers.values() for u in buffer]
    restored.load_state(ctx.state_dict(), sorted(history, key=lambda u: u.id))
    assert restored.infer_roles() == ctx.infer_roles()
    assert restored.interaction_matrix == ctx.interaction_matrix
    assert {k: list(v) for k, v in restored.speaker_buffers.items()} == \
        {k: list(v) for k, v in ctx.speaker_buffers.items()}
