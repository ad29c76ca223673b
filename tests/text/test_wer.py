"""word_error_rate: Levenshtein over words, case and punctuation ignored."""

import pytest

from mithub.text import word_error_rate


def test_identical_text_scores_zero_whatever_the_case_and_punctuation():
    assert word_error_rate("Let's meet on Friday, at noon.", "let's MEET on friday at noon") == 0.0


@pytest.mark.parametrize(
    ("hypothesis", "expected"),
    [
        ("the budget is final", 0.0),
        ("the budget was final", 1 / 4),  # one substitution
        ("the budget final", 1 / 4),  # one deletion
        ("so the budget is final now", 2 / 4),  # two insertions
        ("", 1.0),  # everything deleted
        ("budget the is final", 2 / 4),  # a swap costs two edits
    ],
)
def test_each_edit_counts_once_per_reference_word(hypothesis, expected):
    assert word_error_rate("The budget is final.", hypothesis) == pytest.approx(expected)


def test_more_insertions_than_reference_words_exceed_one():
    assert word_error_rate("yes", "yes yes yes") == pytest.approx(2.0)


def test_empty_reference():
    assert word_error_rate("", "") == 0.0
    assert word_error_rate(" ... ", "hello") == 1.0


def test_korean_words():
    assert word_error_rate("다음 주 회의는 금요일입니다.", "다음 주 회의는 목요일입니다") == pytest.approx(1 / 4)
