"""How fast the recap page shows a long meeting (issue 20: <= 300 ms p95 for 2,000 utterances).

A 2,000-utterance meeting (the demo meetings' Korean lines, in turn, about 2 h 45 min of
talk, 20 topics with their summaries) is written into a new SQLite store, its record is
extracted and it is ended, as the bot's close does. Then the meeting page is requested through
the ASGI app with httpx, as a signed-in browser does: the first request composes and stores
the minutes (untimed in the p95: measured on its own), the next `--runs` read the stored
minutes and the transcript and render the page. Wall time per request, and the process's CPU
time per request (on a shared machine the wall time grows with the load, the CPU time less).

    .venv/bin/python benchmarks/recap_page.py              # writes its RESULTS.md section
    .venv/bin/python benchmarks/recap_page.py --runs 20 --no-write
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx

from common import REPO_ROOT, load_average, markdown_table, publish
from mithub.agent.runtime import open_agent_runtime
from mithub.api.app import create_app
from mithub.config import APIConfig
from mithub.context.models import TopicSegment, Utterance
from mithub.context.repository import ManagerState
from mithub.record.meeting_record import extract_record

SECTION = "Recap page (benchmarks/recap_page.py)"
TOKEN = "benchmark-token-" + "x" * 32
MEETING, SERIES = "long-1", "long"
RUNNING = "long-live"  # the same talk, still running: no stored record nor minutes yet
STARTED = datetime(2026, 5, 4, 1, 0, tzinfo=timezone.utc)  # 10:00 in Seoul
TARGET_MS = 300.0
TOPIC_TURNS = 100


def demo_lines() -> list[dict]:
    lines = []
    for name in ("ko_product_planning", "ko_product_planning_2", "ko_product_planning_3"):
        path = REPO_ROOT / "examples" / "meetings" / f"{name}.jsonl"
        lines += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lines


def long_meeting(count: int) -> list[Utterance]:
    """`count` turns of the demo's lines in turn, each a little after the one before."""
    lines, turns, at_ms = demo_lines(), [], 0
    for seq in range(1, count + 1):
        line = lines[(seq - 1) % len(lines)]
        length = max(1500, line.get("end_ms", 0) - line.get("start_ms", 0))
        turns.append(Utterance(id=seq, speaker_id=line["speaker_id"], speaker_name=line["speaker_name"],
                               text=line["text"], start_ms=at_ms, end_ms=at_ms + length,
                               absolute_timestamp=STARTED + timedelta(milliseconds=at_ms)))
        at_ms += length + 700
    return turns


def segments(turns: list[Utterance]) -> list[TopicSegment]:
    found = []
    for number, first in enumerate(range(0, len(turns), TOPIC_TURNS), start=1):
        inside = turns[first:first + TOPIC_TURNS]
        found.append(TopicSegment(id=f"topic-{number}", name=f"주제 {number}", start_utterance_id=inside[0].id,
                                  end_utterance_id=inside[-1].id,
                                  summary="\n".join(f"{u.speaker_name}: {u.text}" for u in inside[:4])))
    return found


async def build_store(url: str, count: int) -> dict[str, float]:
    """The meeting, its topics and its record, ended; returns how long the writes took."""
    runtime = await open_agent_runtime(url, index_dir="")
    repository, started = runtime.repository, time.perf_counter()
    turns = long_meeting(count)
    await repository.ensure_meeting(MEETING, title="긴 회의 (2,000 발언)", series_id=SERIES, started_at=STARTED,
                                    timezone="Asia/Seoul")
    for first in range(0, len(turns), 500):
        await repository.append_utterances(MEETING, turns[first:first + 500])
    topics = segments(turns)
    state = ManagerState(meeting_id=MEETING, last_seq=len(turns), current_topic=topics[-1].name,
                         current_topic_id=topics[-1].id, topic_index=len(topics),
                         topic_start_seq=topics[-1].start_utterance_id,
                         topic_buffer_start_seq=topics[-1].start_utterance_id,
                         last_l1_update=turns[-1].absolute_timestamp)
    await repository.save_l1_update(MEETING, utterance=None, segments=topics, state=state)
    await repository.ensure_meeting(RUNNING, title="진행 중인 긴 회의", series_id=SERIES, started_at=STARTED,
                                    timezone="Asia/Seoul")
    await repository.append_utterances(RUNNING, turns)
    await repository.save_l1_update(RUNNING, utterance=None, segments=topics,
                                    state=state.model_copy(update={"meeting_id": RUNNING}))
    written = time.perf_counter()
    record = await asyncio.to_thread(extract_record, MEETING, SERIES, STARTED, turns)
    await repository.save_meeting_record(record)
    await repository.end_meeting(MEETING, at=turns[-1].absolute_timestamp + timedelta(seconds=5))
    done = time.perf_counter()
    await runtime.aclose()
    return {"write_s": written - started, "record_s": done - written}


async def log_in(client: httpx.AsyncClient) -> None:
    form = (await client.get("/ui/login")).text
    form_token = re.search(r'name="form_token" value="([^"]+)"', form).group(1)
    response = await client.post("/ui/login", data={"token": TOKEN, "form_token": form_token, "next": "/ui/"})
    assert response.status_code == 303, response.text


async def measure(url: str, runs: int, count: int) -> dict:
    runtime = await open_agent_runtime(url, index_dir="")
    app = create_app(runtime, APIConfig(token=TOKEN))
    walls, cpus = [], []
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://bench") as client:
        await log_in(client)
        started = time.perf_counter()
        first = await client.get(f"/ui/meetings/{MEETING}")  # composes and stores the minutes
        first_ms = 1000 * (time.perf_counter() - started)
        assert first.status_code == 200 and len(re.findall(r"id=\"t-\d+\"", first.text)) == count, first.status_code
        for _ in range(2):  # warm: templates compiled, connections open
            await client.get(f"/ui/meetings/{MEETING}")
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            response = await client.get(f"/ui/meetings/{MEETING}")
            walls.append(1000 * (time.perf_counter() - wall))
            cpus.append(1000 * (time.process_time() - cpu))
            assert response.status_code == 200
        running = []
        for _ in range(3):
            wall = time.perf_counter()
            assert (await client.get(f"/ui/meetings/{RUNNING}")).status_code == 200
            running.append(1000 * (time.perf_counter() - wall))
    await runtime.aclose()
    return {"first_ms": first_ms, "walls": walls, "cpus": cpus, "bytes": len(first.content), "running": running}


def p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[18] if len(values) > 1 else values[0]


def report(count: int, runs: int, built: dict[str, float], found: dict) -> str:
    walls, cpus = found["walls"], found["cpus"]
    verdict = "met" if p95(walls) <= TARGET_MS else "not met"
    rows = [
        ["meeting page, stored minutes (wall)", f"{statistics.median(walls):.0f}", f"{p95(walls):.0f}",
         f"{max(walls):.0f}", f"<= {TARGET_MS:.0f} ms p95: {verdict}"],
        ["meeting page, stored minutes (CPU of the process)", f"{statistics.median(cpus):.0f}", f"{p95(cpus):.0f}",
         f"{max(cpus):.0f}", "-"],
        ["first view: minutes composed and stored, then rendered", f"{found['first_ms']:.0f}", "-", "-", "-"],
        ["a meeting still running (its record extracted at each view), 3 requests",
         f"{statistics.median(found['running']):.0f}", "-", f"{max(found['running']):.0f}", "not a target"],
    ]
    return "\n".join([
        f"A meeting of {count} utterances ({count // TOPIC_TURNS} topics) in a SQLite store; `GET "
        f"/ui/meetings/{{id}}` through the ASGI app (httpx), signed in; {runs} timed requests after 2 "
        f"untimed. Page size {found['bytes'] / 1024:.0f} KiB. Store built in {built['write_s']:.1f} s, "
        f"record extracted in {built['record_s']:.1f} s (untimed). Load average during the run: {load_average()}.",
        "",
        markdown_table(["request", "median ms", "p95 ms", "max ms", "target"], rows),
        "",
        "Once a meeting has ended its minutes are stored, and its page reads them with the transcript. A "
        "meeting still running has no stored record yet: each view extracts it from the turns, so its page "
        "takes as long as that extraction.",
    ])


async def main_async(args: argparse.Namespace) -> str:
    with tempfile.TemporaryDirectory(prefix="mithub-recap-") as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'mithub.db'}"
        built = await build_store(url, args.utterances)
        found = await measure(url, args.runs, args.utterances)
    return report(args.utterances, args.runs, built, found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--utterances", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md as it is")
    args = parser.parse_args()
    publish(SECTION, asyncio.run(main_async(args)), write=not args.no_write)


if __name__ == "__main__":
    main()
