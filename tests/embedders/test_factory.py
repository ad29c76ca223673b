from mithub.embedders import available_embedders
from mithub.embedders.factory import build_embedder
from mithub.embedders.sentence_pooled import SentencePooledEmbedder


def test_dense_options_are_selectable_by_name():
    assert {"e5-small", "e5-small-sentences", "use-multilingual", "use-multilingual-sentences"} <= set(available_embedders())
    pooled = build_embedder("use-multilingual-sentences", 1)
    assert isinstance(pooled, SentencePooledEmbedder) and pooled.model_id == "use-multilingual-v3+sentence-mean"
    assert build_embedder("use-multilingual-sentences", 1) is pooled  # loaded once per process
