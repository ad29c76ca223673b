"""Agent call contexts: build time per call type on a 3-hour meeting (2,000 real meeting turns,
LLM excluded), context size against the whole transcript, and whether the facts planted in
the sample meetings (decisions, numbers, owners, due dates) reach the contexts that need them.

    .venv/bin/python benchmarks/agent_calls.py [--utterances 2000] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, NpyEmbeddingCache, markdown_table, write_results_section  # noqa: E402

from mithub.clock import ManualClock  # noqa: E402
from mithub.config import ContextConfig  # noqa: E402
from mithub.context.builder import ContextBuilder  # noqa: E402
from mithub.context.factory import create_context_manager  # noqa: E402
from mithub.context.formatting import format_context_as_system_prompt  # noqa: E402
from mithub.context.models import AGENT_CALL_TYPES, NewUtterance  # noqa: E402
from mithub.context.transcript import DEFAULT_MEETING_START, read_transcript  # noqa: E402
from mithub.embedders import CachedEmbedder, load_embedder  # noqa: E402
from mithub.jsonl import LineErrors  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.store.memory import InMemoryRepository  # noqa: E402

SEGMENTS = REPO_ROOT.parent / "shared" / "benchmarks" / "data" / "segmentation" / "qmsum_train.jsonl"
EXAMPLES = REPO_ROOT / "examples" / "meetings"
QUESTIONS = {
    "IMMEDIATE_RESPONSE": "What did we decide about the budget?",
    "SUMMARY": None,
    "ACTION_EXTRACTION": None,
    "SEARCH": "remote control battery and button design",
}


async def _replay(turns, embedder, meeting_id: str):
    repo = InMemoryRepository()
    clock = ManualClock(DEFAULT_MEETING_START)
    manager = create_context_manager(meeting_id, repo, embedder=embedder, clock=clock)
    for utterance in turns:
        clock.set(utterance.absolute_timestamp)
        await manager.add_utterance(utterance)
    return manager, repo


def _long_meeting(count: int) -> list[NewUtterance]:
    turns = []
    with SEGMENTS.open(encoding="utf-8") as handle:
        for line in handle:
            turns += [t for t in json.loads(line)["turns"] if t["text"].strip()]
            if len(turns) >= count:
                break
    step = 3 * 3600 / count  # three hours
    return [NewUtterance(speaker_id=t["speaker"], speaker_name=t["speaker"], text=t["text"],
                         start_ms=int(i * step * 1000), end_ms=int((i + 0.8) * step * 1000),
                         absolute_timestamp=DEFAULT_MEETING_START + timedelta(seconds=i * step))
            for i, t in enumerate(turns[:count])]


async def _timings(count: int, embedder) -> tuple[list[list[object]], int]:
    manager, repo = await _replay(_long_meeting(count), embedder, "bench-3h")
    builder = ContextBuilder(config=ContextConfig(), embedder=embedder)
    index = builder.new_transcript_index()
    index.add(await repo.get_utterances("bench-3h"))
    rows = []
    for call_type in AGENT_CALL_TYPES:
        times, tokens = [], 0
        for _ in range(40):
            t0 = time.perf_counter()
            ctx = builder.build_context(call_type, manager, QUESTIONS[call_type], transcript=index)
            times.append((time.perf_counter() - t0) * 1000)
            tokens = ctx.token_count
        rows.append([call_type, f"{np.percentile(times, 50):.1f}", f"{np.percentile(times, 95):.1f}",
                     tokens, f"{100 * tokens / index.total_tokens:.1f}%"])
    return rows, len(manager.get_l1_segments())


def _question_for(fact: dict) -> str:
    """The fact's own wording (for a bare number: the sentence it was said in) with the
    planted values removed, so the answer is not in the question."""
    text = fact.get("context") or fact.get("text") or fact.get("task") or ""
    for needle in fact.get("must_contain", []):
        text = text.replace(needle, " ")
    return re.sub(r"\s+", " ", text).strip() + "?"


async def _facts(name: str, embedder) -> list[list[object]]:
    facts = json.loads((EXAMPLES / f"{name}.facts.json").read_text(encoding="utf-8"))
    turns = [u for _, u in read_transcript(EXAMPLES / f"{name}.jsonl", LineErrors())]
    manager, repo = await _replay(turns, embedder, facts["meeting_id"])
    await manager.finalize()
    builder = ContextBuilder(config=ContextConfig(), embedder=embedder)
    index = builder.new_transcript_index()
    index.add(await repo.get_utterances(facts["meeting_id"]))

    def present(call_type: str, items: list[dict], per_question: bool, owner: bool = False) -> str:
        found = 0
        for item in items:
            query = _question_for(item) if per_question else None
            prompt = format_context_as_system_prompt(
                builder.build_context(call_type, manager, query, transcript=index))
            needles = item.get("must_contain", []) + ([item["owner"]] if owner else [])
            found += all(n in prompt for n in needles)
        return f"{found}/{len(items)}"

    decisions, actions = facts["decisions"], facts["action_items"]
    numbers = [{"context": turns[n["seq"] - 1].text, "must_contain": [n["value"]]}
               for n in facts.get("numbers", [])]
    return [
        [name, "SUMMARY", "decisions", present("SUMMARY", decisions, False)],
        [name, "SUMMARY", "pending items", present("SUMMARY", facts.get("pending", []), False)],
        [name, "ACTION_EXTRACTION", "action items with owner", present("ACTION_EXTRACTION", actions, False, True)],
        [name, "IMMEDIATE_RESPONSE", "decision asked about", present("IMMEDIATE_RESPONSE", decisions, True)],
        [name, "IMMEDIATE_RESPONSE", "number asked about", present("IMMEDIATE_RESPONSE", numbers, True)],
        [name, "SEARCH", "decision asked about", present("SEARCH", decisions, True)],
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=2000)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    disk = NpyEmbeddingCache(load_embedder("use-multilingual").inner)
    embedder = CachedEmbedder(disk, max_entries=100_000)
    try:
        timing_rows, topics = asyncio.run(_timings(args.utterances, embedder))
        fact_rows = []
        for name in ("ko_product_planning", "en_sprint_review"):
            fact_rows += asyncio.run(_facts(name, embedder))
    finally:
        disk.save()
    totals = [tuple(map(int, r[3].split("/"))) for r in fact_rows]
    share = sum(a for a, _ in totals) / max(sum(b for _, b in totals), 1)
    body = (
        f"Build time over 40 builds per call type on a {args.utterances}-utterance, three-hour "
        f"meeting (real QMSum turns, {topics} L1 topics found), LLM excluded; context tokens and "
        "their share of the whole transcript. Target: p95 <= 20 ms.\n\n"
        + markdown_table(["call type", "p50 ms", "p95 ms", "context tokens", "share of transcript"],
                         timing_rows)
        + "\n\nPlanted facts of the sample meetings present in the built context (questions are the "
        "fact's wording with the planted value removed). Target: >= 90%.\n\n"
        + markdown_table(["meeting", "call type", "fact", "present"], fact_rows)
        + f"\n\nAll planted facts present: {100 * share:.0f}%.\n"
    )
    print(body)
    if not args.no_write:
        write_results_section("Agent call contexts (benchmarks/agent_calls.py)", body)


if __name__ == "__main__":
    main()
