"""Where held-out change recall is lost, stage by stage (issue 18, item 2).

The training pipeline's view of `record_decisions.py`'s leave-one-series-out run: out-of-fold settle
probabilities, the pair rows of `training_pairs.pair_rows`, a pair model fitted on the other 17
series with its threshold from the inner leave-one-series-out (`choose_pair_threshold`), and the
live rule (`announced`: the most probable active decision, retired once changed). Each of the 66
gold changes is put in the first stage that loses it:

  a  no listed meeting-1 line snaps to the decision (not even a candidate)
  f  the decision was already retired by a flag on an earlier line
  c  the pair is gated out by `pair_model.plausible` (no value of the decision's type, no name)
  e  the line is flagged, but for another decision
  b  the pair passes the gate but has no value differing from the decision's (nor a name or
     choice swap): a value not extracted or not normalised, or a cancellation with no value
  d  the pair scores below the threshold

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/record_change_stages.py [--cache DIR] [--items]

(One BLAS thread: on a shared machine the many small fits are far faster single-threaded.)
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT  # noqa: E402

from mithub.learn.estimator import LogisticModel  # noqa: E402
from mithub.record import training_decisions as T  # noqa: E402
from mithub.record.pair_model import PAIR_FEATURES, plausible  # noqa: E402
from mithub.record.settle_model import settle_model  # noqa: E402
from mithub.record.training_pairs import SeriesPairs, pair_rows, snap  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data"
POSITIVE = ("explicit_change", "implicit_conflict")
SWAPS = ("values_differ", "name_new", "choice_other", "choice_turned_down", "context_values_differ")


class Pairs:
    """Each series' pair rows as matrices, and pair models fitted on sets of series (cached)."""

    def __init__(self, per_series: dict[str, SeriesPairs]) -> None:
        self.per = per_series
        self.mats = {}
        for sid, sp in per_series.items():
            rows = sp.rows
            X = np.asarray([[r[n] for n in PAIR_FEATURES] for r in rows], dtype=np.float64)
            self.mats[sid] = (X.reshape(-1, len(PAIR_FEATURES)), np.asarray([plausible(r) for r in rows], bool), sp.labels)
        self._fits: dict[frozenset[str], LogisticModel] = {}

    def fit(self, ids: list[str]) -> LogisticModel:
        key = frozenset(ids)
        if key not in self._fits:  # the same as training_decisions.fit_pair, on cached matrices
            X = np.vstack([self.mats[i][0][self.mats[i][1]] for i in ids])
            y = np.concatenate([self.mats[i][2][self.mats[i][1]] for i in ids])
            self._fits[key] = LogisticModel(PAIR_FEATURES, l2=T.PAIR_L2).fit(X, y)
        return self._fits[key]

    def flags(self, model: LogisticModel, sid: str) -> list[tuple[int, list[float]]]:
        X, gate, _ = self.mats[sid]
        p = model.predict_proba(X) * gate if len(X) else np.zeros(0)
        out, k = [], 0
        for line, group in zip(self.per[sid].lines, self.per[sid].groups, strict=True):
            out.append((line, [float(x) for x in p[k:k + len(group)]]))
            k += len(group)
        return out

    def out_of_fold(self, ids: list[str]) -> T.Flags:
        return {i: (self.per[i].decision_lines, self.flags(self.fit([j for j in ids if j != i]), i)) for i in ids}


def stage(s: T.Series, sp: SeriesPairs, flags: list, mine: list, event: dict, threshold: float) -> str:
    i, ref = event["index"], event["refers_to_m1_index"]
    gold = sorted(d["index"] for d in s.gold["decisions_m1"])
    flagged = {line: j for line, j, _ in mine}
    if i in flagged and snap(gold, flagged[i]) == ref:
        return "found"
    cols = [k for k, j in enumerate(sp.decision_lines) if snap(gold, j) == ref]
    if not cols:
        return "a"
    g = sp.lines.index(i)
    k = max(cols, key=lambda c: flags[g][1][c])
    retired = [line for line, j, _ in mine if j == sp.decision_lines[k] and line < i]
    row = sp.groups[g][k]
    if retired:
        return "f"
    if not plausible(row):
        return "c"
    if i in flagged:
        return "e"
    if not any(row[n] for n in SWAPS):
        return "b"
    return "d" if flags[g][1][k] < threshold else "e"


def run(cache: Path | None) -> tuple[Counter, list[dict]]:
    corpus = T.load_corpus(DATA, cache)
    oof_full = T.out_of_fold_settle(corpus.meetings, 2)
    oof_live = T.out_of_fold_settle(corpus.meetings, 0)
    shown = settle_model(live=False).threshold  # adoptions listed at the shipped threshold
    pairs = Pairs({s.series_id: pair_rows(s, oof_full[s.m1.meeting_id], oof_live[s.m2.meeting_id], T.FLOOR, shown)
                   for s in corpus.series})
    counts: Counter = Counter()
    items = []
    for s in corpus.series:
        rest = [t.series_id for t in corpus.series if t.series_id != s.series_id]
        threshold, _ = T.choose_pair_threshold(pairs.out_of_fold(rest), [t for t in corpus.series if t.series_id in rest])
        sp = pairs.per[s.series_id]
        flags = pairs.flags(pairs.fit(rest), s.series_id)
        mine = T.announced(sp.decision_lines, flags, threshold)
        for event in (e for e in s.gold["events_m2"] if e["kind"] in POSITIVE):
            st = stage(s, sp, flags, mine, event, threshold)
            counts[(st, event["kind"])] += 1
            items.append({"series": s.series_id, "line": event["index"], "kind": event["kind"], "stage": st,
                          "text": s.m2.turns[event["index"]].text[:100]})
    return counts, items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, default=Path("/tmp/mithub_record_cache"))
    ap.add_argument("--items", action="store_true", help="list every gold change and its stage")
    args = ap.parse_args()
    counts, items = run(args.cache)
    print("| stage | explicit | implicit | all |\n|---|---|---|---|")
    for st in ("found", "a", "b", "c", "d", "e", "f"):
        e, i = counts[(st, "explicit_change")], counts[(st, "implicit_conflict")]
        print(f"| {st} | {e} | {i} | {e + i} |")
    if args.items:
        for item in items:
            print(json.dumps(item, ensure_ascii=False))


if __name__ == "__main__":
    main()
