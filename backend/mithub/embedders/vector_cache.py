"""A content-hash vector cache on disk, so an unchanged text is never encoded twice: not by a
rebuild, not by `mithub index add`, not by a build resumed after a crash.

Layout: one folder per model, holding shards `shard-<random>.npz` with `keys` (n x 16 bytes,
blake2b of kind + text) and `vectors` (n x dim float16). Shards are written whole to a temp
file then renamed, so a build killed mid-write leaves every finished shard readable and loses
only the batch in flight; random names let two processes fill one cache without overwriting
each other. Plain numpy arrays, read with `allow_pickle=False`.

Vectors are kept as float16 and every vector handed out, fresh or cached, is the float16
value: a cold build, a warm rebuild and an incremental add see bit-identical vectors, so
they rank identically.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import structlog

from mithub.embedders.base import Embedder, text_key
from mithub.errors import IndexFormatError

logger = structlog.get_logger(__name__)
KEY_BYTES = 16
VECTORS_DIR = "vectors"  # the cache's folder inside an index or the memory's cache folder
_SHARD = re.compile(r"^shard-[0-9a-f]+\.npz$")


def model_folder(model_id: str) -> str:
    """A file-system-safe folder name for a model id (`st:foo/bar` -> `st_foo_bar`)."""
    return re.sub(r"[^A-Za-z0-9._+-]", "_", model_id)


class VectorCache:
    """Append-only store of (text hash -> vector) for one model."""

    def __init__(self, directory: Path, dim: int) -> None:
        self.directory = directory
        self.dim = dim
        self._rows: dict[bytes, int] = {}
        self._parts: list[np.ndarray] = []
        self._size = 0
        self._load()

    def __len__(self) -> int:
        return self._size

    def _load(self) -> None:
        if not self.directory.is_dir():
            return
        for path in sorted(self.directory.iterdir()):
            if _SHARD.match(path.name) is None:
                continue
            with np.load(path, allow_pickle=False) as shard:
                keys, vectors = shard["keys"], shard["vectors"]
            if vectors.ndim != 2 or vectors.shape[1] != self.dim or len(keys) != len(vectors):
                raise IndexFormatError(
                    f"{path}: vectors of shape {vectors.shape} do not fit a {self.dim}-dim model; "
                    "delete the cache folder and build again"
                )
            self._remember(keys, vectors.astype(np.float16, copy=False))

    def _remember(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        for i, key in enumerate(keys):
            self._rows[key.tobytes()] = self._size + i
        self._parts.append(vectors)
        self._size += len(vectors)

    def _matrix(self) -> np.ndarray:
        if len(self._parts) > 1:
            self._parts = [np.concatenate(self._parts)]
        return self._parts[0] if self._parts else np.zeros((0, self.dim), np.float16)

    def lookup(self, keys: Sequence[bytes]) -> tuple[np.ndarray, np.ndarray]:
        """(found mask, float32 rows with zeros where not found)."""
        rows = np.array([self._rows.get(k, -1) for k in keys], dtype=np.int64)
        found = rows >= 0
        out = np.zeros((len(keys), self.dim), np.float32)
        if found.any():
            out[found] = self._matrix()[rows[found]]
        return found, out

    def add(self, keys: Sequence[bytes], vectors: np.ndarray) -> np.ndarray:
        """Store new rows as one shard; returns the float16-rounded rows as float32."""
        fresh = [i for i, k in enumerate(keys) if k not in self._rows]
        rounded = np.asarray(vectors, np.float32).astype(np.float16)
        if fresh:
            key_array = np.frombuffer(b"".join(keys[i] for i in fresh), np.uint8).reshape(-1, KEY_BYTES)
            self._write_shard(key_array, rounded[fresh])
            self._remember(key_array, rounded[fresh])
        return rounded.astype(np.float32)

    def _write_shard(self, keys: np.ndarray, vectors: np.ndarray) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        final = self.directory / f"shard-{uuid.uuid4().hex}.npz"
        temporary = final.with_name(final.name + ".tmp")
        with temporary.open("wb") as handle:
            np.savez(handle, keys=keys, vectors=vectors)
        os.replace(temporary, final)


_OPEN: dict[Path, VectorCache] = {}


def open_cache(directory: Path, dim: int) -> VectorCache:
    """One `VectorCache` per folder per process, so a vector that one user of the folder
    encoded is a hit for the other (the dense channel and the Tri-Graph can share a model)."""
    key = directory.resolve()
    cache = _OPEN.get(key)
    if cache is None or cache.dim != dim or (len(cache) and not directory.is_dir()):  # deleted: cold again
        cache = _OPEN[key] = VectorCache(directory, dim)
    return cache


class PersistentCachedEmbedder:
    """An `Embedder` whose document vectors go through a `VectorCache`: misses are encoded in
    batches of `batch_size`, and each batch is saved before the next starts (what makes an
    interrupted build resumable). Queries are not cached: each is asked once."""

    def __init__(self, inner: Embedder, cache_root: Path, batch_size: int = 256) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.cache = open_cache(cache_root / model_folder(inner.model_id), inner.dim)
        self.batch_size = batch_size
        self.encoded = 0  # texts this process sent to the model
        self.reused = 0  # texts answered from the cache
        self.on_batch: Callable[[int], None] | None = None

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        keys = [text_key("d", t) for t in texts]
        found, out = self.cache.lookup(keys)
        self.reused += int(found.sum())
        missing: dict[bytes, list[int]] = {}
        for i in np.flatnonzero(~found).tolist():
            missing.setdefault(keys[i], []).append(i)
        pending = list(missing.items())
        for start in range(0, len(pending), self.batch_size):
            batch = pending[start : start + self.batch_size]
            vectors = self.inner.embed_documents([texts[rows[0]] for _, rows in batch])
            stored = self.cache.add([key for key, _ in batch], vectors)
            for (_, rows), vector in zip(batch, stored, strict=True):
                out[rows] = vector
            self.encoded += len(batch)
            if self.on_batch is not None:
                self.on_batch(len(batch))
        return out

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.inner.embed_queries(texts)

    def unseen(self, texts: Sequence[str]) -> int:
        """How many distinct texts are not cached yet (the work left; for progress bars)."""
        keys = {text_key("d", t) for t in texts}
        found, _ = self.cache.lookup(list(keys))
        return int((~found).sum())
