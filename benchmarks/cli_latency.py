"""How long a user waits for the `mithub` command line and the API (issue 19 item 6).

Each command runs as a new process, as a user types it, over the demo series (the two
meetings of `make demo`, replayed into a SQLite store in a temporary folder first, untimed) and
the demo documents' index. One unmeasured run warms the file cache, then `--runs` runs are
timed: wall time and the CPU time of the process (user + sys; on a busy machine the wall time
grows with the load while the CPU time stays close to what a quiet machine's wall time is).

Targets (on a quiet machine): `mithub ask` on a finished meeting <= 3 s, `mithub meetings
list` <= 1 s, an input error <= 1 s, the API's first call <= 3 s after /healthz answers.

    .venv/bin/python benchmarks/cli_latency.py            # writes its RESULTS.md section
    .venv/bin/python benchmarks/cli_latency.py --runs 5 --no-write
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from common import REPO_ROOT, load_average, markdown_table, publish

SECTION = "CLI and API latency (benchmarks/cli_latency.py)"
MITHUB = [sys.executable, "-m", "mithub.cli"]
EXAMPLES = REPO_ROOT / "examples"
QUESTION = "지난 회의에서 숫자 인식 오류 우선순위는 어떻게 하기로 했었죠?"
DOC_QUESTION = "GPU 서버 구매 금액이 1억 원을 넘으면 누가 승인하나요?"
TOKEN = "benchmark-token-" + "x" * 32


@dataclass
class Timing:
    name: str
    target: float | None
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)

    def row(self) -> list[str]:
        wall, cpu = statistics.median(self.walls), statistics.median(self.cpus) if self.cpus else None
        verdict = "-" if self.target is None else ("met" if wall <= self.target else "not met")
        cpu_verdict = "" if self.target is None or cpu is None else (
            " (met)" if cpu <= self.target else " (not met)")
        return [self.name, "-" if self.target is None else f"<= {self.target:.0f} s",
                f"{wall:.2f} ({min(self.walls):.2f}-{max(self.walls):.2f})", verdict,
                "-" if cpu is None else f"{cpu:.2f}{cpu_verdict}"]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_command(args: list[str], env: dict[str, str], expect: int = 0) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `mithub` process."""
    cpu, started = _children_cpu(), time.perf_counter()
    done = subprocess.run([*MITHUB, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != expect:
        raise SystemExit(f"`mithub {' '.join(args)}` exited {done.returncode}: {done.stderr[-2000:]}")
    return wall, _children_cpu() - cpu


def prepare(folder: Path, env: dict[str, str]) -> dict[str, str]:
    """The demo store and index (untimed); returns the paths the commands use."""
    store = f"sqlite+aiosqlite:///{folder / 'mithub.db'}"
    meetings = (("ko_product_planning.jsonl", "demo-ko-1", "2026-05-04T10:00:00+09:00"),
                ("ko_product_planning_2.jsonl", "demo-ko-2", "2026-05-11T10:00:00+09:00"))
    for name, meeting_id, started in meetings:
        run_command(["replay", str(EXAMPLES / "meetings" / name), "--meeting-id", meeting_id, "--series",
                     "demo-ko", "--started-at", started, "--database-url", store, "--no-progress"], env)
    run_command(["index", "build", "--input", str(EXAMPLES / "documents" / "company_docs.jsonl"),
                 "--out", str(folder / "index"), "--no-progress"], env)
    (folder / "empty.jsonl").write_text("")
    return {"store": store, "index": str(folder / "index"), "empty": str(folder / "empty.jsonl"),
            "out": str(folder / "never")}


def commands(paths: dict[str, str]) -> list[tuple[str, float | None, list[str], int]]:
    store, index = paths["store"], paths["index"]
    return [
        ("`meetings list`", 1.0, ["meetings", "list", "--database-url", store], 0),
        ("`ask` on a finished meeting (IMMEDIATE_RESPONSE)", 3.0,
         ["ask", "--meeting", "demo-ko-2", "--type", "IMMEDIATE_RESPONSE", "--query", QUESTION,
          "--database-url", store], 0),
        ("`ask` about an unknown meeting (input error)", 1.0,
         ["ask", "--meeting", "nobody", "--type", "SUMMARY", "--database-url", store], 1),
        ("`index build` of an empty file (input error)", 1.0,
         ["index", "build", "--input", paths["empty"], "--out", paths["out"], "--no-progress"], 1),
        ("`segment --batch` of an empty file (input error)", 1.0,
         ["segment", "--batch", paths["empty"], "--no-progress"], 1),
        ("`search` over the demo documents (3 channels)", None,
         ["search", DOC_QUESTION, "--index", index, "--top-k", "2"], 0),
    ]


def measure_api(store: str, env: dict[str, str]) -> tuple[float, float]:
    """(seconds from start to the "ready" line, seconds of the first call after it)."""
    api_env = {**env, "API_TOKEN": TOKEN}
    started = time.perf_counter()
    process = subprocess.Popen([*MITHUB, "api", "--port", "0", "--database-url", store], env=api_env,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    try:
        base = None
        while base is None:
            if process.poll() is not None:
                raise SystemExit("`mithub api` exited before it was ready")
            found = next((re.search(r"ready on (\S+)", line) for line in lines if "ready on" in line), None)
            base = found.group(1) if found else None
            time.sleep(0.05)
        ready = time.perf_counter() - started
        assert httpx.get(f"{base}/healthz").status_code == 200
        call_started = time.perf_counter()
        response = httpx.post(f"{base}/v1/meetings/demo-ko-2/calls", timeout=300,
                              headers={"Authorization": f"Bearer {TOKEN}"},
                              json={"call_type": "IMMEDIATE_RESPONSE", "query": QUESTION})
        first_call = time.perf_counter() - call_started
        response.raise_for_status()
        return ready, first_call
    finally:
        process.terminate()
        process.wait(timeout=60)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="timed runs per command (median reported)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    parser.add_argument("--skip-api", action="store_true",
                        help="leave out `mithub api` (a version that never prints 'ready', for a baseline)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="mithub-latency-") as tmp:
        folder = Path(tmp)
        env = {**os.environ, "MEMORY_CACHE_DIR": str(folder / "memory"), "LOG_LEVEL": "WARNING"}
        paths = prepare(folder, env)
        load_before = load_average()
        timings = []
        for name, target, command, expect in commands(paths):
            timing = Timing(name, target)
            run_command(command, env, expect)  # warms the file cache
            for _ in range(args.runs):
                wall, cpu = run_command(command, env, expect)
                timing.walls.append(wall)
                timing.cpus.append(cpu)
            timings.append(timing)
            print(" | ".join(timing.row()), file=sys.stderr, flush=True)
        ready, first = Timing("`api`: start until ready (/healthz answers)", None), \
            Timing("`api`: first call after ready (IMMEDIATE_RESPONSE)", 3.0)
        for _ in range(0 if args.skip_api else args.runs):
            start_to_ready, first_call = measure_api(paths["store"], env)
            ready.walls.append(start_to_ready)
            first.walls.append(first_call)
        timings += [] if args.skip_api else [ready, first]
        load_after = load_average()

    body = "\n".join([
        f"Median of {args.runs} timed runs per command (min-max), each a new process after one "
        "warm-up run; LLM-free; the demo series (2 meetings, 293 turns) in SQLite, the demo "
        "documents' index (6 chunks). CPU = user + sys of the process: on a busy machine it is "
        "the better guide to a quiet machine's wall time (the targets are for a quiet machine).",
        f"Load average (1, 5, 15 min) before: {load_before}; after: {load_after} "
        f"({os.cpu_count()} logical CPUs).",
        "",
        markdown_table(["command", "target (quiet machine)", "wall s, median (min-max)", "wall",
                        "CPU s, median"], [t.row() for t in timings]),
    ])
    publish(SECTION, body, not args.no_write)


if __name__ == "__main__":
    main()
