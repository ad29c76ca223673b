"""Topic segmentation quality of the live TopicDetector on real meetings (QMSum train: AMI,
ICSI, parliamentary committees), scored as ../shared/benchmarks/README.md says: Pk and
WindowDiff over covered turns, boundary F1 within k // 2, boundary counts; for all meetings,
the clean subset and per domain, next to the no-boundary and evenly-spaced baselines.

    .venv/bin/python benchmarks/segmentation.py [--data FILE] [--limit N]
        [--set topic_depth_sigma=1.1 ...] [--no-write]

The detector is the one the ContextManager runs (same class, same ContextConfig defaults, LLM-
free), fed turn by turn through `detect_boundaries`. `--set` overrides a ContextConfig field
for tuning runs. Turn embeddings are cached under benchmarks/.cache/embeddings/ (.npy).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import NpyEmbeddingCache, REPO_ROOT, markdown_table, publish  # noqa: E402

from mithub.cli.segment import SegmentationMeeting, utterances_from_turns  # noqa: E402
from mithub.config import ContextConfig  # noqa: E402
from mithub.embedders import load_embedder  # noqa: E402
from mithub.jsonl import LineErrors, iter_json_lines  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.topics.detector import TopicDetector, detect_boundaries  # noqa: E402
from mithub.topics.metrics import MeetingScore, average, evenly_spaced, score_meeting  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data" / "segmentation" / "qmsum_train.jsonl"
SECTION = "Topic segmentation (QMSum train, online TopicDetector)"
TARGET = "Pk <= 0.33, boundary F1 >= 0.45, predicted boundaries between 0.5x and 2x gold"
# Reported in ../shared/benchmarks/README.md for the same file (not recomputed here).
REFERENCE_TEXTTILING = "TextTiling, USE turn embeddings, 40-turn blocks: Pk 0.506, F1 0.42, 7.9 boundaries"

Method = Callable[[dict[str, Any]], list[int]]


def _parse_overrides(pairs: list[str]) -> dict[str, str]:
    overrides = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or key not in ContextConfig.model_fields:
            raise SystemExit(f"--set wants FIELD=VALUE with a ContextConfig field, got {pair!r}")
        overrides[key] = value
    return overrides


def _load(path: Path, limit: int | None) -> list[dict[str, Any]]:
    errors = LineErrors(report=lambda e: print(f"warning: {e}", file=sys.stderr))
    meetings = [record for _, record in iter_json_lines(path, errors)]
    return meetings[:limit] if limit else meetings


async def _detector_boundaries(
    meetings: list[dict[str, Any]], config: ContextConfig, embedder: NpyEmbeddingCache
) -> tuple[list[list[int]], float]:
    from tqdm import tqdm

    predictions, started, turns = [], time.perf_counter(), 0
    for record in tqdm(meetings, unit="meeting", desc="segment", file=sys.stderr):
        meeting = SegmentationMeeting.model_validate(record)
        utterances = utterances_from_turns(meeting.turns)
        detector = TopicDetector(config, embedder)
        changes = await detect_boundaries(detector, utterances)
        predictions.append([change.boundary_seq - 1 for change in changes])
        turns += len(utterances)
    embedder.save()
    return predictions, turns / (time.perf_counter() - started)


def _scores(meetings: list[dict[str, Any]], predicted: list[list[int]]) -> list[MeetingScore]:
    return [score_meeting(m["turn_topic"], m["boundaries"], p) for m, p in zip(meetings, predicted, strict=True)]


def _subsets(meetings: list[dict[str, Any]]) -> list[tuple[str, list[int]]]:
    subsets = [("all", list(range(len(meetings)))),
               ("clean", [i for i, m in enumerate(meetings) if m.get("clean")])]
    for domain in sorted({m.get("domain", "?") for m in meetings}):
        subsets.append((domain, [i for i, m in enumerate(meetings) if m.get("domain", "?") == domain]))
    return subsets


def _table(meetings: list[dict[str, Any]], methods: dict[str, list[MeetingScore]]) -> tuple[str, dict]:
    rows, summary = [], {}
    for subset, members in _subsets(meetings):
        for method, scores in methods.items():
            avg = average([scores[i] for i in members])
            if not avg:
                continue
            summary[(subset, method)] = avg
            rows.append([subset, method, avg["meetings"], f"{avg['pk']:.3f}", f"{avg['window_diff']:.3f}",
                         f"{avg['f1']:.3f}", f"{avg['predicted']:.2f}", f"{avg['gold']:.2f}"])
    header = ["subset", "method", "meetings", "Pk ↓", "WindowDiff ↓", "boundary F1 ↑",
              "predicted / meeting", "gold / meeting"]
    return markdown_table(header, rows), summary


def _verdict(avg: dict[str, float]) -> str:
    ratio = avg["predicted"] / avg["gold"] if avg["gold"] else 0.0
    met = avg["pk"] <= 0.33 and avg["f1"] >= 0.45 and 0.5 <= ratio <= 2.0
    return (f"Target ({TARGET}): {'met' if met else 'NOT met'} — detector on all meetings: "
            f"Pk {avg['pk']:.3f}, F1 {avg['f1']:.3f}, {ratio:.2f}x the gold boundary count.")


def _config_line(config: ContextConfig, overrides: dict[str, str]) -> str:
    fields = [f for f in ContextConfig.model_fields if f.startswith("topic_")]
    values = ", ".join(f"{f}={getattr(config, f)}" for f in fields)
    detector = TopicDetector(config, load_embedder(config.embedding_model))
    note = f" (overridden: {', '.join(overrides)})" if overrides else " (defaults)"
    return f"ContextConfig{note}: {values}; lookahead {detector.lookahead} turns."


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="QMSum segmentation JSONL")
    parser.add_argument("--limit", type=int, help="first N meetings only")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="override a ContextConfig field (tuning runs)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md")
    args = parser.parse_args()
    configure_logging(level="WARNING")

    overrides = _parse_overrides(args.set)
    config = ContextConfig(**overrides)
    meetings = _load(args.data, args.limit)
    embedder = NpyEmbeddingCache(load_embedder(config.embedding_model).inner)
    predicted, turns_per_second = asyncio.run(_detector_boundaries(meetings, config, embedder))
    methods = {
        "TopicDetector (online, LLM-free)": _scores(meetings, predicted),
        "baseline: no boundaries": _scores(meetings, [[] for _ in meetings]),
        "baseline: evenly spaced, true count": _scores(
            meetings, [evenly_spaced(len(m["turns"]), len(m["boundaries"])) for m in meetings]),
    }
    table, summary = _table(meetings, methods)
    data_line = (
        f"Data: `{args.data.name}`, {len(meetings)} meetings, "
        f"{sum(len(m['turns']) for m in meetings)} turns. Detector speed: "
        f"{turns_per_second:.0f} turns/s with embeddings cached (one process)."
    )
    body = "\n\n".join([
        data_line,
        _config_line(config, overrides),
        table,
        f"Reference from the data README: {REFERENCE_TEXTTILING}.",
        _verdict(summary[("all", "TopicDetector (online, LLM-free)")]),
    ])
    publish(SECTION, body, not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
