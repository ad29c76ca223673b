import json

import numpy as np

from mithub.embedders import load_embedder
from mithub.retrieval.entities import english_phrases, filter_by_df, sentence_entities
from mithub.retrieval.trigraph import TRIGRAPH_DIR, TriGraph, _as_scaled_float32, _dot


def test_entities_without_llm_korean_nouns_and_english_names():
    assert "haymo of faversham" in english_phrases("The era of Haymo of Faversham began.")
    assert "the" not in english_phrases("The film was shot.")
    korean = sentence_entities("와사비 재배에는 서늘한 물이 필요하다")
    assert {"와사비", "재배"} <= korean


def test_document_frequency_filter_drops_rare_and_ubiquitous():
    found = [{"common", "pair"}, {"common", "pair"}, {"common", "single"}, {"common"}]
    assert filter_by_df(found, min_df=2, max_df_ratio=0.5, max_df_floor=3) == ["pair"]


def test_artefacts_round_trip(built_index_dir):
    target = built_index_dir / TRIGRAPH_DIR
    names = {p.name for p in target.iterdir()}
    assert {
        "entity_embeddings.npy", "sentence_embeddings.npy", "sentence_chunk_idx.npy", "chunk_ids.json",
        "entities.json", "s2e.npz", "e2s.npz", "e2c.npz", "meta.json",
    } <= names
    graph = TriGraph.load(built_index_dir)
    assert graph.entity_vectors.dtype == np.float16 and graph.sentence_vectors.dtype == np.float16
    assert graph.s2e.shape == (len(graph.sentence_chunk), len(graph.entities))
    assert graph.e2s.shape == (len(graph.entities), len(graph.sentence_chunk))
    meta = json.loads((target / "meta.json").read_text())
    assert meta["model_id"] == "use-multilingual-v3" and meta["dim"] == 512
    assert meta["corpus_hash"] and meta["entities"] == len(graph.entities)
    assert "david lynch" in graph.entities and "montana" in graph.entities


def test_walk_from_first_hop_reaches_second_hop(built_index_dir, retrieval_config):
    graph = TriGraph.load(built_index_dir)
    embedder = load_embedder("use-multilingual")
    query = embedder.embed_queries(["Where was the director of Blue Velvet born?"])[0]
    first_hop = graph.chunk_ids.index("blue-velvet#c0")
    rows, scores = graph.search(query, 5, retrieval_config, seed_chunks=[(first_hop, 1.0)])
    found = [graph.chunk_ids[r] for r in rows]
    assert "david-lynch#c0" in found[:2]
    assert list(scores) == sorted(scores, reverse=True)


def test_graph_grows_without_rebuild(built_index_dir, retrieval_config, tmp_path):
    graph = TriGraph.load(built_index_dir)
    before = graph.stats()
    embedder = load_embedder("use-multilingual")
    graph.add(["twin-peaks#c0"], ["Twin Peaks was created by David Lynch and Mark Frost. Mark Frost wrote it with Lynch."],
              embedder, retrieval_config)
    after = graph.stats()
    assert after["chunks"] == before["chunks"] + 1 and after["entities"] >= before["entities"] + 1
    lynch = graph.entities.index("david lynch")
    assert graph.chunk_ids.index("twin-peaks#c0") in graph.e2c.row(lynch).tolist()
    graph.save(tmp_path, "hash")
    assert TriGraph.load(tmp_path).stats() == after


def test_sentence_similarity_equals_the_float32_product_for_every_half():
    """The bit-level float16 conversion behind the sentence similarities is exact."""
    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    halves = halves[np.isfinite(halves)]
    assert np.array_equal(_as_scaled_float32(halves) * np.float32(2.0**112), halves.astype(np.float32))
    rows = np.random.default_rng(0).standard_normal((50, 512)).astype(np.float16)
    query = np.random.default_rng(1).standard_normal(512).astype(np.float32)
    assert np.array_equal(_dot(rows, query), np.einsum("ij,j->i", rows.astype(np.float32), query))
