"""e5-small's precision paths: int8 for CPUs without bf16 units, chosen at load."""

import numpy as np
import pytest

from mithub.embedders.e5_precision import choose_precision, product_precision
from mithub.embedders.e5_torch import TorchE5Embedder
from mithub.errors import ConfigError

SENTENCES = [
    "회의에서 예산을 2억 4천만 원으로 확정했습니다.",
    "다음 분기에는 화자 분리를 먼저 하고, 데모는 금요일에 합니다.",
    "김 팀장이 배포 일정을 다음 주 수요일로 미루자고 제안했다.",
    "The Eiffel Tower is in Paris.",
    "Sprint 15 commits to 36 points; the demo is on Friday and the Q3 review follows.",
    "Alice will send the revised budget to the finance team by the end of the month.",
]


@pytest.fixture(scope="module")
def fp32() -> TorchE5Embedder:
    return TorchE5Embedder(precision="fp32")


@pytest.fixture(scope="module")
def int8() -> TorchE5Embedder:
    return TorchE5Embedder(precision="int8")


def test_int8_vectors_are_close_to_float32(fp32, int8):
    for embed in ("embed_documents", "embed_queries"):
        ours, reference = getattr(int8, embed)(SENTENCES), getattr(fp32, embed)(SENTENCES)
        assert ours.dtype == np.float32 and np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
        assert (ours * reference).sum(1).min() > 0.99


def test_int8_batching_changes_little(int8):
    # Dynamic int8 scales a product's input by its range over the whole batch, so a text's vector
    # moves a little with its batch-mates (float32 and bf16: not at all, test_e5_torch.py).
    together = int8.embed_documents(SENTENCES)
    alone = np.concatenate([int8.embed_documents([s]) for s in SENTENCES])
    assert (together * alone).sum(1).min() > 0.99


def test_int8_queries_find_their_passages(int8):
    passages = int8.embed_documents(SENTENCES[:4])
    queries = int8.embed_queries(
        ["예산은 얼마로 확정했나요", "데모는 언제 하나요", "배포 일정은 누가 미뤘나", "where is the eiffel tower"])
    assert list((queries @ passages.T).argmax(1)) == [0, 1, 2, 3]


def test_auto_is_bf16_where_the_cpu_multiplies_bf16_and_int8_elsewhere():
    assert choose_precision("auto", bf16_fast=True) == "bf16"
    assert choose_precision("auto", bf16_fast=False) == "int8"


def test_a_precision_that_is_set_runs_whatever_the_cpu():
    for setting in ("bf16", "int8", "fp32"):
        assert choose_precision(setting, bf16_fast=True) == choose_precision(setting, bf16_fast=False) == setting


def test_an_unknown_precision_names_the_setting_and_the_choices():
    with pytest.raises(ConfigError, match=r"RETRIEVAL_E5_PRECISION='int4'.*auto, bf16, int8, fp32"):
        choose_precision("int4", bf16_fast=False)


def test_the_embedder_reports_the_path_that_runs(int8, fp32):
    assert int8.label == "e5-small/torch-int8" and fp32.label == "e5-small/torch-fp32"
    # every path gives the same model id: an index built with one is searched with another
    assert int8.model_id == fp32.model_id == "multilingual-e5-small-q4-torch"


def test_int8_keeps_the_ffn_output_product_in_float32():
    # its input is GELU's long-tailed output: in int8 it cost 0.025 dense R@5 on two dev sets
    assert product_precision("int8", "fo") == "fp32"
    assert [product_precision("int8", name) for name in ("qkv", "ao", "fi")] == ["int8"] * 3
    assert product_precision("bf16", "fo") == "bf16"
