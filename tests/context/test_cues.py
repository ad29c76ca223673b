import pytest

from mithub.context import cues


@pytest.mark.parametrize(
    "text",
    ["Q3 예산은 2억 4천만 원으로 확정하겠습니다.", "GPU 4대를 도입하기로 결정했습니다.", "그럼 A안으로 가죠.",
     "We decided to ship the beta on March 3rd.", "Let's go with the cheaper vendor."],
)
def test_decisions(text):
    assert cues.is_decision(text)


@pytest.mark.parametrize("text", ["예산은 어떻게 확정할까요?", "The budget looks high.", "네 좋습니다"])
def test_not_decisions(text):
    assert not cues.is_decision(text)


@pytest.mark.parametrize(
    "text", ["보안 감사 건은 다음 회의에서 다시 논의하죠.", "채용 인원은 아직 미정입니다.", "Let's park that for now."]
)
def test_pending(text):
    assert cues.is_pending(text)


NAMES = ["김지현", "박서준", "이민아", "Alice Brown"]


def test_action_with_named_owner_and_due_date():
    item = cues.extract_action("서준 님이 다음 주 금요일까지 GPU 견적 받아 주세요.", "김지현", NAMES, 12)
    assert item is not None
    assert (item.owner, item.due, item.seq) == ("박서준", "다음 주 금요일까지", 12)
    assert item.render().startswith("박서준: ")


def test_action_committed_by_the_speaker():
    item = cues.extract_action("제가 3월 15일까지 일정표 정리하겠습니다.", "이민아", NAMES)
    assert item is not None and item.owner == "이민아" and item.due == "3월 15일까지"


def test_english_action_item():
    item = cues.extract_action("Alice, can you send the test report by Friday?", "Bob", NAMES)
    assert item is not None and item.owner == "Alice Brown" and item.due == "by Friday"


def test_plain_statement_is_no_action():
    assert cues.extract_action("서버 비용이 생각보다 높네요.", "김지현", NAMES) is None


def test_recipient_is_not_the_owner():
    item = cues.extract_action("제가 이번 주 목요일까지 서준 님께 사례를 드릴게요.", "이민아", NAMES)
    assert item is not None and item.owner == "이민아"


def test_hedged_mentions_are_not_decisions():
    assert not cues.is_decision("아직 계약 전이라 확정이라고 말씀드리긴 어려워요.")
    assert not cues.is_decision("그건 회사 차원에서 결정해야 할 문제입니다.")
    assert cues.is_decision("발주는 6월 28일까지 나가는 걸로 정하기로 했습니다.")
