"""The series index: a past discussion is found by its region, not by a stray turn that
echoes one word of the question, and regions stay inside their meeting."""

from datetime import datetime, timedelta, timezone

import pytest

from mithub.budget import TokenBudgetManager
from mithub.context.formatting import utterance_line
from mithub.context.models import Utterance
from mithub.embedders import load_embedder
from mithub.memory.series_index import SeriesIndex

T0 = datetime(2026, 3, 2, 5, 0, tzinfo=timezone.utc)
FILLER = [
    "We spent a while on the agenda for the offsite and nobody had strong views.",
    "The catering order can wait until the headcount is known next month.",
    "Somebody should book the big room again because the small one was cramped.",
    "The printer on the third floor keeps jamming whenever people print slides.",
    "Lunch was late again, so the afternoon session started twenty minutes behind.",
    "The new interns start on Monday and need laptops before then.",
]
DISCUSSION = [
    "Which hosting vendor should run the customer database next year?",
    "The second vendor is cheaper, and their contract covers nightly backups.",
    "Then the database moves in March, once the contract is signed.",
    "Agreed, and legal reviews it before Friday.",  # none of the question's words
]
ECHO = "The vendor of the coffee machine called about the broken grinder."
QUESTION = "Which vendor did we pick for the database, and what does the contract cover?"


def _turns(texts: list[str], first_id: int) -> list[Utterance]:
    return [Utterance(id=first_id + i, speaker_id="kim", speaker_name="kim", text=text,
                      absolute_timestamp=T0 + timedelta(seconds=3 * (first_id + i)))
            for i, text in enumerate(texts)]


@pytest.fixture(scope="module")
def embedder():
    return load_embedder("use-multilingual")


def _index(embedder, region_weight: float) -> SeriesIndex:
    budget = TokenBudgetManager()
    return SeriesIndex(embedder, lambda u: budget.count(utterance_line(u)), region_weight=region_weight)


def test_a_discussion_outranks_a_stray_turn_that_echoes_the_question(embedder):
    index = _index(embedder, region_weight=0.5)
    first = FILLER[:3] + DISCUSSION + FILLER[3:]
    index.add(_turns(first, 1))
    index.add(_turns([*FILLER[:3], ECHO, *FILLER[3:]], len(first) + 1))  # another meeting
    relevance = index.relevance(QUESTION)
    discussion = relevance[3:7]
    echo = relevance[len(first) + 3]
    assert discussion.min() > echo  # every turn of the exchange, not only its best one
    assert int(relevance.argmax()) in range(3, 7)


def test_a_region_never_reaches_into_the_next_meeting(embedder):
    index = _index(embedder, region_weight=1.0)  # a turn scores by its region alone
    index.add(_turns(FILLER + DISCUSSION, 1))  # the discussion ends the first meeting
    index.add(_turns(FILLER, len(FILLER) + len(DISCUSSION) + 1))
    relevance = index.relevance(QUESTION)
    assert relevance[len(FILLER) + len(DISCUSSION) - 1] > 0
    assert relevance[len(FILLER) + len(DISCUSSION)] == 0  # the next meeting's first turn


def test_search_quotes_the_discussion(embedder):
    index = _index(embedder, region_weight=0.5)
    index.add(_turns(FILLER[:3] + DISCUSSION + FILLER[3:], 1))
    found = index.search(QUESTION, budget_tokens=120)
    quoted = {u.text for excerpt in found for u in excerpt.utterances}
    assert quoted & set(DISCUSSION)
