"""Embedder construction by name: `use-multilingual` (default), plus the backends the
retrieval issue registers. Each real implementation is its own module."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from mithub.embedders.base import CachedEmbedder, Embedder
from mithub.errors import ConfigError

_FACTORIES: dict[str, Callable[[], Embedder]] = {}


def register(name: str, factory: Callable[[], Embedder]) -> None:
    _FACTORIES[name] = factory


def _use() -> Embedder:
    from mithub.embedders.use import USEEmbedder

    return USEEmbedder()


def _e5() -> Embedder:
    from mithub.config import get_retrieval_config
    from mithub.embedders.e5 import E5Embedder

    config = get_retrieval_config()
    return E5Embedder(threads=config.embed_threads, batch_size=config.embed_batch_size)


def _sentence_transformers() -> Embedder:
    from mithub.config import get_retrieval_config
    from mithub.embedders.sentence_transformers import SentenceTransformerEmbedder

    config = get_retrieval_config()
    return SentenceTransformerEmbedder(
        config.st_model_path, threads=config.embed_threads, batch_size=config.embed_batch_size
    )


register("use-multilingual", _use)
register("e5-small", _e5)
register("sentence-transformers", _sentence_transformers)


def available_embedders() -> list[str]:
    return sorted(_FACTORIES)


@lru_cache(maxsize=8)
def load_embedder(name: str = "use-multilingual") -> CachedEmbedder:
    """A cached, process-wide embedder for `name` (loading weights costs seconds)."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigError(
            f"unknown embedding model {name!r}; choose one of {', '.join(available_embedders())}"
        )
    return CachedEmbedder(factory())
