import numpy as np

from mithub.retrieval.sparse import SparseIndex, tokenize


def test_korean_tokens_are_content_morphemes():
    tokens = tokenize("쿠버네티스에서 파드를 생성했습니다")
    assert "쿠버네티스" in tokens and "파드" in tokens and "생성" in tokens
    assert not any(t.endswith("에서") or t.endswith("를") for t in tokens)


def test_english_tokens_are_lowercase_words_without_stopwords():
    assert tokenize("Where was the Director of Blue Velvet born?") == ["director", "blue", "velvet", "born"]


def test_korean_inflections_match_across_query_and_document(tmp_path):
    docs = ["파드는 쿠버네티스의 가장 작은 배포 단위이다.", "서비스는 네트워크 접근을 제공한다.", "The Eiffel Tower is in Paris."]
    index = SparseIndex.build([tokenize(d) for d in docs])
    rows, scores = index.search("쿠버네티스에서 파드란 무엇인가요?", 3)
    assert rows[0] == 0 and scores[0] > 0
    index.save(tmp_path)
    loaded = SparseIndex.load(tmp_path)
    assert loaded.search("eiffel tower", 2)[0].tolist() == [2]
    assert loaded.search("zzz unknown", 2)[0].size == 0


def test_adding_chunks_rescores_without_retokenizing(tmp_path):
    index = SparseIndex.build([tokenize("와사비는 물가에서 자란다")])
    index.add([tokenize("딸기는 온실에서 자란다")])
    rows, _ = index.search("딸기 온실", 2)
    assert rows.tolist()[0] == 1
    index.save(tmp_path)
    assert np.array_equal(SparseIndex.load(tmp_path).token_ids[1], index.token_ids[1])
