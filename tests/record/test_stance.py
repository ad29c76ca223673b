"""Sentences that call something off (`stance.revokes`), read from the main predicate's tags;
spoken contractions read as said in full (`stance.stance`)."""

import pytest

from mithub.record.stance import revokes, stance


@pytest.mark.parametrize("sentence", [
    "모아는 접자.",
    "지난주에 모아로 가기로 한 거 없던 걸로 해.",
    "지난주에 다온손해보험으로 하기로 했던 여행자 보험은 취소할게요.",
    "오후의 책장에서 하기로 했던 북토크는 안 하는 걸로 해요.",
    "지난주에 6월 토요일마다 오전 특근 하기로 한 거, 그거 안 하겠습니다.",
    "그러면 지난주에 정한 예비비 8퍼센트는 없던 걸로 하겠습니다.",
    "그러면 없던 걸로 하죠.",  # "그러면" opens the sentence; it is no condition
    "Scrap the Redline LOI.",
    "So we'd said July fifteenth, and that's not happening.",
    "We're cancelling the offsite.",
])
def test_calling_off_is_read(sentence: str) -> None:
    assert revokes(sentence)


@pytest.mark.parametrize("sentence", [
    "예산은 지난주에 정한 대로 안 바꾸겠습니다.",  # a negated change keeps the decision
    "그건 못 미뤄요.",
    "아직 계약은 안 했어요.",  # what happened, not an act settled now
    "그건 안 돼요.",  # not possible
    "문제 없습니다.",
    "저는 반대하지 않습니다.",  # no settling form
    "엄 차장님 잘못이 아니지요.",  # 아니다 negates what something is
    "비용은 크게 차이 없어요.",
    "늦지 않게 보내겠습니다.",  # the negation is not the main predicate's
    "북토크는 안 하는 걸로 할까요?",  # a question
    "비 오면 안 하는 걸로 하죠.",  # a condition
    "They had a cancellation and offered the nineteenth.",  # a noun, not the act
    "If the permit slips, we scrap the date.",
    "That is not a problem.",
    "Killing machines!",  # a verb of calling off with no object it calls off
    "Anything that makes you scratch your head as you write this report?",
])
def test_other_negations_are_not_calling_off(sentence: str) -> None:
    assert not revokes(sentence)


@pytest.mark.parametrize(("spoken", "written"), [
    ("Okay, so we're gonna go with the rubber case.", "Okay, so we're going to go with the rubber case."),
    ("We're gonna keep the launch on the ninth.", "We're going to keep the launch on the ninth."),
    ("I wanna move it to Friday.", "I want to move it to Friday."),
])
def test_spoken_contractions_read_as_said_in_full(spoken: str, written: str) -> None:
    assert stance(spoken) == stance(written)


def test_a_choice_said_with_gonna_settles() -> None:
    assert stance("we're gonna go with the rubber case").settles
