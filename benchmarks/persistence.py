"""Persistence benchmark: write-through cost per utterance and restore time, on PostgreSQL
and SQLite.

    .venv/bin/python benchmarks/persistence.py [--utterances 2000] [--postgres-url URL]

Write-through is measured two ways, both through the production stack (resilient wrapper,
fenced writer lease, one commit per utterance):
- repository alone: N utterances written back to back, nothing else running in the
  process; the cost of the database path itself;
- inside an ingest: a real ContextManager (LLM-free) replays a meeting of N utterances (the
  Korean sample, repeated) and every repository call is timed; `append_utterances` is what
  `add_utterance` pays before it returns, `save_l1_update` the transaction of an L1 change.
  Between writes the process embeds and tokenizes, so on a small machine the database
  server competes with that work for the cores.
Then fresh managers restore the meeting `--restores` times, with and without the store's
embedding cache (model loaded, its in-process cache cold, as in a worker that just started).

Without --postgres-url a throwaway PostgreSQL server is started from the system binaries
with fsync on (the production setting); SQLite runs with synchronous=FULL. Targets: p99
write-through <= 5 ms on PostgreSQL, restore <= 500 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import structlog

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR.parent / "tests" / "support"))  # the pg_ctl wrapper helpers

from common import markdown_table, write_results_section  # noqa: E402
from mithub.clock import ManualClock  # noqa: E402
from mithub.config import ContextConfig, DatabaseConfig  # noqa: E402
from mithub.context.factory import create_context_manager  # noqa: E402
from mithub.context.models import Utterance  # noqa: E402
from mithub.context.report import meeting_report  # noqa: E402
from mithub.context.transcript import DEFAULT_MEETING_START, read_transcript  # noqa: E402
from mithub.embedders import load_embedder  # noqa: E402
from mithub.embedders.base import CachedEmbedder  # noqa: E402
from mithub.jsonl import LineErrors  # noqa: E402
from mithub.store.session import attach_meeting  # noqa: E402

SAMPLE = BENCH_DIR.parent / "examples" / "meetings" / "ko_product_planning.jsonl"
TARGET_WRITE_P99_MS = 5.0
TARGET_RESTORE_MS = 500.0


class TimedRepository:
    """Times each call of the repository the manager writes through."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.timings: dict[str, list[float]] = {"append_utterances": [], "save_l1_update": []}

    def __getattr__(self, name: str) -> Any:
        target = getattr(self.inner, name)
        if name not in self.timings:
            return target

        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await target(*args, **kwargs)
            finally:
                self.timings[name].append((time.perf_counter() - started) * 1000)

        return timed


def meeting_lines(count: int) -> list[Any]:
    """The sample meeting repeated until `count` lines, later rounds shifted in time."""
    rows = read_transcript(SAMPLE, LineErrors(), meeting_start=DEFAULT_MEETING_START)
    lines = [u for _, u in rows]
    span = lines[-1].end_ms + 5000
    out = []
    for i in range(count):
        base, shift = lines[i % len(lines)], (i // len(lines)) * span
        out.append(
            base.model_copy(
                update={
                    "start_ms": base.start_ms + shift,
                    "end_ms": base.end_ms + shift,
                    "absolute_timestamp": base.absolute_timestamp + timedelta(milliseconds=shift),
                }
            )
        )
    return out


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


async def write_alone(url: str, lines: list[Any]) -> list[float]:
    """Back-to-back writes of the utterances, nothing else in the process."""
    timings = []
    async with attach_meeting(url, "bench-alone", config=DatabaseConfig()) as attached:
        for seq, line in enumerate(lines, start=1):
            utterance = Utterance(id=seq, **line.model_dump())
            started = time.perf_counter()
            await attached.repository.append_utterances("bench-alone", [utterance])
            timings.append((time.perf_counter() - started) * 1000)
    return timings


async def run_backend(
    name: str, url: str, lines: list[Any], embedder: Any, restores: int
) -> dict[str, Any]:
    alone = await write_alone(url, lines)
    context = ContextConfig()
    async with attach_meeting(url, "bench", config=DatabaseConfig()) as attached:
        timed = TimedRepository(attached.repository)
        clock = ManualClock(DEFAULT_MEETING_START)
        manager = create_context_manager(
            "bench",
            timed,
            config=context,
            clock=clock,
            embedder=await attached.meeting_embedder(embedder),
        )
        for line in lines:
            clock.set(line.absolute_timestamp)
            await manager.add_utterance(line)
        live = meeting_report(manager)
    restore_ms: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(restores):
        for cached in (True, False):
            config = DatabaseConfig(embedding_cache=cached)
            async with attach_meeting(url, "bench", config=config) as attached:
                started = time.perf_counter()
                fresh_embedder = await attached.meeting_embedder(CachedEmbedder(embedder.inner))
                fresh = create_context_manager(
                    "bench",
                    attached.repository,
                    config=context,
                    embedder=fresh_embedder,
                    clock=ManualClock(clock()),
                )
                await fresh.restore_from_db()
                restore_ms[cached].append((time.perf_counter() - started) * 1000)
                assert meeting_report(fresh) == live, "restored manager differs from the live one"
    return {
        "backend": name,
        "alone": alone,
        "ingest": timed.timings["append_utterances"],
        "l1": timed.timings["save_l1_update"],
        "restore": restore_ms[True],
        "restore_uncached": restore_ms[False],
    }


def ms(values: list[float], q: float | None = None) -> str:
    return f"{(max(values) if q is None else percentile(values, q)):.2f}"


def write_rows(result: dict[str, Any]) -> list[list[str]]:
    name = result["backend"]
    return [
        [
            name,
            "repository alone",
            str(len(result["alone"])),
            ms(result["alone"], 50),
            ms(result["alone"], 99),
            ms(result["alone"]),
        ],
        [
            name,
            "inside an ingest",
            str(len(result["ingest"])),
            ms(result["ingest"], 50),
            ms(result["ingest"], 99),
            ms(result["ingest"]),
        ],
        [
            name,
            "L1 update, inside an ingest",
            str(len(result["l1"])),
            ms(result["l1"], 50),
            ms(result["l1"], 99),
            ms(result["l1"]),
        ],
    ]


def restore_row(result: dict[str, Any]) -> list[str]:
    cached, uncached = result["restore"], result["restore_uncached"]
    return [
        result["backend"],
        f"{statistics.median(cached):.0f}",
        f"{max(cached):.0f}",
        f"{statistics.median(uncached):.0f}",
        f"{max(uncached):.0f}",
    ]


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(30))
    embedder = load_embedder(ContextConfig().embedding_model)
    lines = meeting_lines(args.utterances)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        stop: Callable[[], None] | None = None
        url = args.postgres_url
        if url is None:
            url, stop = start_throwaway_postgres()
        try:
            results.append(
                await run_backend("PostgreSQL 15 (fsync on)", url, lines, embedder, args.restores)
            )
        finally:
            if stop is not None:
                stop()
        sqlite_url = f"sqlite+aiosqlite:///{folder}/bench.db"
        results.append(
            await run_backend(
                "SQLite (WAL, synchronous=FULL)", sqlite_url, lines, embedder, args.restores
            )
        )
    return results


def start_throwaway_postgres() -> tuple[str, Callable[[], None]]:
    from mithub_databases import create_pg_database, start_postgres, stop_postgres

    executor = start_postgres("-c fsync=on -c synchronous_commit=on")
    _, url = create_pg_database(executor)
    return url, lambda: stop_postgres(executor)


def verdict(results: list[dict[str, Any]], utterances: int, load: tuple[float, ...]) -> str:
    pg = results[0]
    alone, ingest = percentile(pg["alone"], 99), percentile(pg["ingest"], 99)
    worst_restore = max(max(r["restore"]) for r in results)

    def met(value: float, target: float) -> str:
        return "met" if value <= target else "NOT met"

    return (
        f"Targets. PostgreSQL p99 write-through <= {TARGET_WRITE_P99_MS:.0f} ms: repository alone "
        f"{alone:.2f} ms ({met(alone, TARGET_WRITE_P99_MS)}), inside an ingest {ingest:.2f} ms "
        f"({met(ingest, TARGET_WRITE_P99_MS)}). Restore of {utterances} utterances <= "
        f"{TARGET_RESTORE_MS:.0f} ms: worst of both databases {worst_restore:.0f} ms "
        f"({met(worst_restore, TARGET_RESTORE_MS)}). Load average during the run: "
        f"{', '.join(f'{v:.1f}' for v in load)} (1, 5, 15 min)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=2000)
    parser.add_argument("--restores", type=int, default=5)
    parser.add_argument("--postgres-url", help="an existing server (default: start one)")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    results = asyncio.run(main_async(args))
    writes = markdown_table(
        ["database", "write", "count", "p50 ms", "p99 ms", "max ms"],
        [row for r in results for row in write_rows(r)],
    )
    restores = markdown_table(
        ["database", "restore median ms", "max ms", "without embedding cache: median ms", "max ms"],
        [restore_row(r) for r in results],
    )
    summary = verdict(results, args.utterances, os.getloadavg())
    body = f"{writes}\n\n{restores}\n\n{summary}\n"
    print(body)
    if not args.no_write:
        write_results_section("Persistence (write-through and restore)", body)


if __name__ == "__main__":
    main()
