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

    .venv/bin/python benchmarks/record_actions.py [--no-write]

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
BASELINES = {"cue-word rule (README)": "series F1 0.46", "project before this work": "series F1 0.73; real P 0.16 R 0.18"}


def _scorer():  # noqa: ANN202 - the benchmark's own module
    spec = importlib.util.spec_from_file_location("score_record", SHARED / "score_record.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _items(meeting: training.MeetingData, model: ActionModel) -> list[dict]:
    items = extract_action_items(meeting.meeting_id, meeting.turns, meeting.meeting_date, model=model)
    return [a.model_dump(mode="json") for a in items if not a.candidate]


def _series(meetings: list[training.MeetingData], l2: float, rule) -> dict:  # noqa: ANN001
    score = _scorer()
    by_group = defaultdict(list)
    for m in meetings:
        by_group[m.group].append(m)
    acc_all: dict[str, defaultdict] = {k: defaultdict(int) for k in ("all", "ko", "en")}
    per_series = {}
    for group, held in sorted(by_group.items()):
        if held[0].kind != "series":
            continue
        model = ActionModel(training.fit([m for m in meetings if m.group != group], l2), rule)
        got = {"actions": {"actions": [a for m in held for a in _items(m, model)]}}
        series = {"series_id": group, "meetings": [{"meeting_id": m.meeting_id} for m in held],
                  "actions": {"meetings": [{"meeting_id": m.meeting_id, "actions": m.gold} for m in held]}}
        one: defaultdict = defaultdict(int)
        for acc in (acc_all["all"], acc_all[held[0].language], one):
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = ap.parse_args()
    body, _ = run()
    publish(SECTION, body, write=not args.no_write)


if __name__ == "__main__":
    main()
