"""Weighted reciprocal rank fusion with query-adaptive channel weights (seed 001 §3.5).

score(d) = sum over channels c of alpha_c / (k + rank_c(d) + 1), rank 0-based. The seed's
defaults are k = 60 and weights (dense, sparse, trigraph) = (0.45, 0.35, 0.20); ours are k = 15
and (0.45, 0.35, 0.30), adapted to the query by the rules in `adaptive_weights`, and each
channel's best hit opens the fused list (`lead_with_channel_tops`). benchmarks/retrieval.py
measured each choice (RESULTS.md, section "Retrieval: edge hybrid"):
- k = 15: with k = 60 the weights outweigh the ranks (a hit only one channel has, even at its
  rank 0, loses to another channel's rank 60 when that channel weighs 2x more), so fusion
  repeated the heaviest channel instead of combining them;
- trigraph 0.30: seeded with the other channels' top hits the Tri-Graph is a second hop
  as good alone as the weaker first-stage channel on every set, not the weak query-only walk
  the seed's 0.20 assumed.
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
    Boosts of the same channel do not compound: both sparse rules say "exact words matter",
    so the larger one applies (a Korean query with a number got sparse x 6 and fusion became
    a copy of BM25); a factor below one still multiplies.
    """
    weights = base_weights(config)
    if not config.adaptive_weights:
        return weights
    language = config.korean_sparse_boost if has_hangul(query) else config.other_sparse_factor
    numeric = config.numeric_sparse_boost if _NUMERIC.search(query) else 1.0
    trigraph = weights.trigraph * (config.causal_trigraph_boost if _CAUSAL.search(query) else 1.0)
    return Weights(weights.dense, weights.sparse * _combined(language, numeric), trigraph)


def _combined(*factors: float) -> float:
    """Factors below one multiply; of those above one only the largest applies."""
    shrink = 1.0
    for factor in factors:
        shrink *= min(factor, 1.0)
    return shrink * max(1.0, *factors)


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


def lead_with_channel_tops(
    fused: Sequence[tuple[str, float]], rankings: Mapping[str, Sequence[str]], weights: Mapping[str, float]
) -> list[tuple[str, float]]:
    """`fused` reordered so that each weighted channel's best hit comes first (among themselves
    in fused order), then the rest in fused order; scores are kept. Without this a hit that
    only one channel ranks first, typically the Tri-Graph's second-hop passage, cannot beat
    the passages every channel ranks a few places down."""
    tops = {ranked[0] for channel, ranked in rankings.items() if ranked and weights.get(channel, 0.0) > 0}
    return [kv for kv in fused if kv[0] in tops] + [kv for kv in fused if kv[0] not in tops]
