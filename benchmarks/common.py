"""Helpers shared by the benchmarks: the machine description, a results section written into
`benchmarks/RESULTS.md` (replacing the previous section of the same name), and an on-disk
embedding cache (plain `.npy` files, never pickle) so reruns skip the encoder."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shlex
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from mithub.embedders import Embedder

BENCH_DIR = Path(__file__).resolve().parent
REPO_ROOT = BENCH_DIR.parent
RESULTS_PATH = BENCH_DIR / "RESULTS.md"
CACHE_DIR = BENCH_DIR / ".cache"


def _memory_gib() -> float | None:
    try:
        pages = os.sysconf("SC_PHYS_PAGES")
        page_size = os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return pages * page_size / 2**30


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def machine_description() -> str:
    memory = _memory_gib()
    memory_text = f", {memory:.0f} GiB RAM" if memory else ""
    return (
        f"{_cpu_model()}, {os.cpu_count()} logical CPUs{memory_text}; "
        f"{platform.system()} {platform.release()}; Python {platform.python_version()}"
    )


def command_line() -> str:
    return " ".join(shlex.quote(a) for a in [Path(sys.executable).name, *sys.argv])


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def load_average() -> str:
    """The 1, 5 and 15 min load averages, as the results tables quote them."""
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def publish(title: str, body: str, write: bool) -> None:
    """Print a benchmark's results; with `write`, also make them its RESULTS.md section."""
    print(body)
    if write:
        write_results_section(title, body)


def write_results_section(title: str, body: str, path: Path = RESULTS_PATH) -> None:
    """Replace the `## title` section of RESULTS.md (or append it), leaving other sections."""
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    section = (
        f"## {title}\n\n"
        f"Command: `{command_line()}`  \n"
        f"Machine: {machine_description()}  \n"
        f"Date: {stamp}\n\n{body.strip()}\n"
    )
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    if pattern.search(text):
        text = pattern.sub(lambda _m: section + "\n", text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")


def _text_key(kind: str, text: str) -> bytes:
    return hashlib.blake2b(f"{kind}\x00{text}".encode(), digest_size=16).digest()


class NpyEmbeddingCache:
    """An Embedder that remembers every vector on disk (`keys.npy` text digests, `vectors.npy`)
    and asks the wrapped embedder only for texts it has never seen. Call `save()` at the end."""

    def __init__(self, inner: Embedder, directory: Path | None = None) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.directory = directory or CACHE_DIR / "embeddings" / inner.model_id
        self._index: dict[bytes, int] = {}
        self._vectors: list[np.ndarray] = []
        self._dirty = False
        keys_path, vectors_path = self.directory / "keys.npy", self.directory / "vectors.npy"
        if keys_path.exists() and vectors_path.exists():
            keys = np.load(keys_path, allow_pickle=False)
            vectors = np.load(vectors_path, allow_pickle=False)
            self._index = {k.tobytes(): i for i, k in enumerate(keys)}
            self._vectors = list(vectors)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed("d", texts, self.inner.embed_documents)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed("q", texts, self.inner.embed_queries)

    def _embed(self, kind: str, texts: Sequence[str], compute) -> np.ndarray:  # noqa: ANN001
        keys = [_text_key(kind, t) for t in texts]
        missing = list(dict.fromkeys(k_t for k_t in zip(keys, texts) if k_t[0] not in self._index))
        if missing:
            vectors = compute([t for _, t in missing])
            for (key, _), vector in zip(missing, vectors, strict=True):
                self._index[key] = len(self._vectors)
                self._vectors.append(np.asarray(vector, dtype=np.float32))
            self._dirty = True
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vectors[self._index[k]] for k in keys])

    def save(self) -> None:
        if not self._dirty:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        ordered = sorted(self._index, key=self._index.__getitem__)
        # Raw digest bytes as a uint8 matrix: an "S16" array would drop trailing NUL bytes.
        keys = np.frombuffer(b"".join(ordered), dtype=np.uint8).reshape(len(ordered), 16)
        np.save(self.directory / "keys.npy", keys, allow_pickle=False)
        np.save(self.directory / "vectors.npy", np.stack(self._vectors), allow_pickle=False)
        self._dirty = False
