"""Which statements can answer a question (the lead of a template answer): a content question
is not answered by a negated main clause that names no value; a yes/no question is."""

import pytest

from mithub.agent.answering import asks_for_content, main_clause_negated, supplies_answer


@pytest.mark.parametrize(("question", "content"), [
    ("출시일은 언제로 했죠?", True), ("몇 명 뽑기로 했어요?", True), ("예산은 얼마예요?", True),
    ("그 건은 누가 맡아요?", True), ("What did we pick for the vendor?", True),
    ("그거 빼도 되나요?", False), ("Is the demo ready?", False),
])
def test_content_questions_are_told_from_yes_no_ones(question, content):
    assert asks_for_content(question) is content


@pytest.mark.parametrize(("sentence", "negated"), [
    ("잘 모르겠어요.", True), ("확실하지 않아요.", True), ("그 자료는 지금 없어요.", True),
    ("회의 때 들었는데 생각이 안 나요.", True),
    # the negation sits in a condition or a first clause; the main clause says something
    ("안 되면 다음 주로 미루죠.", False), ("그건 못 했지만 초안은 금요일에 드릴게요.", False),
    ("I don't remember.", True), ("We ship on Friday.", False),
])
def test_the_main_clause_is_found_negated_or_not(sentence, negated):
    assert main_clause_negated(sentence) is negated


def test_a_negation_answers_a_yes_no_question_and_a_value_answers_any():
    assert supplies_answer("아니요, 그건 안 돼요.", "그거 빼도 되나요?")
    assert not supplies_answer("글쎄요, 잘 모르겠어요.", "출시일은 언제로 했죠?")
    assert supplies_answer("3월 2일 전에는 안 돼요.", "출시일은 언제로 했죠?")
    assert supplies_answer("두 명 더 뽑는 걸로 했어요.", "몇 명 뽑기로 했어요?")
    assert not supplies_answer("I can't recall exactly.", "When is the launch?")
