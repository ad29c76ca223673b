"""The organisation's memory at scale: how long a finished meeting takes to join its series'
index, and how fast IMMEDIATE_RESPONSE context is built with 10 and 100 past meetings.

The meetings are synthetic but their text is real: the turns of QMSum's train meetings
(`../shared/benchmarks/data/segmentation/qmsum_train.jsonl`), concatenated in file order and
cycled, cut into meetings of 1,000 turns (2,000 for the added meeting, 500 for today's).
Each is replayed once through the live pipeline (ContextManager, LLM-free, as
`meeting_series.py` does), which gives its topic segments; replays are cached under
`benchmarks/.cache/memory_scale/`. Finished meetings go into a SQLite store with the vectors a
live meeting stores (`MeetingEmbeddings.flush`) and are indexed by `OrganisationMemory.sync()`,
wired as the worker wires it (`memory_builder`).

Embeddings: the real default embedder (use-multilingual). Turn vectors come from the on-disk
benchmark cache (they stand for the vectors the live meeting stored; a cached vector is not
encode speed). Questions are always encoded by the model (that is part of every call's
latency), and so is every turn of the "embedding needed" meeting and every topic.

    .venv/bin/python benchmarks/memory_scale.py [--no-write] [--past 100] [--questions 100]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import CACHE_DIR, NpyEmbeddingCache, REPO_ROOT, load_average, markdown_table, write_results_section  # noqa: E402

from mithub.agent.runtime import memory_builder  # noqa: E402
from mithub.clock import ManualClock  # noqa: E402
from mithub.config import ContextConfig, MemoryConfig  # noqa: E402
from mithub.context.builder import ContextBuilder  # noqa: E402
from mithub.context.factory import create_context_manager  # noqa: E402
from mithub.context.manager import ContextManager  # noqa: E402
from mithub.context.models import NewUtterance, TopicSegment, Utterance  # noqa: E402
from mithub.context.repository import ManagerState  # noqa: E402
from mithub.embedders import CachedEmbedder, Embedder, load_embedder  # noqa: E402
from mithub.memory import OrganisationMemory  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.store.embedding_cache import MeetingEmbeddings  # noqa: E402
from mithub.store.memory import InMemoryRepository  # noqa: E402
from mithub.store.open import open_database  # noqa: E402
from mithub.store.sql import SqlRepository  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data"
REPLAYS = CACHE_DIR / "memory_scale"
FIRST_DAY = datetime(2024, 1, 8, 9, 0, tzinfo=timezone.utc)
SERIES = "weekly"
TARGET_MS = 50.0


# ---------------------------------------------------------------- embedder


class BenchEmbedder:
    """Turn vectors from the disk cache (what a live meeting stored), unless `encode_documents`;
    queries always encoded by the model, their time summed in `query_seconds`."""

    def __init__(self, disk: NpyEmbeddingCache, model: Embedder) -> None:
        self.disk, self.model = disk, model
        self.model_id, self.dim = model.model_id, model.dim
        self.encode_documents = False
        self.encoded = 0
        self.query_seconds = 0.0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.encode_documents:
            self.encoded += len(texts)
            return self.model.embed_documents(texts)
        return self.disk.embed_documents(texts)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return self.model.embed_queries(texts)
        finally:
            self.query_seconds += time.perf_counter() - started


# ---------------------------------------------------------------- meetings


def load_turns() -> list[dict]:
    turns = []
    for line in (DATA / "segmentation" / "qmsum_train.jsonl").open(encoding="utf-8"):
        turns += [t for t in json.loads(line)["turns"] if t["text"].strip()]
    return turns


def cut(turns: list[dict], offset: int, n: int) -> list[dict]:
    return [turns[(offset + i) % len(turns)] for i in range(n)]


async def replay(meeting_id: str, turns: list[dict], started: datetime, embedder: Embedder,
                 repo: InMemoryRepository | None = None) -> ContextManager:
    """The meeting through the live pipeline (ContextManager, LLM-free), 4 s per turn."""
    repo = repo or InMemoryRepository()
    clock = ManualClock(started)
    manager = create_context_manager(meeting_id, repo, config=ContextConfig(), embedder=embedder, clock=clock)
    for i, turn in enumerate(turns):
        at = started + timedelta(seconds=4 * i)
        clock.set(at)
        await manager.add_utterance(NewUtterance(
            speaker_id=turn["speaker"], speaker_name=turn["speaker"], text=turn["text"],
            start_ms=i * 4000, end_ms=i * 4000 + 3500, absolute_timestamp=at))
    await manager.finalize()
    return manager


async def replayed(meeting_id: str, turns: list[dict], offset: int, n: int, started: datetime,
                   embedder: Embedder) -> tuple[list[Utterance], list[TopicSegment], ManagerState]:
    """A finished meeting's turns, topics and state: from the replay cache, or replayed."""
    path = REPLAYS / f"{meeting_id}-{offset}-{n}-{started:%Y%m%d}.json"
    if path.is_file():
        data = json.loads(path.read_text(encoding="utf-8"))
        return ([Utterance.model_validate(u) for u in data["utterances"]],
                [TopicSegment.model_validate(s) for s in data["segments"]],
                ManagerState.model_validate(data["state"]))
    repo = InMemoryRepository()
    await replay(meeting_id, cut(turns, offset, n), started, embedder, repo)
    utterances = await repo.get_utterances(meeting_id)
    state, segments = await repo.load_state(meeting_id)
    assert state is not None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"utterances": [u.model_dump(mode="json") for u in utterances],
                                "segments": [s.model_dump(mode="json") for s in segments],
                                "state": state.model_dump(mode="json")}), encoding="utf-8")
    return utterances, segments, state


async def store_finished(store: SqlRepository, meeting_id: str, meeting: tuple, started: datetime,
                         docs: Embedder, *, vectors: bool) -> None:
    """A finished meeting as the live pipeline leaves it in the store: turns, topics, state,
    (optionally) the turn vectors, and `ended_at`."""
    utterances, segments, state = meeting
    await store.ensure_meeting(meeting_id, title=f"Weekly {started:%Y-%m-%d}", series_id=SERIES,
                               started_at=started)
    await store.append_utterances(meeting_id, utterances)
    await store.save_l1_update(meeting_id, utterance=None, segments=segments, state=state)
    if vectors:
        stored = MeetingEmbeddings(docs, store, meeting_id, max_pending=len(utterances) + 1)
        stored.embed_documents([u.text for u in utterances])
        await stored.flush(utterances[-1].id)
    await store.end_meeting(meeting_id, at=utterances[-1].absolute_timestamp)


# ---------------------------------------------------------------- measuring


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class TimedPast:
    """The builder's PastMeetingSearch port, timing each `search_past` of a build."""

    def __init__(self, memory: OrganisationMemory) -> None:
        self.memory = memory
        self.ms: list[float] = []

    def search_past(self, query: str, **kwargs: object):  # noqa: ANN201
        started = time.perf_counter()
        try:
            return self.memory.search_past(query, **kwargs)  # type: ignore[arg-type]
        finally:
            self.ms.append((time.perf_counter() - started) * 1000)

    def __getattr__(self, name: str) -> object:  # the rest of the port, untimed
        return getattr(self.memory, name)


def percentiles(values: list[float]) -> tuple[float, float]:
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def ask_all(builder: ContextBuilder, memory: OrganisationMemory, bench: BenchEmbedder,
            today: ContextManager, transcript, questions: list[str]) -> dict:  # noqa: ANN001
    """Each question as IMMEDIATE_RESPONSE during today's meeting. The questions are distinct,
    so each is encoded once per build (the process LRU dedupes its repeats within one build)."""
    timed = TimedPast(memory)
    builder.past = timed
    build_ms, encode_ms, past_items = [], [], []
    for question in questions:
        before = bench.query_seconds
        started = time.perf_counter()
        ctx = builder.build_context("IMMEDIATE_RESPONSE", today, question, transcript=transcript,
                                    series_id=SERIES)
        build_ms.append((time.perf_counter() - started) * 1000)
        encode_ms.append((bench.query_seconds - before) * 1000)
        past_items.append(len(ctx.past_excerpts) + len(ctx.past_topics))
    builder.past = memory
    return {"build": percentiles(build_ms), "search": percentiles(timed.ms),
            "encode": percentiles(encode_ms), "n": len(questions),
            "past_items": float(np.mean(past_items)),
            "without_encode": percentiles([b - e for b, e in zip(build_ms, encode_ms)])}


def profile_builds(builder: ContextBuilder, today: ContextManager, transcript,  # noqa: ANN001
                   questions: list[str]) -> str:
    profiler = cProfile.Profile()
    profiler.enable()
    for question in questions:
        builder.build_context("IMMEDIATE_RESPONSE", today, question, transcript=transcript,
                              series_id=SERIES)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(r"mithub/(context|memory)", 12)
    stats.sort_stats("tottime").print_stats(10)
    return "\n".join(line for line in out.getvalue().splitlines()
                     if line.strip() and not line.lstrip().startswith(("List reduced", "Ordered by")))


async def sync_timed(memory: OrganisationMemory) -> tuple[float, int]:
    started = time.perf_counter()
    added = await memory.sync(force=True)
    return time.perf_counter() - started, added


def index_bytes(memory: OrganisationMemory) -> dict:
    series = memory.series[SERIES]
    shared = series._index._vectors.nbytes  # noqa: SLF001 - what the index holds
    per_meeting = sum(m.cached.vectors.nbytes for m in series.meetings.values())
    return {"turns": len(series), "index_vectors": shared, "meeting_vectors": per_meeting}


def disk_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


# ---------------------------------------------------------------- scenarios


class Meetings:
    """The synthetic meetings: `past` finished ones of 1,000 turns, two of 2,000 turns to add,
    and today's (live, 500 turns)."""

    def __init__(self, past: list, added: dict, today: ContextManager, today_turns: list[Utterance]) -> None:
        self.past, self.added, self.today, self.today_turns = past, added, today, today_turns


async def make_meetings(turns: list[dict], past: int, embedder: Embedder) -> Meetings:
    finished = []
    for k in tqdm(range(past), desc="past meetings", file=sys.stderr):
        started = FIRST_DAY + timedelta(weeks=k)
        finished.append((f"p{k:03d}", started, await replayed(f"p{k:03d}", turns, k * 1000, 1000, started, embedder)))
    offset, day = past * 1000, FIRST_DAY + timedelta(weeks=past)
    added = {}
    for i, name in enumerate(("added-stored", "added-encoded")):
        started = day + timedelta(days=i)
        added[name] = (started, await replayed(name, turns, offset + 2000 * i, 2000, started, embedder))
    repo = InMemoryRepository()
    today = await replay("today", cut(turns, offset + 4000, 500), day + timedelta(weeks=1), embedder, repo)
    return Meetings(finished, added, today, await repo.get_utterances("today"))


async def scenario(n: int, meetings: Meetings, disk: NpyEmbeddingCache, model: Embedder,
                   questions: list[str], folder: Path) -> dict:
    """A store holding `n` finished meetings of the series: the index built from it, today's
    questions, then the two 2,000-turn meetings added, one at a time."""
    folder.mkdir(parents=True)
    database = await open_database(f"sqlite+aiosqlite:///{folder / 'store.db'}")
    try:
        store = SqlRepository(database)
        for meeting_id, started, meeting in tqdm(meetings.past[:n], desc=f"store {n}", file=sys.stderr):
            await store_finished(store, meeting_id, meeting, started, disk, vectors=True)
        bench = BenchEmbedder(disk, model)
        cache = folder / "memory"
        builder = memory_builder(ContextConfig(), CachedEmbedder(bench), store,
                                 memory=MemoryConfig(cache_dir=str(cache)), progress=False)
        memory = builder.past
        assert isinstance(memory, OrganisationMemory)
        rss_before = rss_mib()
        out: dict = {"n": n}
        out["rebuild_s"], _ = await sync_timed(memory)
        out["rss_growth"] = rss_mib() - rss_before
        transcript = builder.new_transcript_index()
        transcript.add(meetings.today_turns)
        out["plain"] = ask_all(builder, memory, bench, meetings.today, transcript, questions)
        cued = [f"Last time, {q[0].lower()}{q[1:]}" for q in questions[:50]]
        out["cued"] = ask_all(builder, memory, bench, meetings.today, transcript, cued)
        if out["plain"]["build"][1] > 2 * TARGET_MS:
            out["profile"] = profile_builds(builder, meetings.today, transcript, questions[:20])
        bench.encode_documents = True  # from here, whatever is not stored is encoded by the model
        for name, vectors in (("added-stored", True), ("added-encoded", False)):
            started, meeting = meetings.added[name]
            await store_finished(store, name, meeting, started, disk, vectors=vectors)
            before = bench.encoded
            out[name], _ = await sync_timed(memory)
            out[f"{name}-encoded"] = bench.encoded - before
        out["size"] = index_bytes(memory)
        out["disk_cache"] = disk_bytes(cache)
        restarted = OrganisationMemory(store, CachedEmbedder(bench), config=MemoryConfig(cache_dir=str(cache)),
                                       count_text=builder.budget.count, progress=False)
        out["from_cache_s"], _ = await sync_timed(restarted)
        out["peak_rss"] = peak_rss_mib()
        return out
    finally:
        await database.dispose()


# ---------------------------------------------------------------- report


def latency_rows(result: dict) -> list[list[str]]:
    rows = []
    for kind, label in (("plain", "questions as asked"), ("cued", "with a past cue (\"Last time, ...\")")):
        r = result[kind]
        rows.append([f"{result['n']} × 1,000", f"{label} ({r['n']})", *(f"{v:.1f}" for v in r["build"]),
                     *(f"{v:.1f}" for v in r["without_encode"]), *(f"{v:.1f}" for v in r["search"]),
                     f"{r['encode'][0]:.1f}", f"{r['past_items']:.1f}"])
    return rows


def update_rows(result: dict) -> list[list[str]]:
    size = result["size"]
    return [[f"{result['n']} × 1,000", f"{result['rebuild_s']:.1f}",
             f"{result['added-stored']:.2f} ({result['added-stored-encoded']} encoded)",
             f"{result['added-encoded']:.2f} ({result['added-encoded-encoded']} encoded)",
             f"{result['from_cache_s']:.1f}", f"{size['turns']:,}",
             f"{size['index_vectors'] / 2**20:.0f} + {size['meeting_vectors'] / 2**20:.0f}",
             f"{result['rss_growth']:.0f}", f"{result['disk_cache'] / 2**20:.0f}", f"{result['peak_rss']:.0f}"]]


def report(results: list[dict], load_before: str, load_after: str, replay_s: float) -> str:
    profile = next((r["profile"] for r in reversed(results) if "profile" in r), None)
    body = (
        "Synthetic meetings of real text: QMSum train turns "
        "(`segmentation/qmsum_train.jsonl`, 88k non-empty turns) concatenated in file order and "
        "cycled, cut into meetings of one series, replayed once each through the ContextManager "
        "(LLM-free) for their topics, stored in SQLite as a finished live meeting leaves them "
        "(turns, topics, state, turn vectors), indexed by `OrganisationMemory.sync()` as wired by "
        "`memory_builder`. Embedder use-multilingual; turn vectors from the benchmark's disk "
        "cache (they stand for the stored vectors, so they are not encode time); every question, "
        "every topic and every turn of the \"embedding needed\" meeting encoded by the model. "
        f"Preparing the meetings (replays, or their cache) took {replay_s:.0f} s.\n\n"
        "Index update: `sync()` after one more finished meeting of 2,000 turns, whose vectors the "
        "store holds or not (\"encoded\" = texts the model encoded: its topics, and its turns "
        "when not stored). Rebuild = a process starting with no disk cache; from cache = a "
        "process starting with the disk cache written by the syncs. Vectors: the index's matrix "
        "+ the per-meeting copies it keeps.\n\n"
        + markdown_table(["series", "rebuild from store s", "add 2,000 turns, vectors stored s",
                          "add 2,000 turns, embedding needed s", "start from disk cache s",
                          "turns indexed", "vectors MiB", "RSS growth of rebuild MiB",
                          "disk cache MiB", "peak RSS MiB"],
                         [row for r in results for row in update_rows(r)])
        + "\n\nIMMEDIATE_RESPONSE build_context during today's meeting (500 turns, its own "
        f"transcript index), questions from `qmsum_train_series_queries.jsonl`; target p95 <= "
        f"{TARGET_MS:.0f} ms. search_past = the memory's part of the build; encode = the "
        "question's embedding (once per build).\n\n"
        + markdown_table(["past meetings", "questions", "build p50 ms", "build p95 ms",
                          "build without encode p50 ms", "p95 ms", "search_past p50 ms", "p95 ms",
                          "encode p50 ms", "past items in context"],
                         [row for r in results for row in latency_rows(r)])
        + f"\n\nLoad average (1, 5, 15 min) before: {load_before}; after: {load_after} "
        "(2 cores shared with other work: figures are upper bounds of an idle machine's)."
    )
    if profile:
        body += ("\n\ncProfile of 20 builds with the largest series (cumulative, mithub's "
                 "context and memory code; then own time, everything):\n\n```\n"
                 + profile.replace("/work/main/backend/", "") + "\n```")
    return body


def load_questions(limit: int) -> list[str]:
    path = DATA / "meeting_series" / "qmsum_train_series_queries.jsonl"
    questions = list(dict.fromkeys(json.loads(line)["query"] for line in path.open(encoding="utf-8")))
    step = max(len(questions) // limit, 1)
    return questions[::step][:limit]


async def run(args: argparse.Namespace) -> str:
    load_before = load_average()
    model = load_embedder("use-multilingual").inner
    disk = NpyEmbeddingCache(model)
    started = time.perf_counter()
    try:
        meetings = await make_meetings(load_turns(), max(args.past, 10), CachedEmbedder(disk, max_entries=300_000))
    finally:
        disk.save()
    replay_s = time.perf_counter() - started
    questions = load_questions(args.questions)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sorted({10, args.past}):
            results.append(await scenario(n, meetings, disk, model, questions, Path(tmp) / f"series{n}"))
            print(json.dumps({k: v for k, v in results[-1].items() if k != "profile"}), flush=True)
    load_after = load_average()
    return report(results, load_before, load_after, replay_s)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--past", type=int, default=100, help="past meetings of the large series")
    parser.add_argument("--questions", type=int, default=100, help="distinct questions asked")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    body = asyncio.run(run(args))
    print(body)
    if not args.no_write:
        write_results_section("Organisation memory at scale (benchmarks/memory_scale.py)", body)


if __name__ == "__main__":
    main()
