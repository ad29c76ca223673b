"""Topic boundaries that carry over (issue 18): the boundary model of mithub/topics/, cross-validated.

    .venv/bin/python benchmarks/record_topics.py [--write] [--cache /tmp/topics]

- QMSum train (162 real meetings): 5 folds over meetings; each fold is predicted by a model fitted
  on the other four folds plus every series, and its decision rule is chosen without its scores.
  Scored as ../shared/benchmarks/README.md says (covered turns only, k = half the mean gold
  segment, F1 within k // 2), pooled over meetings, and per fold against that fold's no-boundary
  Pk (the target: every fold below it).
- The invented series with topics.json (12 series, 24 meetings, Korean and English): leave one
  whole series out, the same way.
- With `--extra DIR...` (e.g. the project's own `benchmarks/data/series`): the same figures
  without and with those series in training, and the extra series themselves, scored by the model
  fitted without them and, with them in training, held out one series at a time.

The protocol is the one `python -m mithub.topics.training` runs to choose the shipped model's L2
strength and rule (mithub/topics/training.py); this script reports it next to the baselines of the
benchmark READMEs and the no-boundary and evenly-spaced baselines measured on the same meetings.
`run()` returns (markdown, figures) for benchmarks/record.py.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, load_average, markdown_table, publish  # noqa: E402

from mithub.embedders import load_embedder  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.topics.metrics import average, evenly_spaced, score_meeting  # noqa: E402
from mithub.topics.training import (  # noqa: E402
    cross_validate,
    fit,
    load_rows,
    meeting_rows,
    probabilities,
    summary,
)
from mithub.topics.peaks import pick_boundaries  # noqa: E402
from mithub.topics.training_data import build_meetings, load_extra, load_raw  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data"
TITLE = "Record: topic boundaries, cross-validated (benchmarks/record_topics.py)"
TITLE_EXTRA = "Record: topic boundaries with the project's own series in training (benchmarks/record_topics.py --extra)"
DEFAULT_CACHE = Path("/tmp/mithub-topic-embeddings")
# ../shared/benchmarks/README.md (QMSum train) and data/decisions/README.md (topics.json).
README_BASELINES = {
    "qmsum": [("no boundaries (README)", 0.384, None), ("evenly spaced, true count (README)", 0.459, 0.42),
              ("random, true count (README)", 0.446, 0.33), ("TextTiling, USE, 40-turn blocks (README)", 0.506, 0.42)],
    "series": [("no boundary (README)", 0.448, None), ("evenly spaced, gold count (README)", 0.45, None)],
}
TARGETS = {"qmsum": "pooled Pk ≤ 0.34 and every fold below its no-boundary Pk", "series": "blind set Pk ≤ 0.30"}
BEFORE = {"qmsum": "0.330 in-sample (tuned on this file); 0.379 on unseen QMSum meetings",
          "series": "0.444 (no boundary 0.448)"}


def _baselines(rows: list, source: str) -> dict[str, dict[str, float]]:
    members = [r for r in rows if r.raw.source == source]
    none = [score_meeting(r.turn_topic, r.raw.boundaries, []) for r in members]
    even = [score_meeting(r.turn_topic, r.raw.boundaries, evenly_spaced(len(r.raw.texts), len(r.raw.boundaries)))
            for r in members]
    return {"no boundaries (measured)": average(none), "evenly spaced, gold count (measured)": average(even)}


def _row(name: str, figures: dict[str, float]) -> list[str]:
    return [name, f"{figures['pk']:.3f}", f"{figures['window_diff']:.3f}", f"{figures['f1']:.3f}",
            f"{figures['predicted']:.2f}", f"{figures['gold']:.2f}"]


def _table(rows: list, figures: dict[str, Any]) -> str:
    parts = []
    header = ["method", "Pk ↓", "WindowDiff ↓", "boundary F1 ↑", "predicted / meeting", "gold / meeting"]
    labels = {"qmsum": "QMSum train, 5-fold CV over meetings", "series": "invented series, leave one series out"}
    for source in ("qmsum", "series"):
        body = [_row("boundary model (CV)", figures[source])]
        body += [_row(name, f) for name, f in _baselines(rows, source).items()]
        body += [[name, f"{pk:.3f}", "–", "–" if f1 is None else f"{f1:.2f}", "–", "–"]
                 for name, pk, f1 in README_BASELINES[source]]
        parts.append(f"**{labels[source]}** ({figures[source]['meetings']} meetings). Target: "
                     f"{TARGETS[source]}. Before this model: {BEFORE[source]}.\n\n" + markdown_table(header, body))
    folds = figures["qmsum_folds"]
    fold_rows = [[k + 1, f["meetings"], f"{f['pk']:.3f}", f"{f['pk_no_boundary']:.3f}",
                  "yes" if f["pk"] < f["pk_no_boundary"] else "NO"] for k, f in enumerate(folds)]
    parts.append("QMSum folds:\n\n" + markdown_table(["fold", "meetings", "Pk", "Pk no boundary", "below"], fold_rows))
    return "\n\n".join(parts)


def _domains(data: Path) -> dict[str, str]:
    """QMSum meeting id -> its domain (AMI product design, ICSI research, parliamentary committee)."""
    with (data / "segmentation" / "qmsum_train.jsonl").open(encoding="utf-8") as lines:
        return {r["meeting_id"]: r.get("domain", "?") for r in map(json.loads, filter(str.strip, lines))}


def _spread(rows: list, cv: Any, data: Path) -> str:
    """Where the Pk is lost: per QMSum domain against its no-boundary Pk, and per held-out series."""
    domain = _domains(data)
    groups: dict[tuple[str, str], list] = {}
    for r in rows:
        key = ("qmsum", domain.get(r.raw.meeting_id, "?")) if r.raw.source == "qmsum" else ("series", r.raw.group)
        groups.setdefault(key, []).append(r)
    body = []
    for (source, name), members in sorted(groups.items()):
        model = average([cv.scores[r.raw.meeting_id] for r in members])
        none = average([score_meeting(r.turn_topic, r.raw.boundaries, []) for r in members])
        body.append([source, name, len(members), f"{model['pk']:.3f}", f"{none['pk']:.3f}",
                     f"{model['predicted']:.1f}", f"{model['gold']:.1f}"])
    header = ["source", "domain / series", "meetings", "Pk (CV)", "Pk no boundary", "predicted / meeting",
              "gold / meeting"]
    return "Per QMSum domain and per held-out series:\n\n" + markdown_table(header, body)


def run(cache: Path | None = DEFAULT_CACHE, data: Path = DATA) -> tuple[str, dict[str, Any]]:
    started = time.perf_counter()
    raws = load_raw(data)
    meetings = build_meetings(raws, load_embedder("use-multilingual"), cache)
    rows = [meeting_rows(m) for m in meetings]
    cv = cross_validate(rows)
    figures = summary(rows, cv)
    pks = [f["pk"] for f in figures["qmsum_folds"]]
    figures.update({"l2": cv.l2, "rule": cv.rule.__dict__, "seconds": time.perf_counter() - started,
                    "qmsum_fold_pk_spread": [min(pks), max(pks)] if pks else []})
    q, s = figures["qmsum"], figures["series"]
    met = (q["pk"] <= 0.34 and all(f["pk"] < f["pk_no_boundary"] for f in figures["qmsum_folds"]))
    text = "\n\n".join([
        f"Data: {len(raws)} meetings ({q['meetings']} QMSum, {s['meetings']} series). Chosen by the same "
        f"cross-validation: L2 {cv.l2}, rule {cv.rule.__dict__}. {figures['seconds']:.0f} s, load {load_average()}.",
        _table(rows, figures),
        _spread(rows, cv, data),
        f"QMSum target ({TARGETS['qmsum']}): {'met' if met else 'NOT met'}; fold Pk from "
        f"{min(pks):.3f} to {max(pks):.3f}. Series held out one at a time: Pk {s['pk']:.3f} "
        f"(the blind set is scored by `benchmarks/record.py --blind`).",
    ])
    return text, figures


def _pooled(rows: list, scores: dict) -> dict[str, float]:
    """Pk pooled over `rows`, the no-boundary Pk, and per held-out group (QMSum: its fold)."""
    none = [score_meeting(r.turn_topic, r.raw.boundaries, []) for r in rows]
    return {**average([scores[r.raw.meeting_id] for r in rows]), "pk_no_boundary": average(none)["pk"]}


def _by_series(rows: list, scores: dict) -> dict[str, float]:
    groups: dict[str, list] = {}
    for r in rows:
        groups.setdefault(r.raw.group, []).append(r)
    return {g: average([scores[r.raw.meeting_id] for r in members])["pk"] for g, members in sorted(groups.items())}


def _set_figures(rows: list, extra_ids: set[str], scores: dict) -> dict[str, Any]:
    qmsum = [r for r in rows if r.raw.source == "qmsum"]
    bench = [r for r in rows if r.raw.source == "series" and r.raw.meeting_id not in extra_ids]
    own = [r for r in rows if r.raw.meeting_id in extra_ids]
    return {"qmsum": _pooled(qmsum, scores), "bench": _pooled(bench, scores), "bench_series": _by_series(bench, scores),
            **({"own": _pooled(own, scores), "own_series": _by_series(own, scores)} if own else {})}


def run_extra(extra: list[Path], cache: Path | None = DEFAULT_CACHE, data: Path = DATA) -> tuple[str, dict[str, Any]]:
    """Held-out figures without and with the `extra` series in training (see the module doc)."""
    started = time.perf_counter()
    rows, extra_ids = load_rows(data, load_embedder("use-multilingual"), cache, extra=extra)
    base = [r for r in rows if r.raw.meeting_id not in extra_ids]
    before = cross_validate(base)
    # The extras scored by what ships without them: fitted on all of the benchmark data, its rule.
    shipped = fit(base, before.l2)
    unseen = {r.raw.meeting_id: score_meeting(r.turn_topic, r.raw.boundaries,
                                              pick_boundaries(probabilities(shipped, r), before.rule))
              for r in rows if r.raw.meeting_id in extra_ids}
    after = cross_validate(rows)
    figures = {"without": _set_figures(rows, extra_ids, {**before.scores, **unseen}),
               "with": _set_figures(rows, extra_ids, after.scores),
               "folds_without": summary(base, before)["qmsum_folds"], "folds_with": summary(rows, after)["qmsum_folds"],
               "rule_without": before.rule.__dict__, "rule_with": after.rule.__dict__,
               "l2": [before.l2, after.l2], "seconds": time.perf_counter() - started}
    return _extra_text(figures, extra), figures


def _extra_text(f: dict[str, Any], extra: list[Path]) -> str:
    header = ["training data", "QMSum Pk (5-fold)", "QMSum folds (Pk / no boundary)", "benchmark series Pk (LOSO)",
              "extra series Pk", "rule"]
    body = []
    for key, label, how in (("without", "QMSum + benchmark series (shipped)", "the model without them"),
                            ("with", "+ the extra series", "held out one series at a time")):
        sets, folds = f[key], f[f"folds_{key}"]
        body.append([label, f"{sets['qmsum']['pk']:.3f}",
                     " ".join(f"{x['pk']:.3f}/{x['pk_no_boundary']:.3f}" for x in folds),
                     f"{sets['bench']['pk']:.3f}", f"{sets['own']['pk']:.3f} ({how})", str(f[f"rule_{key}"])])
    spread = "\n".join(
        f"Per series, {key}: benchmark " + ", ".join(f"{g} {v:.3f}" for g, v in f[key]["bench_series"].items())
        + "; extra " + ", ".join(f"{g} {v:.3f}" for g, v in f[key]["own_series"].items()) + "."
        for key in ("without", "with"))
    none = f["with"]
    return "\n\n".join([
        f"Extra series: {', '.join(str(e) for e in extra)} ({len(none['own_series'])} series). No-boundary Pk: QMSum "
        f"{none['qmsum']['pk_no_boundary']:.3f}, benchmark series {none['bench']['pk_no_boundary']:.3f}, extra series "
        f"{none['own']['pk_no_boundary']:.3f}. L2 chosen: {f['l2'][0]} without, {f['l2'][1]} with. "
        f"{f['seconds']:.0f} s, load {load_average()}.",
        markdown_table(header, body), spread])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help="write the section into RESULTS.md")
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="turn embedding cache folder")
    parser.add_argument("--extra", type=Path, nargs="+", default=None,
                        help="series folders with topics.json to measure with and without in training "
                             "(e.g. benchmarks/data/series); default: the shipped protocol only")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    if args.extra:
        try:
            load_extra(args.extra)  # a wrong folder fails before the embedder loads
            text, _ = run_extra(args.extra, args.cache)
        except FileNotFoundError as error:
            parser.exit(2, f"error: {error}\n")
        publish(TITLE_EXTRA, text, args.write)
        return 0
    text, _ = run(args.cache)
    publish(TITLE, text, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
