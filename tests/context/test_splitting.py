from mithub.budget import TokenBudgetManager
from mithub.context.splitting import split_oversize

from .conftest import new_utterance


def test_long_utterance_is_split_at_sentences_with_interpolated_times():
    budget = TokenBudgetManager()
    text = " ".join(f"이번 분기 {i}번째 항목의 예산 집행 현황을 자세히 설명드리겠습니다." for i in range(40))
    original = new_utterance(text)
    pieces = split_oversize(original, 100, budget)
    assert len(pieces) > 1
    assert all(budget.count(p.text) <= 100 for p in pieces)
    assert " ".join(p.text for p in pieces).replace(" ", "") == text.replace(" ", "")
    assert pieces[0].start_ms == original.start_ms and pieces[-1].end_ms == original.end_ms
    assert all(a.end_ms <= b.start_ms for a, b in zip(pieces, pieces[1:]))


def test_one_endless_sentence_is_cut_hard():
    pieces = split_oversize(new_utterance("word " * 2000), 50, TokenBudgetManager())
    assert len(pieces) > 10 and all(TokenBudgetManager().count(p.text) <= 50 for p in pieces)


def test_short_utterance_is_untouched():
    original = new_utterance("짧은 발화입니다.")
    assert split_oversize(original, 100, TokenBudgetManager()) == [original]
