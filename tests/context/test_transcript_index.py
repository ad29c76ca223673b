"""Transcript search: long turns quoted condensed to the sentences that answer the query."""

import pytest

from mithub.budget import TokenBudgetManager
from mithub.context.formatting import utterance_line
from mithub.context.transcript_index import ELLIPSIS, KEY_TURN_ROOM_FACTOR, TranscriptIndex, condense

from .conftest import utterance

BUDGET = TokenBudgetManager()

FILLER = [
    "We spent a while on the agenda for the offsite and nobody had strong views.",
    "The catering order can wait until the headcount is known next month.",
    "Somebody should book the big room again because the small one was cramped.",
    "The printer on the third floor keeps jamming whenever people print slides.",
]
ANSWER = "The cloud budget for the third quarter is fixed at 240 million won."
LONG_TURN = " ".join([FILLER[0], FILLER[1], ANSWER, FILLER[2], FILLER[3]])


def _cost(text: str) -> int:
    return BUDGET.count(text)


def test_condense_keeps_the_matching_sentence_and_marks_the_gaps():
    sentences = [*FILLER[:2], ANSWER, *FILLER[2:]]
    text = condense(sentences, {"cloud", "budget", "quarter"}, _cost, 30)
    assert f"{ELLIPSIS} {ANSWER} {ELLIPSIS}" in text  # what was left out either side is marked
    assert _cost(text) <= 30
    # Room for more: the matching sentence stays, others fill in, in their spoken order.
    wider = condense(sentences, {"cloud", "budget", "quarter"}, _cost, 60)
    assert ANSWER in wider and _cost(wider) <= 60 and len(wider) > len(text)
    kept = [s for s in sentences if s in wider]
    assert kept == sorted(kept, key=sentences.index)


def test_condense_cuts_a_long_sentence_to_its_stretch_that_matches():
    text = condense([LONG_TURN], {"cloud", "budget"}, _cost, 14)
    assert _cost(text) <= 14
    assert "cloud budget" in text
    assert text.startswith(ELLIPSIS) and text.endswith(ELLIPSIS)
    assert text.strip(f" {ELLIPSIS}") in LONG_TURN
    # The answer at the end of one long sentence is kept, not the sentence's start.
    sentence = ("Okay, so we decided to carry over both stories, with Slack re-estimated at 10 points, "
                "and sprint 15 commits to 36 points.")
    cut = condense([sentence], {"story", "points", "commit"}, _cost, 20)
    assert cut.endswith("commits to 36 points.") and cut.startswith(ELLIPSIS)


def test_condense_fills_the_room_with_the_start_of_a_sentence_left_out():
    long = "Well " + " ".join(["the migration plan needs another review"] * 6) + "."
    text = condense(["Hmm.", long], {"zeppelin"}, _cost, 25)
    assert text.startswith("Hmm. Well the migration plan") and text.endswith(ELLIPSIS)
    assert _cost(text) <= 25


def test_condense_without_a_match_keeps_the_opening():
    text = condense([*FILLER], {"zeppelin"}, _cost, 25)
    assert text.startswith(FILLER[0]) and text.endswith(ELLIPSIS)


def _index(embedder, turn_max_tokens: int) -> TranscriptIndex:
    index = TranscriptIndex(embedder, lambda u: BUDGET.count(utterance_line(u)), turn_max_tokens=turn_max_tokens)
    turns = [utterance(i + 1, f"{FILLER[i % 4]} ({i})", speaker="lee") for i in range(30)]
    turns[9] = utterance(10, LONG_TURN, speaker="park")
    turns[10] = utterance(11, "Is that the whole cloud budget or just compute?", speaker="kim")
    turns[11] = utterance(12, " ".join([FILLER[3], "It covers storage and compute for the cloud budget.",
                                        FILLER[2]]), speaker="park")
    index.add(turns)
    return index


@pytest.mark.parametrize("cap", [0, 10])
def test_search_quotes_the_answer_within_the_budget(embedder, cap):
    index = _index(embedder, cap)
    excerpts = index.search("What is the cloud budget for the third quarter?", budget_tokens=200)
    shown = {u.id: u for e in excerpts for u in e.utterances}
    answer = shown[10]  # the most relevant turn: room for KEY_TURN_ROOM_FACTOR x the cap
    assert ANSWER in answer.text
    assert BUDGET.total(utterance_line(u) for u in shown.values()) <= 200
    # Each excerpt states what its lines cost: a token per line break and one for its separator.
    assert [e.tokens for e in excerpts] == [
        sum(BUDGET.count(utterance_line(u)) + 1 for u in e.utterances) + 1 for e in excerpts]
    if cap:
        def line(u):
            return BUDGET.count(utterance_line(u.model_copy(update={"text": ""})))
        assert answer.text != LONG_TURN
        assert BUDGET.count(utterance_line(answer)) <= line(answer) + KEY_TURN_ROOM_FACTOR * cap
        other = shown[12]
        assert "cloud budget" in other.text and BUDGET.count(utterance_line(other)) <= line(other) + cap
    else:
        assert answer.text == LONG_TURN


def test_the_most_relevant_turn_gets_in_when_the_budget_is_small(embedder):
    index = TranscriptIndex(embedder, lambda u: BUDGET.count(utterance_line(u)), turn_max_tokens=20)
    talk = [utterance(i + 1, f"The cloud budget came up again, item {i}, nothing decided.", speaker="lee")
            for i in range(12)]
    filler = [utterance(13 + i, f"{FILLER[i % 4]} ({i})", speaker="kim") for i in range(10)]
    answer = utterance(23, "Final answer: the cloud budget for the third quarter is fixed at 240 million won.",
                       speaker="park")
    index.add([*talk, *filler, answer])
    excerpts = index.search("What is the cloud budget for the third quarter?", budget_tokens=60)
    assert 23 in {u.id for e in excerpts for u in e.utterances}


def test_condensed_turns_cover_more_of_the_exchange(embedder):
    query = "What is the cloud budget for the third quarter?"
    whole = _index(embedder, 0).search(query, budget_tokens=120)
    condensed = _index(embedder, 10).search(query, budget_tokens=120)
    assert len({u.id for e in condensed for u in e.utterances}) > len({u.id for e in whole for u in e.utterances})
