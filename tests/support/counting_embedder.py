"""A real embedder that records what it is asked to encode (for cache and resume tests)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class CountingEmbedder:
    def __init__(self, inner) -> None:  # noqa: ANN001 - any Embedder
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.encoded: list[str] = []

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.encoded.extend(texts)
        return self.inner.embed_documents(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)
