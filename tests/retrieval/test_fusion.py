import pytest

from mithub.config import RetrievalConfig
from mithub.retrieval.fusion import adaptive_weights, lead_with_channel_tops, weighted_rrf


def test_weighted_rrf_arithmetic():
    fused = dict(weighted_rrf({"dense": ["a", "b"], "sparse": ["b", "c"]}, {"dense": 0.45, "sparse": 0.35}, 60))
    assert fused["a"] == pytest.approx(0.45 / 61)
    assert fused["b"] == pytest.approx(0.45 / 62 + 0.35 / 61)
    assert fused["c"] == pytest.approx(0.35 / 62)
    assert list(fused) == ["b", "a", "c"]


def test_missing_or_zero_weight_channel_contributes_nothing():
    fused = weighted_rrf({"dense": ["a"], "trigraph": ["z"]}, {"dense": 1.0, "trigraph": 0.0}, 60)
    assert [doc for doc, _ in fused] == ["a"]


def test_base_weights_then_language_rule_for_plain_english_query():
    config = RetrievalConfig()
    weights = adaptive_weights("who wrote the report", config)
    assert (weights.dense, weights.sparse, weights.trigraph) == pytest.approx((0.45, 0.35 * config.other_sparse_factor, 0.30))


def test_numbers_and_units_raise_sparse():
    config = RetrievalConfig()
    for query, plain in [("keep it at 18℃", "keep it warm"), ("pH of the solution", "the solution"),
                         ("EC 1.5 or lower", "lower")]:
        assert adaptive_weights(query, config).sparse == pytest.approx(
            adaptive_weights(plain, config).sparse * config.numeric_sparse_boost
        ), query


def test_sparse_boosts_do_not_compound():
    """A Korean query with a number keeps the larger of the two sparse boosts, not their product."""
    config = RetrievalConfig()
    for query in ["EC 1.5 이하로 유지?", "예산 3억 원", "구 관세법 제30조에 따르면"]:
        assert adaptive_weights(query, config).sparse == pytest.approx(0.35 * config.korean_sparse_boost), query
    stronger = RetrievalConfig(numeric_sparse_boost=6.0)
    assert adaptive_weights("예산 3억 원", stronger).sparse == pytest.approx(0.35 * 6.0)


def test_hangul_query_raises_sparse():
    config = RetrievalConfig()
    assert adaptive_weights("파드란 무엇인가", config).sparse == pytest.approx(0.35 * config.korean_sparse_boost)


@pytest.mark.parametrize("query", ["왜 생육이 떨어지나?", "어떻게 예방하나?", "Why did the build fail?", "How can we prevent leaks?"])
def test_cause_and_method_questions_raise_trigraph(query):
    weights = adaptive_weights(query, RetrievalConfig())
    assert weights.trigraph == pytest.approx(0.30 * RetrievalConfig().causal_trigraph_boost)


def test_adaptive_rules_can_be_switched_off():
    weights = adaptive_weights("왜 18℃ 인가", RetrievalConfig(adaptive_weights=False))
    assert (weights.dense, weights.sparse, weights.trigraph) == pytest.approx((0.45, 0.35, 0.30))


def test_smaller_k_lets_ranks_outweigh_weights():
    """With the default k a hit that only the lighter channel ranks first beats the heavier
    channel's rank 9 alone; with k = 60 it would lose to everything down to rank 30."""
    config = RetrievalConfig()
    heavy = [f"h{i}" for i in range(10)]
    weights = {"dense": 0.45, "trigraph": 0.30}
    fused = dict(weighted_rrf({"dense": heavy, "trigraph": ["t0"]}, weights, config.rrf_k))
    assert fused["t0"] > fused["h9"]
    fused60 = dict(weighted_rrf({"dense": heavy, "trigraph": ["t0"]}, weights, 60))
    assert fused60["t0"] < fused60["h9"]


def test_each_channel_top_hit_opens_the_fused_list():
    rankings = {"dense": ["a", "b", "c"], "sparse": ["b", "a", "c"], "trigraph": ["z", "c", "a"]}
    weights = {"dense": 0.45, "sparse": 0.35, "trigraph": 0.30}
    fused = weighted_rrf(rankings, weights, 15)
    assert [doc for doc, _ in fused] == ["a", "c", "b", "z"]  # z, only the graph's, comes last
    led = lead_with_channel_tops(fused, rankings, weights)
    assert [doc for doc, _ in led] == ["a", "b", "z", "c"]
    assert dict(led) == dict(fused)  # scores unchanged, only the order


def test_channel_without_weight_gets_no_leading_place():
    rankings = {"dense": ["a", "b"], "trigraph": ["z"]}
    fused = weighted_rrf(rankings, {"dense": 1.0, "trigraph": 0.0}, 15)
    assert lead_with_channel_tops(fused, rankings, {"dense": 1.0, "trigraph": 0.0}) == fused
