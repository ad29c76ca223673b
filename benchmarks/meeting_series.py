"""Questions across a series of meetings (QMSum series): does the IMMEDIATE_RESPONSE context of
today's meeting hold the turns where the answer was discussed, in a past meeting or today?

Every meeting of a series is replayed in order through the live pipeline (ContextManager,
LLM-free) as its own meeting of the series with its date, and finalized; the series' last
meeting is "today's" and stays open. The organisation's memory then syncs from the store as
a worker's does, and each question is asked as IMMEDIATE_RESPONSE during today's meeting.
Reported for past-meeting and today's questions apart: hit (some gold turn of the gold
meeting in the context), span recall (share of its gold turns in the context), the context
share of today's transcript and build time, next to the baselines of the data's README.

The weights chosen here are chosen by cross-validation over series (tuned on the other
folds, scored on the fold held back): the past share of the evidence budget for questions
without a past cue (`MEMORY_PAST_SHARE`, fixed or raised by how much of the question was never
said today), and how the memory spends its share (the stretch's part of it,
`series.SPAN_SHARE`, and the weight of a turn's region, `series_index.REGION_WEIGHT`). A
variant is chosen by the mean of past and today's hit among those that keep past span recall
at 0.25 or more on the training folds.

    .venv/bin/python benchmarks/meeting_series.py [--series N] [--no-write] [--scale]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, NpyEmbeddingCache, markdown_table, write_results_section  # noqa: E402

from mithub.clock import ManualClock  # noqa: E402
from mithub.config import ContextConfig, MemoryConfig  # noqa: E402
from mithub.context.builder import ContextBuilder  # noqa: E402
from mithub.context.factory import create_context_manager  # noqa: E402
from mithub.context.models import NewUtterance  # noqa: E402
from mithub.embedders import CachedEmbedder, load_embedder  # noqa: E402
from mithub.memory import OrganisationMemory  # noqa: E402
from mithub.memory.series import SPAN_SHARE  # noqa: E402
from mithub.memory.series_index import REGION_WEIGHT  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.store.memory import InMemoryRepository  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data"
SHARES = (0.35, 0.5, 0.65)
# (past share, adaptive, stretch share, region weight): the builder's share at the memory's
# defaults, then the memory's two weights around their defaults at the default share.
DEFAULT = (MemoryConfig().past_share, True, SPAN_SHARE, REGION_WEIGHT)
VARIANTS = [DEFAULT, *((share, True, SPAN_SHARE, REGION_WEIGHT) for share in SHARES if share != DEFAULT[0]),
            (DEFAULT[0], False, SPAN_SHARE, REGION_WEIGHT),
            *((DEFAULT[0], True, round(SPAN_SHARE + step, 2), REGION_WEIGHT) for step in (-0.1, 0.1)),
            *((DEFAULT[0], True, SPAN_SHARE, round(REGION_WEIGHT + step, 2)) for step in (-0.2, 0.2))]
MIN_PAST_RECALL = 0.25
FOLDS = 5
BASELINES = [
    ("BM25 over today's meeting only, top 10 turns", "0", "-", "0.789", "0.067"),
    ("BM25 over every turn of the series, top 10", "0.554", "0.101", "0.578", "-"),
    ("BM25 over every turn of the series, top 20", "0.659", "0.132", "0.689", "-"),
]


def load_data(limit: int) -> tuple[list[dict], dict[str, dict], list[dict]]:
    root = DATA / "meeting_series"
    series = [json.loads(line) for line in (root / "qmsum_train_series.jsonl").open(encoding="utf-8")]
    if limit:
        series = series[:limit]
    meetings = {}
    for line in (DATA / "segmentation" / "qmsum_train.jsonl").open(encoding="utf-8"):
        meeting = json.loads(line)
        meetings[meeting["meeting_id"]] = meeting
    keep = {s["series_id"] for s in series}
    queries = [q for q in map(json.loads, (root / "qmsum_train_series_queries.jsonl").open(encoding="utf-8"))
               if q["series_id"] in keep]
    return series, meetings, queries


async def replay_meeting(repo: InMemoryRepository, meeting: dict, info: dict, series_id: str,
                         embedder, config: ContextConfig):  # noqa: ANN001
    """One meeting through the ContextManager as the worker feeds it; returns the manager and
    the turn index of each stored seq."""
    started = datetime.fromisoformat(info["started_at"])
    await repo.ensure_meeting(info["meeting_id"], title=info["title"], series_id=series_id,
                              started_at=started)
    clock = ManualClock(started)
    manager = create_context_manager(info["meeting_id"], repo, config=config, embedder=embedder, clock=clock)
    turn_of_seq: dict[int, int] = {}
    for index, turn in enumerate(meeting["turns"]):
        if not turn["text"].strip():
            continue
        clock.set(started + timedelta(seconds=4 * index))
        stored = await manager.add_utterance(NewUtterance(
            speaker_id=turn["speaker"], speaker_name=turn["speaker"], text=turn["text"],
            start_ms=index * 4000, end_ms=index * 4000 + 3500,
            absolute_timestamp=started + timedelta(seconds=4 * index)))
        turn_of_seq.update({u.id: index for u in stored})
    await manager.finalize()
    return manager, turn_of_seq


def score(ctx, q: dict, today_id: str, turn_maps: dict[str, dict[int, int]], today_tokens: int) -> dict:  # noqa: ANN001
    shown: dict[str, set[int]] = {today_id: set()}
    for u in [*(ctx.recent_utterances or []), *(u for e in ctx.transcript_excerpts for u in e.utterances)]:
        shown[today_id].add(turn_maps[today_id][u.id])
    for e in ctx.past_excerpts:
        shown.setdefault(e.meeting.meeting_id, set()).update(turn_maps[e.meeting.meeting_id][u.id]
                                                             for u in e.utterances)
    gold = {i for a, b in q["gold_spans"] for i in range(a, b + 1)}
    included = shown.get(q["gold_meeting"], set())
    return {"past": q["past"], "hit": bool(gold & included), "recall": len(gold & included) / len(gold),
            "share": ctx.token_count / max(today_tokens, 1), "series": q["series_id"]}


async def evaluate(series: list[dict], meetings: dict, queries: list[dict], embedder,  # noqa: ANN001
                   config: ContextConfig) -> tuple[dict[tuple, list[dict]], dict[tuple, list[float]]]:
    """Rows per question for every variant, from one replay of each series and one memory
    (the share is the builder's, the stretch share and region weight the memory's)."""
    rows: dict[tuple, list[dict]] = {v: [] for v in VARIANTS}
    build_ms: dict[tuple, list[float]] = {v: [] for v in VARIANTS}
    for entry in tqdm(series, desc="series", file=sys.stderr):
        sid = entry["series_id"]
        repo = InMemoryRepository()
        turn_maps: dict[str, dict[int, int]] = {}
        manager = None
        for i, info in enumerate(entry["meetings"]):
            manager, turn_maps[info["meeting_id"]] = await replay_meeting(
                repo, meetings[info["meeting_id"]], info, sid, embedder, config)
            if i < len(entry["meetings"]) - 1:
                last = (await repo.get_last_utterances(info["meeting_id"], 1))[0]
                await repo.end_meeting(info["meeting_id"], at=last.absolute_timestamp)
        today_id = entry["meetings"][-1]["meeting_id"]
        memory = OrganisationMemory(repo, embedder, config=MemoryConfig(cache_dir=""),
                                    count_text=_budget().count, turn_max_tokens=config.excerpt_turn_max_tokens,
                                    progress=False)
        await memory.sync(force=True)
        transcript = None
        for variant in VARIANTS:
            share, adaptive, span_share, region_weight = variant
            for series_memory in memory.series.values():
                series_memory.span_share, series_memory.region_weight = span_share, region_weight
            builder = ContextBuilder(config=config, embedder=embedder, budget=_budget(), past=memory,
                                     past_share=share, past_cue_share=MemoryConfig().past_cue_share,
                                     adaptive_past_share=adaptive)
            if transcript is None:
                transcript = builder.new_transcript_index()
                transcript.add(await repo.get_utterances(today_id))
            for q in (q for q in queries if q["series_id"] == sid):
                t0 = time.perf_counter()
                ctx = builder.build_context("IMMEDIATE_RESPONSE", manager, q["query"], transcript=transcript,
                                            series_id=sid)
                build_ms[variant].append((time.perf_counter() - t0) * 1000)
                rows[variant].append(score(ctx, q, today_id, turn_maps, transcript.total_tokens))
    return rows, build_ms


_BUDGET = None


def _budget():  # noqa: ANN202
    global _BUDGET
    if _BUDGET is None:
        from mithub.budget import TokenBudgetManager

        _BUDGET = TokenBudgetManager()
    return _BUDGET


def objective(rows: list[dict]) -> tuple[bool, float]:
    """Past and today's questions weigh alike: the mean of their hit rates, among variants
    that keep past span recall at MIN_PAST_RECALL (a hit alone is one turn of the answer)."""
    past = [r["hit"] for r in rows if r["past"]]
    today = [r["hit"] for r in rows if not r["past"]]
    recall = np.mean([r["recall"] for r in rows if r["past"]]) if past else 1.0
    return recall >= MIN_PAST_RECALL, (np.mean(past) if past else 0.0) / 2 + (np.mean(today) if today else 0.0) / 2


def cross_validate(rows: dict[tuple, list[dict]], series_ids: list[str]) -> tuple[list[dict], list[tuple]]:
    """Per fold of series: the variant that scores best on the other folds, and its rows on
    this fold. Returns the held-out rows of every fold and (fold, chosen variant, figures)."""
    folds = [series_ids[i::FOLDS] for i in range(FOLDS)]
    held_out: list[dict] = []
    report = []
    for k, fold in enumerate(folds):
        if not fold:
            continue
        train = {v: [r for r in rows[v] if r["series"] not in fold] for v in VARIANTS}
        chosen = max(VARIANTS, key=lambda v: objective(train[v]))
        test = [r for r in rows[chosen] if r["series"] in fold]
        held_out += test
        report.append((k + 1, _name(chosen), summarise(test)))
    return held_out, report


def _name(variant: tuple) -> str:
    share, adaptive, span_share, region_weight = variant
    return f"share {share}" + (" adaptive" if adaptive else " fixed") + \
        f", stretch {span_share}, region {region_weight}"


def summarise(rows: list[dict]) -> dict:
    past = [r for r in rows if r["past"]]
    today = [r for r in rows if not r["past"]]
    mean = lambda xs, key: float(np.mean([x[key] for x in xs])) if xs else float("nan")  # noqa: E731
    return {"past_hit": mean(past, "hit"), "past_recall": mean(past, "recall"),
            "today_hit": mean(today, "hit"), "today_recall": mean(today, "recall"),
            "share": mean(rows, "share"), "past_n": len(past), "today_n": len(today)}


def _fmt(s: dict) -> list[str]:
    return [f"{s['past_hit']:.3f}", f"{s['past_recall']:.3f}", f"{s['today_hit']:.3f}",
            f"{s['today_recall']:.3f}", f"{100 * s['share']:.1f}%"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=0, help="only the first N series (0 = all)")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    series, meetings, queries = load_data(args.series)
    disk = NpyEmbeddingCache(load_embedder("use-multilingual").inner)
    embedder = CachedEmbedder(disk, max_entries=300_000)
    config = ContextConfig()
    try:
        rows, build_ms = asyncio.run(evaluate(series, meetings, queries, embedder, config))
    finally:
        disk.save()
    default = DEFAULT
    held_out, folds = cross_validate(rows, [s["series_id"] for s in series])
    table = [[f"MitHub, default ({_name(default)})", *_fmt(summarise(rows[default]))],
             ["MitHub, variant chosen per fold (held-out folds pooled)", *_fmt(summarise(held_out))]]
    table += [[f"  {_name(v)}", *_fmt(summarise(rows[v]))] for v in VARIANTS if v != default]
    table += [[name, past_hit, past_recall, today_hit, today_recall, "-"]
              for name, past_hit, past_recall, today_hit, today_recall in BASELINES]
    fold_table = [[k, share, *_fmt(s)] for k, share, s in folds]
    counts = summarise(rows[default])
    spread = [s["past_hit"] for _, _, s in folds], [s["today_hit"] for _, _, s in folds]
    body = (
        f"{len(series)} series, {counts['past_n']} past-meeting and {counts['today_n']} today's questions, "
        "each asked as IMMEDIATE_RESPONSE during the series' last meeting. Target: past hit >= 0.80 "
        "and span recall >= 0.25; today's hit >= 0.90; build p95 <= 50 ms.\n\n"
        + markdown_table(["context", "past hit", "past span recall", "today hit", "today span recall",
                          "share of today's transcript"], table)
        + f"\n\nCross-validation over series ({FOLDS} folds): the variant chosen on the other folds, "
        "scored on the held-back fold (share: the builder's past share; stretch: the memory's "
        "stretch share; region: the region weight):\n\n"
        + markdown_table(["fold", "chosen variant", "past hit", "past recall", "today hit", "today recall",
                          "share"], fold_table)
        + f"\n\nSpread across folds: past hit {min(spread[0]):.3f}–{max(spread[0]):.3f}, "
        f"today's hit {min(spread[1]):.3f}–{max(spread[1]):.3f}."
        + f"\n\nContext build time per question (default, memory synced): p50 "
        f"{np.percentile(build_ms[default], 50):.1f} ms, p95 {np.percentile(build_ms[default], 95):.1f} ms.\n"
    )
    print(body)
    if not args.no_write:
        write_results_section("Meetings in series (benchmarks/meeting_series.py)", body)


if __name__ == "__main__":
    main()
