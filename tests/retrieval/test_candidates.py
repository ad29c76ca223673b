from pathlib import Path

from mithub.config import RetrievalConfig
from mithub.jsonl import LineErrors
from mithub.retrieval.candidates import Candidates
from mithub.retrieval.entities import filter_by_df, sentence_entities
from mithub.retrieval.loaders import load_corpus
from mithub.text import split_sentences

DATA = Path(__file__).parent / "data"


def _found() -> list[set[str]]:
    config = RetrievalConfig()
    chunks = list(load_corpus(DATA / "corpus.jsonl", config, LineErrors())) + list(
        load_corpus(DATA / "docs", config, LineErrors())
    )
    return [sentence_entities(s) for c in chunks for s in split_sentences(c.text)]


def test_stored_candidates_filter_exactly_like_the_build():
    found = _found()
    for min_df, ratio, floor, cap in [(2, 0.05, 50, 100), (1, 0.2, 2, None), (2, 0.5, 3, 4)]:
        assert Candidates.empty().extend(found).entities(min_df, ratio, floor, cap) == filter_by_df(found, min_df, ratio, floor, cap)


def test_candidates_grow_in_parts_like_in_one_go():
    found = _found()
    whole = Candidates.empty().extend(found)
    parts = Candidates.empty().extend(found[:7]).extend(found[7:])
    entities = whole.entities(2, 0.05, 50, 100)
    assert parts.entities(2, 0.05, 50, 100) == entities
    assert parts.s2e(entities).indices.tolist() == whole.s2e(entities).indices.tolist()
    assert parts.s2e(entities).indptr.tolist() == whole.s2e(entities).indptr.tolist()
