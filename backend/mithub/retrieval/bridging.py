"""Tri-Graph retrieval steps of seed 001 Algorithm 1: seed entities, semantic bridging
(entity -> sentence -> entity, T rounds), chunk scoring through e2c with pruning, and the
optional personalized PageRank over the candidate subgraph."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from mithub.retrieval.csr import CSR


@dataclass(frozen=True)
class BridgeSettings:
    bridge_sentences: int = 3
    iterations: int = 3
    max_active_entities: int = 64
    frontier: int = 16


SentenceSims = Callable[[np.ndarray], np.ndarray]


def top_sentences(sentences: np.ndarray, sims: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    if sentences.size > k:
        keep = np.argpartition(-sims, k - 1)[:k]
        return sentences[keep], sims[keep]
    return sentences, sims


def expand_entities(
    seeds: dict[int, float],
    e2s: CSR,
    s2e: CSR,
    sentence_sims: SentenceSims,
    settings: BridgeSettings,
) -> dict[int, float]:
    """Spread activation from seed entities: each active entity keeps its `k_s` sentences
    most similar to the query and passes score x sentence similarity to the entities in
    them; repeated `T` times, the active set capped at `max_active_entities`."""
    scores = dict(seeds)
    frontier = list(seeds)
    for _ in range(settings.iterations):
        if not frontier:
            break
        sentences, passed = _bridge_sentences(frontier, scores, e2s, sentence_sims, settings.bridge_sentences)
        gains = _gains(sentences, passed, s2e, scores)
        scores.update(gains)
        scores = dict(sorted(scores.items(), key=lambda kv: -kv[1])[: settings.max_active_entities])
        frontier = _best({e: g for e, g in gains.items() if e in scores}, settings.frontier)
    return scores


def _bridge_sentences(
    frontier: list[int], scores: dict[int, float], e2s: CSR, sentence_sims: SentenceSims, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each frontier entity's `k` sentences most similar to the query, frontier order, with
    the score passed through each: entity score x similarity (negative similarity passes 0)."""
    owner, sentences, _ = e2s.gather(np.asarray(frontier))
    # One similarity call per round: the sentences of every frontier entity together.
    sims = sentence_sims(sentences) if sentences.size else np.zeros(0, np.float32)
    bounds = np.searchsorted(owner, np.arange(len(frontier) + 1))
    sizes = np.diff(bounds)
    # An entity with at most k sentences keeps them all; the others pick theirs as
    # top_sentences does, then a stable sort puts the picks back in frontier order.
    picks = [np.flatnonzero(sizes[owner] <= k)]
    for i in np.flatnonzero(sizes > k).tolist():
        start, stop = int(bounds[i]), int(bounds[i + 1])
        picks.append(start + np.argpartition(-sims[start:stop], k - 1)[:k])
    chosen = np.concatenate(picks)
    chosen = chosen[np.argsort(owner[chosen], kind="stable")]
    entity_scores = np.array([scores[e] for e in frontier], dtype=np.float64)
    passed = entity_scores[owner[chosen]] * np.maximum(sims[chosen].astype(np.float64), 0.0)
    return sentences[chosen], passed


def _gains(sentences: np.ndarray, passed: np.ndarray, s2e: CSR, scores: dict[int, float]) -> dict[int, float]:
    """The best score reaching each entity of `sentences`, kept where it beats the entity's
    current score. Keys are in the order the entities were first beaten (sentence after
    sentence), as a loop over the sentences would insert them: equal scores later keep it."""
    pair, neighbours, _ = s2e.gather(sentences)
    offered = passed[pair]
    current = _lookup(scores, neighbours)
    better = offered > np.maximum(current, 0.0)
    neighbours, offered = neighbours[better], offered[better]
    if not neighbours.size:
        return {}
    unique, first, inverse = np.unique(neighbours, return_index=True, return_inverse=True)
    best = np.zeros(unique.size)
    np.maximum.at(best, inverse, offered)
    order = np.argsort(first)
    return dict(zip(unique[order].tolist(), best[order].tolist(), strict=True))


def _lookup(scores: dict[int, float], keys: np.ndarray) -> np.ndarray:
    """scores[key] for each key, 0 where absent."""
    known = np.fromiter(scores, dtype=np.int64, count=len(scores))
    values = np.fromiter(scores.values(), dtype=np.float64, count=len(scores))
    order = np.argsort(known)
    position = np.minimum(np.searchsorted(known[order], keys), max(len(known) - 1, 0))
    found = known[order][position] == keys if len(known) else np.zeros(keys.size, dtype=bool)
    return np.where(found, values[order][position] if len(known) else 0.0, 0.0)


def _best(scores: dict[int, float], n: int) -> list[int]:
    return [e for e, _ in sorted(scores.items(), key=lambda kv: -kv[1])[:n]]


def _entity_edges(entities: list[int], e2c: CSR) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(position of entity in `entities`, chunk, count) for every e2c edge of those entities."""
    owner, chunks, counts = e2c.gather(np.asarray(entities, dtype=np.int64))
    return owner, chunks.astype(np.int64), counts


def score_chunks(entity_scores: dict[int, float], e2c: CSR, max_candidates: int) -> dict[int, float]:
    """Sum of active entity scores over the chunks they occur in; a chunk naming an entity in
    several sentences counts it sqrt(times), so long chunks do not win by length alone."""
    entities = list(entity_scores)
    owner, chunks, counts = _entity_edges(entities, e2c)
    if not chunks.size:
        return {}
    weights = np.array([entity_scores[e] for e in entities])[owner] * np.sqrt(counts)
    unique, inverse = np.unique(chunks, return_inverse=True)
    totals = np.bincount(inverse, weights=weights)
    keep = np.argsort(-totals, kind="stable")[:max_candidates]
    return {int(unique[i]): float(totals[i]) for i in keep}


def personalized_pagerank(
    entity_scores: dict[int, float],
    chunk_scores: dict[int, float],
    e2c: CSR,
    damping: float,
    iterations: int,
) -> dict[int, float]:
    """PPR on the bipartite subgraph of active entities and candidate chunks, restarting at
    the entities in proportion to their scores (HippoRAG-style global aggregation, kept to
    the candidate subgraph so it costs O(edges between them) per iteration)."""
    entities = list(entity_scores)
    chunks = list(chunk_scores)
    if not entities or not chunks:
        return chunk_scores
    entity_of, chunk_of, weight = _candidate_edges(entities, chunks, e2c)
    n_e, n_c = len(entities), len(chunks)
    # Edge lists and bincount, not a dense matrix product: numpy hands that to a threaded
    # BLAS, which for one query costs more than the product (and stalls on a busy machine).
    e_to_c = weight / np.maximum(np.bincount(entity_of, weight, n_e), 1e-12)[entity_of]
    c_to_e = weight / np.maximum(np.bincount(chunk_of, weight, n_c), 1e-12)[chunk_of]
    restart = np.array([entity_scores[e] for e in entities], dtype=np.float64)
    restart = restart / max(restart.sum(), 1e-12)
    entity_rank, chunk_rank = restart.copy(), np.zeros(n_c)
    for _ in range(iterations):
        to_entities = np.bincount(entity_of, chunk_rank[chunk_of] * c_to_e, n_e)
        to_chunks = np.bincount(chunk_of, entity_rank[entity_of] * e_to_c, n_c)
        # Chunks have no restart mass.
        entity_rank = (1.0 - damping) * restart + damping * to_entities
        chunk_rank = damping * to_chunks
    return dict(zip(chunks, chunk_rank.tolist(), strict=True))


def _candidate_edges(entities: list[int], chunks: list[int], e2c: CSR) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(entity position, chunk position, count) for the e2c edges between the two lists."""
    owner, edge_chunks, counts = _entity_edges(entities, e2c)
    candidates = np.asarray(chunks, dtype=np.int64)
    order = np.argsort(candidates)
    position = np.searchsorted(candidates[order], edge_chunks)
    inside = (position < candidates.size) & (candidates[order][np.minimum(position, candidates.size - 1)] == edge_chunks)
    return owner[inside], order[position[inside]], counts[inside].astype(np.float64)
