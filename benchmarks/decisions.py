"""Decisions and changes to past decisions, on ../shared/benchmarks/data/decisions/ (its
README defines the scoring). Replays meeting 1 then meeting 2 of each series through the live
path the worker and `mithub replay` use: every line goes through the ContextManager into an
in-memory store; at a meeting's end `record_meeting` stores its record (decisions, action
items), so meeting 1 forms the series' ledger (no gold used); during meeting 2 a
`DecisionWatch` checks every stored line against that ledger and flags the changes.

Reports change detection (strict P/R/F1, explicit and implicit recall, false-alarm rate on
consistent + distractor lines, detection-only recall), decision recall on the meeting-1
decisions, action items, Korean and English apart, beside the cue-word baseline; the three
ChangeDetector settings are chosen by leave-one-series-out cross-validation (held-out figures
and their spread); the speed of change checking per line in the live path, and of
`ChangeDetector.check` with a 20-meeting ledger.

    .venv/bin/python benchmarks/decisions.py [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
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

from decisions_actions import score_actions, scored_items  # noqa: E402

from mithub.agent.decision_watch import CONTEXT_LINES, DecisionWatch, record_meeting  # noqa: E402
from mithub.clock import ManualClock  # noqa: E402
from mithub.context.factory import create_context_manager  # noqa: E402
from mithub.context.models import Utterance  # noqa: E402
from mithub.context.transcript import read_transcript  # noqa: E402
from mithub.embedders import CachedEmbedder, load_embedder  # noqa: E402
from mithub.embedders.use import USEEmbedder  # noqa: E402
from mithub.jsonl import LineErrors  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.record.changes import ChangeDetector, ChangeSettings, DecisionMatch  # noqa: E402
from mithub.record.meeting_record import MeetingRecord  # noqa: E402
from mithub.record.models import Decision, DecisionChange  # noqa: E402
from mithub.store.memory import InMemoryRepository  # noqa: E402
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


# ---------------------------------------------------------------- the live path
@dataclass
class Replayed:
    """One meeting as the live path stored it."""

    meeting_id: str
    utterances: list[Utterance]  # stored, in seq order (an over-long line is stored in pieces)
    line_of_seq: dict[int, int]  # stored seq -> 0-based line of the jsonl file
    record: MeetingRecord
    check_ms: list[float]  # `DecisionWatch.observe` per line (a watched meeting only)


async def replay_meeting(repo: InMemoryRepository, path: Path, meeting_id: str, series_id: str,
                         started_at: datetime, embedder, *, watch: DecisionWatch | None = None) -> Replayed:  # noqa: ANN001
    """Feed the file line by line as `mithub replay` does (same parser, clock at each line's
    time), let `watch` check what each line stored, then end the meeting and store its record."""
    await repo.ensure_meeting(meeting_id, series_id=series_id, started_at=started_at)
    clock = ManualClock(started_at)
    manager = create_context_manager(meeting_id, repo, embedder=embedder, clock=clock)
    if watch is not None:
        await watch.start()
    errors = LineErrors()
    stored_all: list[Utterance] = []
    line_of_seq: dict[int, int] = {}
    check_ms: list[float] = []
    for number, line in read_transcript(path, errors, meeting_start=started_at):
        clock.set(line.absolute_timestamp)
        stored = await manager.add_utterance(line)
        stored_all += stored
        line_of_seq.update({u.id: number - 1 for u in stored})
        if watch is not None:
            begun = time.perf_counter()
            await watch.observe(stored)
            check_ms.append((time.perf_counter() - begun) * 1000)
    if errors:
        raise SystemExit(f"{path}: {len(errors)} malformed line(s), first: {errors.errors[0]}")
    await manager.finalize()
    record = await record_meeting(repo, meeting_id)
    assert record is not None, meeting_id
    last = stored_all[-1]
    await repo.end_meeting(meeting_id, at=last.absolute_timestamp + timedelta(milliseconds=last.end_ms - last.start_ms))
    return Replayed(meeting_id, stored_all, line_of_seq, record, check_ms)


async def replay_series(paths: tuple[Path, Path], meetings: list[dict], series_id: str,
                        embedder) -> tuple[Replayed, Replayed, DecisionWatch]:  # noqa: ANN001
    """Meeting 1 (its record becomes the ledger), then meeting 2 under a DecisionWatch."""
    repo = InMemoryRepository()
    (m1_info, m2_info) = meetings
    m1_start = datetime.fromisoformat(m1_info["started_at"])
    m2_start = datetime.fromisoformat(m2_info["started_at"])
    m1 = await replay_meeting(repo, paths[0], m1_info["meeting_id"], series_id, m1_start, embedder)
    watch = DecisionWatch(repo, embedder, meeting_id=m2_info["meeting_id"], series_id=series_id,
                          started_at=m2_start)
    m2 = await replay_meeting(repo, paths[1], m2_info["meeting_id"], series_id, m2_start, embedder, watch=watch)
    return m1, m2, watch


@dataclass
class Series:
    series_id: str
    language: str
    gold: dict
    m1: Replayed
    m2: Replayed
    m2_start: datetime
    decisions: list[Decision]  # the stored record of meeting 1
    changes: list[DecisionChange]  # what the DecisionWatch flagged, default settings
    detector: ChangeDetector  # the watch's own
    matches: list[tuple[int, list[DecisionMatch]]]  # (stored seq, matches) per meeting-2 utterance


async def load_series(embedder) -> list[Series]:  # noqa: ANN001
    out = []
    for folder in sorted(p for p in DATA.iterdir() if (p / "gold.json").exists()):
        gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
        paths = (folder / "meeting1.jsonl", folder / "meeting2.jsonl")
        m1, m2, watch = await replay_series(paths, gold["meetings"], folder.name, embedder)
        detector = watch._detector  # built by DecisionWatch.start() from the stored ledger
        assert detector is not None
        # The watch checks each stored line with the CONTEXT_LINES stored before it; the grid of
        # the cross-validation re-scores these same matches (see detector_flags).
        matches = [(u.id, detector.assess(u, m2.utterances[max(0, i - CONTEXT_LINES):i])) for i, u in enumerate(m2.utterances)]
        out.append(Series(folder.name, gold["language"], gold, m1, m2,
                          datetime.fromisoformat(gold["meetings"][1]["started_at"]),
                          list(m1.record.decisions), list(watch.changes), detector, matches))
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
def watch_flags(series: Series) -> list[tuple[int, int]]:
    """The DecisionWatch's changes as (m2_index, m1_index) lines."""
    return [(series.m2.line_of_seq[c.seq], series.m1.line_of_seq[c.past.seq]) for c in series.changes]


def detector_flags(series: Series, settings: ChangeSettings,
                   dropped: list[tuple[int, int]] | None = None) -> list[tuple[int, int]]:
    """What the DecisionWatch flags under `settings`, from the matches of its one replay.
    DecisionWatch builds its ChangeDetector itself and takes no settings; `settings` is a plain
    attribute of the detector, so it is set there (no backend change) and the watch's choice
    per line is repeated: `select`, then skip a decision already changed in this meeting, as
    `ChangeDetector.check` does after `mark_changed` (those lines go to `dropped`)."""
    detector = series.detector
    detector.settings = settings
    changed: set[str] = set()
    flags = []
    for seq, matches in series.matches:
        best = detector.select(matches)
        if best is None:
            continue
        decision = detector.decisions[best.index]
        flag = (series.m2.line_of_seq[seq], series.m1.line_of_seq[decision.seq])
        if decision.id in changed:
            if dropped is not None:
                dropped.append(flag)
            continue
        changed.add(decision.id)
        flags.append(flag)
    return flags


def baseline_flags(series: Series) -> list[tuple[int, int]]:
    """Cue-word rule: a line with a change cue points at the decision sharing most words."""
    if not series.decisions:
        return []
    decision_words = [set(content_tokens(d.quote)) for d in series.decisions]
    flags = []
    for u in series.m2.utterances:
        if BASELINE_CUES.search(u.text):
            words = set(content_tokens(u.text))
            best = max(range(len(decision_words)), key=lambda k: len(words & decision_words[k]))
            flags.append((series.m2.line_of_seq[u.id], series.m1.line_of_seq[series.decisions[best].seq]))
    return flags


def decision_recall(series: Series) -> tuple[int, int, int]:
    gold = {d["index"] for d in series.gold["decisions_m1"]}
    got = {series.m1.line_of_seq[d.seq] for d in series.decisions}
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
        lines = s.m2.utterances
        detector = ChangeDetector(embedder, ledger, meeting_id="speed", started_at=s.m2_start,
                                  names=sorted({u.speaker_name for u in lines}))
        for i, u in enumerate(lines):
            start = time.perf_counter()
            detector.check(u, lines[max(0, i - CONTEXT_LINES):i])
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


_INTRO = """Each series is replayed through the live path (`mithub replay` / the worker): meeting 1 line by line
through the ContextManager into an in-memory store, its record stored by `record_meeting` at its end
(the series' ledger, no gold); then meeting 2, each stored line checked by a `DecisionWatch` against
that ledger (LLM-free). Strict scoring of the data set's README (flag names the decision by its line;
snapped to the nearest gold decision within 2 lines). The DecisionWatch rows are its own flags; the
held-out rows re-score the matches of that same run per setting, as the watch would choose.
Caveat: the cross-validation covers the three numeric settings only. The Korean and English cue
patterns (settling forms, hedges, conditions) were written while reading these development series,
so these figures are an upper bound for the held-out half. The baseline here points at the decisions
this script extracts; the README's own baseline figures are P 0.24, R 0.33, F1 0.28, implicit R 0."""


def _dropped(series: Series, settings: ChangeSettings) -> list[tuple[int, int]]:
    dropped: list[tuple[int, int]] = []
    detector_flags(series, settings, dropped)
    return dropped


def change_section(series: list[Series]) -> str:
    held_out, folds = cross_validate(series)
    defaults = ChangeSettings()
    chosen_on_all = _best_settings(series)
    full = {s.series_id: score_flags(s, watch_flags(s)) for s in series}
    same = sum(1 for s in series if detector_flags(s, defaults) == watch_flags(s))
    dropped = {s.series_id: score_flags(s, _dropped(s, defaults)) for s in series}
    split = sum(len(m.utterances) - len(set(m.line_of_seq.values())) for s in series for m in (s.m1, s.m2))
    baseline = {s.series_id: score_flags(s, baseline_flags(s)) for s in series}
    header = ["system", "P", "R", "F1", "explicit R", "implicit R", "false alarm", "detection R", "TP/flags/pos"]
    rows = [_rows(f"ChangeDetector, held-out (LOSO) — {lang}", c) for lang, c in _by_language(series, held_out)]
    label = f"w={defaults.embed_weight} t={defaults.min_score} b={defaults.explicit_bonus}"
    rows += [_rows(f"DecisionWatch (live), defaults {label} — {lang}", c) for lang, c in _by_language(series, full)]
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
        f"`ChangeSettings` defaults are {defaults.embed_weight}, {defaults.min_score}, {defaults.explicit_bonus}). "
        f"Re-scored with the defaults, the grid gives the DecisionWatch's own flags on {same}/{len(series)} series. "
        f"The watch's rule that a line most about a decision already changed in this meeting is no second "
        f"change dropped {_sum(list(dropped.values()))['flags']} flag(s) with the defaults "
        f"({_sum(list(dropped.values()))['tp']} of them a gold change); lines stored in pieces (over "
        f"`utterance_max_tokens`): {split}.",
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


async def sample_section(embedder) -> str:  # noqa: ANN001
    """The sample meetings through the live path: their planted decisions (facts `seq` is the
    1-based line), and the demo series' planted changes."""
    rows = []
    start = datetime.fromisoformat("2026-05-04T10:00:00+09:00")
    for name in ("ko_product_planning", "en_sprint_review"):
        facts = json.loads((EXAMPLES / f"{name}.facts.json").read_text(encoding="utf-8"))
        meeting = await replay_meeting(InMemoryRepository(), EXAMPLES / f"{name}.jsonl", name, name, start, embedder)
        found = {meeting.line_of_seq[d.seq] + 1 for d in meeting.record.decisions}
        hit = sum(1 for f in facts["decisions"] if f["seq"] in found)
        rows.append([name, f"{hit}/{len(facts['decisions'])}", len(found)])
    second = json.loads((EXAMPLES / "ko_product_planning_2.facts.json").read_text(encoding="utf-8"))
    meetings = [{"meeting_id": "demo-1", "started_at": second["previous_meeting"]["started_at"]},
                {"meeting_id": "demo-2", "started_at": second["started_at"]}]
    paths = (EXAMPLES / "ko_product_planning.jsonl", EXAMPLES / "ko_product_planning_2.jsonl")
    m1, m2, watch = await replay_series(paths, meetings, "demo", embedder)
    flags = {m2.line_of_seq[c.seq] + 1: (c.kind, m1.line_of_seq[c.past.seq] + 1) for c in watch.changes}
    planted = {c["seq"]: (c["kind"], c["meeting1_seq"]) for c in second["changes"]}
    right = sum(1 for seq, v in planted.items() if flags.get(seq) == v)
    wrong = sum(1 for c in second["non_changes"] if c["seq"] in flags)
    return "\n".join([
        "Sample meetings (examples/meetings, the same live path): planted decisions found on their line, and",
        f"the demo series (ko_product_planning -> _2): {right}/{len(planted)} planted changes found with the right "
        f"kind and past decision, {wrong}/{len(second['non_changes'])} restatements/distractors flagged, "
        f"{len(flags)} flags in all.", "",
        markdown_table(["meeting", "decisions found", "decisions extracted"], rows),
    ])


def speed_section(series: list[Series]) -> str:
    live = [ms for s in series for ms in s.m2.check_ms]
    timing = speed(series)
    return (f"Speed in the live path: `DecisionWatch.observe` per meeting-2 line (the ledger of meeting 1, "
            f"{len(live)} lines, embedder shared with the ContextManager as in the worker): "
            f"p50 {np.percentile(live, 50):.1f} ms, p95 {np.percentile(live, 95):.1f} ms, max {max(live):.1f} ms.\n\n"
            f"Speed: `ChangeDetector.check` per meeting-2 line with a {timing['decisions']}-decision ledger "
            f"(20 meetings), fresh embedding cache, {timing['lines']} lines: p50 {timing['p50']:.1f} ms, "
            f"p95 {timing['p95']:.1f} ms, max {timing['max']:.1f} ms (target p95 <= 20 ms).")


def action_section(series: list[Series]) -> str:
    items = {m.meeting_id: scored_items(m.record.action_items, m.line_of_seq) for s in series for m in (s.m1, s.m2)}
    actions = score_actions(extractor=lambda meeting_id, _turns, _started: items[meeting_id])
    keys = ["precision", "recall", "f1", "owner_accuracy", "due_accuracy"]
    rows = [[k] + [_pct(v[m]) if isinstance(v.get(m), float) else v.get(m) for m in keys]
            for k, v in actions.items() if k in {"all", "ko", "en"} and isinstance(v, dict)]
    return "\n".join(["Action items of the stored records of both meetings, scored by `score_actions()` of "
                      "benchmarks/decisions_actions.py:", "", markdown_table(["scope", *keys], rows)])


async def _replay_all(embedder) -> tuple[list[Series], str]:  # noqa: ANN001
    return await load_series(embedder), await sample_section(embedder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="print only, leave RESULTS.md alone")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    embedder = load_embedder("use-multilingual")
    series, samples = asyncio.run(_replay_all(embedder))
    sections = [change_section(series), decision_section(series), samples,
                speed_section(series), action_section(series)]
    text = "\n\n".join(s for s in sections if s)
    print(text)
    if not args.no_write:
        write_results_section("Decisions and changes (benchmarks/decisions.py)", text)


if __name__ == "__main__":
    main()
