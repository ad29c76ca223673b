"""Questions about an ongoing meeting (QMSum): does the IMMEDIATE_RESPONSE context contain the
turns where the answer was discussed?

Each meeting is replayed through the live pipeline (ContextManager, LLM-free), then each of its
questions is asked as IMMEDIATE_RESPONSE at the end of the meeting. Reported: hit (some gold
turn in the context), span recall (share of gold turns in the context, whole or condensed),
text recall (share of the gold turns' characters in the context) and context share (context
tokens / transcript tokens), next to the same context quoting whole turns and the baselines
measured on the same data.

    .venv/bin/python benchmarks/meeting_qa.py [--meetings N] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, NpyEmbeddingCache, markdown_table, write_results_section  # noqa: E402

from mithub.clock import ManualClock  # noqa: E402
from mithub.config import ContextConfig  # noqa: E402
from mithub.context.builder import ContextBuilder  # noqa: E402
from mithub.context.factory import create_context_manager  # noqa: E402
from mithub.context.models import NewUtterance  # noqa: E402
from mithub.context.transcript import DEFAULT_MEETING_START  # noqa: E402
from mithub.embedders import CachedEmbedder, load_embedder  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.store.memory import InMemoryRepository  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data"
BASELINES = [
    ("last 10 turns (an L0 window)", "0.045", "0.009", "-"),
    ("BM25 over single turns, top 10", "0.805", "0.142", "7.6%"),
    ("BM25 over 10-turn windows, top 2", "0.642", "0.300", "9.2%"),
]


async def _replay(meeting: dict, embedder, config: ContextConfig):
    repo = InMemoryRepository()
    clock = ManualClock(DEFAULT_MEETING_START)
    manager = create_context_manager(meeting["meeting_id"], repo, config=config, embedder=embedder,
                                     clock=clock)
    turn_of_seq: dict[int, int] = {}
    for index, turn in enumerate(meeting["turns"]):
        if not turn["text"].strip():
            continue
        clock.advance(seconds=4)
        stored = await manager.add_utterance(NewUtterance(
            speaker_id=turn["speaker"], speaker_name=turn["speaker"], text=turn["text"],
            start_ms=index * 4000, end_ms=index * 4000 + 3500,
            absolute_timestamp=DEFAULT_MEETING_START + timedelta(seconds=4 * index)))
        turn_of_seq.update({u.id: index for u in stored})
    return manager, repo, turn_of_seq


async def _evaluate(meetings: dict, questions: list[dict], embedder, config: ContextConfig):
    """Rows per question for the default builder, and for the same builder quoting whole turns
    (condensing off), from one replay of each meeting."""
    builders = {
        "default": ContextBuilder(config=config, embedder=embedder),
        "whole": ContextBuilder(config=config.model_copy(update={"excerpt_turn_max_tokens": 0}),
                                embedder=embedder),
    }
    by_meeting: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        by_meeting[q["meeting_id"]].append(q)
    rows: dict[str, list[dict]] = {name: [] for name in builders}
    build_ms = []
    for meeting_id in tqdm(list(by_meeting), desc="meetings", file=sys.stderr):
        meeting = meetings[meeting_id]
        manager, repo, turn_of_seq = await _replay(meeting, embedder, config)
        stored = await repo.get_utterances(meeting_id)
        for name, builder in builders.items():
            index = builder.new_transcript_index()
            index.add(stored)
            for q in by_meeting[meeting_id]:
                t0 = time.perf_counter()
                ctx = builder.build_context("IMMEDIATE_RESPONSE", manager, q["query"], transcript=index)
                if name == "default":
                    build_ms.append((time.perf_counter() - t0) * 1000)
                rows[name].append(_score(ctx, q, meeting, index, turn_of_seq, where=name == "default"))
    return rows, build_ms


def _score(ctx, q: dict, meeting: dict, index, turn_of_seq: dict[int, int], *, where: bool) -> dict:
    """Hit, recall and share of one context; with `where`, also where the relevance points
    (the same for both builders, so measured once)."""
    shown = {u.id: len(u.text) for u in ctx.recent_utterances or []}
    shown |= {u.id: len(u.text) for e in ctx.transcript_excerpts for u in e.utterances}
    included = {turn_of_seq[s] for s in shown}
    gold = {i for a, b in q["gold_spans"] for i in range(a, b + 1)}
    gold_chars = sum(len(meeting["turns"][i]["text"].strip()) for i in gold)
    shown_chars = sum(n for s, n in shown.items() if turn_of_seq[s] in gold)
    row = {
        "domain": meeting["domain"],
        "hit": bool(gold & included),
        "recall": len(gold & included) / len(gold),
        "text_recall": min(shown_chars / max(gold_chars, 1), 1.0),
        "share": ctx.token_count / max(index.total_tokens, 1),
    }
    if where:
        relevance, seqs = _relevance_before(index, q["query"], min(u.id for u in ctx.recent_utterances))
        peaks = [turn_of_seq[seqs[p]] for p in _peaks(relevance)]
        gold_rows = [i for i, seq in enumerate(seqs) if turn_of_seq[seq] in gold]
        row |= {
            "located": bool(set(peaks[:1]) & gold),
            "located5": bool(set(peaks) & gold),
            "gold_rank": int((relevance > relevance[gold_rows].max()).sum()) if gold_rows else 10**6,
        }
    return row


def _relevance_before(index, query: str, before: int) -> tuple[np.ndarray, list[int]]:
    """Turn relevance for `query` over the turns before seq `before`, and their seqs."""
    seqs = index.seqs[: int(np.searchsorted(index.seqs, before))]
    return index.relevance(query)[: len(seqs)], seqs


def _peaks(relevance: np.ndarray, count: int = 5, apart: int = 20) -> list[int]:
    """Positions of the `count` best regions (relevance smoothed over ±5 turns, peaks at least
    `apart` turns apart): where the relevance signal points, a diagnostic of how well any
    selection built on it can do."""
    if not relevance.size:
        return []
    kernel = np.hanning(13)[1:-1]
    smooth = np.convolve(relevance, kernel / kernel.sum(), mode="full")[5 : 5 + relevance.size]
    peaks: list[int] = []
    for i in np.argsort(-smooth, kind="stable"):
        if all(abs(int(i) - p) >= apart for p in peaks):
            peaks.append(int(i))
        if len(peaks) == count:
            break
    return peaks


def _summarise(rows: list[dict]) -> list[str]:
    return [f"{np.mean([r['hit'] for r in rows]):.3f}", f"{np.mean([r['recall'] for r in rows]):.3f}",
            f"{np.mean([r['text_recall'] for r in rows]):.3f}",
            f"{100 * np.mean([r['share'] for r in rows]):.1f}%", str(len(rows))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--meetings", type=int, default=0, help="only the first N meetings (0 = all)")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    meetings = {}
    with (DATA / "segmentation" / "qmsum_train.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            meeting = json.loads(line)
            meetings[meeting["meeting_id"]] = meeting
    with (DATA / "meeting_qa" / "qmsum_train_queries.jsonl").open(encoding="utf-8") as handle:
        questions = [json.loads(line) for line in handle]
    if args.meetings:
        keep = set(list(dict.fromkeys(q["meeting_id"] for q in questions))[: args.meetings])
        questions = [q for q in questions if q["meeting_id"] in keep]
    disk = NpyEmbeddingCache(load_embedder("use-multilingual").inner)
    embedder = CachedEmbedder(disk, max_entries=200_000)
    config = ContextConfig()
    try:
        by_builder, build_ms = asyncio.run(_evaluate(meetings, questions, embedder, config))
    finally:
        disk.save()
    rows = by_builder["default"]
    table_rows = [["MitHub IMMEDIATE_RESPONSE context (all)", *_summarise(rows)]]
    for domain in sorted({r["domain"] for r in rows}):
        table_rows.append([f"  {domain}", *_summarise([r for r in rows if r["domain"] == domain])])
    table_rows.append(["same, whole turns quoted (`CONTEXT_EXCERPT_TURN_MAX_TOKENS=0`)",
                       *_summarise(by_builder["whole"])])
    table_rows += [[name, hit, recall, "-", share, "1095"] for name, hit, recall, share in BASELINES]
    body = (
        "Each meeting replayed through the ContextManager (LLM-free), each question asked as "
        "IMMEDIATE_RESPONSE at the end. Target: hit >= 0.90 and span recall >= 0.40 with "
        "context share <= 10%.\n\n"
        + markdown_table(["context", "hit", "span recall", "text recall", "context share", "questions"],
                         table_rows)
        + "\n\nLong turns in excerpts are condensed to their sentences that match the query "
        f"(`CONTEXT_EXCERPT_TURN_MAX_TOKENS`, {config.excerpt_turn_max_tokens} tokens): span recall "
        "counts a gold turn shown in part, text recall the share of the gold turns' characters shown."
        + "\n\nWhere the relevance signal points (turn relevance smoothed over ±5 turns): the "
        f"best region lies inside a gold span for {np.mean([r['located'] for r in rows]):.1%} of "
        f"the questions, one of the best five regions for {np.mean([r['located5'] for r in rows]):.1%}. "
        "Span recall is bounded by the first figure times the share of a gold span one budget can "
        "hold. The best gold turn is among the 10 most relevant turns for "
        f"{np.mean([r['gold_rank'] < 10 for r in rows]):.1%} of the questions, among the 20 most "
        f"relevant for {np.mean([r['gold_rank'] < 20 for r in rows]):.1%}: hit needs that many "
        "separate places in the context."
        + f"\n\nContext build time per question: p50 {np.percentile(build_ms, 50):.1f} ms, "
        f"p95 {np.percentile(build_ms, 95):.1f} ms (excluding the replay).\n"
    )
    print(body)
    if not args.no_write:
        write_results_section("Meeting QA context (benchmarks/meeting_qa.py)", body)


if __name__ == "__main__":
    main()
