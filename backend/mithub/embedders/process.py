"""An `Embedder` served by a child process. An index build encodes its dense channel there:
in one process, the Python-bound stages beside it (reading, BM25, the Tri-Graph) hold the
GIL that every torch call has to take back, and a busy Python thread cut e5's rate from 51
to 19 chunks/s, a kiwi loop to 14. Messages are plain bytes (JSON texts in, float32 rows
out), nothing pickled."""

from __future__ import annotations

import json
import multiprocessing
from collections.abc import Sequence
from multiprocessing.connection import Connection

import numpy as np

from mithub.errors import ModelLoadError

_READY, _ERROR, _VECTORS = b"R", b"E", b"V"
_DOCUMENTS, _QUERIES, _THREADS, _QUIT = b"D", b"Q", b"T", b"X"


class ProcessEmbedder:
    """The embedder `name` (as `build_embedder` makes it) in a spawned process. `model_id` and
    `dim` are given (the parent knows them from its own copy) so that the child's start, a
    few seconds of imports and weights, runs beside the caller's work; the first call waits."""

    def __init__(self, name: str, threads: int, model_id: str, dim: int) -> None:
        self.name = name
        self.model_id = model_id
        self.dim = dim
        context = multiprocessing.get_context("spawn")
        self._connection, child = context.Pipe()
        self._process = context.Process(target=_serve, args=(child, name, threads), daemon=True,
                                        name=f"embedder-{name}")
        self._process.start()
        child.close()
        self._ready = False

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(_DOCUMENTS, texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(_QUERIES, texts)

    def set_threads(self, threads: int) -> None:
        if not self._connection.closed:  # a closed encoder has no threads to set
            self._connection.send_bytes(_THREADS + str(threads).encode())

    def close(self) -> None:
        if self._process.is_alive():
            try:
                self._connection.send_bytes(_QUIT)
            except OSError:
                pass
            self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.terminate()
        self._connection.close()

    def _embed(self, kind: bytes, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), np.float32)
        self._wait_ready()
        self._connection.send_bytes(kind + json.dumps(list(texts), ensure_ascii=False).encode())
        body = self._receive(_VECTORS)
        return np.frombuffer(body, np.float32).reshape(len(texts), self.dim).copy()

    def _wait_ready(self) -> None:
        if not self._ready:
            model_id, dim = json.loads(self._receive(_READY))
            if (model_id, dim) != (self.model_id, self.dim):
                raise ModelLoadError(f"the {self.name} process loaded {model_id!r} ({dim} dims), "
                                     f"expected {self.model_id!r} ({self.dim} dims)")
            self._ready = True

    def _receive(self, expected: bytes) -> bytes:
        try:
            message = self._connection.recv_bytes()
        except EOFError:
            self._process.join(timeout=5)
            raise ModelLoadError(f"the {self.name} encoder process ended (exit code {self._process.exitcode}); "
                                 "see its error above, or set RETRIEVAL_BUILD_PROCESS=false") from None
        kind, body = message[:1], message[1:]
        if kind == _ERROR:
            raise ModelLoadError(f"the {self.name} encoder process failed: {body.decode()}")
        if kind != expected:
            raise ModelLoadError(f"the {self.name} encoder process answered {kind!r}, expected {expected!r}")
        return body


def _serve(connection: Connection, name: str, threads: int) -> None:
    """The child: load the embedder, then answer until told to quit or the parent goes."""
    try:
        from mithub.embedders.factory import build_embedder

        embedder = build_embedder(name, threads)
    except Exception as exc:  # the parent raises it with the model's name
        connection.send_bytes(_ERROR + str(exc).encode())
        return
    connection.send_bytes(_READY + json.dumps([embedder.model_id, embedder.dim]).encode())
    while True:
        try:
            message = connection.recv_bytes()
        except (EOFError, OSError):
            return
        kind, body = message[:1], message[1:]
        if kind == _QUIT:
            return
        if kind == _THREADS:
            if hasattr(embedder, "set_threads"):
                embedder.set_threads(int(body))
            continue
        try:
            texts = json.loads(body)
            embed = embedder.embed_queries if kind == _QUERIES else embedder.embed_documents
            vectors = np.ascontiguousarray(embed(texts), dtype=np.float32)
        except Exception as exc:
            connection.send_bytes(_ERROR + f"{type(exc).__name__}: {exc}".encode())
            continue
        connection.send_bytes(_VECTORS + vectors.tobytes())
