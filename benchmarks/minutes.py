"""Minutes benchmark: composing the minutes of a 2,000-utterance meeting, LLM-free, from an
SQLite store (issue 20: <= 1 s).

    .venv/bin/python benchmarks/minutes.py [--utterances 2000] [--runs 20] [--store PATH] [--write]

The meeting is made the way a real one is: the first demo meeting is replayed into a series,
then a long follow-up (the second demo meeting's lines repeated, times shifted, until it has
`--utterances` lines) is replayed after it with `mithub replay`, which runs the whole
pipeline (topics and summaries, the live change check against the first meeting, the record
at the end, the minutes). Then `compose_minutes` runs `--runs` times on that store, as
`mithub minutes` and the API do for a meeting without stored minutes, and the stored minutes
are read back and rendered. `--store PATH` keeps the SQLite file, so a rerun only times.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH_DIR))

from common import REPO_ROOT, load_average, markdown_table, publish  # noqa: E402
from mithub.cli import main as mithub  # noqa: E402
from mithub.minutes.compose import compose_minutes  # noqa: E402
from mithub.minutes.render import to_chat, to_markdown  # noqa: E402
from mithub.store.open import open_database  # noqa: E402
from mithub.store.sql import SqlRepository  # noqa: E402

EXAMPLES = REPO_ROOT / "examples" / "meetings"
TITLE = "Minutes composition (issue 20)"
TARGET_SECONDS = 1.0
MEETING = "bench-long"


def long_transcript(lines: int, path: Path) -> Path:
    """The second demo meeting's lines, repeated one after another until there are `lines`."""
    source = [json.loads(line) for line in (EXAMPLES / "ko_product_planning_2.jsonl").read_text(encoding="utf-8").splitlines()
              if line.strip()]
    span = source[-1]["end_ms"] + 5000
    with path.open("w", encoding="utf-8") as out:
        for i in range(lines):
            turn = dict(source[i % len(source)])
            shift = (i // len(source)) * span
            turn["start_ms"] += shift
            turn["end_ms"] += shift
            out.write(json.dumps(turn, ensure_ascii=False) + "\n")
    return path


def build(url: str, lines: int, work: Path) -> float:
    started = time.perf_counter()
    for args in (
        [str(EXAMPLES / "ko_product_planning.jsonl"), "--meeting-id", "bench-1", "--started-at", "2026-05-04T10:00:00+09:00"],
        [str(long_transcript(lines, work / "long.jsonl")), "--meeting-id", MEETING,
         "--started-at", "2026-05-11T10:00:00+09:00"],
    ):
        code = mithub(["replay", *args, "--series", "bench", "--database-url", url, "--no-progress", "--json"])
        if code != 0:
            raise SystemExit(f"replay failed ({code})")
    return time.perf_counter() - started


async def measure(url: str, runs: int) -> dict:
    database = await open_database(url)
    store = SqlRepository(database)
    try:
        count = await store.count_utterances(MEETING)
        await compose_minutes(store, MEETING)  # warm: imports, the first connection
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            minutes = await compose_minutes(store, MEETING)
            times.append(time.perf_counter() - started)
        started = time.perf_counter()
        stored = await store.get_minutes(MEETING)
        read = time.perf_counter() - started
        started = time.perf_counter()
        markdown = to_markdown(stored or minutes)
        chat = to_chat(stored or minutes, limit_chars=2000, page_url="https://mithub.example.com/ui/meetings/x")
        render = time.perf_counter() - started
    finally:
        await database.dispose()
    return {"utterances": count, "times": sorted(times), "read": read, "render": render, "minutes": minutes,
            "markdown_chars": len(markdown), "chat_chars": len(chat), "stored": stored is not None}


def report(result: dict, build_seconds: float | None) -> str:
    times = result["times"]
    p95 = times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]
    m = result["minutes"]
    rows = [(result["utterances"], len(times), f"{statistics.median(times) * 1000:.0f}", f"{p95 * 1000:.0f}",
             f"{times[-1] * 1000:.0f}", f"{result['read'] * 1000:.1f}", f"{result['render'] * 1000:.1f}",
             "yes" if times[-1] <= TARGET_SECONDS else "NO", load_average())]
    table = markdown_table(("utterances", "runs", "compose median ms", "p95 ms", "max ms", "read stored ms",
                            "render md+chat ms", f"max <= {TARGET_SECONDS:.0f} s", "load avg"), rows)
    built = f" Building the store (two replays through the whole pipeline) took {build_seconds:.0f} s." \
        if build_seconds is not None else " The store was built by an earlier run (--store)."
    return (f"{table}\n\nThe composed minutes: {len(m.topics)} topics, {len(m.decisions)} decisions "
            f"({len(m.changes())} changes to the first meeting's), {len(m.action_items)} action items, "
            f"{len(m.open_questions)} open questions, {len(m.participants)} participants; Markdown "
            f"{result['markdown_chars']} characters, chat {result['chat_chars']}. LLM-free, SQLite, one process; "
            f"compose reads the meeting, its segments, the series' records and changes, and builds the model."
            f"{built}")


def run() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--utterances", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--store", type=Path, default=None, help="SQLite file to build (or reuse, if it exists)")
    ap.add_argument("--write", action="store_true", help="write the results into RESULTS.md")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="mithub-minutes-") as tmp:
        path = args.store or Path(tmp) / "mithub.db"
        url = f"sqlite+aiosqlite:///{path}"
        build_seconds = None if path.exists() else build(url, args.utterances, Path(tmp))
        result = asyncio.run(measure(url, args.runs))
    publish(TITLE, report(result, build_seconds), args.write)
    return 0 if result["times"][-1] <= TARGET_SECONDS else 1


if __name__ == "__main__":
    sys.exit(run())
