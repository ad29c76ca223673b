import pytest

from mithub.budget import TRUNCATION_MARKER, ModelBudget, TokenBudgetManager, estimate_tokens


def test_korean_counts_one_token_per_one_and_a_half_syllables():
    assert estimate_tokens("가" * 30) == 20


def test_english_counts_one_token_per_four_characters():
    assert estimate_tokens("a" * 40) == 10


def test_mixed_text_adds_both_rates():
    text = "예산은 2억 원" + " budget"  # 5 Hangul syllables, 9 other characters
    assert estimate_tokens(text) == int(5 / 1.5 + 9 / 4)


def test_empty_is_free_and_short_text_is_not():
    assert estimate_tokens("") == 0
    assert estimate_tokens("a") == 1


@pytest.mark.parametrize("text", ["회의 " * 500, "meeting notes " * 400])
def test_truncate_fits_budget_and_marks_the_cut(text):
    budget = TokenBudgetManager()
    cut = budget.truncate_to_budget(text, 100)
    assert budget.count(cut) <= 100
    assert cut.endswith(TRUNCATION_MARKER)
    assert text.startswith(cut[: -len(TRUNCATION_MARKER)].rstrip())


def test_truncate_leaves_fitting_text_alone():
    assert TokenBudgetManager().truncate_to_budget("short", 10) == "short"


def test_pack_stops_at_first_item_that_does_not_fit():
    budget = TokenBudgetManager()
    items = ["a" * 40, "b" * 40, "c" * 400, "d" * 4]
    assert budget.pack(items, 25) == items[:2]
    assert budget.pack(items, 25, skip_oversize=True) == [items[0], items[1], items[3]]


def test_keep_newest_drops_oldest_first():
    budget = TokenBudgetManager()
    items = ["x" * 40, "y" * 40, "z" * 40]
    assert budget.keep_newest(items, 20) == items[1:]


def test_model_budget_profiles_leave_room_for_context():
    for window in (8192, 32768, 131072):
        profile = ModelBudget.for_window(window)
        assert 0 < profile.context < window
    with pytest.raises(ValueError):
        ModelBudget.for_window(1000)


def test_exact_counter_is_used_when_given():
    budget = TokenBudgetManager(counter=lambda text: len(text.split()))
    assert budget.count("one two three") == 3
