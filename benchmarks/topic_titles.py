"""Topic titles against the names people gave the topics (issue 19 item 13).

Each gold topic (QMSum's topic list over its turns; the sample meetings' agenda items) is
summarized LLM-free as the ContextManager does, then titled two ways: the keyword pair the
title replaces (`" · ".join(keywords[:2])`) and the subject title (`context/titles.py`: the
noun phrase the topic's decisions and key terms share). Reported per data set: term hit (the
title shares a content word with the gold name), term F1 between the two, and the title's
length in words. QMSum is held out (the title rules were written on the Korean samples);
the Korean samples are the development set.

    .venv/bin/python benchmarks/topic_titles.py [--meetings N] [--no-write]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import REPO_ROOT, NpyEmbeddingCache, markdown_table, publish  # noqa: E402

from mithub.budget import TokenBudgetManager  # noqa: E402
from mithub.clock import ManualClock  # noqa: E402
from mithub.context.extractive import ExtractiveSummarizer  # noqa: E402
from mithub.context.models import Utterance  # noqa: E402
from mithub.context.titles import summary_title  # noqa: E402
from mithub.context.transcript import DEFAULT_MEETING_START, read_transcript  # noqa: E402
from mithub.embedders import CachedEmbedder, load_embedder  # noqa: E402
from mithub.jsonl import LineErrors  # noqa: E402
from mithub.observability import configure_logging  # noqa: E402
from mithub.text import content_tokens  # noqa: E402

DATA = REPO_ROOT.parent / "shared" / "benchmarks" / "data"
EXAMPLES = REPO_ROOT / "examples" / "meetings"
_MARKUP = re.compile(r"\{[a-z_]+\}")
SAMPLES = ["ko_product_planning", "ko_product_planning_2", "en_sprint_review"]


def _qmsum(limit: int) -> list[tuple[str, str, list[Utterance]]]:
    """(data set, gold name, turns) per QMSum topic of the first `limit` meetings."""
    clock = ManualClock(DEFAULT_MEETING_START)
    out = []
    with (DATA / "segmentation" / "qmsum_train.jsonl").open(encoding="utf-8") as handle:
        for n, line in enumerate(handle):
            if limit and n >= limit:
                break
            meeting = json.loads(line)
            by_topic: dict[int, list[Utterance]] = defaultdict(list)
            for seq, (turn, topic) in enumerate(zip(meeting["turns"], meeting["turn_topic"], strict=True), start=1):
                text = " ".join(_MARKUP.sub(" ", turn["text"]).split())  # {disfmarker}, {vocalsound}
                if topic >= 0 and text:
                    by_topic[topic].append(Utterance(id=seq, speaker_id=turn["speaker"], speaker_name=turn["speaker"],
                                                     text=text, absolute_timestamp=clock()))
            out += [(f"QMSum {meeting['domain']}", name, by_topic[k])
                    for k, name in enumerate(meeting["topics"]) if by_topic.get(k)]
    return out


def _samples() -> list[tuple[str, str, list[Utterance]]]:
    out = []
    for name in SAMPLES:
        facts = json.loads((EXAMPLES / f"{name}.facts.json").read_text(encoding="utf-8"))
        turns = [Utterance(id=i, **u.model_dump(include={"speaker_id", "speaker_name", "text", "absolute_timestamp"}))
                 for i, (_, u) in enumerate(read_transcript(EXAMPLES / f"{name}.jsonl", LineErrors()), start=1)]
        out += [("samples (dev)", item["name"], [t for t in turns if item["first_seq"] <= t.id <= item["last_seq"]])
                for item in facts["agenda"]]
    return out


def _f1(title: str, gold: str) -> float:
    a, b = set(content_tokens(title)), set(content_tokens(gold))
    common = len(a & b)
    return 0.0 if not common else 2 * common / (len(a) + len(b))


async def _score(topics, summarizer) -> dict[str, dict[str, list[float]]]:
    scores: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for dataset, gold, turns in topics:
        names = sorted({t.speaker_name for t in turns})
        result = await summarizer.summarize("topic", turns, None, names)
        pair = " · ".join(result.keywords[:2])
        texts = [t.text for t in turns]
        titles = {"keyword pair": pair,
                  "subject title": summary_title(result, names, named=True, texts=texts) or pair,
                  "subject title, key terms first": summary_title(result, names, named=True, texts=texts,
                                                                  role_first=False) or pair}
        for method, title in titles.items():
            for key in (dataset, "all"):
                scores[(key, method)]["hit"].append(float(_f1(title, gold) > 0))
                scores[(key, method)]["f1"].append(_f1(title, gold))
                scores[(key, method)]["words"].append(len(title.replace(" · ", " ").split()))
    return scores


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--meetings", type=int, default=60, help="QMSum meetings (0 = all 162)")
    parser.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = parser.parse_args()
    configure_logging(level="WARNING")
    disk = NpyEmbeddingCache(load_embedder("use-multilingual").inner)
    summarizer = ExtractiveSummarizer(CachedEmbedder(disk, max_entries=200_000), TokenBudgetManager(), 500)
    topics = _samples() + _qmsum(args.meetings)
    try:
        scores = asyncio.run(_score(topics, summarizer))
    finally:
        disk.save()
    rows = []
    for (dataset, method), s in sorted(scores.items()):
        n = len(s["hit"])
        rows.append([dataset, method, f"{sum(s['hit']) / n:.3f}", f"{sum(s['f1']) / n:.3f}",
                     f"{sum(s['words']) / n:.1f}", n])
    body = (
        "Each gold topic summarized LLM-free, then titled; compared with the name people gave it "
        f"(QMSum topic lists, first {args.meetings or 162} meetings, held out; the sample meetings' agenda "
        "items, development). Hit: the title shares a content word with the name.\n\n"
        + markdown_table(["data", "title", "term hit", "term F1", "words", "topics"], rows)
    )
    publish("Topic titles (benchmarks/topic_titles.py)", body, not args.no_write)


if __name__ == "__main__":
    main()
