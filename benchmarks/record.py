"""The meeting's understanding, measured on meetings the code was not written against (issue 18).

    python benchmarks/record.py                  # the three cross-validated sections, printed
    python benchmarks/record.py --write          # ... and written into benchmarks/RESULTS.md
    python benchmarks/record.py --blind --write  # one run of the blind scorer, appended to its log

Sections (each lives in its own module, with its own `run()`):
- decisions and changes: leave-one-series-out on data/decisions, leave-one-meeting-out on
  data/real_record (`record_decisions.py`);
- action items: the same two protocols (`record_actions.py`);
- topic boundaries: 5-fold cross-validation over the QMSum train meetings and leave-one-series-out
  on the invented series' topics (`record_topics.py`).

`--blind` runs `../shared/benchmarks/score_record.py` on the blind pack through the CLI, as a user
would; it prints figures only. Every blind run is appended to the "Record: blind runs" section:
none is replaced, so the log shows every run, not the best.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, RESULTS_PATH, load_average, machine_description, publish  # noqa: E402

SHARED = REPO_ROOT.parent / "shared" / "benchmarks"
BLIND_PACK = SHARED / "blind" / "series.jsonl.gz"
BLIND_TITLE = "Record: blind runs (every run, benchmarks/record.py --blind)"
SECTIONS = {
    "decisions": ("record_decisions", "Record: decisions and changes, cross-validated (benchmarks/record_decisions.py)"),
    "actions": ("record_actions", "Record: action items, cross-validated (benchmarks/record_actions.py)"),
    "topics": ("record_topics", "Record: topic boundaries, cross-validated (benchmarks/record_topics.py)"),
}
BLIND_HEADER = ("date (UTC)", "commit", "change P", "change R", "change F1", "implicit R", "false alarm",
                "m1 decision R", "actions P", "actions R", "actions F1", "due dates", "topics Pk",
                "Pk no boundary", "boundaries / gold per meeting", "load")
# The project before this work, on the blind pack (issue 18), and the targets it sets.
BLIND_BASELINE = ("before issue 18", "6cc47e1", "–", "–", "0.23", "0.08", "–", "0.56", "–", "–", "0.80", "0.72",
                  "0.453", "0.45", "0.1 / 5.2", "–")
BLIND_TARGET = ("target", "", "", "", "≥ 0.60", "≥ 0.50", "≤ 0.15", "≥ 0.85", "", "", "≥ 0.85", "≥ 0.90",
                "≤ 0.30", "", "", "")


def _commit() -> str:
    out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO_ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_ROOT,
                           capture_output=True, text=True).stdout.strip()
    return out.stdout.strip() + ("+changes" if dirty else "")


def run_blind(mithub: str | None) -> dict:
    """One run of the blind scorer (figures only), as its JSON."""
    cmd = [sys.executable, str(SHARED / "score_record.py"), str(BLIND_PACK), "--json"]
    if mithub:
        cmd += ["--mithub", mithub]
    result = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"blind scorer failed: {(result.stderr or result.stdout).strip()[-500:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def blind_row(figures: dict) -> tuple[str, ...]:
    a = figures["all"]
    c, d, act, t = a["changes"], a["decisions"], a["actions"], a["topics"]
    f = lambda x: f"{x:.2f}"  # noqa: E731
    return (datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M"), _commit(), f(c["precision"]), f(c["recall"]),
            f(c["f1"]), f(c["implicit_recall"]), f(c["false_alarm_rate"]), f(d["recall"]), f(act["precision"]),
            f(act["recall"]), f(act["f1"]), f(act["due_date_accuracy"]), f"{t['pk']:.3f}",
            f"{t['pk_no_boundary']:.3f}",
            f"{t['boundaries_per_meeting']:.1f} / {t['gold_boundaries_per_meeting']:.1f}", load_average())


def append_blind_run(row: tuple[str, ...], path: Path = RESULTS_PATH) -> str:
    """Add one row to the blind-run log, keeping every earlier row; returns the section."""
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    pattern = re.compile(rf"^## {re.escape(BLIND_TITLE)}\n.*?(?=^## |\Z)", re.DOTALL | re.MULTILINE)
    found = pattern.search(text)
    rows = [BLIND_BASELINE, BLIND_TARGET]
    if found:
        old = [line for line in found.group(0).splitlines() if line.startswith("| ") and "---" not in line]
        rows = [tuple(cell.strip() for cell in line.strip("|").split("|")) for line in old[1:]]
    rows.append(row)
    table = "\n".join(["| " + " | ".join(BLIND_HEADER) + " |", "|" + "---|" * len(BLIND_HEADER)]
                      + ["| " + " | ".join(r) + " |" for r in rows])
    section = (f"## {BLIND_TITLE}\n\nCommand: `python benchmarks/record.py --blind --write` (runs "
               f"`../shared/benchmarks/score_record.py ../shared/benchmarks/blind/series.jsonl.gz` through the CLI, "
               f"LLM-free; the pack is never opened, only its figures are read).  \nMachine: {machine_description()}\n\n"
               "Six two-meeting series written by other hands. Every run is a row, none replaced; the first "
               "row is the project before issue 18 (as the issue reports it), the second the issue's targets.\n\n"
               f"{table}\n")
    if found:
        text = text[:found.start()] + section + "\n" + text[found.end():]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    path.write_text(text.rstrip("\n") + "\n", encoding="utf-8")
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sections", default=",".join(SECTIONS), help="decisions,actions,topics")
    ap.add_argument("--blind", action="store_true", help="run the blind scorer once and log the run")
    ap.add_argument("--mithub", default=None, help="the mithub command the blind scorer runs")
    ap.add_argument("--write", action="store_true", help="write the results into RESULTS.md")
    args = ap.parse_args()
    if args.blind:
        row = blind_row(run_blind(args.mithub))
        if args.write:
            print(append_blind_run(row))
        else:
            print(" | ".join(row))
        return
    for name in [s.strip() for s in args.sections.split(",") if s.strip()]:
        if name not in SECTIONS:
            sys.exit(f"unknown section {name!r}; choose from {', '.join(SECTIONS)}")
        module, title = SECTIONS[name]
        table, _figures = importlib.import_module(module).run()
        publish(title, table, args.write)


if __name__ == "__main__":
    main()
