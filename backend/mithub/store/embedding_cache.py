"""A meeting's embeddings, kept in the store so a restore does not compute them again.

Restoring a ContextManager rebuilds the topic detector's window by embedding its last 60
turns one by one, which is most of the restore time (seconds on a busy CPU). This `Embedder`
wraps the process-wide one for a single meeting: it remembers every vector it computes and
saves them in the background (`flush`, every few seconds, off the write-through path); a
restore first loads the recent ones (`preload`) and then embeds only what is missing.

Vectors are stored as the float32 bytes the model returned (numpy `tobytes`/`frombuffer`,
never pickle): float16 or a batched re-embedding would differ in the last bits, and a
restored manager must decide exactly as the one that never stopped. It is a cache: a vector
that was never saved (a crash between flushes, an outage) is simply computed again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np
import structlog
from sqlalchemy import Table, select

from mithub.embedders.base import Embedder, text_key
from mithub.store.catalog import SqlCatalog
from mithub.store.tables import EmbeddingCacheRow

logger = structlog.get_logger(__name__)

EMBEDDINGS: Table = EmbeddingCacheRow.__table__  # type: ignore[assignment]
# Seqs back from the last stored utterance whose vectors a restore loads: the detector's
# history (60 turns) plus the turns after the last saved state (< 60), with room to spare.
PRELOAD_WINDOW = 300


class MeetingEmbeddings:
    """The `Embedder` port for one meeting, backed by the store's embedding cache."""

    def __init__(
        self, inner: Embedder, store: SqlCatalog, meeting_id: str, *, max_pending: int = 4096
    ) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._store = store
        self._meeting_id = meeting_id
        self._max_pending = max_pending
        self._known: dict[bytes, np.ndarray] = {}
        self._pending: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.preloaded = 0
        self.computed = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "d", self.inner.embed_documents)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "q", self.inner.embed_queries)

    def _embed(
        self, texts: Sequence[str], kind: str, compute: Callable[[Sequence[str]], np.ndarray]
    ) -> np.ndarray:
        keys = [text_key(kind, t) for t in texts]
        with self._lock:
            found = [self._known.get(k) for k in keys]
        missing = [i for i, vector in enumerate(found) if vector is None]
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if missing:
            vectors = compute([texts[i] for i in missing])
            with self._lock:
                for i, vector in zip(missing, vectors, strict=True):
                    found[i] = vector  # the process-wide embedder caches it from here on
                    self._pending[keys[i]] = vector
                    self.computed += 1
                while len(self._pending) > self._max_pending:  # a cache: losing one is fine
                    self._pending.popitem(last=False)
        for i, vector in enumerate(found):
            out[i] = vector
        return out

    async def preload(self, last_seq: int) -> int:
        """Load the vectors saved for this meeting's recent turns. Returns how many."""
        query = select(EMBEDDINGS.c.text_hash, EMBEDDINGS.c.vector).where(
            EMBEDDINGS.c.meeting_id == self._meeting_id,
            EMBEDDINGS.c.model_id == self.model_id,
            EMBEDDINGS.c.seq > last_seq - PRELOAD_WINDOW,
        )
        async with self._store.database.engine.connect() as conn:
            rows = (await conn.execute(query)).all()
        loaded = {
            bytes(r.text_hash): np.frombuffer(r.vector, dtype=np.float32)
            for r in rows
            if len(r.vector) == self.dim * 4
        }
        with self._lock:
            self._known.update(loaded)
        self.preloaded = len(loaded)
        return len(loaded)

    async def flush(self, seq: int) -> int:
        """Save the vectors computed since the last flush, tagged with the meeting's current
        last seq. Returns how many; on a database error they stay pending for next time."""
        with self._lock:
            batch = list(self._pending.items())
        if not batch:
            return 0
        rows = [
            {
                "meeting_id": self._meeting_id,
                "model_id": self.model_id,
                "text_hash": key,
                "seq": seq,
                "vector": np.asarray(vector, dtype=np.float32).tobytes(),
            }
            for key, vector in batch
        ]
        # A text said again (a short "네", a repeated agenda line) moves to the newest seq, or
        # a restore would not load it.
        insert = self._store._insert(EMBEDDINGS)
        statement = insert.on_conflict_do_update(
            index_elements=["meeting_id", "model_id", "text_hash"],
            set_={"seq": insert.excluded.seq},
        )
        async with self._store.database.begin() as conn:
            await self._store._ensure_meeting(conn, self._meeting_id)
            await conn.execute(statement, rows)
        with self._lock:
            for key, _ in batch:
                self._pending.pop(key, None)
        return len(batch)


async def stored_vectors(store: SqlCatalog, meeting_id: str, model_id: str) -> dict[bytes, np.ndarray]:
    """Every vector saved for a meeting by `model_id`, by text key: what the organisation's
    memory indexes a finished meeting with, instead of embedding its turns again."""
    query = select(EMBEDDINGS.c.text_hash, EMBEDDINGS.c.vector).where(
        EMBEDDINGS.c.meeting_id == meeting_id, EMBEDDINGS.c.model_id == model_id)
    async with store.database.engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return {bytes(r.text_hash): np.frombuffer(r.vector, dtype=np.float32) for r in rows}
