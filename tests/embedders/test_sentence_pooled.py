import numpy as np

from mithub.embedders import load_embedder
from mithub.embedders.base import l2_normalize
from mithub.embedders.sentence_pooled import SentencePooledEmbedder
from counting_embedder import CountingEmbedder


def test_chunk_vector_is_the_length_weighted_mean_of_its_sentences():
    use = load_embedder("use-multilingual").inner
    counting = CountingEmbedder(use)
    pooled = SentencePooledEmbedder(counting)
    first, second = "The river floods every spring.", "Farmers plant rice after the water recedes."
    chunks = [f"{first} {second}", f"{second} Prices rose in 1998."]
    vectors = pooled.embed_documents(chunks)
    # The sentence the two windows share is encoded once.
    assert sorted(counting.encoded) == sorted([first, second, "Prices rose in 1998."])
    parts = use.embed_documents([first, second])
    expected = l2_normalize(len(first) * parts[0] + len(second) * parts[1])
    assert np.allclose(vectors[0], expected, atol=1e-5)
    assert pooled.model_id == "use-multilingual-v3+sentence-mean"
    assert np.allclose(pooled.embed_queries(["rice"]), use.embed_queries(["rice"]))
