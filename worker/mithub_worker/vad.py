"""Silero VAD for many streams in one process: the 32 ms windows of every participant's stream
run together, as one ONNX call per few milliseconds.

livekit-plugins-silero runs each window as its own ONNX call, handed to asyncio's default
executor: 40 participants (10 meetings) make 1,250 thread hops and ONNX calls a second. The
Silero model takes a batch (its recurrent state is per row), and one call of 40 windows costs
less than a third of 40 single calls, so `BatchedSileroVAD` keeps the plugin's streams (their
speech logic, events and options) and replaces only where their windows go: each stream's
`run_in_executor(None, model, window)` joins a batch that runs on one VAD thread after at most
`wait` seconds, and each stream gets its own probability and state back, the same as alone.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from livekit.plugins import silero
from livekit.plugins.silero import onnx_model


@dataclass
class _Window:
    model: onnx_model.OnnxModel
    samples: np.ndarray  # one window, float32
    future: asyncio.Future[float]


class WindowBatcher:
    """Stands in for the event loop of Silero's VADStream, whose only use of it is
    `run_in_executor(None, model, window)`: the window waits up to `wait` s for the windows of
    other streams on the same event loop, then all run as one batch on the VAD thread."""

    def __init__(self, session: Any, *, wait: float) -> None:
        self._session = session
        self._wait = wait
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="vad")
        self._lock = threading.Lock()
        # windows waiting, per event loop (thread-executor jobs each run their own loop)
        self._pending: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, list[_Window]] = \
            weakref.WeakKeyDictionary()
        self.calls = 0  # ONNX calls made (batches), for tests and benchmarks
        self.windows = 0

    def run_in_executor(self, _executor: object, model: onnx_model.OnnxModel,
                        samples: np.ndarray) -> asyncio.Future[float]:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[float] = loop.create_future()
        with self._lock:
            pending = self._pending.setdefault(loop, [])
            pending.append(_Window(model, samples.copy(), future))
            first = len(pending) == 1
        if first:
            loop.call_later(self._wait, self._flush, loop)
        return future

    def _flush(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            batch = self._pending.pop(loop, [])
        if not batch:
            return
        done = loop.run_in_executor(self._thread, self._infer, [w.model for w in batch],
                                    np.stack([w.samples for w in batch]))
        done.add_done_callback(lambda result: _settle(batch, result))

    def _infer(self, models: list[onnx_model.OnnxModel], samples: np.ndarray) -> np.ndarray:
        """One ONNX call for the windows of several streams; each stream's context and
        recurrent state are read before and written back after, as OnnxModel.__call__ does."""
        inputs = np.concatenate([np.concatenate([m._context for m in models]), samples], axis=1)
        state = np.concatenate([m._rnn_state for m in models], axis=1)
        out, state = self._session.run(None, {"input": inputs, "state": state,
                                              "sr": models[0]._sample_rate_nd})
        context = models[0].context_size
        for i, model in enumerate(models):
            model._rnn_state = np.ascontiguousarray(state[:, i : i + 1])
            model._context = inputs[i : i + 1, -context:].copy()
        self.calls += 1
        self.windows += len(models)
        return out.reshape(-1)


def _settle(batch: list[_Window], result: asyncio.Future[np.ndarray]) -> None:
    if result.cancelled():  # the event loop is shutting down
        for window in batch:
            window.future.cancel()
        return
    error = result.exception()
    for i, window in enumerate(batch):
        if window.future.done():  # the stream was closed meanwhile
            continue
        if error is not None:
            window.future.set_exception(error)
        else:
            window.future.set_result(float(result.result()[i]))


class BatchedSileroVAD(silero.VAD):
    """Silero's VAD (same options, same events) whose streams' windows run in batches."""

    def __init__(self, *, session: Any, opts: Any, wait: float) -> None:
        super().__init__(session=session, opts=opts)
        self.batcher = WindowBatcher(session, wait=wait)

    @classmethod
    def from_vad(cls, vad: silero.VAD, *, wait: float) -> BatchedSileroVAD:
        return cls(session=vad._onnx_session, opts=vad._opts, wait=wait)

    def stream(self) -> silero.VADStream:
        stream = super().stream()
        # The stream's main task starts on the next turn of the loop and reads `_loop` only to
        # run a window, so the batcher takes that role from the first window on.
        stream._loop = self.batcher  # type: ignore[assignment]
        return stream
