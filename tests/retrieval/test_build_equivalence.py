"""Index build speed-ups must not change what is built: the Tri-Graph's entity candidates,
parsed once per distinct sentence, equal the plain per-sentence loop they replaced."""

from pathlib import Path

from mithub.config import RetrievalConfig
from mithub.jsonl import LineErrors
from mithub.retrieval.candidates import Candidates
from mithub.retrieval.entities import entities_per_sentence, sentence_entities
from mithub.retrieval.loaders import load_corpus
from mithub.retrieval.trigraph import _sentences_of

DATA = Path(__file__).parent / "data"


def _fixture_sentences() -> list[str]:
    """The sentences a Tri-Graph build parses: overlapping windows repeat some of them."""
    config = RetrievalConfig()
    chunks = list(load_corpus(DATA / "corpus.jsonl", config, LineErrors())) + list(
        load_corpus(DATA / "docs", config, LineErrors())
    )
    sentences, _ = _sentences_of([c.text for c in chunks], offset=0)
    return sentences


def test_sentences_parsed_once_give_the_per_sentence_candidates():
    sentences = _fixture_sentences()
    assert len(set(sentences)) < len(sentences), "the fixture should repeat a sentence"
    assert any("와사비" in s for s in sentences)
    assert entities_per_sentence(sentences) == [sentence_entities(s) for s in sentences]


def test_candidates_and_graph_edges_equal_the_per_sentence_loop():
    sentences = _fixture_sentences()
    fast = Candidates.empty().extend(entities_per_sentence(sentences))
    plain = Candidates.empty().extend([sentence_entities(s) for s in sentences])
    assert fast.names == plain.names
    assert fast.s2c.indptr.tolist() == plain.s2c.indptr.tolist()
    assert fast.s2c.indices.tolist() == plain.s2c.indices.tolist()
    entities = plain.entities(2, 0.05, 50, 100)
    assert fast.entities(2, 0.05, 50, 100) == entities
    assert fast.s2e(entities).indices.tolist() == plain.s2e(entities).indices.tolist()


def test_a_repeated_sentence_keeps_its_own_row():
    sentences = ["와사비는 서늘한 물가에서 자라는 식물이다.", "Blue Velvet was shot in Wilmington.",
                 "와사비는 서늘한 물가에서 자라는 식물이다."]
    found = entities_per_sentence(sentences)
    assert len(found) == 3 and found[0] == found[2] and "와사비" in found[0]
    assert "blue velvet" in found[1]
