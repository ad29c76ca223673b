"""`mithub search "query" --index DIR`: fused hybrid search, one query or a batch file.

Batch mode reads `{"id", "query"}` lines and writes `{"id", "ranked": [ids]}` lines; with
`--docs` chunk ids map back to their document id, each document at its best rank."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mithub.errors import InputError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("search", help="search a retrieval index")
    parser.add_argument("query", nargs="?", help="the question (omit with --queries)")
    parser.add_argument("--index", required=True, type=Path, help="index directory")
    parser.add_argument("--top-k", type=int, default=None, help="hits to return (default 4)")
    parser.add_argument("--channels", default="dense,sparse,trigraph", help="comma-separated channels")
    parser.add_argument("--queries", type=Path, help='JSONL of {"id", "query"} for batch mode')
    parser.add_argument("--docs", action="store_true", help="rank document ids instead of chunk ids")
    parser.add_argument("--json", action="store_true", help="JSON output")
    parser.set_defaults(handler=_search)


def _channels(text: str) -> list[str]:
    from mithub.retrieval.models import CHANNELS

    names = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in names if c not in CHANNELS]
    if unknown or not names:
        raise InputError(f"unknown channel(s) {', '.join(unknown) or '(none)'}; use {', '.join(CHANNELS)}")
    return names


def ranked_ids(hits: list, docs: bool) -> list[str]:  # noqa: ANN001 - list[Hit]
    """Chunk ids, or document ids in order of each document's best chunk."""
    if not docs:
        return [h.chunk_id for h in hits]
    return list(dict.fromkeys(h.doc_id for h in hits))


def _search(args: argparse.Namespace) -> int:
    from mithub.config import get_retrieval_config
    from mithub.retrieval.index import HybridIndex

    if (args.query is None) == (args.queries is None):
        raise InputError("give either a query or --queries FILE")
    channels = _channels(args.channels)
    index = HybridIndex.load(args.index)
    top_k = args.top_k or get_retrieval_config().top_k
    if args.queries is not None:
        return _batch(index, args.queries, top_k, channels, args.docs)
    # Document ranking needs more chunks than documents asked for (several chunks per document).
    hits = index.search(args.query, top_k * 4 if args.docs else top_k, channels)
    if args.docs:
        best = {}
        for hit in hits:
            best.setdefault(hit.doc_id, hit)
        hits = list(best.values())[:top_k]
    if args.json:
        print(json.dumps([h.model_dump(mode="json") for h in hits], ensure_ascii=False, indent=2))
        return 0
    for number, hit in enumerate(hits, start=1):
        ranks = ", ".join(f"{c} #{r + 1}" for c, r in hit.channel_ranks.items())
        print(f"{number}. [{hit.chunk_id}] {hit.source.label()}  (score {hit.score:.4f}; {ranks})")
        print("   " + " ".join(hit.text.split())[:300])
    return 0


def _batch(index, path: Path, top_k: int, channels: list[str], docs: bool) -> int:  # noqa: ANN001
    from mithub.jsonl import LineErrors, iter_json_lines

    errors = LineErrors(report=lambda error: print(f"skipped: {error}", file=sys.stderr))
    for number, record in iter_json_lines(path, errors):
        if not isinstance(record.get("query"), str) or "id" not in record:
            errors.add(InputError('needs "id" and "query"; line skipped', source=path, line=number))
            continue
        hits = index.search(record["query"], top_k * 4 if docs else top_k, channels)
        ranked = ranked_ids(hits, docs)[:top_k]
        print(json.dumps({"id": record["id"], "ranked": ranked}, ensure_ascii=False), flush=True)
    return 0
