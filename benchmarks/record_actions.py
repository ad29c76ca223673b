"""Action items, held out: the commitment-turn model refitted without the meetings it is scored on.

- Invented series (`../shared/benchmarks/data/decisions`): leave one series out -- fit on the other 17
  series and the 6 real meetings, extract the held-back series' items with the whole pipeline (owner,
  due date), score them with `score_actions` of `../shared/benchmarks/score_record.py` (imported, not
  copied): pooled (micro) precision, recall, F1 and due-date accuracy, Korean and English apart, and
  the spread of per-series F1.
- Real meetings (`data/real_record`): leave one meeting out, scored as `score_real.py` scores
  (a listed item within 2 lines of a gold line, same owner; "all" is anyone; one to one).

The decision rule (threshold, window) is the shipped one, itself chosen out of fold by
`record.action_training.choose`. Baselines from the benchmark READMEs and issue 18 beside them.

    .venv/bin/python benchmarks/record_actions.py [--no-write] [--extra benchmarks/data/series]

With `--extra DIR...`: the figures without and with those series in training (`run_extra`).

`run() -> (markdown_table, dict)` is what `benchmarks/record.py` imports.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, load_average, markdown_table, publish  # noqa: E402

from mithub.record import action_training as training  # noqa: E402
from mithub.record.action_model import ActionModel, load_action_model  # noqa: E402
from mithub.record.actions import action_lines, extract_action_items  # noqa: E402

SHARED = REPO_ROOT.parent / "shared" / "benchmarks"
DATA = SHARED / "data"
SECTION = "Action items held out (commitment-turn model)"
SECTION_EXTRA = "Record: action items with the project's own series in training (benchmarks/record_actions.py --extra)"
BASELINES = {"cue-word rule (README)": "series F1 0.46", "project before this work": "series F1 0.73; real P 0.16 R 0.18"}


def _scorer():  # noqa: ANN202 - the benchmark's own module
    spec = importlib.util.spec_from_file_location("score_record", SHARED / "score_record.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _items(meeting: training.MeetingData, model: ActionModel) -> list[dict]:
    items = extract_action_items(meeting.meeting_id, meeting.turns, meeting.meeting_date, model=model)
    return [a.model_dump(mode="json") for a in items if not a.candidate]


def _series(meetings: list[training.MeetingData], l2: float, rule,  # noqa: ANN001
            own: frozenset[str] = frozenset(), train: list[training.MeetingData] | None = None) -> dict:
    """Each series of `meetings` scored by a model fitted on `train` (default: `meetings`) less
    that series; the series in `own` (the extra roots') pooled apart, under "project"."""
    score = _scorer()
    train = meetings if train is None else train
    by_group = defaultdict(list)
    for m in meetings:
        by_group[m.group].append(m)
    acc_all: dict[str, defaultdict] = {k: defaultdict(int) for k in ("all", "ko", "en", "project")}
    per_series = {}
    for group, held in sorted(by_group.items()):
        if held[0].kind != "series":
            continue
        model = ActionModel(training.fit([m for m in train if m.group != group], l2), rule)
        got = {"actions": {"actions": [a for m in held for a in _items(m, model)]}}
        series = {"series_id": group, "meetings": [{"meeting_id": m.meeting_id} for m in held],
                  "actions": {"meetings": [{"meeting_id": m.meeting_id, "actions": m.gold} for m in held]}}
        one: defaultdict = defaultdict(int)
        pooled = (acc_all["project"],) if group in own else (acc_all["all"], acc_all[held[0].language])
        for acc in (*pooled, one):
            score.score_actions(series, got, acc, [])
        per_series[group] = _figures(one)["f1"]
    return {"pooled": {k: _figures(v) for k, v in acc_all.items()}, "per_series_f1": per_series}


def _figures(acc: dict) -> dict:
    p = acc["act_tp"] / acc["act_pred"] if acc["act_pred"] else 0.0
    r = acc["act_tp"] / acc["act_gold"] if acc["act_gold"] else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "due_date_accuracy": acc["act_due_ok"] / acc["act_matched_for_due"] if acc["act_matched_for_due"] else 0.0,
            "listed": acc["act_pred"], "gold": acc["act_gold"]}


def _real(meetings: list[training.MeetingData], l2: float, rule) -> dict:  # noqa: ANN001
    matched = listed = gold = 0
    per = {}
    for held in (m for m in meetings if m.kind == "real"):
        model = ActionModel(training.fit([m for m in meetings if m.group != held.group], l2), rule)
        items = _items(held, model)
        pred = [(a["seq"] - 1, a["owner"]) for a in items]
        n = training.count_matches(held.gold, pred, training.SLACK["real"])
        matched, listed, gold = matched + n, listed + len(pred), gold + len(held.gold)
        per[held.meeting_id] = (n, len(pred), len(held.gold))
    p, r = (matched / listed if listed else 0.0), (matched / gold if gold else 0.0)
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "listed": listed, "gold": gold, "per_meeting": per}


LIVE_BATCH = 5  # the fewest new lines a live summary update takes (CONTEXT_L1_MIN_NEW_UTTERANCES_FOR_TIME_TRIGGER)


def _live_cost(meetings: list[training.MeetingData]) -> dict:
    """What the live path adds per utterance: a summary update reads its new lines' action
    items (`action_lines`, as the topic timeline does); each line's share of its batch's time,
    over every meeting, with the kiwi analyses cold for the batch's lines."""
    import numpy as np

    from mithub.text.korean import _analyse

    shares = []
    for m in meetings:
        for start in range(0, len(m.turns), LIVE_BATCH):
            batch = m.turns[start: start + LIVE_BATCH]
            _analyse.cache_clear()
            began = time.perf_counter()
            action_lines(batch)
            shares += [(time.perf_counter() - began) * 1000 / len(batch)] * len(batch)
    return {"p50_ms": float(np.percentile(shares, 50)), "p95_ms": float(np.percentile(shares, 95)),
            "utterances": len(shares)}


def run() -> tuple[str, dict]:
    started = time.perf_counter()
    shipped = load_action_model()
    l2, rule = float(shipped.model.meta.get("l2", shipped.model.l2)), shipped.rule
    meetings = training.load_meetings(DATA)
    training.featurise(meetings)
    series, real = _series(meetings, l2, rule), _real(meetings, l2, rule)
    live = _live_cost(meetings)
    spread = list(series["per_series_f1"].values())
    rows = []
    for lang in ("all", "ko", "en"):
        f = series["pooled"][lang]
        rows.append([f"series LOSO, {lang}", f"{f['precision']:.2f}", f"{f['recall']:.2f}", f"{f['f1']:.2f}",
                     f"{f['due_date_accuracy']:.2f}", f"{f['listed']} / {f['gold']}"])
    rows.append(["real LOMO (within 2 lines, owner)", f"{real['precision']:.2f}", f"{real['recall']:.2f}",
                 f"{real['f1']:.2f}", "–", f"{real['listed']} / {real['gold']}"])
    table = markdown_table(["held out", "precision", "recall", "F1", "due dates", "listed / gold"], rows)
    body = (f"{table}\n\nPer-series F1 (leave one series out): min {min(spread):.2f}, median "
            f"{statistics.median(spread):.2f}, max {max(spread):.2f}, sd {statistics.pstdev(spread):.2f} "
            f"({', '.join(f'{k} {v:.2f}' for k, v in series['per_series_f1'].items())}).\n"
            f"Real meetings (matched/listed/gold): "
            f"{', '.join(f'{k} {a}/{b}/{c}' for k, (a, b, c) in real['per_meeting'].items())}.\n"
            f"Live path (action items of each summary update's {LIVE_BATCH} new lines, kiwi cold): "
            f"p50 {live['p50_ms']:.1f} ms, p95 {live['p95_ms']:.1f} ms per utterance over {live['utterances']} "
            f"(target <= 20 ms p95; load average {load_average()}).\n"
            f"Rule: shown at confidence >= {rule.threshold_for('ko')} (Korean) / {rule.threshold_for('en')} (English), "
            f"window {rule.window}, l2 {l2} (chosen out of fold).\n"
            f"Baselines: {'; '.join(f'{k}: {v}' for k, v in BASELINES.items())}. "
            f"Targets (issue 18): blind F1 >= 0.85 with due dates >= 0.90; real P >= 0.50 at R >= 0.35.\n"
            f"Run time {time.perf_counter() - started:.0f} s.")
    return body, {"series": series, "real": real, "live": live}


def run_extra(extra: list[Path]) -> tuple[str, dict]:
    """Held-out figures without and with the `extra` series in training: the benchmark's series
    (LOSO) and real meetings (LOMO), and the extra series, scored by the model fitted without
    them and, with them in training, held out one series at a time. "With" is measured under the
    shipped rule and under the rule `choose` picks with the extras in (what `--extra` would ship)."""
    started = time.perf_counter()
    extras = training.load_extra(extra)  # first: a wrong folder fails before the long part
    shipped = load_action_model()
    l2, rule = float(shipped.model.meta.get("l2", shipped.model.l2)), shipped.rule
    base = training.load_meetings(DATA)
    training.featurise(base + extras)
    own, every = frozenset(m.group for m in extras), base + extras
    l2_x, rule_x, _, _ = training.choose(every)
    runs = {"without": (_series(base, l2, rule), _real(base, l2, rule),
                        _series(extras, l2, rule, own, train=base)),
            "with, shipped rule": (_series(every, l2, rule, own), _real(every, l2, rule), None),
            "with, rule re-chosen": (_series(every, l2_x, rule_x, own), _real(every, l2_x, rule_x), None)}
    rows, spread = [], []
    for name, (series, real, unseen) in runs.items():
        theirs = unseen or series
        b, o = series["pooled"]["all"], theirs["pooled"]["project"]
        rows.append([name, *(f"{b[k]:.2f}" for k in ("precision", "recall", "f1", "due_date_accuracy")),
                     f"{real['precision']:.2f} / {real['recall']:.2f} ({real['listed']})",
                     *(f"{o[k]:.2f}" for k in ("precision", "recall", "f1", "due_date_accuracy"))])
        f1 = {g: v for g, v in series["per_series_f1"].items() if g not in own}
        spread.append(f"{name}: benchmark per-series F1 median {statistics.median(f1.values()):.2f}, min "
                      f"{min(f1.values()):.2f}, sd {statistics.pstdev(f1.values()):.2f} ("
                      + ", ".join(f"{g} {v:.2f}" for g, v in f1.items()) + "); real "
                      + ", ".join(f"{k} {a}/{b}/{c}" for k, (a, b, c) in real["per_meeting"].items()) + "; extra "
                      + ", ".join(f"{g} {v:.2f}" for g, v in theirs["per_series_f1"].items() if g in own) + ".")
    header = ["training data", "bench P", "bench R", "bench F1", "bench due", "real P / R (listed)",
              "extra P", "extra R", "extra F1", "extra due"]
    body = (f"Extra series: {', '.join(map(str, extra))} ({len(own)} series). Rules: shipped {rule.by_language}, "
            f"window {rule.window}, l2 {l2}; re-chosen with the extras {rule_x.by_language}, window {rule_x.window}, "
            f"l2 {l2_x}. Extra columns: without = fitted on the benchmark's 18 series and the 6 real meetings, "
            f"scored on the extras; with = held out one extra series at a time.\n\n"
            + markdown_table(header, rows) + "\n\n" + "\n".join(spread)
            + f"\n\nRun time {time.perf_counter() - started:.0f} s, load {load_average()}.")
    return body, {name: {"series": s_, "real": r_} for name, (s_, r_, _) in runs.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    ap.add_argument("--extra", type=Path, nargs="+", default=None,
                    help="series folders with actions.json to measure with and without in training "
                         "(e.g. benchmarks/data/series); default: the shipped protocol only")
    args = ap.parse_args()
    if args.extra:
        try:
            body, _ = run_extra(args.extra)
        except FileNotFoundError as error:
            ap.exit(2, f"error: {error}\n")
        publish(SECTION_EXTRA, body, write=not args.no_write)
        return
    body, _ = run()
    publish(SECTION, body, write=not args.no_write)


if __name__ == "__main__":
    main()
