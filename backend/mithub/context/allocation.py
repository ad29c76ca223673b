"""Token allocation adapted to the query, reranking and diversity (seed 000 §5–6).

Three kinds of context compete for one budget: evidence (transcript excerpts and document
passages: the seed's "text units"), topic summaries (L1: its "community reports") and the
recent turns (L0: its "local data"). A specific question (a name, a number, a quoted term,
who/when/how much) gets more evidence; a broad one (summarize, overall, 전체, 흐름) more L1.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from datetime import datetime
from typing import Literal, TypeVar

import numpy as np

from mithub.text import content_tokens, keyword_candidates

T = TypeVar("T")
QueryType = Literal["specific", "broad", "default"]

_BROAD = re.compile(
    r"요약|정리|전체|전반|흐름|개요|지금까지|무슨 얘기|어떤 얘기|\bsummar|\boverall\b|\boverview\b|\bso far\b"
    r"|\bwhole meeting\b|\bgeneral(?:ly)?\b|\bmain (?:points|topics)\b|\bdiscussion about\b",
    re.IGNORECASE,
)
_SPECIFIC = re.compile(
    r"\d|누가|언제|얼마|몇|어디|어느|담당|마감|\"|'|“|\bwho\b|\bwhen\b|\bhow (?:much|many)\b"
    r"|\bwhich\b|\bwhere\b|\bdeadline\b|\bowner\b|\bexact(?:ly)?\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Allocation:
    evidence: float
    summaries: float
    recent: float


ALLOCATIONS: dict[QueryType, Allocation] = {
    "specific": Allocation(evidence=0.4, summaries=0.2, recent=0.4),
    "broad": Allocation(evidence=0.3, summaries=0.5, recent=0.2),
    "default": Allocation(evidence=0.5, summaries=0.25, recent=0.25),
}


@lru_cache(maxsize=8192)
def terms_of(text: str) -> frozenset[str]:
    """Content tokens of a text, cached: topic summaries are reranked on every call."""
    return frozenset(content_tokens(text))


@lru_cache(maxsize=8192)
def entities_of(text: str) -> frozenset[str]:
    return frozenset(keyword_candidates(text))


# A quick question (IMMEDIATE_RESPONSE) is answered by what was said about it, wherever in the
# meeting; the seed marks L1 as optional for it, so evidence takes most of its small budget
# (topics also get what the evidence leaves).
IMMEDIATE_ALLOCATION = Allocation(evidence=0.7, summaries=0.05, recent=0.25)


def classify_query(query: str | None) -> QueryType:
    if not query:
        return "default"
    if _BROAD.search(query):
        return "broad"
    if _SPECIFIC.search(query):
        return "specific"
    return "default"


def split_budget(total: int, allocation: Allocation, *, evidence: bool, summaries: bool,
                 recent: bool) -> dict[str, int]:
    """Tokens per kind; a kind the call type does not use passes its share to the others."""
    shares = {"evidence": allocation.evidence if evidence else 0.0,
              "summaries": allocation.summaries if summaries else 0.0,
              "recent": allocation.recent if recent else 0.0}
    weight = sum(shares.values()) or 1.0
    return {kind: int(total * share / weight) for kind, share in shares.items()}


def rerank(
    items: Sequence[T],
    query: str,
    *,
    text_of: Callable[[T], str],
    time_of: Callable[[T], datetime | None],
    now: datetime,
) -> list[T]:
    """Seed 000 §6.1: keyword match 40%, recency 20%, entity relevance 40%."""
    if not items:
        return []
    query_terms = terms_of(query)
    query_entities = entities_of(query)
    scored = []
    for position, item in enumerate(items):
        text = text_of(item)
        terms = terms_of(text)
        keyword = len(query_terms & terms) / len(query_terms) if query_terms else 0.0
        entities = entities_of(text)
        entity = len(query_entities & entities) / len(query_entities) if query_entities else 0.0
        moment = time_of(item)
        age_hours = max((now - moment).total_seconds() / 3600, 0.0) if moment else 24.0
        recency = 1.0 / (1.0 + age_hours)
        # The incoming order (the retriever's own ranking) breaks ties.
        scored.append((0.4 * keyword + 0.2 * recency + 0.4 * entity, -position, item))
    scored.sort(key=lambda row: (row[0], row[1]), reverse=True)
    return [item for _, _, item in scored]


def drop_near_duplicates(
    items: Sequence[T], vectors: np.ndarray, threshold: float = 0.9
) -> list[T]:
    """Seed 000 §6.3: keep an item only if it is not too similar to one already kept."""
    kept: list[int] = []
    for i in range(len(items)):
        if all(float(vectors[i] @ vectors[j]) < threshold for j in kept):
            kept.append(i)
    return [items[i] for i in kept]
