"""`mithub index build --input PATH --out DIR`: one-time, LLM-free indexing of a JSONL corpus
or a Markdown folder into the dense, sparse and Tri-Graph channels."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("index", help="build a retrieval index")
    actions = parser.add_subparsers(dest="index_command", metavar="ACTION", required=True)
    build = actions.add_parser("build", help="index a JSONL corpus file or a Markdown folder")
    build.add_argument("--input", required=True, type=Path, help="corpus.jsonl or a folder of .md files")
    build.add_argument("--out", required=True, type=Path, help="index directory (created)")
    build.add_argument("--no-progress", action="store_true", help="no progress bars")
    build.set_defaults(handler=_build)


def _build(args: argparse.Namespace) -> int:
    from mithub.config import get_retrieval_config
    from mithub.jsonl import LineErrors
    from mithub.retrieval.index import HybridIndex
    from mithub.retrieval.loaders import load_corpus

    config = get_retrieval_config()
    errors = LineErrors(report=lambda error: print(f"skipped: {error}", file=sys.stderr))
    started = time.perf_counter()
    chunks = list(load_corpus(args.input, config, errors))
    index = HybridIndex.build(chunks, args.out, config, progress=not args.no_progress)
    stats = index.trigraph.stats() if index.trigraph is not None else {}
    print(
        f"indexed {index.meta.documents} documents as {index.meta.chunks} chunks "
        f"({stats.get('sentences', 0)} sentences, {stats.get('entities', 0)} entities) "
        f"in {time.perf_counter() - started:.1f} s -> {args.out}; {len(errors)} input lines skipped"
    )
    return 0
