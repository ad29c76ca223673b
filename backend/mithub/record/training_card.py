"""The model card written beside the decision models' weights: data, seed, cross-validated
figures and the thresholds chosen from them."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def write_card(path: Path, card: dict[str, Any]) -> None:
    settle = [g for g in card["settle_grid"] if abs(g["threshold"] - card["settle_threshold"]) < 0.11]
    pair = [g for g in card["pair_grid"] if abs(g["threshold"] - card["pair_threshold"]) < 0.11]
    lines = [
        "# Decision models (record/settle_model.py, record/pair_model.py)",
        "",
        "Rebuild: `python -m mithub.record.training decisions --data ../shared/benchmarks/data` "
        "(deterministic: Newton/IRLS fits, an eigen-decomposition and a bootstrap with a fixed seed give the "
        f"same weights on the same data). Last fit: {card['seconds']} s.",
        "",
        f"Data: {card['series']} two-meeting decision series (12 Korean, 6 English; gold decisions_m1 and "
        f"events_m2) and {card['real']} real AMI/ICSI meetings (a reader's decisions), {card['turns']} turns. "
        "Settling turns: meeting-1 decisions, meeting-2 new decisions and changes, the real meetings' "
        "decision lines; the lines right beside them (and the real meetings' support lines) are left out; "
        "restatements and distractors are negatives.",
        "",
        "Files: `decision_settle.json` (reads two later turns; lists a finished meeting's decisions), "
        "`decision_settle_live.json` (reads no later turn; the live change check), `change_pair.json` "
        "(a meeting-2 line against a listed decision).",
        "",
        f"## Settle threshold {card['settle_threshold']:.2f} (out-of-fold, one series or real meeting held out per fold)",
        "",
        _row(["threshold", "meeting-1 decision recall", "real precision", "real recall", "real listed"]),
        _row(["---"] * 5),
        *[_row([f"{g['threshold']:.2f}", f"{g['m1_recall']:.2f}", f"{g['real_precision']:.2f}",
                f"{g['real_recall']:.2f}", str(g["real_listed"])]) for g in settle],
        "",
        f"## Change threshold {card['pair_threshold']:.2f} (out-of-fold by series, and {card.get('checked', 0)} series "
        "by other authors that no model learns from, scored by the fitted pair model)",
        "",
        _row(["threshold", "precision", "recall", "F1", "implicit recall", "false-alarm rate", "flags"]),
        _row(["---"] * 7),
        *[_row([f"{g['threshold']:.2f}", f"{g['precision']:.2f}", f"{g['recall']:.2f}", f"{g['f1']:.2f}",
                f"{g['implicit_recall']:.2f}", f"{g['false_alarm_rate']:.2f}", str(g["flags"])]) for g in pair],
        "",
        "The thresholds are chosen on these out-of-fold figures: decisions for the most real-meeting "
        "precision among thresholds keeping meeting-1 recall >= 0.85 and real recall >= 0.35, bagged (the median "
        "of that rule's picks on 500 resamples of the series and of the real meetings, so that a refit moving one "
        "decision does not move the threshold); changes for the most "
        "precision among thresholds within 0.02 of the best F1 at pooled precision >= 0.60 (precisions less than "
        "one flag apart count as equal, and the best F1 of those is taken). "
        "Below a threshold an item is stored as a candidate (`--candidates` shows it).",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
