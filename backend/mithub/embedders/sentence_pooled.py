"""Chunk vectors pooled from sentence vectors: each distinct sentence is encoded once, and a
chunk's vector is the length-weighted mean of its sentences' vectors.

Why: JSONL corpora are chunked into windows of W=5 sentences moved by S=2, so every sentence
sits in about W/S = 2.5 chunks, and a transformer encoder pays for it each time. Encoding
sentences instead does the corpus once, on shorter inputs (attention cost grows with length).
e5 itself mean-pools token states, so a token-weighted mean of sentence means is the same
pooling with attention cut at sentence borders; characters stand in for tokens as weights.
Whether that keeps quality is measured in benchmarks/RESULTS.md (indexing options table).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mithub.embedders.base import Embedder, l2_normalize
from mithub.text import split_sentences

SUFFIX = "+sentence-mean"


class SentencePooledEmbedder:
    """Documents: pooled from sentences; queries: encoded whole by the inner model."""

    def __init__(self, inner: Embedder, split: Callable[[str], list[str]] = split_sentences) -> None:
        self.inner = inner
        self.model_id = inner.model_id + SUFFIX
        self.dim = inner.dim
        self._split = split

    def sentences_of(self, text: str) -> list[str]:
        return [s for s in self._split(text) if s.strip()] or [text]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        per_text = [self.sentences_of(t) for t in texts]
        row_of: dict[str, int] = {}
        for sentences in per_text:
            for sentence in sentences:
                row_of.setdefault(sentence, len(row_of))
        vectors = self.inner.embed_documents(list(row_of))
        out = np.empty((len(texts), self.dim), np.float32)
        for i, sentences in enumerate(per_text):
            rows = [row_of[s] for s in sentences]
            weights = np.array([len(s) for s in sentences], np.float32)
            out[i] = weights @ vectors[rows]
        return l2_normalize(out)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)
