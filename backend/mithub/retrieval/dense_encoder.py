"""The dense channel's encoder in a thread of its own, fed chunk texts while the corpus is
still being read: the dense encode is the longest stage of a build, so it starts with the
first chunks instead of after the last one. Torch and kiwi release the GIL, so reading,
BM25 and the Tri-Graph go on beside it on the other core."""

from __future__ import annotations

import queue
import threading

import numpy as np

from mithub.embedders.base import Embedder
from mithub.retrieval.profile import BuildProfile


class DenseEncoder:
    """`put` texts in corpus order, `close` when the corpus ends, `result` for the vectors
    (rows in `put` order). Each batch goes through the embedder as it is (the vector cache
    saves it before the next, so an interrupted build resumes); `cancel` stops after the
    batch in hand."""

    def __init__(self, embedder: Embedder, profile: BuildProfile, batch: int) -> None:
        self._embedder = embedder
        self._profile = profile
        self._batch = batch
        self._queue: queue.SimpleQueue[list[str] | None] = queue.SimpleQueue()
        self._pending: list[str] = []
        self._parts: list[np.ndarray] = [np.zeros((0, embedder.dim), np.float32)]
        self._count = 0
        self._cancelled = threading.Event()
        self._error: BaseException | None = None
        self._bar = profile.bar("dense encode", 0, "chunk")
        self._thread = threading.Thread(target=self._run, name="dense-encode", daemon=True)
        self._thread.start()

    def set_threads(self, threads: int) -> None:
        """Threads for the encoder's next batch on, if it can change them (e5 on torch can)."""
        innermost = _innermost_with(self._embedder, "set_threads")
        if innermost is not None:
            innermost.set_threads(threads)

    def put(self, text: str) -> None:
        self._pending.append(text)
        self._count += 1
        if len(self._pending) >= self._batch:
            self._send()

    def close(self) -> None:
        """No more texts: the bar learns its total (and so an ETA)."""
        self._send()
        self._queue.put(None)
        self._bar.total = self._count
        self._bar.refresh()

    def result(self) -> np.ndarray:
        self._finish()
        if self._error is not None:
            raise self._error
        return np.concatenate(self._parts)

    def cancel(self) -> None:
        self._cancelled.set()
        self._queue.put(None)
        self._finish()

    def _finish(self) -> None:
        """Wait for the thread; an encoder that owns a process (ProcessEmbedder) ends it."""
        self._thread.join()
        self._bar.close()
        owner = _innermost_with(self._embedder, "close")
        if owner is not None:
            owner.close()

    def _send(self) -> None:
        if self._pending:
            self._queue.put(self._pending)
            self._pending = []

    def _run(self) -> None:
        with self._profile.stage("dense encode", "chunk") as stage:
            while (texts := self._queue.get()) is not None and not self._cancelled.is_set():
                try:
                    self._parts.append(self._embedder.embed_documents(texts))
                except BaseException as exc:  # handed to the caller by result()
                    self._error = exc
                    return
                stage.items += len(texts)
                self._bar.update(len(texts))


def _innermost_with(embedder: Embedder | None, method: str):  # noqa: ANN202 - any embedder
    """The first of `embedder` and the encoders it wraps (`inner`) that has `method`."""
    while embedder is not None and not hasattr(embedder, method):
        embedder = getattr(embedder, "inner", None)
    return embedder
