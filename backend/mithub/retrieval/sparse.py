"""Sparse channel (seed 001 §3.3.4): BM25 (bm25s) over tokens that work for Korean —
kiwipiepy content morphemes — and lowercase English words (`mithub.text.content_tokens`).

State is plain arrays and JSON (bm25s' own npy/json files with pickle off, plus the token
ids of every chunk), so adding chunks re-scores from stored tokens without re-tokenizing."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path

import bm25s
import numpy as np

from mithub.errors import IndexFormatError
from mithub.text import content_tokens

# bm25s sets its own logger to DEBUG on import, so its "Building index from IDs objects" reached
# stderr through any handler (an index build printed it between the progress bars).
logging.getLogger("bm25s").setLevel(logging.WARNING)

SPARSE_DIR = "sparse"
TOKENS_FILE = "tokens.npz"
VOCAB_FILE = "token_vocab.json"


def tokenize(text: str) -> list[str]:
    return content_tokens(text)


class SparseIndex:
    def __init__(self, vocab: list[str], token_ids: list[np.ndarray]) -> None:
        self.vocab = vocab
        self.token_ids = token_ids
        self._lookup = {token: i for i, token in enumerate(vocab)}
        self.bm25 = _score(vocab, token_ids)

    @property
    def size(self) -> int:
        return len(self.token_ids)

    @classmethod
    def build(cls, tokenized: Sequence[list[str]]) -> SparseIndex:
        index = cls([], [])
        index.add(tokenized)
        return index

    def add(self, tokenized: Sequence[list[str]]) -> None:
        """Append chunks and re-score; BM25's IDF depends on the whole corpus, and scoring from
        stored ids costs milliseconds per thousand chunks."""
        for tokens in tokenized:
            ids = [self._lookup.setdefault(t, len(self._lookup)) for t in tokens]
            self.token_ids.append(np.asarray(ids, dtype=np.int32))
        self.vocab = sorted(self._lookup, key=self._lookup.__getitem__)
        self.bm25 = _score(self.vocab, self.token_ids)

    def save(self, directory: Path) -> None:
        target = directory / SPARSE_DIR
        target.mkdir(parents=True, exist_ok=True)
        self.bm25.save(str(target), allow_pickle=False, show_progress=False)
        lengths = np.array([len(ids) for ids in self.token_ids], dtype=np.int64)
        flat = np.concatenate(self.token_ids) if self.token_ids else np.zeros(0, np.int32)
        np.savez(target / TOKENS_FILE, ids=flat.astype(np.int32), lengths=lengths)
        (target / VOCAB_FILE).write_text(json.dumps(self.vocab, ensure_ascii=False), encoding="utf-8")

    @classmethod
    def load(cls, directory: Path) -> SparseIndex:
        target = directory / SPARSE_DIR
        if not (target / TOKENS_FILE).is_file():
            raise IndexFormatError(f"{target} is missing; rebuild the index with `mithub index build`")
        index = cls.__new__(cls)
        index.vocab = json.loads((target / VOCAB_FILE).read_text(encoding="utf-8"))
        index._lookup = {token: i for i, token in enumerate(index.vocab)}
        with np.load(target / TOKENS_FILE, allow_pickle=False) as arrays:
            offsets = np.cumsum(arrays["lengths"])[:-1]
            index.token_ids = list(np.split(arrays["ids"], offsets)) if len(arrays["lengths"]) else []
        index.bm25 = bm25s.BM25.load(str(target), allow_pickle=False, mmap=False, show_progress=False)
        return index

    def search(self, query: str, top_k: int) -> tuple[np.ndarray, np.ndarray]:
        """(row ids, BM25 scores) best first; only chunks sharing a token with the query."""
        known = [t for t in tokenize(query) if t in self._lookup]
        if not known or self.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        scores = self.bm25.get_scores(known)
        positive = np.flatnonzero(scores > 0)
        if positive.size > top_k:
            positive = positive[np.argpartition(-scores[positive], top_k - 1)[:top_k]]
        order = positive[np.argsort(-scores[positive], kind="stable")]
        return order.astype(np.int64), scores[order].astype(np.float32)


def _score(vocab: list[str], token_ids: list[np.ndarray]) -> bm25s.BM25:
    bm25 = bm25s.BM25()
    if token_ids:
        # bm25s wants every document non-empty in its vocabulary view; ids are ours already.
        corpus = bm25s.tokenization.Tokenized(
            ids=[ids.tolist() for ids in token_ids], vocab={t: i for i, t in enumerate(vocab)}
        )
        bm25.index(corpus, show_progress=False)
    return bm25
