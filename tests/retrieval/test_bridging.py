import numpy as np
import pytest

from mithub.retrieval.bridging import BridgeSettings, expand_entities, personalized_pagerank, score_chunks
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
