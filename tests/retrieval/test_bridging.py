import numpy as np
import pytest

from mithub.retrieval.bridging import BridgeSettings, expand_entities, personalized_pagerank, score_chunks, top_sentences
from mithub.retrieval.csr import CSR

# Sentences 0..3, entities 0..3, chunks 0..2:
# s0 (chunk 0): e0, e1 | s1 (chunk 1): e1, e2 | s2 (chunk 2): e2, e3 | s3 (chunk 2): e3
S2E = CSR.from_pairs(np.array([0, 0, 1, 1, 2, 2, 3]), np.array([0, 1, 1, 2, 2, 3, 3]), (4, 4))
E2S = S2E.transpose()
E2C = E2S.map_columns(np.array([0, 1, 2, 2]), 3)


def test_csr_transpose_and_chunk_mapping():
    assert E2S.row(1).tolist() == [0, 1]
    assert E2C.row(3).tolist() == [2] and E2C.row_data(3).tolist() == [2.0]


def test_csr_round_trip_without_pickle(tmp_path):
    E2C.save(tmp_path / "e2c.npz")
    with np.load(tmp_path / "e2c.npz", allow_pickle=False) as arrays:
        assert str(arrays["format"]) == "csr"
    loaded = CSR.load(tmp_path / "e2c.npz")
    assert loaded.shape == E2C.shape and loaded.indices.tolist() == E2C.indices.tolist()


def test_bridging_reaches_entities_hops_away_with_decaying_scores():
    sims = np.array([0.9, 0.8, 0.5, 0.1], dtype=np.float32)
    active = expand_entities({0: 1.0}, E2S, S2E, lambda rows: sims[rows], BridgeSettings(3, 3, 64, 16))
    assert active[1] == pytest.approx(0.9)
    assert active[2] == pytest.approx(0.9 * 0.8)
    assert active[3] == pytest.approx(0.9 * 0.8 * 0.5)
    no_hops = expand_entities({0: 1.0}, E2S, S2E, lambda rows: sims[rows], BridgeSettings(3, 0, 64, 16))
    assert no_hops == {0: 1.0}


def test_active_entities_are_capped():
    sims = np.ones(4, dtype=np.float32)
    active = expand_entities({0: 1.0}, E2S, S2E, lambda rows: sims[rows], BridgeSettings(3, 3, 2, 16))
    assert len(active) == 2


def test_chunk_scores_sum_entity_scores_and_prune():
    scores = score_chunks({1: 1.0, 3: 0.5}, E2C, max_candidates=2)
    assert scores[0] == pytest.approx(1.0) and scores[1] == pytest.approx(1.0)
    assert len(scores) == 2
    assert score_chunks({3: 0.5}, E2C, 5) == {2: pytest.approx(0.5 * np.sqrt(2))}


def test_ppr_prefers_chunks_of_the_strongest_entities():
    ranked = personalized_pagerank({0: 1.0, 3: 0.1}, {0: 1.0, 1: 1.0, 2: 1.0}, E2C, 0.85, 16)
    assert ranked[0] > ranked[2] > 0
    assert ranked[1] == 0.0  # not reachable from the active entities' edges
    assert sum(ranked.values()) < 1.0


def _loop_expand(seeds, e2s, s2e, sims, settings):
    """The per-sentence loop expand_entities replaced, kept as its specification."""
    scores = dict(seeds)
    frontier = list(seeds)
    for _ in range(settings.iterations):
        if not frontier:
            break
        gains: dict[int, float] = {}
        for entity in frontier:
            sentences = e2s.row(entity)
            chosen, chosen_sims = top_sentences(sentences, sims[sentences], settings.bridge_sentences)
            for sentence, sim in zip(chosen.tolist(), chosen_sims.tolist(), strict=True):
                passed = scores[entity] * max(sim, 0.0)
                for neighbour in s2e.row(sentence).tolist():
                    if passed > max(gains.get(neighbour, 0.0), scores.get(neighbour, 0.0)):
                        gains[neighbour] = passed
        scores.update(gains)
        scores = dict(sorted(scores.items(), key=lambda kv: -kv[1])[: settings.max_active_entities])
        best = sorted(((e, g) for e, g in gains.items() if e in scores), key=lambda kv: -kv[1])
        frontier = [e for e, _ in best[: settings.frontier]]
    return scores


def _random_graph(rng: np.random.Generator, n_sentences: int, n_entities: int) -> CSR:
    rows = np.repeat(np.arange(n_sentences), rng.integers(0, 5, n_sentences))
    return CSR.from_pairs(rows, rng.integers(0, n_entities, rows.size), (n_sentences, n_entities))


@pytest.mark.parametrize("seed", range(40))
def test_expansion_matches_the_sentence_loop_exactly(seed):
    """Same entities, scores and order (ties are common: similarities from a few values)."""
    rng = np.random.default_rng(seed)
    s2e = _random_graph(rng, 300, 60)
    sims = rng.choice(np.array([-0.2, 0.1, 0.5, 0.5, 0.9], dtype=np.float32), 300)
    seeds = {int(e): float(rng.choice([0.4, 0.7, 1.0])) for e in rng.choice(60, 4, replace=False)}
    settings = BridgeSettings(3, 3, int(rng.choice([8, 64])), int(rng.choice([4, 16])))
    expected = _loop_expand(seeds, s2e.transpose(), s2e, sims, settings)
    active = expand_entities(seeds, s2e.transpose(), s2e, lambda rows: sims[rows], settings)
    assert list(active.items()) == list(expected.items())


def _dense_ppr(entity_scores, chunk_scores, e2c, damping, iterations):
    entities, chunks = list(entity_scores), list(chunk_scores)
    adjacency = np.zeros((len(entities), len(chunks)))
    for i, e in enumerate(entities):
        for c, count in zip(e2c.row(e).tolist(), e2c.row_data(e).tolist(), strict=True):
            if c in chunk_scores:
                adjacency[i, chunks.index(c)] = count
    restart = np.array([entity_scores[e] for e in entities])
    restart = np.concatenate([restart / restart.sum(), np.zeros(len(chunks))])
    e_to_c = adjacency / np.maximum(adjacency.sum(axis=1, keepdims=True), 1e-12)
    c_to_e = (adjacency / np.maximum(adjacency.sum(axis=0, keepdims=True), 1e-12)).T
    rank = restart.copy()
    for _ in range(iterations):
        rank = (1 - damping) * restart + damping * np.concatenate([rank[len(entities):] @ c_to_e, rank[: len(entities)] @ e_to_c])
    return dict(zip(chunks, rank[len(entities):].tolist(), strict=True))


@pytest.mark.parametrize("seed", range(10))
def test_ppr_edge_lists_equal_the_dense_matrix_walk(seed):
    rng = np.random.default_rng(seed)
    e2c = _random_graph(rng, 60, 200)
    entity_scores = {int(e): float(s) for e, s in zip(rng.choice(60, 20, replace=False), rng.random(20), strict=True)}
    chunk_scores = score_chunks(entity_scores, e2c, 40)
    ranked = personalized_pagerank(entity_scores, chunk_scores, e2c, 0.85, 16)
    expected = _dense_ppr(entity_scores, chunk_scores, e2c, 0.85, 16)
    assert sorted(ranked, key=lambda c: -ranked[c]) == sorted(expected, key=lambda c: -expected[c])
    assert list(ranked.values()) == pytest.approx(list(expected.values()), rel=1e-12, abs=1e-15)


def test_csr_gather_reads_rows_in_the_order_asked():
    rows = [3, 0, 2, 3]
    owner, columns, values = E2C.gather(np.array(rows))
    assert owner.tolist() == [0, 1, 2, 2, 3]
    assert columns.tolist() == [c for r in rows for c in E2C.row(r).tolist()]
    assert values.tolist() == [v for r in rows for v in E2C.row_data(r).tolist()]
    assert [a.size for a in E2C.gather(np.zeros(0, np.int64))] == [0, 0, 0]
