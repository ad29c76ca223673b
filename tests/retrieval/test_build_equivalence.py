"""Index build speed-ups must not change what is built: the Tri-Graph's entity candidates,
parsed once per distinct sentence, equal the plain per-sentence loop they replaced, and the
BM25 tokens, sentence split and entities of two fixture chunks are pinned."""

from pathlib import Path

from mithub.config import RetrievalConfig
from mithub.jsonl import LineErrors
from mithub.retrieval import sparse
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
    korean = "와사비는 서늘한 물가에서 자라는 식물이다."
    sentences = [korean, "Blue Velvet was shot in Wilmington.", korean]
    found = entities_per_sentence(sentences)
    assert len(found) == 3 and found[0] == found[2] and "와사비" in found[0]
    assert "blue velvet" in found[1]


# What the build makes of two fixture chunks today, pinned so a faster tokenizer, splitter or
# extractor cannot change the index unnoticed.
SMARTFARM_TOKENS = [
    "스마트팜", "센서", "온도", "습도", "측정", "액", "ec", "ph", "확인", "수집", "데이터", "환기",
    "관수", "자동", "제어", "농장주", "스마트폰", "상태", "확인", "이상", "생기", "알리", "받",
]
SMARTFARM_SENTENCES = [
    "스마트팜은 센서로 온도와 습도를 측정한다.", "양액의 EC와 pH를 매일 확인한다.",
    "수집된 데이터로 환기와 관수를 자동으로 제어한다.", "농장주는 스마트폰으로 상태를 확인한다.",
    "이상이 생기면 알림을 받는다.",
]
BLUE_VELVET_TOKENS = [
    "blue", "velvet", "1986", "mystery", "film", "written", "directed", "david", "lynch", "shot",
    "wilmington", "north", "carolina", "kyle", "maclachlan", "isabella", "rossellini", "star",
]
BLUE_VELVET_SENTENCES = [
    "Blue Velvet is a 1986 mystery film written and directed by David Lynch.",
    "It was shot in Wilmington, North Carolina.",
    "Kyle MacLachlan and Isabella Rossellini star in it.",
]


def test_fixture_chunks_tokenize_split_and_extract_as_pinned():
    loaded = load_corpus(DATA / "corpus.jsonl", RetrievalConfig(), LineErrors())
    chunks = {c.id: c.text for c in loaded}
    smartfarm, blue_velvet = chunks["smartfarm#c0"], chunks["blue-velvet#c0"]
    assert sparse.tokenize(smartfarm) == SMARTFARM_TOKENS
    assert sparse.tokenize(blue_velvet) == BLUE_VELVET_TOKENS
    sentences, owners = _sentences_of([smartfarm, blue_velvet], offset=3)
    assert sentences == SMARTFARM_SENTENCES + BLUE_VELVET_SENTENCES
    assert owners.tolist() == [3] * 5 + [4] * 3
    # "EC와" and "pH를" are the capitalized-run rule meeting Hangul (\w); kept as built today.
    assert sentence_entities(SMARTFARM_SENTENCES[1]) == {"ec", "ec와", "h를", "ph", "확인"}
    assert sentence_entities(BLUE_VELVET_SENTENCES[2]) == {
        "isabella", "isabella rossellini", "kyle", "kyle maclachlan", "maclachlan", "rossellini",
        "star",
    }
