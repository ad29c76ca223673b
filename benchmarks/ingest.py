"""Ingest throughput: utterances per second through ContextManager.add_utterance in LLM-free
mode (embedding, topic detection and extractive summaries included), p50/p99 latency, and
resident memory as the meeting grows (it should stay flat once the buffers are full).

    .venv/bin/python benchmarks/ingest.py [--utterances 10000] [--cpus 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import sys
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, markdown_table, write_results_section  # noqa: E402

from mithub.clock import ManualClock  # noqa: E402
from mithub.context.factory import create_context_manager  # noqa: E402
from mithub.context.models import NewUtterance  # noqa: E402
from mithub.context.transcript import DEFAULT_MEETING_START  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.store.memory import InMemoryRepository  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data" / "segmentation" / "qmsum_train.jsonl"


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _turns(limit: int) -> list[tuple[str, str]]:
    """Real meeting turns (QMSum: AMI, ICSI, committee meetings) in order, as (speaker, text)."""
    turns: list[tuple[str, str]] = []
    with DATA.open(encoding="utf-8") as handle:
        for line in handle:
            for turn in json.loads(line)["turns"]:
                if turn["text"].strip():
                    turns.append((turn["speaker"], turn["text"]))
                if len(turns) == limit:
                    return turns
    return turns


async def _run(count: int) -> dict[str, object]:
    turns = _turns(count)
    clock = ManualClock(DEFAULT_MEETING_START)
    manager = create_context_manager("bench-ingest", InMemoryRepository(), clock=clock)
    latencies: list[float] = []
    memory: list[tuple[int, float]] = []
    started = time.perf_counter()
    for i, (speaker, text) in enumerate(turns):
        clock.advance(seconds=4)
        utterance = NewUtterance(speaker_id=speaker, speaker_name=speaker, text=text,
                                 start_ms=i * 4000, end_ms=i * 4000 + 3500,
                                 absolute_timestamp=DEFAULT_MEETING_START + timedelta(seconds=4 * i))
        t0 = time.perf_counter()
        await manager.add_utterance(utterance)
        latencies.append(time.perf_counter() - t0)
        if (i + 1) in (500, 1000, 2000, 5000, count):
            memory.append((i + 1, _rss_mib()))
    elapsed = time.perf_counter() - started
    latencies.sort()
    return {
        "count": len(turns),
        "rate": len(turns) / elapsed,
        "p50_ms": latencies[len(latencies) // 2] * 1000,
        "p99_ms": latencies[int(len(latencies) * 0.99)] * 1000,
        "max_ms": latencies[-1] * 1000,
        "memory": memory,
        "segments": len(manager.get_l1_segments()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=10_000)
    parser.add_argument("--cpus", type=int, default=1, help="CPUs the process may use (affinity)")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, set(sorted(os.sched_getaffinity(0))[: args.cpus]))
    result = asyncio.run(_run(args.utterances))
    rows = [[result["count"], f"{result['rate']:.1f}", f"{result['p50_ms']:.2f}",
             f"{result['p99_ms']:.2f}", f"{result['max_ms']:.1f}", result["segments"]]]
    table = markdown_table(
        ["utterances", "utterances/s", "p50 ms", "p99 ms", "max ms", "L1 segments"], rows)
    memory = markdown_table(["after utterances", "RSS MiB"],
                            [[n, f"{mib:.0f}"] for n, mib in result["memory"]])
    body = (
        f"LLM-free mode on {args.cpus} CPU (affinity), real QMSum meeting turns, embedding "
        "(multilingual USE), topic detection and extractive summaries included. Target: "
        ">= 50 utterances/s; memory flat once the buffers are full.\n\n"
        f"{table}\n\nResident memory as the meeting grows:\n\n{memory}\n"
    )
    print(body)
    write_results_section("Ingest throughput (benchmarks/ingest.py)", body)


if __name__ == "__main__":
    main()
