"""The Embedder port and a caching wrapper so nothing is embedded twice."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalized float32 vectors of `dim` dimensions.

    Documents and queries are separate calls because some models (e5) embed them with
    different prefixes; symmetric models treat both alike.
    """

    model_id: str
    dim: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray: ...


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


def text_key(kind: str, text: str) -> bytes:
    """Cache key of one text: `kind` is "d" (document) or "q" (query)."""
    return hashlib.blake2b(f"{kind}\x00{text}".encode(), digest_size=16).digest()


class CachedEmbedder:
    """LRU cache in front of an embedder, keyed by (kind, text hash); thread-safe.

    Misses of one call are embedded in a single batch.
    """

    def __init__(self, inner: Embedder, max_entries: int = 4096) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._max = max_entries
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "d", self.inner.embed_documents)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "q", self.inner.embed_queries)

    def _embed(self, texts: Sequence[str], kind: str, compute) -> np.ndarray:  # noqa: ANN001
        keys = [text_key(kind, t) for t in texts]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: dict[bytes, list[int]] = {}
        with self._lock:
            for i, key in enumerate(keys):
                vector = self._cache.get(key)
                if vector is None:
                    missing.setdefault(key, []).append(i)
                else:
                    self._cache.move_to_end(key)
                    out[i] = vector
                    self.hits += 1
        if missing:
            first_rows = [rows[0] for rows in missing.values()]
            vectors = compute([texts[i] for i in first_rows])
            with self._lock:
                for (key, rows), vector in zip(missing.items(), vectors, strict=True):
                    out[rows] = vector
                    self._cache[key] = vector
                    self.misses += 1
                while len(self._cache) > self._max:
                    self._cache.popitem(last=False)
        return out
