"""Any sentence-transformers model from a local folder (install extra `st`). torch and
sentence-transformers are imported only when this backend is used."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from mithub.embedders.base import l2_normalize
from mithub.errors import ConfigError, ModelLoadError


class SentenceTransformerEmbedder:
    def __init__(self, model_path: str | Path, threads: int = 1, batch_size: int = 32) -> None:
        path = Path(model_path) if str(model_path).strip() else None
        if path is None or not path.is_dir():
            raise ConfigError(
                f"sentence-transformers model folder {model_path!r} not found; "
                "set RETRIEVAL_ST_MODEL_PATH to a local model directory"
            )
        try:
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ModelLoadError(
                "sentence-transformers is not installed: pip install 'mithub[st]'"
            ) from exc
        torch.set_num_threads(threads)
        # local_files_only: a model is a path here, never a hub download.
        self._model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        # sentence-transformers 5+ renamed the accessor; keep both versions working.
        dimension = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
        self.dim = int(dimension())
        self.model_id = f"st:{path.name}"
        self._batch = batch_size

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = self._model.encode(
            list(texts), batch_size=self._batch, convert_to_numpy=True, show_progress_bar=False
        )
        return l2_normalize(vectors)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._encode(texts)

    embed_queries = embed_documents
