"""Weighted reciprocal rank fusion with query-adaptive channel weights (seed 001 §3.5).

score(d) = sum over channels c of alpha_c / (k + rank_c(d) + 1), rank 0-based, k = 60.
The weights start at (dense, sparse, trigraph) = (0.45, 0.35, 0.20) and are adapted to the
query by the rules in `adaptive_weights`; `retrieval.py` in benchmarks/ measured each rule.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from mithub.config import RetrievalConfig
from mithub.text import has_hangul

# Numbers with units or codes (seed 001: ℃, %, EC, pH; Korean money units 원, 억, 만).
_NUMERIC = re.compile(
    r"\d\s*(?:℃|°C|%|퍼센트|원|억|만|천|kg|g|mg|ml|l|cm|mm|m|km|ds/m|ppm|lux)|"
    r"\b(?:EC|pH|ppm)\b|\d{2,}|\d+\.\d+",
    flags=re.IGNORECASE,
)
# Cause / remedy / method questions (seed 001 §3.1: "왜 생육이 떨어지나?", "어떻게 예방하나?").
_CAUSAL = re.compile(
    r"\b(?:why|how|cause[sd]?|reason|prevent(?:ion|s|ed)?|avoid|fix|solve|lead to|result in)\b|"
    r"왜|어떻게|원인|이유|예방|방지|해결|대책|방법|때문",
    flags=re.IGNORECASE,
)


@dataclass(frozen=True)
class Weights:
    dense: float
    sparse: float
    trigraph: float

    def as_dict(self) -> dict[str, float]:
        return {"dense": self.dense, "sparse": self.sparse, "trigraph": self.trigraph}


def base_weights(config: RetrievalConfig) -> Weights:
    return Weights(config.weight_dense, config.weight_sparse, config.weight_trigraph)


def adaptive_weights(query: str, config: RetrievalConfig) -> Weights:
    """Rules, each multiplying one channel's weight:
    - by language: a Hangul query gets sparse x korean_sparse_boost (morpheme BM25 is the
      strongest Korean channel measured here, dense models lose the lexical detail of OCR'd
      pages); any other query gets sparse x other_sparse_factor (on English, e5 dense beats
      word BM25 and equal-weight fusion with BM25 fell below dense alone);
    - numbers / units: sparse x numeric_sparse_boost (embeddings blur exact figures);
    - why / how / cause / prevent: trigraph x causal_trigraph_boost (multi-hop questions).
    """
    weights = base_weights(config)
    if not config.adaptive_weights:
        return weights
    dense, sparse, trigraph = weights.dense, weights.sparse, weights.trigraph
    sparse *= config.korean_sparse_boost if has_hangul(query) else config.other_sparse_factor
    if _NUMERIC.search(query):
        sparse *= config.numeric_sparse_boost
    if _CAUSAL.search(query):
        trigraph *= config.causal_trigraph_boost
    return Weights(dense, sparse, trigraph)


def weighted_rrf(
    rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float], k: int
) -> list[tuple[str, float]]:
    """Fuse ranked id lists; channels absent from `rankings` (dropped or not asked) simply
    contribute nothing. Ties keep the order of first appearance (deterministic)."""
    scores: dict[str, float] = {}
    for channel, ranked in rankings.items():
        alpha = weights.get(channel, 0.0)
        if alpha <= 0:
            continue
        for rank, item in enumerate(ranked):
            scores[item] = scores.get(item, 0.0) + alpha / (k + rank + 1)
    return sorted(scores.items(), key=lambda kv: -kv[1])
