"""Training data and fitting for the commitment-turn model (`record.action_model`).

Data (read only here, never at run time): the decisions benchmark's `*/actions.json` (two
meetings per series, gold `index` + `support_indices` and `owner`) and the real meetings'
`real_record/*.gold.json` actions. A row is a (line, candidate owner) pair of
`action_features.pair_rows`; it is positive when a gold item of that owner is settled or
supported on that line (a real meeting's owner "all" is anyone).

Cross-validation holds whole groups out (a series, or one real meeting) so a held-back meeting
never shares a team or a script with the meetings its model was fitted on.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

import numpy as np

from mithub.context.models import Utterance
from mithub.learn.estimator import LogisticModel
from mithub.learn.series_roots import extra_series_roots
from mithub.record.action_features import Candidate, TurnReading, pair_rows
from mithub.record.action_card import model_card
from mithub.record.action_model import REBUILD, WEIGHTS_DIR, DecisionRule, decode

NEAR = 2  # support lines this close to the settling line are positives


@dataclass
class MeetingData:
    meeting_id: str
    group: str  # series id, or "real-<id>"
    kind: str  # "series" | "real"
    language: str
    started_at: datetime
    turns: list[Utterance]
    gold: list[dict]
    cands: list[Candidate] = field(default_factory=list)
    X: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    y: np.ndarray = field(default_factory=lambda: np.zeros(0))
    readings: list[TurnReading] = field(default_factory=list)

    @property
    def meeting_date(self) -> date:
        return self.started_at.date()  # the offset is the meeting's own: its local date


def _turns(lines: Sequence[dict], started_at: datetime) -> list[Utterance]:
    return [
        Utterance(id=i, speaker_id=t.get("speaker_id") or t["speaker_name"], speaker_name=t["speaker_name"],
                  text=t["text"], start_ms=t.get("start_ms", 0), end_ms=t.get("end_ms", 0),
                  absolute_timestamp=started_at + timedelta(milliseconds=t.get("start_ms", 0)))
        for i, t in enumerate(lines, start=1)
    ]


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _series_meetings(root: Path) -> list[MeetingData]:
    """The two meetings of every `<series>/` folder under `root` that has actions.json."""
    out: list[MeetingData] = []
    for folder in sorted(p for p in root.iterdir() if (p / "actions.json").is_file()):
        gold = json.loads((folder / "gold.json").read_text(encoding="utf-8"))
        actions = {m["meeting_id"]: m["actions"] for m in json.loads((folder / "actions.json").read_text(encoding="utf-8"))["meetings"]}
        for n, meeting in enumerate(gold["meetings"], start=1):
            started = datetime.fromisoformat(meeting["started_at"])
            out.append(MeetingData(meeting["meeting_id"], gold["series_id"], "series", gold["language"], started,
                                   _turns(_jsonl(folder / f"meeting{n}.jsonl"), started), actions.get(meeting["meeting_id"], [])))
    return out


def load_extra(roots: Sequence[Path]) -> list[MeetingData]:
    """More series in the benchmark's format, read as the benchmark's series: one more held-out
    group each (`learn.series_roots` checks each root)."""
    return [m for root in extra_series_roots(roots, "actions.json") for m in _series_meetings(root)]


def load_meetings(data: Path, extra: Sequence[Path] = ()) -> list[MeetingData]:
    """Every annotated meeting under `data` (the benchmarks' `data/` folder): `decisions/*/`
    series and `real_record/` meetings, in a fixed order; then the `extra` series roots' (none
    by default: RESULTS.md has the held-out figures with them)."""
    out = _series_meetings(data / "decisions")
    for meta in sorted((data / "real_record").glob("*.gold.json")):
        gold = json.loads(meta.read_text(encoding="utf-8"))
        started = datetime.fromisoformat(gold.get("started_at", "2005-01-10T10:00:00+00:00"))
        turns = _turns(_jsonl(meta.with_name(f"{gold['meeting_id']}.jsonl")), started)
        out.append(MeetingData(gold["meeting_id"], f"real-{gold['meeting_id']}", "real", "en", started, turns,
                               gold["actions"]))
    if not out:
        raise FileNotFoundError(f"no annotated meetings under {data} (expected decisions/*/actions.json, real_record/)")
    return out + load_extra(extra)


def gold_lines(item: dict) -> set[int]:
    return {item["index"], *item.get("support_indices", [])}


def featurise(meetings: Sequence[MeetingData]) -> None:
    """Fill each meeting's candidate rows and labels (line 0-based = seq - 1)."""
    for m in meetings:
        m.cands, m.X, m.readings = pair_rows(m.turns, m.meeting_date)
        # The settling line and its neighbours (the request, the yes) are what a turn model can
        # see; a restatement far away is left out of training rather than called negative.
        near = {(line, g["owner"]) for g in m.gold for line in gold_lines(g) if abs(line - g["index"]) <= NEAR}
        far = {(line, g["owner"]) for g in m.gold for line in gold_lines(g)} - near
        anyone = {line for g in m.gold if g["owner"].lower() == "all" for line in gold_lines(g)}
        m.y = np.array([1.0 if (c.line, c.owner) in near or c.line in anyone else -1.0 if (c.line, c.owner) in far
                        else 0.0 for c in m.cands])


def fit(meetings: Sequence[MeetingData], l2: float) -> LogisticModel:
    from mithub.record.action_features import FEATURE_NAMES

    X = np.vstack([m.X for m in meetings])
    y = np.concatenate([m.y for m in meetings])
    keep = y >= 0
    # Each source counts as much as the other: the real meetings are long and sparse, the
    # invented series short and dense; unweighted, the model would learn one style.
    weights = np.concatenate([np.full(len(m.y), 1.0 / _source_rows(meetings, m.kind)) for m in meetings])
    weights *= len(y) / weights.sum()
    return LogisticModel(FEATURE_NAMES, l2=l2).fit(X[keep], y[keep], sample_weight=weights[keep])


def _source_rows(meetings: Sequence[MeetingData], kind: str) -> int:
    return max(1, sum(len(m.y) for m in meetings if m.kind == kind))


def out_of_fold(meetings: Sequence[MeetingData], l2: float) -> dict[str, np.ndarray]:
    """Each meeting's probabilities from a model fitted without its group."""
    groups = sorted({m.group for m in meetings})
    out: dict[str, np.ndarray] = {}
    for g in groups:
        model = fit([m for m in meetings if m.group != g], l2)
        for m in meetings:
            if m.group == g:
                out[m.meeting_id] = model.predict_proba(m.X)
    return out


# --- the decision rule, chosen on out-of-fold probabilities ------------------------------------

SLACK = {"series": 0, "real": 2}  # the scorers' line tolerance (score_record.py, score_real.py)
L2_GRID = (3.0, 10.0, 30.0)
THRESHOLDS = tuple(round(0.25 + 0.05 * i, 2) for i in range(10))  # 0.25 … 0.70, per language
WINDOWS = (1, 2, 3)
CANDIDATE_FLOOR = 0.2
BETA = 0.5  # reported beside F1: precision counting twice as much as recall
# Precision first: a rule whose shown items are wrong more often than right in either source is
# not taken (a wrong item costs the team's trust); among the others, the best mean F1.
PRECISION_FLOOR = 0.5


def count_matches(gold: Sequence[dict], pred: Sequence[tuple[int, str]], slack: int) -> int:
    """One-to-one matches (augmenting paths): a predicted (line, owner) matches a gold item when
    the line is within `slack` of its index or support lines and the owner is the same ("all"
    is anyone) -- the scorers' rule."""
    edges = {gi: [pi for pi, (line, owner) in enumerate(pred)
                  if any(abs(line - k) <= slack for k in gold_lines(g))
                  and (owner == g["owner"] or g["owner"].lower() == "all")] for gi, g in enumerate(gold)}
    taken: dict[int, int] = {}

    def augment(gi: int, seen: set[int]) -> bool:
        for pi in edges[gi]:
            if pi not in seen:
                seen.add(pi)
                if pi not in taken or augment(taken[pi], seen):
                    taken[pi] = gi
                    return True
        return False

    return sum(augment(gi, set()) for gi in edges)


def source_scores(meetings: Sequence[MeetingData], decoded: dict[str, list], rule: DecisionRule
                  ) -> dict[str, dict[str, float]]:
    """Precision, recall, F1 and F0.5 per source ("series", "real") of the items shown under
    `rule`; `decoded` holds each meeting's pairs decoded at the candidate floor (a pair kept at
    a threshold is kept at every lower one, so the shown items are those at or above it)."""
    out: dict[str, dict[str, float]] = {}
    for kind in ("series", "real"):
        tp = listed = gold = 0
        for m in meetings:
            if m.kind != kind:
                continue
            threshold = rule.threshold_for(m.language)
            shown = [(p.line, p.owner) for p in decoded[m.meeting_id] if p.confidence >= threshold]
            tp += count_matches(m.gold, shown, SLACK[kind])
            listed += len(shown)
            gold += len(m.gold)
        p, r = tp / max(1, listed), tp / max(1, gold)
        f = lambda b: (1 + b * b) * p * r / max(1e-12, b * b * p + r)  # noqa: E731
        out[kind] = {"precision": p, "recall": r, "f1": f(1.0), "f_beta": f(BETA), "matched": tp,
                     "listed": listed, "gold": gold}
    return out


def choose(meetings: Sequence[MeetingData]) -> tuple[float, DecisionRule, dict, dict[str, np.ndarray]]:
    """L2, window and a threshold per language with the best mean F1 of the two sources among
    the rules whose precision is at least PRECISION_FLOOR in both, out of fold (the best mean
    F0.5 if none is)."""
    best: tuple[float, float, DecisionRule, dict, dict[str, np.ndarray]] | None = None
    floor = min(CANDIDATE_FLOOR, THRESHOLDS[0])
    for l2 in L2_GRID:
        oof = out_of_fold(meetings, l2)
        for window in WINDOWS:
            decoded = {m.meeting_id: decode(m.cands, oof[m.meeting_id], DecisionRule(floor, floor, window))
                       for m in meetings}
            for t_ko, t_en in ((k, e) for k in THRESHOLDS for e in THRESHOLDS):
                rule = DecisionRule(t_en, floor, window, {"ko": t_ko, "en": t_en})
                scores = source_scores(meetings, decoded, rule)
                precise = all(s["precision"] >= PRECISION_FLOOR for s in scores.values())
                objective = float(np.mean([s["f1" if precise else "f_beta"] for s in scores.values()])) + precise
                if best is None or objective > best[0] + 1e-12:
                    best = (objective, l2, rule, scores, oof)
    assert best is not None
    return best[1], best[2], best[3], best[4]


# --- one command: `python -m mithub.record.training actions --data DIR` -------------------------


def train_actions(data: Path, out: Path, extra: Sequence[Path] = ()) -> dict:
    """Fit the commitment-turn model on every annotated meeting under `data` (and the `extra`
    series roots), write `actions.json` and its model card `actions.md` to `out`; returns the
    stored metadata."""
    meetings = load_meetings(data, extra)
    featurise(meetings)
    l2, rule, scores, _ = choose(meetings)
    model = fit(meetings, l2)
    n_series = sum(m.kind == "series" for m in meetings)
    meta = {
        "rule": {"threshold": rule.threshold, "candidate_floor": rule.candidate_floor, "window": rule.window,
                 "by_language": rule.by_language},
        "cv": {k: {m: round(v, 4) for m, v in s.items()} for k, s in scores.items()},
        "data": {"series_meetings": n_series, "real_meetings": len(meetings) - n_series,
                 "rows": int(sum(len(m.y) for m in meetings)),
                 "positive_rows": int(sum((m.y == 1).sum() for m in meetings)),
                 "gold_items": int(sum(len(m.gold) for m in meetings))},
        "l2": l2, "seed": None, "rebuild": REBUILD,
    }
    model.save(out / "actions.json", meta=meta)
    (out / "actions.md").write_text(model_card(model, meta), encoding="utf-8")
    return meta


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mithub.record.training actions",
                                 description="Retrain the commitment-turn model (record/weights/actions.json).")
    ap.add_argument("--data", type=Path, required=True, help="the benchmarks' data folder (decisions/, real_record/)")
    ap.add_argument("--out", type=Path, default=WEIGHTS_DIR, help=f"where to write the weights (default {WEIGHTS_DIR})")
    ap.add_argument("--extra", type=Path, nargs="*", default=[],
                    help="more series folders with actions.json to train on (e.g. benchmarks/data/series; "
                         "not by default)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    started = time.perf_counter()
    try:
        meta = train_actions(args.data, args.out, args.extra)
    except FileNotFoundError as error:
        ap.exit(2, f"error: {error}\n")
    print(f"actions: wrote {args.out / 'actions.json'} in {time.perf_counter() - started:.0f} s; rule {meta['rule']}; cv "
          + ", ".join(f"{k} P={s['precision']:.2f} R={s['recall']:.2f} F1={s['f1']:.2f}" for k, s in meta["cv"].items()))
    return 0
