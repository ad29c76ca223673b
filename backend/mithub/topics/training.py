"""Fit the topic boundary model (topics/boundary.py) on the benchmark data and write its weights
and model card into topics/weights/:

    python -m mithub.topics.training --data ../shared/benchmarks/data [--cache /tmp/topics]

Data (topics/training_data.py): the 162 QMSum train meetings and the invented series with
topics.json. Each candidate turn gets the online features of topics/features.py and the label
"a gold topic starts here"; turns no gold span covers are left out. Every source weighs the
same in the fit, every meeting the same within its source, and boundaries as much as the rest
within a source (QMSum has one boundary per 150 turns, the series one per 12).

Chosen by cross-validation, never on the data scored: the L2 strength, and the decision rule
(threshold, peak radius, minimum gap as a share of the meeting so far, shortest gap). Folds:
5 over QMSum meetings (a fixed seed) and one per series (leave the whole series out); each held-
out unit is predicted by a model fitted on everything else. The rule minimises the mean of the
two sources' Pk, so a rule that only suits 500-turn meetings or only 60-turn ones loses. The fit
is deterministic (Newton's method, no random start), so two runs write the same file.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mithub.embedders import Embedder
from mithub.learn.estimator import LogisticModel
from mithub.topics.boundary import BoundaryModel, default_weights_path
from mithub.topics.features import FEATURE_NAMES, RIGHT_TURNS, meeting_candidates
from mithub.topics.metrics import MeetingScore, PkScorer, average, score_meeting
from mithub.topics.peaks import DecisionRule, accept_peaks, candidate_peaks, pick_boundaries
from mithub.topics.training_data import Meeting, RawMeeting, build_meetings, load_extra, load_raw

SEED = 20260524
QMSUM_FOLDS = 5
# The weights sum to 1 per source, so these are strong penalties: the features are many and
# correlated, and a sharp fit to one source does not carry over to the other.
L2_GRID = (1.0, 10.0)
# A boundary is fuzzy by a turn or so (the greeting before an item, the chair's "okay"): the
# turns next to a gold boundary are labelled positive too.
LABEL_TOLERANCE = 1
# The lookahead the live detector had before this model (27 turns) bounds the peak radius.
MAX_LOOKAHEAD = 27
THRESHOLDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
RADII = (2, 4, 6, 8)
GAP_RATIOS = (0.0, 0.1, 0.2, 0.3, 0.4)
GAP_TURNS = (2, 6)
STEPS = (0.0, 0.5)
SMOOTHING = (0, 2)


@dataclass(frozen=True)
class MeetingRows:
    raw: RawMeeting
    X: np.ndarray  # one row per candidate position 1..n-1
    y: np.ndarray
    labelled: np.ndarray

    @property
    def turn_topic(self) -> list[int]:
        return [0 if covered else -1 for covered in self.raw.labelled]


def meeting_rows(meeting: Meeting) -> MeetingRows:
    candidates = meeting_candidates(meeting.turns)
    n = len(meeting.turns)
    X = np.vstack([c.values for c in candidates]) if candidates else np.zeros((0, len(FEATURE_NAMES)))
    positions = np.arange(1, n)
    near = {b + d for b in meeting.raw.boundaries for d in range(-LABEL_TOLERANCE, LABEL_TOLERANCE + 1)}
    y = np.array([float(p in near) for p in positions])
    labelled = np.array([meeting.raw.labelled[p] for p in positions], dtype=bool)
    return MeetingRows(meeting.raw, X, y, labelled)


def sample_weights(rows: Sequence[MeetingRows]) -> np.ndarray:
    """Each source weighs 1, each meeting equally within it, positives as much as negatives."""
    by_source: dict[str, list[int]] = {}
    for index, item in enumerate(rows):
        by_source.setdefault(item.raw.source, []).append(index)
    weights = []
    for index, item in enumerate(rows):
        members = by_source[item.raw.source]
        w = np.where(item.labelled, 1.0, 0.0) / max(1, int(item.labelled.sum())) / len(members)
        weights.append(w)
    out = np.concatenate(weights)
    y = np.concatenate([r.y for r in rows])
    sources = np.concatenate([[r.raw.source] * len(r.y) for r in rows])
    for source in by_source:
        in_source = sources == source
        positive, negative = out[in_source & (y == 1)].sum(), out[in_source & (y == 0)].sum()
        if positive > 0 and negative > 0:
            out[in_source & (y == 1)] *= 0.5 / positive
            out[in_source & (y == 0)] *= 0.5 / negative
    return out


def fit(rows: Sequence[MeetingRows], l2: float) -> LogisticModel:
    X = np.vstack([r.X for r in rows])
    y = np.concatenate([r.y for r in rows])
    w = sample_weights(rows)
    keep = w > 0
    return LogisticModel(FEATURE_NAMES, l2=l2).fit(X[keep], y[keep], sample_weight=w[keep])


def probabilities(model: LogisticModel, item: MeetingRows) -> np.ndarray:
    """P(boundary) per turn position (position 0: 0)."""
    p = model.predict_proba(item.X) if len(item.X) else np.zeros(0)
    return np.concatenate([[0.0], p])


def fold_units(rows: Sequence[MeetingRows]) -> list[list[int]]:
    """Held-out units: 5 folds of QMSum meetings (seeded shuffle), then one per series."""
    qmsum = sorted((i for i, r in enumerate(rows) if r.raw.source == "qmsum"), key=lambda i: rows[i].raw.meeting_id)
    order = np.random.default_rng(SEED).permutation(len(qmsum))
    units = [[qmsum[j] for j in sorted(order[k::QMSUM_FOLDS])] for k in range(QMSUM_FOLDS)] if qmsum else []
    groups: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        if r.raw.source != "qmsum":
            groups.setdefault(r.raw.group, []).append(i)
    return units + [groups[g] for g in sorted(groups)]


def out_of_fold(rows: Sequence[MeetingRows], units: list[list[int]], l2: float) -> list[np.ndarray]:
    predicted: list[np.ndarray] = [np.zeros(0)] * len(rows)
    for unit in units:
        held = set(unit)
        model = fit([r for i, r in enumerate(rows) if i not in held], l2)
        for i in unit:
            predicted[i] = probabilities(model, rows[i])
    return predicted


def rule_grid() -> list[DecisionRule]:
    grid = itertools.product(THRESHOLDS, RADII, GAP_RATIOS, GAP_TURNS, STEPS, SMOOTHING)
    rules = [DecisionRule(t, r, g, m, s, w) for t, r, g, m, s, w in grid]
    return [rule for rule in rules if RIGHT_TURNS - 1 + rule.smoothing + rule.radius <= MAX_LOOKAHEAD]


def score_rules(
    rows: Sequence[MeetingRows], predicted: Sequence[np.ndarray], rules: Sequence[DecisionRule]
) -> np.ndarray:
    """Pk of every rule (rows) on every meeting (columns). Peaks depend only on the smoothing
    and the radius, so they are found once per pair and the other parameters filter them."""
    out = np.zeros((len(rules), len(rows)))
    groups: dict[tuple[int, int], list[int]] = {}
    for i, rule in enumerate(rules):
        groups.setdefault((rule.smoothing, rule.radius), []).append(i)
    for j, (item, p) in enumerate(zip(rows, predicted, strict=True)):
        scorer = PkScorer(item.turn_topic, item.raw.boundaries)
        for (smoothing, radius), members in groups.items():
            peaks, scores = candidate_peaks(p, smoothing, radius)
            seen: dict[tuple[int, ...], float] = {}
            for i in members:
                chosen = tuple(accept_peaks(peaks, scores, rules[i]))
                if chosen not in seen:
                    seen[chosen] = scorer.pk(chosen)
                out[i, j] = seen[chosen]
    return out


def objective(pk: np.ndarray, rows: Sequence[MeetingRows], members: Sequence[int]) -> np.ndarray:
    """Mean over sources of the mean Pk of `members` in that source, for every rule."""
    sources = sorted({rows[j].raw.source for j in members})
    parts = [pk[:, [j for j in members if rows[j].raw.source == s]].mean(axis=1) for s in sources]
    return np.mean(parts, axis=0)


@dataclass(frozen=True)
class CrossValidation:
    l2: float
    rule: DecisionRule  # chosen on all out-of-fold predictions (the shipped rule)
    predictions: dict[str, list[int]]  # meeting_id -> boundaries; each unit's rule chosen without it
    scores: dict[str, MeetingScore]
    units: list[list[str]]
    objective_by_l2: dict[float, float]


def cross_validate(rows: Sequence[MeetingRows], l2_grid: Sequence[float] = L2_GRID) -> CrossValidation:
    units = fold_units(rows)
    rules = rule_grid()
    everyone = list(range(len(rows)))
    best: tuple[float, float, list[np.ndarray], np.ndarray] | None = None
    by_l2 = {}
    for l2 in l2_grid:
        predicted = out_of_fold(rows, units, l2)
        pk = score_rules(rows, predicted, rules)
        value = float(objective(pk, rows, everyone).min())
        by_l2[l2] = value
        if best is None or value < best[0] - 1e-12:
            best = (value, l2, predicted, pk)
    assert best is not None
    _, l2, predicted, pk = best
    chosen: dict[str, list[int]] = {}
    scores: dict[str, MeetingScore] = {}
    for unit in units:
        rest = [j for j in everyone if j not in set(unit)]
        rule = rules[int(np.argmin(objective(pk, rows, rest)))]
        for j in unit:
            item = rows[j]
            chosen[item.raw.meeting_id] = pick_boundaries(predicted[j], rule)
            scores[item.raw.meeting_id] = score_meeting(item.turn_topic, item.raw.boundaries, chosen[item.raw.meeting_id])
    shipped = rules[int(np.argmin(objective(pk, rows, everyone)))]
    return CrossValidation(l2, shipped, chosen, scores,
                           [[rows[j].raw.meeting_id for j in unit] for unit in units], by_l2)


def summary(rows: Sequence[MeetingRows], cv: CrossValidation) -> dict[str, Any]:
    """CV figures per source, and per QMSum fold against that fold's no-boundary Pk."""
    by_id = {r.raw.meeting_id: r for r in rows}
    out: dict[str, Any] = {}
    for source in sorted({r.raw.source for r in rows}):
        ids = [r.raw.meeting_id for r in rows if r.raw.source == source]
        none = [score_meeting(by_id[m].turn_topic, by_id[m].raw.boundaries, []) for m in ids]
        out[source] = {**average([cv.scores[m] for m in ids]), "pk_no_boundary": average(none)["pk"]}
    folds = []
    for unit in cv.units:
        if by_id[unit[0]].raw.source != "qmsum":
            continue
        none = [score_meeting(by_id[m].turn_topic, by_id[m].raw.boundaries, []) for m in unit]
        folds.append({"meetings": len(unit), "pk": average([cv.scores[m] for m in unit])["pk"],
                      "pk_no_boundary": average(none)["pk"]})
    out["qmsum_folds"] = folds
    return out


def load_rows(data: Path, embedder: Embedder, cache: Path | None, qmsum_limit: int | None = None,
              extra: Sequence[Path] = ()) -> tuple[list[MeetingRows], set[str]]:
    """Candidate rows of the benchmark data (and of the `extra` series roots), and the meeting
    ids that came from `extra`. The extras are embedded apart so that the benchmark data's
    embedding cache (keyed by its texts) stays valid with or without them."""
    extras = load_extra(extra)
    meetings = build_meetings(load_raw(data, qmsum_limit), embedder, cache)
    if extras:
        meetings += build_meetings(extras, embedder, cache)
    return [meeting_rows(m) for m in meetings], {r.meeting_id for r in extras}


def train(data: Path, cache: Path | None, qmsum_limit: int | None = None,
          l2_grid: Sequence[float] = L2_GRID, extra: Sequence[Path] = ()) -> tuple[BoundaryModel, dict[str, Any]]:
    from mithub.embedders import load_embedder

    started = time.perf_counter()
    embedder = load_embedder("use-multilingual")
    rows, _ = load_rows(data, embedder, cache, qmsum_limit, extra)
    cv = cross_validate(rows, l2_grid)
    model = BoundaryModel(fit(rows, cv.l2), cv.rule)
    meta = {
        "data": {"qmsum_meetings": sum(r.raw.source == "qmsum" for r in rows),
                 "series_meetings": sum(r.raw.source == "series" for r in rows),
                 "series": sorted({r.raw.group for r in rows if r.raw.source == "series"}),
                 "candidates": int(sum(len(r.y) for r in rows))},
        "embedder": embedder.model_id, "seed": SEED, "l2": cv.l2,
        "cv_objective_by_l2": {str(k): round(v, 4) for k, v in cv.objective_by_l2.items()},
        "cv": _rounded(summary(rows, cv)),
    }
    return model, {**meta, "elapsed": time.perf_counter() - started}


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def main(argv: Sequence[str] | None = None) -> int:
    from mithub.topics.model_card import model_card

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="the benchmark data folder (../shared/benchmarks/data)")
    parser.add_argument("--out", type=Path, default=default_weights_path(), help="weights file to write")
    parser.add_argument("--cache", type=Path, help="folder for cached turn embeddings (.npy)")
    parser.add_argument("--qmsum-limit", type=int, help="first N QMSum meetings only (tests)")
    # Not by default: the project's own series are development data (benchmarks/data/series);
    # RESULTS.md has the held-out figures with and without them.
    parser.add_argument("--extra", type=Path, nargs="*", default=[],
                        help="more series folders with topics.json to train on (e.g. benchmarks/data/series)")
    args = parser.parse_args(argv)
    try:
        model, meta = train(args.data, args.cache, args.qmsum_limit, extra=args.extra)
    except FileNotFoundError as error:
        parser.exit(2, f"error: {error}\n")
    elapsed = meta.pop("elapsed")
    model.save(args.out, meta)
    args.out.with_suffix(".md").write_text(model_card(model, meta), encoding="utf-8")
    print(f"wrote {args.out} and {args.out.with_suffix('.md')} in {elapsed:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
