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
        gains: dict[int, float] = {}
        # One similarity call per round: the sentences of every frontier entity together.
        rows = [e2s.row(e) for e in frontier]
        flat = np.concatenate(rows) if rows else np.zeros(0, np.int32)
        sims = sentence_sims(flat) if flat.size else np.zeros(0, np.float32)
        offset = 0
        for entity, sentences in zip(frontier, rows, strict=True):
            chosen, chosen_sims = top_sentences(sentences, sims[offset : offset + sentences.size], settings.bridge_sentences)
            offset += sentences.size
            for sentence, sim in zip(chosen.tolist(), chosen_sims.tolist(), strict=True):
                passed = scores[entity] * max(sim, 0.0)
                for neighbour in s2e.row(sentence).tolist():
                    if passed > max(gains.get(neighbour, 0.0), scores.get(neighbour, 0.0)):
                        gains[neighbour] = passed
        scores.update(gains)
        scores = dict(sorted(scores.items(), key=lambda kv: -kv[1])[: settings.max_active_entities])
        frontier = _best({e: g for e, g in gains.items() if e in scores}, settings.frontier)
    return scores


def _best(scores: dict[int, float], n: int) -> list[int]:
    return [e for e, _ in sorted(scores.items(), key=lambda kv: -kv[1])[:n]]


def _entity_edges(entities: list[int], e2c: CSR) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(position of entity in `entities`, chunk, count) for every e2c edge of those entities."""
    rows = [e2c.row(e) for e in entities]
    owner = np.repeat(np.arange(len(entities)), [r.size for r in rows])
    chunks = np.concatenate(rows) if rows else np.zeros(0, np.int32)
    counts = np.concatenate([e2c.row_data(e) for e in entities]) if rows else np.zeros(0, np.float32)
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
    the candidate subgraph so it costs O(active x candidates))."""
    entities = list(entity_scores)
    chunks = list(chunk_scores)
    if not entities or not chunks:
        return chunk_scores
    owner, edge_chunks, counts = _entity_edges(entities, e2c)
    candidates = np.asarray(chunks, dtype=np.int64)
    order = np.argsort(candidates)
    position = np.searchsorted(candidates[order], edge_chunks)
    inside = (position < candidates.size) & (candidates[order][np.minimum(position, candidates.size - 1)] == edge_chunks)
    adjacency = np.zeros((len(entities), len(chunks)), dtype=np.float64)
    adjacency[owner[inside], order[position[inside]]] = counts[inside]
    restart = np.array([entity_scores[e] for e in entities], dtype=np.float64)
    restart = np.concatenate([restart / max(restart.sum(), 1e-12), np.zeros(len(chunks))])
    e_to_c = adjacency / np.maximum(adjacency.sum(axis=1, keepdims=True), 1e-12)
    c_to_e = (adjacency / np.maximum(adjacency.sum(axis=0, keepdims=True), 1e-12)).T
    rank = restart.copy()
    n_e = len(entities)
    for _ in range(iterations):
        spread = np.concatenate([rank[n_e:] @ c_to_e, rank[:n_e] @ e_to_c])
        rank = (1.0 - damping) * restart + damping * spread
    return {c: float(rank[n_e + j]) for j, c in enumerate(chunks)}
