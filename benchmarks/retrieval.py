"""Retrieval quality and cost on every set in ../shared/benchmarks/data/retrieval/: each channel
alone and fused (R@1/5/10, MRR@10, nDCG@10, AllGold@5), index build time, query latency
p50/p95 and peak memory. Each set runs in its own process so its peak RSS is its own.

    .venv/bin/python benchmarks/retrieval.py [--sets hotpotqa100,musique100,ko_autorag_dev]
        [--dense-model e5-small] [--compare-dense use-multilingual] [--no-write]

Document vectors go through the index's own content-hash vector cache, kept under
benchmarks/.cache/vectors/ (npz shards), so only the first run pays for encoding (e5: minutes
per set on 2 shared cores; benchmarks/indexing.py measures cold builds). Build time is
therefore reported with vectors cached; query latency is measured with the real encoders.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CACHE_DIR, REPO_ROOT, markdown_table, write_results_section  # noqa: E402
from retrieval_metrics import METRICS, documents_in_order, mean_metrics, percentile_ms, query_metrics  # noqa: E402

from mithub.config import RetrievalConfig  # noqa: E402
from mithub.embedders import Embedder  # noqa: E402
from mithub.embedders.factory import build_embedder  # noqa: E402
from mithub.retrieval.build import with_vector_cache  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.jsonl import LineErrors, iter_json_lines  # noqa: E402
from mithub.retrieval import dense as dense_channel  # noqa: E402
from mithub.retrieval.index import HybridIndex  # noqa: E402
from mithub.retrieval.loaders import load_jsonl  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data" / "retrieval"
SETS = ("hotpotqa100", "musique100", "ko_autorag_dev")
DEPTH = 100  # chunks per channel; documents are cut to the top 10 after mapping
SECTION = "Retrieval: edge hybrid (dense {model} + BM25 + Tri-Graph, weighted RRF)"


def _queries(name: str) -> list[dict]:
    return [record for _, record in iter_json_lines(DATA / name / "queries.jsonl", LineErrors())]


def _doc_ranking(index: HybridIndex, rows: list[int]) -> list[str]:
    return documents_in_order(index.chunks[r].doc_id for r in rows)[:10]


def _variants(index: HybridIndex, query: str, compare: tuple | None, compare_vec) -> dict[str, list[str]]:  # noqa: ANN001
    """Document rankings of every reported variant for one query."""
    full = index.channel_rankings(query, depth=DEPTH)
    alone_tri = index.channel_rankings(query, channels=["trigraph"], depth=DEPTH)
    out = {
        "dense": _doc_ranking(index, full.get("dense", [])),
        "sparse": _doc_ranking(index, full.get("sparse", [])),
        "trigraph (query seeds only)": _doc_ranking(index, alone_tri.get("trigraph", [])),
        "trigraph (+ channel seeds)": _doc_ranking(index, full.get("trigraph", [])),
    }
    fused = index.fuse(query, full, top_k=DEPTH)
    out["fused (default)"] = documents_in_order(h.doc_id for h in fused)[:10]
    two = {k: v for k, v in full.items() if k != "trigraph"}
    out["fused dense+sparse"] = documents_in_order(h.doc_id for h in index.fuse(query, two, top_k=DEPTH))[:10]
    if compare is not None:
        model, compare_index = compare
        rows, _ = compare_index.search(compare_vec, DEPTH)
        out[f"dense [{model}]"] = _doc_ranking(index, rows.tolist())
    return out


def _cached(model: str, config: RetrievalConfig) -> Embedder:
    return with_vector_cache(build_embedder(model, config.build_threads), CACHE_DIR / "vectors", config.build_batch)


def run_set(name: str, dense_model: str, compare_model: str | None) -> dict:
    config = RetrievalConfig(embedding_model=dense_model)
    chunks = list(load_jsonl(DATA / name / "corpus.jsonl", config, LineErrors()))
    queries = _queries(name)
    embedder = _cached(dense_model, config)
    tri_embedder = _cached(config.trigraph_embedding_model, config)
    out_dir = CACHE_DIR / "index" / f"{name}-{dense_model}"
    started = time.perf_counter()
    HybridIndex.build(chunks, out_dir, config, embedder=embedder, tri_embedder=tri_embedder, progress=False)
    build_seconds = time.perf_counter() - started
    index = HybridIndex.load(out_dir, config, embedder=embedder, tri_embedder=tri_embedder)
    compare = compare_vectors = None
    if compare_model:
        other = _cached(compare_model, config)
        compare = (compare_model, dense_channel.DenseIndex.build(other.embed_documents([c.text for c in index.chunks])))
        compare_vectors = other.embed_queries([q["query"] for q in queries])
    per_variant: dict[str, list[dict[str, float]]] = {}
    for i, query in enumerate(queries):
        vec = compare_vectors[i] if compare_vectors is not None else None
        for variant, ranked in _variants(index, query["query"], compare, vec).items():
            per_variant.setdefault(variant, []).append(query_metrics(ranked, query["gold"]))
    latency = _latency(out_dir, config, queries)
    return {
        "set": name,
        "chunks": len(index.chunks),
        "documents": index.meta.documents,
        "queries": len(queries),
        "trigraph": index.trigraph.stats() if index.trigraph else {},
        "build_seconds": build_seconds,
        "metrics": {v: mean_metrics(rows) for v, rows in per_variant.items()},
        **latency,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _latency(out_dir: Path, config: RetrievalConfig, queries: list[dict]) -> dict[str, float]:
    """Fused top-4 search as the agent calls it: real encoders (no cache), loaded index."""
    index = HybridIndex.load(out_dir, config)
    index.search("warm up the encoders", top_k=config.top_k)
    seconds = []
    for query in queries:
        started = time.perf_counter()
        index.search(query["query"], top_k=config.top_k)
        seconds.append(time.perf_counter() - started)
    return {"latency_p50_ms": percentile_ms(seconds, 50), "latency_p95_ms": percentile_ms(seconds, 95)}


SINGLE = ("dense", "sparse", "trigraph (query seeds only)", "trigraph (+ channel seeds)")


def _verdict(metrics: dict[str, dict[str, float]]) -> str:
    """Fused against the best single channel, per metric that the targets name."""
    fused = metrics["fused (default)"]
    parts = []
    for metric in ("R@5", "AllGold@5"):
        best = max((v for v in SINGLE if v in metrics), key=lambda v: metrics[v][metric])
        sign = ">=" if fused[metric] >= metrics[best][metric] else "<"
        parts.append(f"fused {metric} {fused[metric]:.3f} {sign} best single channel {metrics[best][metric]:.3f} ({best})")
    return "; ".join(parts) + "."


def _report(results: list[dict], dense_model: str) -> str:
    parts = [
        f"Dense embedder: `{dense_model}`; Tri-Graph embedder: `{RetrievalConfig().trigraph_embedding_model}`. "
        "Chunks: sentence windows W=5, S=2 (title prepended); documents ranked at their best chunk. "
        "Build time with embeddings cached on disk (the first run also encodes); latency = one fused "
        "top-4 search including query encoding by the real encoders, single thread; peak RSS of the "
        "set's own process.",
    ]
    for result in results:
        rows = [[v] + [f"{result['metrics'][v][m]:.3f}" for m in METRICS] for v in result["metrics"]]
        stats = result["trigraph"]
        parts.append(
            f"### {result['set']}\n\n{result['documents']} documents -> {result['chunks']} chunks, "
            f"{result['queries']} queries; Tri-Graph {stats.get('sentences', 0)} sentences, "
            f"{stats.get('entities', 0)} entities. Build {result['build_seconds']:.1f} s; "
            f"query p50 {result['latency_p50_ms']:.1f} ms, p95 {result['latency_p95_ms']:.1f} ms; "
            f"peak RSS {result['peak_rss_mib']:.0f} MiB.\n\n" + markdown_table(["variant", *METRICS], rows)
            + "\n\n" + _verdict(result["metrics"])
        )
    return "\n\n".join(parts)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", default=",".join(SETS))
    parser.add_argument("--dense-model", default=RetrievalConfig().embedding_model)
    parser.add_argument("--compare-dense", default="use-multilingual", help="extra dense-only reference ('' = none)")
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    parser.add_argument("--note", default="", help="a sentence added under the section title")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--result-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    configure_logging(level="WARNING")
    if args.one:
        result = run_set(args.one, args.dense_model, args.compare_dense or None)
        args.result_file.write_text(json.dumps(result), encoding="utf-8")
        return 0
    results = []
    for name in args.sets.split(","):
        with tempfile.NamedTemporaryFile(suffix=".json") as handle:
            command = [sys.executable, __file__, "--one", name, "--dense-model", args.dense_model,
                       "--compare-dense", args.compare_dense, "--result-file", handle.name]
            subprocess.run(command, check=True)
            results.append(json.loads(Path(handle.name).read_text(encoding="utf-8")))
        print(f"{name}: done", file=sys.stderr)
    report = _report(results, args.dense_model)
    if args.note:
        report = f"{args.note}\n\n{report}"
    print(report)
    if not args.no_write:
        write_results_section(SECTION.format(model=args.dense_model), report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
