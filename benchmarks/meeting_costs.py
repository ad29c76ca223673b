"""What a live meeting costs in the worker process, for `benchmarks/worker.py --sections meeting`:
CPU by stage (thread CPU time around the real calls), CPU by thread (from /proc/self/task, as a
cross-check), resident memory sampled while meetings run, and the instruction-set cap that
stands in for a CPU without AVX-512/AMX.

The stage clocks wrap the library calls in this process only (a benchmark, never the bot):
    VAD          Silero's OnnxModel.__call__ (one 32 ms window) or WindowBatcher._infer (a batch)
    STT          WhisperSTT._transcribe, plus the CPU of the native threads started once the other
                 models had loaded and run (CTranslate2's workers and their OpenMP threads)
    embeddings   the embedder's embed_documents / embed_queries
    topics       TopicDetector._features / _change and SemanticShiftDetector.push / finish
    record       ChangeDetector.check (decision changes per turn) and extract_record (at the end)
    store        the SQLite connection threads (aiosqlite), from the per-thread CPU
A stage inside another (the embedding inside a topic feature) counts only once, for the inner one.
"""

from __future__ import annotations

import asyncio
import functools
import os
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from isa import CAPS as ISA_CAPS  # what each library reads to cap its instruction set

STAGES = ("VAD", "STT", "embeddings", "topics", "record", "store")
_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def cap_isa_from_argv(argv: list[str]) -> str:
    """`--isa avx2` (or `--isa=avx2`) applied to the environment before any library loads;
    returns the cap's name ("" without one). Called at the top of the benchmark script."""
    isa = ""
    for i, arg in enumerate(argv):
        if arg == "--isa" and i + 1 < len(argv):
            isa = argv[i + 1]
        elif arg.startswith("--isa="):
            isa = arg.split("=", 1)[1]
    if isa and isa != "native":
        if isa not in ISA_CAPS:
            raise SystemExit(f"--isa {isa}: choose from native, {', '.join(ISA_CAPS)}")
        os.environ.update(ISA_CAPS[isa])
    return "" if isa == "native" else isa


def cpu_description(isa: str) -> str:
    """The CPU's name, its wide vector units, and the cap in force."""
    name, flags = "unknown CPU", set()
    for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
        if line.startswith("model name"):
            name = line.split(":", 1)[1].strip()
        elif line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
    units = [label for flag, label in (("avx2", "AVX2"), ("avx512f", "AVX-512"),
                                       ("avx512_bf16", "AVX-512 bf16"), ("amx_bf16", "AMX"))
             if flag in flags]
    cap = (f"; instruction set capped at {isa.upper()} ("
           + ", ".join(f"{k}={v}" for k, v in ISA_CAPS[isa].items()) + ")") if isa else "; no cap"
    return f"{name}, {os.cpu_count()} logical CPUs ({', '.join(units) or 'no AVX2'}){cap}"


# ---------------------------------------------------------------- stage clocks


class StageClock:
    """Thread CPU seconds spent in each stage; nested stages count for the inner one only."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._local = threading.local()

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        stack = self._local.__dict__.setdefault("stack", [])
        stack.append(name)
        started = time.thread_time()
        try:
            yield
        finally:
            spent = time.thread_time() - started
            stack.pop()
            with self._lock:
                self.seconds[name] += spent
                if stack:
                    self.seconds[stack[-1]] -= spent

    def snapshot(self) -> Counter[str]:
        with self._lock:
            return Counter(self.seconds)

    def wrap(self, owner: Any, attribute: str, name: str) -> None:
        """Replace owner.attribute (a sync function or method) by one timed as stage `name`."""
        inner = getattr(owner, attribute)
        if getattr(inner, "_stage_clock", None) is self:
            return

        @functools.wraps(inner)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.stage(name):
                return inner(*args, **kwargs)

        timed._stage_clock = self  # type: ignore[attr-defined]
        setattr(owner, attribute, timed)


def instrument(clock: StageClock, embedder: Any) -> None:
    """Put the stage clocks on the real calls of the live meeting path."""
    from livekit.plugins.silero import onnx_model

    import mithub.agent.decision_watch as decision_watch
    from mithub.record.changes import ChangeDetector
    from mithub.topics.detector import TopicDetector
    from mithub.topics.semantic_shift import SemanticShiftDetector
    from mithub_worker.stt import WhisperSTT
    from mithub_worker.vad import WindowBatcher

    clock.wrap(onnx_model.OnnxModel, "__call__", "VAD")
    clock.wrap(WindowBatcher, "_infer", "VAD")
    clock.wrap(WhisperSTT, "_transcribe", "STT")
    for method in ("embed_documents", "embed_queries"):
        clock.wrap(type(embedder), method, "embeddings")
    for method in ("_features", "_change"):
        clock.wrap(TopicDetector, method, "topics")
    for method in ("push", "finish"):
        clock.wrap(SemanticShiftDetector, method, "topics")
    clock.wrap(ChangeDetector, "check", "record")
    clock.wrap(decision_watch, "extract_record", "record")


# ---------------------------------------------------------------- threads and memory


def thread_cpu() -> dict[int, float]:
    """CPU seconds of each live thread of this process, by thread id."""
    out = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            fields = Path(f"/proc/self/task/{tid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[int(tid)] = (int(fields[11]) + int(fields[12])) / _TICK
    return out


def thread_kinds(earlier_native: set[int]) -> dict[int, str]:
    """What each live thread is: the event loop, Whisper's (its Python threads, and the native
    threads that appeared after `earlier_native` was taken, before Whisper loaded), the VAD
    thread, the asyncio executor, the SQLite connections, other Python or native threads."""
    kinds = {tid: "other native" if tid in earlier_native else "Whisper native" for tid in thread_cpu()}
    for thread in threading.enumerate():
        if thread.native_id is None:
            continue
        name = thread.name
        if thread is threading.main_thread():
            kind = "event loop (MainThread)"
        elif name.startswith("whisper"):
            kind = "Whisper (Python)"
        elif name.startswith("vad"):
            kind = "VAD thread"
        elif re.match(r"asyncio_\d+", name):
            kind = "asyncio executor"
        elif "_connection_worker_thread" in name:  # aiosqlite
            kind = "store (aiosqlite)"
        else:
            kind = "other Python"
        kinds[thread.native_id] = kind
    return kinds


def thread_cpu_by_kind(before: dict[int, float], after: dict[int, float], kinds: dict[int, str]
                       ) -> Counter[str]:
    """CPU seconds between two thread_cpu() readings, summed by kind (threads that ended in
    between are missing here; the process total has them)."""
    out: Counter[str] = Counter()
    for tid, seconds in after.items():
        out[kinds.get(tid, "other native")] += seconds - before.get(tid, 0.0)
    return out


def rss_mib() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * _PAGE / 2**20


class ProcessSampler:
    """Resident memory and each thread's CPU and kind, sampled every `every` s while running
    (async context manager), so threads that end before the run does (a meeting's SQLite
    connection) still count."""

    def __init__(self, earlier_native: set[int], every: float = 0.2) -> None:
        self.every = every
        self.peak = 0.0
        self.threads: dict[int, float] = {}
        self.kinds: dict[int, str] = {}
        self._earlier_native = earlier_native
        self._task: asyncio.Task | None = None

    def sample(self) -> None:
        self.peak = max(self.peak, rss_mib())
        self.threads.update(thread_cpu())
        self.kinds.update(thread_kinds(self._earlier_native))

    async def _run(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(self.every)

    async def __aenter__(self) -> ProcessSampler:
        self._task = asyncio.create_task(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        self.sample()


def native_threads() -> set[int]:
    """The threads of this process that Python did not start (libraries' own pools)."""
    return set(thread_cpu()) - {t.native_id for t in threading.enumerate()}
