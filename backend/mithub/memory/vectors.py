"""An `Embedder` that serves the vectors a live meeting already stored, so a finished
meeting joins the memory without embedding its turns again; only what was never stored
(an in-memory meeting, a crash between flushes) is computed."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mithub.embedders.base import Embedder, text_key


class StoredVectors:
    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.known: dict[bytes, np.ndarray] = {}
        self.computed = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: list[int] = []
        for i, text in enumerate(texts):
            vector = self.known.get(text_key("d", text))
            if vector is None:
                missing.append(i)
            else:
                out[i] = vector
        if missing:
            out[missing] = self.inner.embed_documents([texts[i] for i in missing])
            self.computed += len(missing)
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)
