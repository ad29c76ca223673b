"""Fitting the record's decision models (`python -m mithub.record.training decisions`):

    python -m mithub.record.training decisions --data ../shared/benchmarks/data

It fits (seedless and deterministic: the same data gives the same weights, tested):
1. the settle model on the 18 decision series and the 6 real meetings, twice: reading two
   later turns (a finished meeting's decisions) and reading none (the live change check);
2. the change pair model on the series' meeting-2 lines against the meeting-1 decisions the
   settle model lists, using out-of-fold settle probabilities (what an unseen series gets);
3. thresholds by leave-one-series-out (meeting-out for the real meetings) cross-validation,
   for precision; the figures go into the model card beside the weights.
Only training reads `../shared`; the weights (JSON) ship in `mithub/record/weights/`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mithub.learn.estimator import LogisticModel
from mithub.record.pair_model import PAIR_FEATURES, PAIR_FILE, PairModel, plausible
from mithub.record.settle_model import (
    SETTLE_FILE,
    SETTLE_LIVE_FILE,
    WEIGHTS,
    Projection,
    SettleModel,
    embedding_names,
)
from mithub.record.training_data import PROJECT_SERIES, Meeting, Series, load_real, load_series, prepare
from mithub.record.decisions import adoptions_by, listed_lines, with_adoptions
from mithub.record.training_pairs import meeting_infos, meeting_values, pair_rows, snap
from mithub.record.turn_features import vectorize

# Chosen by leave-one-series-out cross-validation (benchmarks/record_decisions.py prints the grid).
EMBED_DIMS = 16
SETTLE_L2 = 3.0
PAIR_L2 = 1.0
FLOOR = 0.1  # a settle probability below it is not kept even as a candidate


@dataclass
class Corpus:
    series: list[Series]
    real: list[Meeting]
    checked: frozenset[str] = frozenset()  # series no model learns from: they only check the change threshold

    @property
    def meetings(self) -> list[Meeting]:
        return [m for s in self.series for m in (s.m1, s.m2)] + self.real

    @property
    def learning_meetings(self) -> list[Meeting]:
        """The meetings the models learn from (every one but the checked series')."""
        return [m for m in self.meetings if m.group not in self.checked]

    @property
    def learning_groups(self) -> frozenset[str]:
        return frozenset(m.group for m in self.learning_meetings)

    @property
    def learning(self) -> list[Series]:
        return [s for s in self.series if s.series_id not in self.checked]


def load_corpus(data: Path, cache_dir: Path | None = None, extra: Sequence[Path] = (),
                check: Sequence[Path] = ()) -> Corpus:
    """The benchmark's series and real meetings; `extra` series are learnt from by every model,
    `check` series by none (their flags take part in choosing the change threshold)."""
    series = load_series(data / "decisions", extra)
    added = [s for s in load_series(data / "decisions", check) if s.series_id not in {t.series_id for t in series}]
    corpus = Corpus(series + added, load_real(data / "real_record"), frozenset(s.series_id for s in added))
    prepare(corpus.meetings, (0, 2), cache_dir)
    return corpus


def turn_names(meetings: Sequence[Meeting], lookahead: int) -> list[str]:
    return sorted(set().union(*(set(r) for m in meetings for r in m.rows[lookahead])))


def projection_of(meetings: Sequence[Meeting], k: int) -> Projection:
    """Principal directions by an eigen-decomposition of the covariance (fast, deterministic)."""
    V = np.vstack([m.vectors for m in meetings]).astype(np.float64)
    mean = V.mean(axis=0)
    C = (V - mean).T @ (V - mean)
    values, vectors = np.linalg.eigh(C)
    comps = vectors[:, ::-1][:, :k].T
    signs = np.sign(comps[np.arange(len(comps)), np.abs(comps).argmax(axis=1)])
    return Projection(mean, comps * signs[:, None])


def fit_settle(meetings: Sequence[Meeting], lookahead: int, names: list[str], projection: Projection,
               *, l2: float = SETTLE_L2, threshold: float = 0.5, floor: float = FLOOR) -> SettleModel:
    X = np.vstack([settle_matrix(m, lookahead, names, projection) for m in meetings])
    y = np.concatenate([np.asarray(m.labels) for m in meetings])
    keep = y >= 0
    estimator = LogisticModel(names + embedding_names(len(projection.components)), l2=l2).fit(X[keep], y[keep])
    return SettleModel(estimator, projection, lookahead, threshold, floor)


def settle_matrix(m: Meeting, lookahead: int, names: list[str], projection: Projection) -> np.ndarray:
    return np.hstack([vectorize(m.rows[lookahead], names), projection.apply(m.vectors)])


def out_of_fold_settle(meetings: Sequence[Meeting], lookahead: int, k: int = EMBED_DIMS,
                       learn: frozenset[str] | None = None) -> dict[str, np.ndarray]:
    """Each meeting's settle probabilities from a model fitted without its group (series or real
    meeting); with `learn`, fitted on those groups only (the others are scored, never learnt)."""
    fit_on = [m for m in meetings if learn is None or m.group in learn]
    names = turn_names(fit_on, lookahead)
    out = {}
    unlearnt = None  # one model, fitted on every learning group, scores the groups never learnt
    for group in sorted({m.group for m in meetings}):
        if learn is not None and group not in learn:
            unlearnt = unlearnt or fit_settle(fit_on, lookahead, names, projection_of(fit_on, k))
            model = unlearnt
        else:
            train = [m for m in fit_on if m.group != group]
            model = fit_settle(train, lookahead, names, projection_of(train, k))
        for m in meetings:
            if m.group == group:
                out[m.meeting_id] = model.estimator.predict_proba(settle_matrix(m, lookahead, names, model.projection))
    return out


def listed(m: Meeting, probs: np.ndarray, threshold: float) -> list[int]:
    """Lines listed as decisions at `threshold`, as `extract_decisions` lists them (a proposal
    adopted by a pro-form is listed at the agreement, with the proposal's values)."""
    adopted = meeting_adoptions(m)
    lifted, values = with_adoptions(adopted, {p: m.turns[p].text for p in adopted.values()}, probs,
                                    meeting_values(m), threshold)
    return listed_lines(lifted, threshold, values)


def meeting_adoptions(m: Meeting) -> dict[int, int]:
    """The meeting's adopted proposals (`decisions.adoptions`), found once per meeting."""
    cached = getattr(m, "_adoptions", None)
    if cached is None:
        cached = adoptions_by([t.speaker for t in m.turns], meeting_infos(m))
        m._adoptions = cached  # type: ignore[attr-defined]
    return cached


def decision_counts(corpus: Corpus, oof: dict[str, np.ndarray], threshold: float) -> tuple[np.ndarray, np.ndarray]:
    """Per series: (meeting-1 decisions found within ±1 line, score_record's rule; gold); per
    real meeting: (reader's decisions matched within 2 lines of their line or its support lines,
    one to one; lines listed; reader's decisions)."""
    series = np.zeros((len(corpus.series), 2))
    for k, s in enumerate(corpus.series):
        chosen = listed(s.m1, oof[s.m1.meeting_id], threshold)
        lines = [d["index"] for d in s.gold["decisions_m1"]]
        series[k] = (sum(any(abs(i - c) <= 1 for c in chosen) for i in lines), len(lines))
    real = np.zeros((len(corpus.real), 3))
    for k, m in enumerate(corpus.real):
        chosen = listed(m, oof[m.meeting_id], threshold)
        real[k] = (_match_real(m, chosen), len(chosen), sum(1 for y in m.labels if y == 1))
    return series, real


def pooled_scores(threshold: float, series: np.ndarray, real: np.ndarray) -> dict[str, float]:
    """Meeting-1 decision recall and the real meetings' precision and recall, pooled over the
    rows of `decision_counts`."""
    found, gold = series.sum(axis=0)
    matched, shown, real_gold = real.sum(axis=0)
    return {"threshold": threshold, "m1_recall": found / gold if gold else 0.0,
            "real_precision": matched / shown if shown else 0.0,
            "real_recall": matched / real_gold if real_gold else 0.0, "real_listed": int(shown)}


def _match_real(m: Meeting, chosen: list[int]) -> int:
    golds = m.gold_lines  # type: ignore[attr-defined]
    owner: dict[int, int] = {}

    def augment(g: int, seen: set[int]) -> bool:
        for p in chosen:
            if p in seen or not any(abs(p - line) <= 2 for line in golds[g]):
                continue
            seen.add(p)
            if p not in owner or augment(owner[p], seen):
                owner[p] = g
                return True
        return False

    return sum(augment(g, set()) for g in range(len(golds)))


SETTLE_GRID = tuple(float(t) for t in np.round(np.arange(0.10, 0.62, 0.02), 2))
BOOTSTRAP_DRAWS = 500
BOOTSTRAP_SEED = 18


def settle_grid(corpus: Corpus, oof: dict[str, np.ndarray]) -> tuple[list[dict[str, float]], np.ndarray, np.ndarray]:
    """The pooled figures at every `SETTLE_GRID` threshold (the model card's table), with the
    counts behind them: (series, threshold, [found, gold]) and (meeting, threshold, [matched,
    listed, gold])."""
    counts = [decision_counts(corpus, oof, t) for t in SETTLE_GRID]
    grid = [pooled_scores(t, *c) for t, c in zip(SETTLE_GRID, counts, strict=True)]
    return grid, np.stack([c[0] for c in counts], axis=1), np.stack([c[1] for c in counts], axis=1)


def choose_settle_threshold(corpus: Corpus, oof: dict[str, np.ndarray]) -> tuple[float, list[dict[str, float]]]:
    """The threshold shown to users (`bagged_settle_threshold` over the out-of-fold counts) and
    the pooled grid."""
    grid, series, real = settle_grid(corpus, oof)
    return bagged_settle_threshold(series, real), grid


def bagged_settle_threshold(series: np.ndarray, real: np.ndarray, grid: Sequence[float] = SETTLE_GRID,
                            draws: int = BOOTSTRAP_DRAWS) -> float:
    """`pick_settle_threshold`'s rule, bagged. On six real meetings and 45 decisions the rule's
    pick jumps between thresholds whose precisions are one or two decisions apart, so a refit
    that moves one decision would move the threshold and every figure behind it. The rule is
    applied to `draws` resamples of the series and of the real meetings (each drawn with
    replacement, a fixed seed), and the grid threshold nearest the median of its picks is taken.
    `series` and `real` are the counts `settle_grid` gives."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    picks = []
    for _ in range(draws):
        s = series[rng.integers(0, len(series), len(series))] if len(series) else series
        r = real[rng.integers(0, len(real), len(real))] if len(real) else real
        picks.append(pick_settle_threshold([pooled_scores(t, s[:, k], r[:, k]) for k, t in enumerate(grid)])["threshold"])
    median = float(np.median(picks))
    return float(min(grid, key=lambda t: (abs(t - median), t)))


def pick_settle_threshold(grid: Sequence[dict[str, float]]) -> dict[str, float]:
    """The rule `bagged_settle_threshold` applies to each resample's grid: among thresholds
    keeping meeting-1 recall >= 0.85 and real recall >= 0.35, the one with the most real-meeting
    precision (a list of "decisions" that are not is worse than none), to two decimals, the higher
    meeting-1 recall deciding between equals; failing that, the best balance of the three."""
    ok = [g for g in grid if g["m1_recall"] >= 0.85 and g["real_recall"] >= 0.35]
    if ok:
        return max(ok, key=lambda g: (round(g["real_precision"], 2), g["m1_recall"]))
    return max(grid, key=lambda g: min(g["m1_recall"] / 0.85, g["real_precision"] / 0.5, g["real_recall"] / 0.35))


def fit_pair(rows: list[dict[str, float]], labels: np.ndarray, *, l2: float = PAIR_L2) -> LogisticModel:
    """The pair estimator, fitted on the plausible pairs (`pair_model.plausible`)."""
    keep = np.asarray([plausible(r) for r in rows], dtype=bool)
    X = np.asarray([[r[n] for n in PAIR_FEATURES] for r in rows], dtype=np.float64)
    return LogisticModel(PAIR_FEATURES, l2=l2).fit(X[keep], labels[keep])


Flags = dict[str, tuple[list[int], list[tuple[int, list[float]]]]]


def announced(decision_lines: list[int], per_line: list[tuple[int, list[float]]], threshold: float
              ) -> list[tuple[int, int, float]]:
    """The live rule: each line's most probable active decision is changed when its probability
    reaches the threshold, and is then retired (a later line about it is no second change)."""
    active = set(range(len(decision_lines)))
    out = []
    for line, probs in per_line:
        if not active:
            break
        j = max(active, key=lambda k: probs[k])
        if probs[j] >= threshold:
            out.append((line, decision_lines[j], probs[j]))
            active.discard(j)
    return out


def change_scores(flags: Flags, series: Sequence[Series], threshold: float) -> dict[str, float]:
    """Changes scored as score_record.py does (the line, and the decision snapped to gold)."""
    tp = n_flags = positives = neg = neg_flagged = implicit = implicit_tp = 0
    for s in series:
        kinds = {e["index"]: e["kind"] for e in s.gold["events_m2"]}
        pos = {e["index"]: e["refers_to_m1_index"] for e in s.gold["events_m2"]
               if e["kind"] in ("explicit_change", "implicit_conflict")}
        hard = {i for i, k in kinds.items() if k in ("consistent", "distractor")}
        gold_lines = sorted(d["index"] for d in s.gold["decisions_m1"])
        mine = announced(*flags[s.series_id], threshold) if s.series_id in flags else []
        hits = {i for i, j, _ in mine if i in pos and snap(gold_lines, j) == pos[i]}
        n_flags += len(mine)
        positives += len(pos)
        neg += len(hard)
        neg_flagged += len({i for i, _, _ in mine} & hard)
        tp += len(hits)
        implicit += sum(kinds[i] == "implicit_conflict" for i in pos)
        implicit_tp += sum(kinds[i] == "implicit_conflict" for i in hits)
    p = tp / n_flags if n_flags else 0.0
    r = tp / positives if positives else 0.0
    return {"threshold": threshold, "precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "implicit_recall": implicit_tp / implicit if implicit else 0.0,
            "false_alarm_rate": neg_flagged / neg if neg else 0.0, "flags": n_flags}


def choose_pair_threshold(flags: Flags, series: Sequence[Series]) -> tuple[float, list[dict[str, float]]]:
    """Precision first (a wrong notice costs the team's trust): among thresholds whose pooled
    precision is at least 0.6, those within 0.02 of the best F1 (differences below that are
    noise on 66 changes), the most precise, counting precisions less than one flag apart as
    equal and taking the best F1 of those (`pick_pair_threshold`)."""
    grid = [change_scores(flags, series, t) for t in np.round(np.arange(0.10, 0.92, 0.02), 2)]
    return float(pick_pair_threshold(grid)["threshold"]), grid


def pick_pair_threshold(grid: Sequence[dict[str, float]]) -> dict[str, float]:
    """`choose_pair_threshold`'s rule over its grid. Precisions less than one flag apart are the
    same (59 of 80 and 62 of 85): among those as precise as the most precise, the best F1."""
    ok = [g for g in grid if g["precision"] >= 0.6] or list(grid)
    top = max(g["f1"] for g in ok)
    near = [g for g in ok if g["f1"] >= top - 0.02]
    best = max(near, key=lambda g: (g["precision"], g["f1"]))
    band = 1 / best["flags"] if best.get("flags") else 0.0
    return max((g for g in near if g["precision"] > best["precision"] - band), key=lambda g: (g["f1"], -g["threshold"]))


def train(data: Path, out: Path, cache_dir: Path | None = None, extra: Sequence[Path] = (),
          check: Sequence[Path] = ()) -> dict:
    started = time.perf_counter()
    corpus = load_corpus(data, cache_dir, extra, check)
    for m in corpus.real:
        m.gold_lines = _real_gold_lines(data / "real_record", m.meeting_id)  # type: ignore[attr-defined]
    meetings = corpus.learning_meetings
    oof_full = out_of_fold_settle(corpus.meetings, 2, learn=corpus.learning_groups)
    oof_live = out_of_fold_settle(corpus.meetings, 0, learn=corpus.learning_groups)
    threshold, grid = choose_settle_threshold(settle_corpus(corpus), oof_full)
    projection = projection_of(meetings, EMBED_DIMS)
    full = fit_settle(meetings, 2, turn_names(meetings, 2), projection, threshold=threshold)
    live = fit_settle(meetings, 0, turn_names(meetings, 0), projection, threshold=threshold)
    # The pair model: out-of-fold pair probabilities by series, then a fit on every series.
    per_series = {s.series_id: pair_rows(s, oof_full[s.m1.meeting_id], oof_live[s.m2.meeting_id], FLOOR, threshold)
                  for s in corpus.series}
    pair, pair_grid = fit_change_model(corpus.learning, [s for s in corpus.series if s.series_id in corpus.checked],
                                       per_series)
    pair_threshold = pair.threshold
    card = {"seconds": round(time.perf_counter() - started, 1), "settle_grid": grid, "pair_grid": pair_grid,
            "settle_threshold": threshold, "pair_threshold": pair_threshold,
            "turns": sum(len(m.turns) for m in meetings), "series": len(corpus.learning),
            "checked": len(corpus.checked), "real": len(corpus.real)}
    out.mkdir(parents=True, exist_ok=True)
    for name, model in ((SETTLE_FILE, full), (SETTLE_LIVE_FILE, live), (PAIR_FILE, pair)):
        (out / name).write_text(json.dumps(model.to_dict(), ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    from mithub.record.training_card import write_card

    write_card(out / "decisions_MODEL_CARD.md", card)
    return card


def settle_corpus(corpus: Corpus) -> Corpus:
    """The corpus the settle threshold is chosen on: without the checked series."""
    return Corpus(corpus.learning, corpus.real)


def fit_change_model(learning: Sequence[Series], checked: Sequence[Series], per_series: dict
                     ) -> tuple[PairModel, list[dict[str, float]]]:
    """The pair model fitted on the `learning` series, its threshold chosen (`choose_pair_threshold`)
    on their out-of-fold flags and on the `checked` series' flags by the fitted model: series by
    other authors that no model learns from, so the threshold is not the one that suits the
    learning series' authors alone."""
    rows = [r for s in learning for r in per_series[s.series_id].rows]
    labels = np.concatenate([per_series[s.series_id].labels for s in learning])
    estimator = fit_pair(rows, labels)
    flags = out_of_fold_pairs(learning, per_series)
    flags.update({s.series_id: (per_series[s.series_id].decision_lines, per_series[s.series_id].flags(estimator))
                  for s in checked})
    threshold, grid = choose_pair_threshold(flags, [*learning, *checked])
    return PairModel(estimator, threshold, floor=min(0.5 * threshold, 0.3)), grid


def out_of_fold_pairs(series: Sequence[Series], per_series: dict) -> Flags:
    """For each series, the best decision per meeting-2 line and its probability, from a pair
    model fitted on the other series."""
    out = {}
    for s in series:
        rows = [r for t in series if t.series_id != s.series_id for r in per_series[t.series_id].rows]
        labels = np.concatenate([per_series[t.series_id].labels for t in series if t.series_id != s.series_id])
        model = fit_pair(rows, labels)
        out[s.series_id] = (per_series[s.series_id].decision_lines, per_series[s.series_id].flags(model))
    return out


def _real_gold_lines(folder: Path, meeting_id: str) -> list[list[int]]:
    gold = json.loads((folder / f"{meeting_id}.gold.json").read_text(encoding="utf-8"))
    return [[d["index"], *d.get("support_indices", [])] for d in gold["decisions"]]


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m mithub.record.training decisions", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("../shared/benchmarks/data"))
    ap.add_argument("--out", type=Path, default=WEIGHTS)
    ap.add_argument("--cache", type=Path, default=None, help="a folder for turn analyses and embeddings")
    # Not by default: fitted with the project's own series too, the held-out figures on the
    # benchmark's series fell (changes F1 0.62 -> 0.55, real decisions P 0.44 -> 0.35; RESULTS.md).
    ap.add_argument("--extra", type=Path, nargs="*", default=[],
                    help=f"more series folders in the same format to train on (e.g. {PROJECT_SERIES})")
    ap.add_argument("--check", type=Path, nargs="*", default=[PROJECT_SERIES] if PROJECT_SERIES.is_dir() else [],
                    help="series folders no model learns from, whose changes take part in choosing the change "
                         f"threshold (default: {PROJECT_SERIES}, other authors than the benchmark's)")
    args = ap.parse_args(argv)
    if not (args.data / "decisions").is_dir() or not (args.data / "real_record").is_dir():
        sys.exit(f"no decisions/ and real_record/ under {args.data}")
    try:
        card = train(args.data, args.out, args.cache, args.extra, args.check)
    except FileNotFoundError as error:
        ap.exit(2, f"error: {error}\n")
    print(json.dumps({k: v for k, v in card.items() if not k.endswith("grid")}, indent=1))


if __name__ == "__main__":
    main()
