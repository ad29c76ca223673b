"""The model card written beside the boundary model's weights (topics/weights/boundary.md)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from mithub.topics.boundary import REBUILD_COMMAND, BoundaryModel

_STRONGEST = 12


def _figures(name: str, cv: dict[str, Any]) -> str:
    return (f"| {name} | {cv['meetings']} | {cv['pk']:.3f} | {cv['window_diff']:.3f} | {cv['f1']:.3f} "
            f"| {cv['predicted']:.2f} | {cv['gold']:.2f} | {cv['pk_no_boundary']:.3f} |")


def model_card(model: BoundaryModel, meta: dict[str, Any]) -> str:
    data, cv = meta["data"], meta["cv"]
    lines = [
        "# Topic boundary model",
        "",
        "A logistic regression over the online candidate features of `topics/features.py` and a",
        "peak-picking rule (`topics/boundary.py`). Rebuild with:",
        "",
        f"    {REBUILD_COMMAND}",
        "",
        f"- Data: {data['qmsum_meetings']} QMSum train meetings (`segmentation/qmsum_train.jsonl`) and "
        f"{data['series_meetings']} meetings of the invented series with topics.json "
        f"({', '.join(data['series'])}); {data['candidates']} candidate turns.",
        f"- Embedder: {meta['embedder']}. Seed (QMSum fold assignment): {meta['seed']}.",
        f"- L2 strength chosen by cross-validation: {meta['l2']} (objective by L2: {meta['cv_objective_by_l2']}).",
        f"- Decision rule chosen by cross-validation: {asdict(model.rule)}; lookahead {model.lookahead} turns.",
        "",
        "## Cross-validated figures",
        "",
        "QMSum: 5 folds over meetings; series: leave one whole series out. Each held-out unit is",
        "predicted by a model fitted without it, and its rule is chosen without its scores.",
        "",
        "| source | meetings | Pk | WindowDiff | boundary F1 | predicted / meeting | gold / meeting | Pk, no boundary |",
        "|---|---|---|---|---|---|---|---|",
        *(_figures(source, cv[source]) for source in ("qmsum", "series") if source in cv),
        "",
        "QMSum folds (Pk against that fold's no-boundary Pk): "
        + ", ".join(f"{f['pk']:.3f} vs {f['pk_no_boundary']:.3f}" for f in cv.get("qmsum_folds", [])),
        "",
        "## Strongest weights (standardised features)",
        "",
    ]
    classifier = model.classifier
    ranked = sorted(zip(classifier.feature_names, classifier.coef, strict=True), key=lambda nc: -abs(nc[1]))
    lines += [f"- `{name}`: {coef:+.3f}" for name, coef in ranked[:_STRONGEST]]
    return "\n".join(lines) + "\n"
