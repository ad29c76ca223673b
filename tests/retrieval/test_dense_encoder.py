"""The dense encoder thread: fed while the corpus is read, same vectors as encoding at once."""

import numpy as np
import pytest

from mithub.config import RetrievalConfig
from mithub.embedders import load_embedder
from mithub.errors import InputError
from mithub.retrieval.dense_encoder import DenseEncoder
from mithub.retrieval.index import HybridIndex
from mithub.retrieval.models import Chunk
from mithub.retrieval.profile import BuildProfile

TEXTS = [f"Passage {i}: the vendor review of region {i % 7} is due in week {i % 5}." for i in range(23)]


def test_vectors_come_back_in_the_order_they_were_put():
    embedder = load_embedder("e5-small")
    profile = BuildProfile(progress=False)
    encoder = DenseEncoder(embedder, profile, batch=5)
    for text in TEXTS:
        encoder.put(text)
    encoder.close()
    vectors = encoder.result()
    assert np.allclose(vectors, embedder.embed_documents(TEXTS), atol=1e-5)
    assert [(s.name, s.items) for s in profile.stages] == [("dense encode", len(TEXTS))]


class Failing:
    model_id, dim = "failing", 4

    def embed_documents(self, texts):  # noqa: ANN001, ANN201
        raise RuntimeError("model crashed")


def test_a_failure_in_the_thread_reaches_the_caller():
    encoder = DenseEncoder(Failing(), BuildProfile(progress=False), batch=2)
    for text in TEXTS:
        encoder.put(text)
    encoder.close()
    with pytest.raises(RuntimeError, match="model crashed"):
        encoder.result()


def test_an_empty_corpus_is_a_clear_error_and_leaves_no_thread_behind(tmp_path):
    import threading

    with pytest.raises(InputError, match="no chunks"):
        HybridIndex.build(iter([]), tmp_path / "index", RetrievalConfig(), progress=False)
    assert not [t for t in threading.enumerate() if t.name == "dense-encode"]


def test_a_build_reads_a_generator_once(tmp_path):
    read = []

    def corpus():
        for i, text in enumerate(TEXTS):
            read.append(i)
            yield Chunk(id=f"doc{i}#0", doc_id=f"doc{i}", text=text)

    index = HybridIndex.build(corpus(), tmp_path / "index", RetrievalConfig(), progress=False)
    assert read == list(range(len(TEXTS))) and index.meta.chunks == len(TEXTS)
    assert index.search("vendor review of region 3 week 3", top_k=3)


def test_a_build_in_a_child_process_equals_one_in_a_thread(tmp_path):
    import multiprocessing

    chunks = [Chunk(id=f"doc{i}#0", doc_id=f"doc{i}", text=text) for i, text in enumerate(TEXTS)]
    built = {
        process: HybridIndex.build(chunks, tmp_path / str(process), RetrievalConfig(build_process=process),
                                   progress=False)
        for process in (True, False)
    }
    vectors = {p: index.dense.index.reconstruct_n(0, len(TEXTS)) for p, index in built.items()}
    assert np.allclose(vectors[True], vectors[False], atol=1e-3)
    query = "vendor review of region 3 in week 3"
    assert [h.chunk_id for h in built[True].search(query, top_k=5)] == [
        h.chunk_id for h in built[False].search(query, top_k=5)]
    assert not multiprocessing.active_children(), "the encoder process ends with the build"


def test_a_child_process_that_cannot_load_its_model_is_a_clear_error():
    from mithub.embedders.process import ProcessEmbedder
    from mithub.errors import ModelLoadError

    remote = ProcessEmbedder("no-such-model", 1, "x", 4)
    try:
        with pytest.raises(ModelLoadError, match="no-such-model.*unknown embedding model"):
            remote.embed_documents(["text"])
    finally:
        remote.close()
