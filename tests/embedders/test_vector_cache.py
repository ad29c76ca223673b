"""The on-disk vector cache: what it stores survives the process, is plain numpy, and an
unchanged text is never sent to the model again."""

from __future__ import annotations

import zipfile
import numpy as np
import pytest
from counting_embedder import CountingEmbedder

from mithub.embedders import load_embedder
from mithub.embedders.base import text_key
from mithub.embedders.vector_cache import PersistentCachedEmbedder, VectorCache, _OPEN


@pytest.fixture
def use_model():
    return load_embedder("use-multilingual").inner


def _fresh_process_view(path) -> None:  # noqa: ANN001
    """Forget open caches, as a new process would."""
    _OPEN.pop(path.resolve(), None)


def test_vectors_survive_a_new_process_as_plain_numpy(tmp_path, use_model):
    texts = ["서울의 날씨는 맑다.", "The bridge opened in 1932.", "서울의 날씨는 맑다."]
    first = CountingEmbedder(use_model)
    vectors = PersistentCachedEmbedder(first, tmp_path, batch_size=2).embed_documents(texts)
    assert first.encoded == texts[:2]  # the repeated text is encoded once
    assert np.array_equal(vectors[0], vectors[2])
    for shard in (tmp_path / "use-multilingual-v3").glob("shard-*.npz"):
        with zipfile.ZipFile(shard) as archive:
            assert sorted(archive.namelist()) == ["keys.npy", "vectors.npy"]
        with np.load(shard, allow_pickle=False) as arrays:
            assert arrays["vectors"].dtype == np.float16
    _fresh_process_view(tmp_path / "use-multilingual-v3")
    second = CountingEmbedder(use_model)
    again = PersistentCachedEmbedder(second, tmp_path).embed_documents(list(reversed(texts)))
    assert second.encoded == []
    assert np.array_equal(again, vectors[::-1])


def test_fresh_and_cached_vectors_are_identical(tmp_path, use_model):
    """Every vector handed out is the stored (float16) value, so a cold build and a warm one
    rank alike."""
    texts = ["one sentence about rivers.", "another about mountains."]
    fresh = PersistentCachedEmbedder(use_model, tmp_path).embed_documents(texts)
    _fresh_process_view(tmp_path / "use-multilingual-v3")
    cached = PersistentCachedEmbedder(use_model, tmp_path).embed_documents(texts)
    assert np.array_equal(fresh, cached)
    assert np.allclose(fresh, use_model.embed_documents(texts), atol=2e-3)


def test_cache_of_another_dimension_is_a_clear_error(tmp_path):
    cache = VectorCache(tmp_path, dim=4)
    cache.add([text_key("d", "x")], np.ones((1, 4), np.float32))
    with pytest.raises(Exception, match="delete the cache folder"):
        VectorCache(tmp_path, dim=8)
