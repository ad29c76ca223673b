"""Decisions and changes to past decisions, on ../shared/benchmarks/data/decisions/ (its
README defines the scoring). Replays meeting 1 then meeting 2 of each series: decisions
are extracted from meeting 1 (no gold used), every meeting-2 line is checked against them.

Reports change detection (strict P/R/F1, explicit and implicit recall, false-alarm rate on
consistent + distractor lines, detection-only recall), decision recall on the meeting-1
decisions, Korean and English apart, beside the cue-word baseline; the two thresholds are
chosen by leave-one-series-out cross-validation (held-out figures and their spread); the
speed of `ChangeDetector.check` with a 20-meeting ledger.

    .venv/bin/python benchmarks/decisions.py [--no-write]
"""

from __future__ import annotations

import argparse
import itertools
import json
import re
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, markdown_table, write_results_section  # noqa: E402

from mithub.context.models import Utterance  # noqa: E402
from mithub.embedders import CachedEmbedder, load_embedder  # noqa: E402
from mithub.embedders.use import USEEmbedder  # noqa: E402
from mithub.record.changes import ChangeDetector, ChangeSettings, DecisionMatch  # noqa: E402
from mithub.record.decisions import extract_decisions  # noqa: E402
from mithub.record.models import Decision  # noqa: E402
from mithub.text import content_tokens  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data" / "decisions"
EXAMPLES = REPO_ROOT / "examples" / "meetings"
WEIGHTS = (0.1, 0.2, 0.3, 0.5, 0.7, 0.9)
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(0, 15))
BONUSES = (0.1, 0.2, 0.3)
# The README's baseline: flag lines with these cues, point at the decision sharing most words.
BASELINE_CUES = re.compile(
    r"지난주|지난번|변경|바꾸|바꿔|미루|instead|switch|last week|change", re.IGNORECASE
)


@dataclass
class Series:
    series_id: str
    language: str
    gold: dict
    m1: list[Utterance]
    m2: list[Utterance]
    m2_start: datetime
    decisions: list[Decision]
    matches: list[list[DecisionMatch]]  # per meeting-2 line
    detector: ChangeDetector


def _utterances(path: Path, started_at: datetime) -> list[Utterance]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [
        Utterance(id=i + 1, speaker_id=r["speaker_id"], speaker_name=r["speaker_name"], text=r["text"],
                  start_ms=r["start_ms"], end_ms=r["end_ms"],
                  absolute_timestamp=started_at + timedelta(milliseconds=r["start_ms"]))
        for i, r in enumerate(rows)
    ]


def load_series(embedder) -> list[Series]:  # noqa: ANN001
    out = []
    for folder in sorted(p for p in DATA.iterdir() if (p / "gold.json").exists()):
        gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
        (m1_info, m2_info) = gold["meetings"]
        m1_start = datetime.fromisoformat(m1_info["started_at"])
        m2_start = datetime.fromisoformat(m2_info["started_at"])
        m1 = _utterances(folder / "meeting1.jsonl", m1_start)
        m2 = _utterances(folder / "meeting2.jsonl", m2_start)
        decisions = extract_decisions(m1_info["meeting_id"], m1, m1_start)
        names = sorted({u.speaker_name for u in m1 + m2})
        detector = ChangeDetector(embedder, decisions, meeting_id=m2_info["meeting_id"],
                                  started_at=m2_start, names=names)
        matches = [detector.assess(u, m2[max(0, i - 3):i]) for i, u in enumerate(m2)]
        out.append(Series(folder.name, gold["language"], gold, m1, m2, m2_start, decisions, matches, detector))
    return out


# ---------------------------------------------------------------- scoring (README)
def _resolve(m1_index: int, gold_indices: list[int]) -> int | None:
    distances = sorted((abs(m1_index - g), g) for g in gold_indices)
    if not distances or distances[0][0] > 2:
        return None
    if len(distances) > 1 and distances[1][0] == distances[0][0]:
        return None
    return distances[0][1]


def score_flags(series: Series, flags: list[tuple[int, int]]) -> dict[str, int]:
    """Counts for one series; flags are (m2_index, m1_index)."""
    gold_m1 = [d["index"] for d in series.gold["decisions_m1"]]
    events = series.gold["events_m2"]
    positives = [e for e in events if e["kind"] in {"explicit_change", "implicit_conflict"}]
    negatives = {e["index"] for e in events if e["kind"] in {"consistent", "distractor"}}
    used: set[int] = set()
    counts = {"tp": 0, "flags": len(flags), "positives": len(positives), "explicit": 0, "implicit": 0,
              "tp_explicit": 0, "tp_implicit": 0, "negatives": len(negatives), "false_alarms": 0,
              "detected": 0}
    for e in positives:
        counts["explicit" if e["kind"] == "explicit_change" else "implicit"] += 1
    for m2_index, m1_index in flags:
        resolved = _resolve(m1_index, gold_m1)
        for k, e in enumerate(positives):
            if k not in used and e["index"] == m2_index and resolved == e["refers_to_m1_index"]:
                used.add(k)
                counts["tp"] += 1
                counts["tp_explicit" if e["kind"] == "explicit_change" else "tp_implicit"] += 1
                break
        if m2_index in negatives:
            counts["false_alarms"] += 1
    flagged_lines = {m2 for m2, _ in flags}
    counts["detected"] = sum(1 for e in positives if e["index"] in flagged_lines)
    return counts


def _sum(counts: list[dict[str, int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for c in counts:
        for k, v in c.items():
            total[k] = total.get(k, 0) + v
    return total


def _figures(c: dict[str, int]) -> dict[str, float]:
    p = c["tp"] / c["flags"] if c["flags"] else 0.0
    r = c["tp"] / c["positives"] if c["positives"] else 0.0
    return {
        "precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
        "explicit_recall": c["tp_explicit"] / c["explicit"] if c["explicit"] else 0.0,
        "implicit_recall": c["tp_implicit"] / c["implicit"] if c["implicit"] else 0.0,
        "false_alarm": c["false_alarms"] / c["negatives"] if c["negatives"] else 0.0,
        "detection_recall": c["detected"] / c["positives"] if c["positives"] else 0.0,
    }


# ---------------------------------------------------------------- systems
def detector_flags(series: Series, settings: ChangeSettings) -> list[tuple[int, int]]:
    detector = series.detector
    detector.settings = settings
    flags = []
    for i, matches in enumerate(series.matches):
        best = detector.select(matches)
        if best is not None:
            flags.append((i, detector.decisions[best.index].seq - 1))
    return flags


def baseline_flags(series: Series) -> list[tuple[int, int]]:
    """Cue-word rule: a line with a change cue points at the decision sharing most words."""
    if not series.decisions:
        return []
    decision_words = [set(content_tokens(d.quote)) for d in series.decisions]
    flags = []
    for i, u in enumerate(series.m2):
        if BASELINE_CUES.search(u.text):
            words = set(content_tokens(u.text))
            best = max(range(len(decision_words)), key=lambda k: len(words & decision_words[k]))
            flags.append((i, series.decisions[best].seq - 1))
    return flags


def decision_recall(series: Series) -> tuple[int, int, int]:
    gold = {d["index"] for d in series.gold["decisions_m1"]}
    got = {d.seq - 1 for d in series.decisions}
    return len(gold & got), len(gold), len(got)


# ---------------------------------------------------------------- cross-validation
def _grid() -> list[ChangeSettings]:
    return [ChangeSettings(embed_weight=w, min_score=t, explicit_bonus=b)
            for w, t, b in itertools.product(WEIGHTS, THRESHOLDS, BONUSES)]


def _best_settings(train: list[Series]) -> ChangeSettings:
    """The best train F1 (then fewest false alarms); among tied settings, the middle of the
    plateau, so the choice does not sit on the edge of what the training series allow."""
    def key(settings: ChangeSettings) -> tuple[float, float]:
        fig = _figures(_sum([score_flags(s, detector_flags(s, settings)) for s in train]))
        return round(fig["f1"], 6), -round(fig["false_alarm"], 6)

    scored = [(key(settings), settings) for settings in _grid()]
    best = max(k for k, _ in scored)
    tied = [settings for k, settings in scored if k == best]
    return tied[len(tied) // 2]


def cross_validate(series: list[Series]) -> tuple[dict[str, dict[str, int]], list[dict]]:
    """Leave one series out: tune on five, flag the sixth."""
    held_out: dict[str, dict[str, int]] = {}
    folds = []
    for s in series:
        settings = _best_settings([t for t in series if t is not s])
        counts = score_flags(s, detector_flags(s, settings))
        held_out[s.series_id] = counts
        folds.append({"series": s.series_id, "embed_weight": settings.embed_weight,
                      "min_score": settings.min_score, "bonus": settings.explicit_bonus, **_figures(counts)})
    return held_out, folds


# ---------------------------------------------------------------- speed
def speed(series: list[Series], meetings: int = 20) -> dict[str, float]:
    """`check` per meeting-2 line with a ledger of `meetings` meetings' decisions (the
    development decisions, repeated under new meeting ids), fresh embedding cache."""
    pool = [d for s in series for d in s.decisions]
    per_meeting = max(1, len(pool) // len(series))
    ledger = []
    for m in range(meetings):
        for k in range(per_meeting):
            d = pool[(m * per_meeting + k) % len(pool)]
            ledger.append(d.model_copy(update={"id": f"ledger{m}#{d.id}", "meeting_id": f"ledger{m}"}))
    embedder = CachedEmbedder(USEEmbedder())
    timings = []
    for s in series:
        detector = ChangeDetector(embedder, ledger, meeting_id="speed", started_at=s.m2_start,
                                  names=sorted({u.speaker_name for u in s.m2}))
        for i, u in enumerate(s.m2):
            start = time.perf_counter()
            detector.check(u, s.m2[max(0, i - 3):i])
            timings.append((time.perf_counter() - start) * 1000)
    return {"decisions": len(ledger), "lines": len(timings), "p50": float(np.percentile(timings, 50)),
            "p95": float(np.percentile(timings, 95)), "max": max(timings)}


# ---------------------------------------------------------------- report
def _pct(x: float) -> str:
    return f"{x:.2f}"


def _rows(label: str, counts: dict[str, int]) -> list[object]:
    f = _figures(counts)
    return [label, _pct(f["precision"]), _pct(f["recall"]), _pct(f["f1"]), _pct(f["explicit_recall"]),
            _pct(f["implicit_recall"]), _pct(f["false_alarm"]), _pct(f["detection_recall"]),
            f"{counts['tp']}/{counts['flags']}/{counts['positives']}"]


def _by_language(series: list[Series], per_series: dict[str, dict[str, int]]) -> list[tuple[str, dict[str, int]]]:
    out = [("all", _sum(list(per_series.values())))]
    for lang in ("ko", "en"):
        out.append((lang, _sum([per_series[s.series_id] for s in series if s.language == lang])))
    return out


def _action_scores() -> dict | None:
    try:
        from decisions_actions import score_actions  # helper C's action-item scoring
    except ImportError:
        return None
    return score_actions()


_INTRO = """Meeting 1 of each series gives the ledger (decisions extracted by `extract_decisions`, no gold);
every meeting-2 line goes through `ChangeDetector.check` (LLM-free). Strict scoring of the data
set's README (flag names the decision by its line; snapped to the nearest gold decision within 2 lines).
Caveat: the cross-validation covers the three numeric settings only. The Korean and English cue
patterns (settling forms, hedges, conditions) were written while reading these development series,
so these figures are an upper bound for the held-out half. The baseline here points at the decisions
this script extracts; the README's own baseline figures are P 0.24, R 0.33, F1 0.28, implicit R 0."""


def change_section(series: list[Series]) -> str:
    held_out, folds = cross_validate(series)
    defaults = ChangeSettings()
    chosen_on_all = _best_settings(series)
    full = {s.series_id: score_flags(s, detector_flags(s, defaults)) for s in series}
    baseline = {s.series_id: score_flags(s, baseline_flags(s)) for s in series}
    header = ["system", "P", "R", "F1", "explicit R", "implicit R", "false alarm", "detection R", "TP/flags/pos"]
    rows = [_rows(f"ChangeDetector, held-out (LOSO) — {lang}", c) for lang, c in _by_language(series, held_out)]
    label = f"w={defaults.embed_weight} t={defaults.min_score} b={defaults.explicit_bonus}"
    rows += [_rows(f"ChangeDetector, defaults {label} — {lang}", c) for lang, c in _by_language(series, full)]
    rows += [_rows(f"cue-word baseline — {lang}", c) for lang, c in _by_language(series, baseline)]
    fold_f1 = [f["f1"] for f in folds]
    fold_rows = [[f["series"], f["embed_weight"], f["min_score"], f["bonus"], _pct(f["precision"]), _pct(f["recall"]),
                  _pct(f["f1"]), _pct(f["false_alarm"])] for f in folds]
    return "\n".join([
        _INTRO, "", "Change detection (micro over series):", "", markdown_table(header, rows), "",
        f"Leave-one-series-out: (embed_weight, min_score, explicit_bonus) tuned for F1 on five series over a grid of "
        f"{len(_grid())}, applied to the sixth. Held-out F1 per fold: mean {statistics.mean(fold_f1):.2f}, "
        f"min {min(fold_f1):.2f}, max {max(fold_f1):.2f}, stdev {statistics.pstdev(fold_f1):.2f}. "
        f"The same rule on all six series picks embed_weight={chosen_on_all.embed_weight}, "
        f"min_score={chosen_on_all.min_score}, explicit_bonus={chosen_on_all.explicit_bonus} (the "
        f"`ChangeSettings` defaults are {defaults.embed_weight}, {defaults.min_score}, {defaults.explicit_bonus}).",
        "", markdown_table(["held-out series", "embed_weight", "min_score", "explicit_bonus", "P", "R", "F1",
                           "false alarm"], fold_rows),
    ])


def decision_section(series: list[Series]) -> str:
    dec = {s.series_id: decision_recall(s) for s in series}
    rows = []
    for lang in ("all", "ko", "en"):
        picked = [dec[s.series_id] for s in series if lang == "all" or s.language == lang]
        hit, gold, got = (sum(x[i] for x in picked) for i in range(3))
        rows.append([lang, f"{hit}/{gold}", _pct(hit / gold), got])
    return "\n".join(["Decision recall on the meeting-1 decisions (extracted line == gold line):", "",
                      markdown_table(["language", "found", "recall", "decisions extracted"], rows)])


def _sample(name: str, started_at: datetime) -> tuple[list[Utterance], dict]:
    facts = json.loads((EXAMPLES / f"{name}.facts.json").read_text(encoding="utf-8"))
    return _utterances(EXAMPLES / f"{name}.jsonl", started_at), facts


def sample_section(embedder) -> str:  # noqa: ANN001
    """The sample meetings: their planted decisions, and the demo series' planted changes."""
    rows = []
    start = datetime.fromisoformat("2026-05-04T10:00:00+09:00")
    for name in ("ko_product_planning", "en_sprint_review"):
        utterances, facts = _sample(name, start)
        found = {d.seq for d in extract_decisions(name, utterances, start)}
        hit = sum(1 for f in facts["decisions"] if f["seq"] in found)
        rows.append([name, f"{hit}/{len(facts['decisions'])}", len(found)])
    second = json.loads((EXAMPLES / "ko_product_planning_2.facts.json").read_text(encoding="utf-8"))
    first_start = datetime.fromisoformat(second["previous_meeting"]["started_at"])
    second_start = datetime.fromisoformat(second["started_at"])
    m1, _ = _sample("ko_product_planning", first_start)
    m2, _ = _sample("ko_product_planning_2", second_start)
    detector = ChangeDetector(embedder, extract_decisions("demo-1", m1, first_start), meeting_id="demo-2",
                              started_at=second_start, names=sorted({u.speaker_name for u in m1 + m2}))
    flags = {}
    for i, u in enumerate(m2):
        change = detector.check(u, m2[max(0, i - 3):i])
        if change is not None:
            flags[u.id] = (change.kind, change.past.seq)
    planted = {c["seq"]: (c["kind"], c["meeting1_seq"]) for c in second["changes"]}
    right = sum(1 for seq, v in planted.items() if flags.get(seq) == v)
    wrong = sum(1 for c in second["non_changes"] if c["seq"] in flags)
    return "\n".join([
        "Sample meetings (examples/meetings): planted decisions found on their line, and the demo series",
        f"(ko_product_planning -> _2): {right}/{len(planted)} planted changes found with the right kind and "
        f"past decision, {wrong}/{len(second['non_changes'])} restatements/distractors flagged, "
        f"{len(flags)} flags in all.", "",
        markdown_table(["meeting", "decisions found", "decisions extracted"], rows),
    ])


def speed_section(series: list[Series]) -> str:
    timing = speed(series)
    return (f"Speed: `ChangeDetector.check` per meeting-2 line with a {timing['decisions']}-decision ledger "
            f"(20 meetings), fresh embedding cache, {timing['lines']} lines: p50 {timing['p50']:.1f} ms, "
            f"p95 {timing['p95']:.1f} ms, max {timing['max']:.1f} ms (target p95 <= 20 ms).")


def action_section() -> str | None:
    actions = _action_scores()
    if actions is None:
        return None
    keys = ["precision", "recall", "f1", "owner_accuracy", "due_accuracy"]
    rows = [[k] + [_pct(v[m]) if isinstance(v.get(m), float) else v.get(m) for m in keys]
            for k, v in actions.items() if k in {"all", "ko", "en"} and isinstance(v, dict)]
    return "\n".join(["Action items (`score_actions()` of benchmarks/decisions_actions.py):", "",
                      markdown_table(["scope", *keys], rows)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = parser.parse_args()
    embedder = load_embedder("use-multilingual")
    series = load_series(embedder)
    sections = [change_section(series), decision_section(series), sample_section(embedder),
                speed_section(series), action_section()]
    text = "\n\n".join(s for s in sections if s)
    print(text)
    if not args.no_write:
        write_results_section("Decisions and changes (benchmarks/decisions.py)", text)


if __name__ == "__main__":
    main()
