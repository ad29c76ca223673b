"""Ranking metrics of the retrieval benchmark (benchmarks/README.md, section Retrieval):
Recall@k, MRR@10, nDCG@10 and AllGold@5 over document ids, each document at its best rank."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

METRICS = ("R@1", "R@5", "R@10", "MRR@10", "nDCG@10", "AllGold@5")


def documents_in_order(chunk_doc_ids: Iterable[str]) -> list[str]:
    """Chunk ranking -> document ranking, each document at its best (first) chunk's rank."""
    return list(dict.fromkeys(chunk_doc_ids))


def query_metrics(ranked: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    gold_set = set(gold)
    top = list(ranked[:10])
    recall = {k: len(gold_set & set(ranked[:k])) / len(gold_set) for k in (1, 5, 10)}
    first = next((i for i, doc in enumerate(top) if doc in gold_set), None)
    dcg = sum(1.0 / math.log2(i + 2) for i, doc in enumerate(top) if doc in gold_set)
    ideal = sum(1.0 / math.log2(i + 2) for i in range(min(len(gold_set), 10)))
    return {
        "R@1": recall[1],
        "R@5": recall[5],
        "R@10": recall[10],
        "MRR@10": 0.0 if first is None else 1.0 / (first + 1),
        "nDCG@10": dcg / ideal,
        "AllGold@5": float(gold_set <= set(ranked[:5])),
    }


def mean_metrics(per_query: Sequence[dict[str, float]]) -> dict[str, float]:
    return {m: float(np.mean([q[m] for q in per_query])) if per_query else 0.0 for m in METRICS}


def percentile_ms(seconds: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(seconds) * 1000.0, q)) if seconds else 0.0
