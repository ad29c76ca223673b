"""Retrieval at scale: index size, build time and query latency p50/p95 of the hybrid index at
10k and 100k chunks of synthetic text, plus the query encoders' own latency.

    .venv/bin/python benchmarks/retrieval_scale.py [--sizes 10000,100000] [--queries 200] [--no-write]

The synthetic corpus is English-like sentences over a Zipf vocabulary with capitalized names
(so the Tri-Graph gets entities shared across chunks). Vectors come from a hashing embedder
(random unit vector per token, summed and normalized): it costs nothing to build 100k chunks
with, and the index does the same work per query whatever produced the vectors. The real
encoders' per-query time is measured separately and added in the last column.
"""

from __future__ import annotations

import argparse
import hashlib
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import load_average, markdown_table, publish  # noqa: E402
from retrieval_metrics import percentile_ms  # noqa: E402

from mithub.config import RetrievalConfig  # noqa: E402
from mithub.embedders import load_embedder  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.embedders.base import l2_normalize  # noqa: E402
from mithub.retrieval.index import HybridIndex  # noqa: E402
from mithub.retrieval.models import Chunk  # noqa: E402

SECTION = "Retrieval at scale (synthetic corpus)"
SEED = 7


class HashingEmbedder:
    """Deterministic bag-of-words vectors: each token hashes to a fixed random unit vector."""

    def __init__(self, model_id: str, dim: int) -> None:
        self.model_id = model_id
        self.dim = dim
        self._table = l2_normalize(np.random.default_rng(SEED).standard_normal((1 << 16, dim)).astype(np.float32))

    def _rows(self, text: str) -> list[int]:
        return [int.from_bytes(hashlib.blake2b(w.encode(), digest_size=2).digest(), "little") for w in text.lower().split()]

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            rows = self._rows(text)
            if rows:
                out[i] = self._table[rows].sum(axis=0)
        return l2_normalize(out)

    embed_queries = embed_documents


def synthetic_chunks(n: int, rng: np.random.Generator) -> tuple[list[Chunk], list[str]]:
    vocabulary = [f"w{i}" for i in range(30_000)]
    names = [f"{a} {b}" for a, b in zip((f"Name{i}" for i in range(20_000)), (f"Place{i % 3000}" for i in range(20_000)))]
    weights = 1.0 / np.arange(1, len(vocabulary) + 1) ** 1.1
    weights /= weights.sum()
    chunks, queries = [], []
    for c in range(n):
        sentences = []
        for _ in range(3):
            words = rng.choice(len(vocabulary), size=12, p=weights)
            name = names[int(rng.integers(len(names)))]
            sentences.append(f"{name} " + " ".join(vocabulary[w] for w in words) + ".")
        chunks.append(Chunk(id=f"doc{c}#c0", doc_id=f"doc{c}", text=" ".join(sentences)))
    for q in rng.choice(n, size=min(n, 1000), replace=False):
        queries.append(" ".join(chunks[int(q)].text.split()[:8]))
    return chunks, queries


def _size_mib(directory: Path) -> float:
    return sum(p.stat().st_size for p in directory.rglob("*") if p.is_file()) / 2**20


def run_size(n: int, n_queries: int, config: RetrievalConfig) -> dict:
    rng = np.random.default_rng(SEED)
    chunks, queries = synthetic_chunks(n, rng)
    embedder, tri_embedder = HashingEmbedder("hash-384", 384), HashingEmbedder("hash-512", 512)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp) / "idx"
        started = time.perf_counter()
        HybridIndex.build(chunks, directory, config, embedder=embedder, tri_embedder=tri_embedder, progress=True)
        build = time.perf_counter() - started
        index = HybridIndex.load(directory, config, embedder=embedder, tri_embedder=tri_embedder)
        # Encode outside the timer: the hashing encoder's cost is not a real model's.
        vectors = {q: (embedder.embed_queries([q])[0], tri_embedder.embed_queries([q])[0]) for q in queries[:n_queries]}
        index.embedder = _Fixed({q: v[0] for q, v in vectors.items()}, embedder)
        index.tri_embedder = _Fixed({q: v[1] for q, v in vectors.items()}, tri_embedder)
        per_channel: dict[str, list[float]] = {"dense": [], "sparse": [], "trigraph": [], "hybrid": []}
        for query in list(vectors):
            for channel in ("dense", "sparse"):
                started = time.perf_counter()
                index.channel_rankings(query, [channel])
                per_channel[channel].append(time.perf_counter() - started)
            started = time.perf_counter()
            index.search(query)
            per_channel["hybrid"].append(time.perf_counter() - started)
        stats = index.trigraph.stats() if index.trigraph else {}
        return {
            "chunks": n, "build_s": build, "size_mib": _size_mib(directory), "stats": stats,
            "p50": {k: percentile_ms(v, 50) for k, v in per_channel.items() if v},
            "p95": {k: percentile_ms(v, 95) for k, v in per_channel.items() if v},
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }


class _Fixed:
    """Serves precomputed query vectors (documents are not embedded at query time)."""

    def __init__(self, vectors: dict[str, np.ndarray], inner: HashingEmbedder) -> None:
        self._vectors, self.model_id, self.dim = vectors, inner.model_id, inner.dim

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vectors[t] for t in texts])


def encoder_latency(names: Sequence[str], n: int = 50) -> dict[str, tuple[float, float]]:
    """Single-query encoding time of the real encoders (the part synthetic vectors skip)."""
    out = {}
    for name in names:
        embedder = load_embedder(name).inner
        embedder.embed_queries(["warm up"])
        seconds = []
        for i in range(n):
            started = time.perf_counter()
            embedder.embed_queries([f"what did we decide about the budget for project {i} last week?"])
            seconds.append(time.perf_counter() - started)
        out[name] = (percentile_ms(seconds, 50), percentile_ms(seconds, 95))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    load_before = load_average()
    config = RetrievalConfig()
    encoders = encoder_latency([config.embedding_model, config.trigraph_embedding_model])
    encode_p95 = sum(p95 for _, p95 in encoders.values())
    rows = []
    for n in (int(s) for s in args.sizes.split(",")):
        r = run_size(n, args.queries, config)
        rows.append([
            f"{n:,}", f"{r['stats'].get('sentences', 0):,}", f"{r['stats'].get('entities', 0):,}", f"{r['build_s']:.0f}",
            f"{r['size_mib']:.0f}", f"{r['peak_rss_mib']:.0f}",
            *(f"{r['p50'][c]:.1f} / {r['p95'][c]:.1f}" for c in ("dense", "sparse", "hybrid")),
            f"{r['p95']['hybrid'] + encode_p95:.1f}",
        ])
        print(rows[-1], file=sys.stderr)
    header = ["chunks", "sentences", "entities", "build s", "index MiB", "peak RSS MiB",
              "dense p50/p95 ms", "sparse p50/p95 ms", "hybrid (3 channels + RRF) p50/p95 ms",
              "hybrid p95 + encoders p95 ms"]
    enc = "; ".join(f"`{name}` p50 {p50:.1f} ms, p95 {p95:.1f} ms" for name, (p50, p95) in encoders.items())
    body = (
        f"Single-query encoding on this machine: {enc}. Index search times exclude encoding "
        "(synthetic hashing vectors); the last column adds both encoders' p95. Load average (1, 5, 15 min) "
        f"before the run: {load_before}; after: {load_average()} (this process counts for about 1).\n\n"
        + markdown_table(header, rows)
    )
    publish(SECTION, body, not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
