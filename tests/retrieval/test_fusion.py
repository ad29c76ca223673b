import pytest

from mithub.config import RetrievalConfig
from mithub.retrieval.fusion import adaptive_weights, weighted_rrf


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
    assert (weights.dense, weights.sparse, weights.trigraph) == pytest.approx((0.45, 0.35 * config.other_sparse_factor, 0.20))


def test_numbers_and_units_raise_sparse():
    config = RetrievalConfig()
    for query, plain in [("EC 1.5 이하로 유지?", "이하로 유지?"), ("keep it at 18℃", "keep it warm"),
                         ("pH of the solution", "the solution"), ("예산 3억 원", "예산")]:
        assert adaptive_weights(query, config).sparse == pytest.approx(
            adaptive_weights(plain, config).sparse * config.numeric_sparse_boost
        ), query


def test_hangul_query_raises_sparse():
    config = RetrievalConfig()
    assert adaptive_weights("파드란 무엇인가", config).sparse == pytest.approx(0.35 * config.korean_sparse_boost)


@pytest.mark.parametrize("query", ["왜 생육이 떨어지나?", "어떻게 예방하나?", "Why did the build fail?", "How can we prevent leaks?"])
def test_cause_and_method_questions_raise_trigraph(query):
    weights = adaptive_weights(query, RetrievalConfig())
    assert weights.trigraph == pytest.approx(0.20 * RetrievalConfig().causal_trigraph_boost)


def test_adaptive_rules_can_be_switched_off():
    weights = adaptive_weights("왜 18℃ 인가", RetrievalConfig(adaptive_weights=False))
    assert (weights.dense, weights.sparse, weights.trigraph) == pytest.approx((0.45, 0.35, 0.20))
