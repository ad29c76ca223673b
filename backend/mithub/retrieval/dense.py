"""Dense channel (seed 001 §3.3.3): L2-normalized chunk vectors in a FAISS `IndexFlatIP`
(inner product = cosine), `dense.faiss` memory-mapped at load; chunk texts and sources in
`dense_docs.jsonl`, one line per FAISS row."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import faiss
import numpy as np

from mithub.embedders.base import l2_normalize
from mithub.errors import IndexFormatError
from mithub.retrieval.models import Chunk

INDEX_FILE = "dense.faiss"
DOCS_FILE = "dense_docs.jsonl"


def save_docs(directory: Path, chunks: Iterable[Chunk], *, append: bool = False) -> None:
    with (directory / DOCS_FILE).open("a" if append else "w", encoding="utf-8") as handle:
        for chunk in chunks:
            handle.write(chunk.model_dump_json(exclude_defaults=False) + "\n")


def load_docs(directory: Path) -> list[Chunk]:
    path = directory / DOCS_FILE
    if not path.is_file():
        raise IndexFormatError(f"{path} is missing; rebuild the index with `mithub index build`")
    with path.open(encoding="utf-8") as handle:
        return [Chunk.model_validate_json(line) for line in handle if line.strip()]


class DenseIndex:
    def __init__(self, index: faiss.Index) -> None:
        self.index = index

    @property
    def size(self) -> int:
        return int(self.index.ntotal)

    @classmethod
    def build(cls, vectors: np.ndarray) -> DenseIndex:
        vectors = l2_normalize(vectors)
        index = faiss.IndexFlatIP(vectors.shape[1])
        index.add(vectors)
        return cls(index)

    def save(self, directory: Path) -> None:
        faiss.write_index(self.index, str(directory / INDEX_FILE))

    @classmethod
    def load(cls, directory: Path, *, mmap: bool = True) -> DenseIndex:
        path = directory / INDEX_FILE
        if not path.is_file():
            raise IndexFormatError(f"{path} is missing; rebuild the index with `mithub index build`")
        flags = faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY if mmap else 0
        return cls(faiss.read_index(str(path), flags))

    def add(self, vectors: np.ndarray) -> None:
        """Append rows. A memory-mapped index is read-only, so it is copied into memory first."""
        if not isinstance(self.index, faiss.IndexFlat) or _is_mmapped(self.index):
            self.index = faiss.clone_index(self.index)
        self.index.add(l2_normalize(vectors))

    def search(self, query_vector: np.ndarray, top_k: int) -> tuple[np.ndarray, np.ndarray]:
        """(row ids, cosine scores) best first; FAISS pads missing hits with -1, dropped here."""
        if self.size == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
        query = l2_normalize(query_vector.reshape(1, -1))
        scores, ids = self.index.search(query, min(top_k, self.size))
        keep = ids[0] >= 0
        return ids[0][keep], scores[0][keep]


def _is_mmapped(index: faiss.Index) -> bool:
    # Indexes read with IO_FLAG_MMAP do not own their codes; writing to them would fault.
    codes = getattr(index, "codes", None)
    return codes is not None and hasattr(codes, "is_owned") and not codes.is_owned


def use_single_thread() -> None:
    """One FAISS thread: for one query at a time it is faster here than two (no fork/join)."""
    faiss.omp_set_num_threads(1)
