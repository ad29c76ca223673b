"""Building the three channels over chunk rows, stage by stage (timed in a `BuildProfile`),
with every document vector going through the on-disk vector cache: a rebuild, a resumed
build or an incremental add never encodes a text twice."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import numpy as np
import structlog

from mithub.config import RetrievalConfig
from mithub.embedders.base import CachedEmbedder, Embedder
from mithub.embedders.factory import POOLED_NAME_SUFFIX
from mithub.embedders.process import ProcessEmbedder
from mithub.embedders.sentence_pooled import SentencePooledEmbedder
from mithub.embedders.vector_cache import VECTORS_DIR, PersistentCachedEmbedder
from mithub.errors import ConfigError
from mithub.retrieval import dense, sparse
from mithub.retrieval.dense_encoder import DenseEncoder
from mithub.retrieval.models import Chunk
from mithub.retrieval.profile import BuildProfile
from mithub.retrieval.trigraph import TriGraph, chunk_sentences

logger = structlog.get_logger(__name__)


def cache_root(directory: Path, config: RetrievalConfig) -> Path:
    return Path(config.vector_cache_dir) if config.vector_cache_dir.strip() else directory / VECTORS_DIR


def with_vector_cache(embedder: Embedder, root: Path, batch: int) -> Embedder:
    """`embedder` with its document vectors read from / written to the cache under `root`.
    A sentence-pooled embedder caches its sentences (what is actually encoded); the
    in-memory LRU wrapper is dropped, the disk cache supersedes it."""
    if isinstance(embedder, PersistentCachedEmbedder):
        return embedder
    if isinstance(embedder, CachedEmbedder):
        return with_vector_cache(embedder.inner, root, batch)
    if isinstance(embedder, SentencePooledEmbedder):
        return SentencePooledEmbedder(with_vector_cache(embedder.inner, root, batch))
    return PersistentCachedEmbedder(embedder, root, batch)


def _persistent(embedder: Embedder) -> PersistentCachedEmbedder | None:
    while not isinstance(embedder, PersistentCachedEmbedder):
        embedder = getattr(embedder, "inner", None)  # type: ignore[assignment]
        if embedder is None:
            return None
    return embedder


def encode_dense(embedder: Embedder, texts: Sequence[str], profile: BuildProfile) -> np.ndarray:
    """Chunk vectors, with a progress bar over the texts the model still has to encode."""
    with profile.stage("dense encode", "chunk", len(texts)):
        persistent = _persistent(embedder)
        if persistent is None:
            return _encode_in_batches(embedder, texts, profile)
        units = texts
        if isinstance(embedder, SentencePooledEmbedder):
            units = [s for t in texts for s in embedder.sentences_of(t)]
        with profile.bar("dense encode", persistent.unseen(units), "text") as bar:
            persistent.on_batch = bar.update
            try:
                return embedder.embed_documents(texts)
            finally:
                persistent.on_batch = None


def _encode_in_batches(embedder: Embedder, texts: Sequence[str], profile: BuildProfile, batch: int = 256) -> np.ndarray:
    parts = [np.zeros((0, embedder.dim), np.float32)]
    with profile.bar("dense encode", len(texts), "chunk") as bar:
        for start in range(0, len(texts), batch):
            parts.append(embedder.embed_documents(list(texts[start : start + batch])))
            bar.update(min(batch, len(texts) - start))
    return np.concatenate(parts)


def analyse_chunks(texts: Sequence[str], profile: BuildProfile) -> tuple[list[list[str]], list[list[str]]]:
    """Each chunk's BM25 tokens and its sentences for the Tri-Graph, in one pass: a Korean
    chunk's morpheme analysis serves both (text/korean.py keeps the latest analyses), where two
    passes over a corpus would each analyse every chunk."""
    tokens, sentences = [], []
    with profile.stage("sparse tokenize", "chunk", len(texts)), profile.bar("sparse tokenize", len(texts), "chunk") as bar:
        for text in texts:
            tokens.append(sparse.tokenize(text))
            sentences.append(chunk_sentences(text))
            bar.update(1)
    return tokens, sentences


def build_sparse(tokens: Sequence[list[str]], profile: BuildProfile, index: sparse.SparseIndex | None = None) -> sparse.SparseIndex:
    """A new sparse index of the chunks' `tokens`, or `index` with them appended."""
    with profile.stage("sparse index", "chunk", len(tokens)):
        if index is None:
            return sparse.SparseIndex.build(tokens)
        index.add(tokens)
        return index


def shares_model(embedder: Embedder, tri_embedder: Embedder) -> bool:
    """True when the dense channel and the Tri-Graph encode with one model (one cache)."""
    return _cache_folder(embedder) == _cache_folder(tri_embedder)


def build_channels(
    chunk_ids: Sequence[str],
    texts: Sequence[str],
    embedder: Embedder,
    tri_embedder: Embedder,
    config: RetrievalConfig,
    profile: BuildProfile,
    dense_encoder: DenseEncoder | None,
) -> dict[str, object]:
    """With two models, `dense_encoder` (fed while the corpus was read) encodes the dense
    channel beside the sparse and Tri-Graph stages: each encoder keeps one thread while both
    run (a second BLAS/OpenMP thread per encoder made USE 12x slower whenever the machine was
    busy), and an encoder that can change its thread count (e5 on torch) takes every core once
    the other stages are done. With one shared model (`dense_encoder` None) the stages run in
    turn, so the Tri-Graph finds the dense channel's sentence vectors in the cache."""
    if dense_encoder is None:
        vectors = encode_dense(embedder, texts, profile)
    tokens, sentences = analyse_chunks(texts, profile)
    sparse_index = build_sparse(tokens, profile)
    graph = TriGraph.build(chunk_ids, texts, tri_embedder, config, profile=profile, sentences=sentences)
    if dense_encoder is not None:
        # The other stages are done: the dense encoder may take every core now.
        dense_encoder.set_threads(max(config.build_threads, len(os.sched_getaffinity(0))))
        try:
            vectors = dense_encoder.result()
        finally:
            dense_encoder.set_threads(config.build_threads)
    with profile.stage("dense index", "chunk", len(texts)):
        dense_index = dense.DenseIndex.build(vectors)
    return {"dense": dense_index, "sparse": sparse_index, "trigraph": graph}


def _cache_folder(embedder: Embedder) -> Path | None:
    persistent = _persistent(embedder)
    return persistent.cache.directory if persistent is not None else None


# Settings an index is built with that `mithub index add` must share: chunks cut another way
# or entities filtered another way would not match what is already indexed.
BUILD_SETTINGS = (
    "window_sentences", "window_stride", "markdown_chunk_size", "markdown_chunk_overlap",
    "entity_min_df", "entity_max_df_ratio", "entity_max_df_floor", "entity_max_df_cap",
)


def build_settings(config: RetrievalConfig) -> dict[str, float]:
    return {name: getattr(config, name) for name in BUILD_SETTINGS}


def check_build_settings(stored: dict[str, float], config: RetrievalConfig, directory: Path) -> None:
    """A clear error, naming each setting, when the current settings would chunk or filter
    differently from the index's build."""
    current = build_settings(config)
    differ = [f"RETRIEVAL_{k.upper()}={current[k]} (index: {v})" for k, v in stored.items() if k in current and current[k] != v]
    if differ:
        raise ConfigError(
            f"{directory} was built with other settings: {', '.join(differ)}; "
            "set them back to the index's values, or rebuild it with `mithub index build`"
        )


def build_encoder(embedder: Embedder, name: str | None, config: RetrievalConfig, directory: Path) -> Embedder:
    """The dense channel's document encoder for a build: the model the settings name, in a
    child process (`RETRIEVAL_BUILD_PROCESS`), through the same vector cache; an embedder
    handed in as an object, or sentence-pooled, encodes in a thread of this process."""
    if not config.build_process or name is None or name.endswith(POOLED_NAME_SUFFIX):
        return embedder
    remote = ProcessEmbedder(name, config.build_threads, embedder.model_id, embedder.dim)
    return with_vector_cache(remote, cache_root(directory, config), config.build_batch)


def read_chunks(chunks: Iterable[Chunk], profile: BuildProfile, dense_encoder: DenseEncoder | None) -> list[Chunk]:
    """The corpus's chunks, each id once, handed to the dense encoder as they are read."""
    with profile.stage("load + chunk", "chunk") as stage:
        unique = []
        for chunk in _unique(chunks):
            unique.append(chunk)
            if dense_encoder is not None:
                dense_encoder.put(chunk.text)
        stage.items = len(unique)
    if dense_encoder is not None:
        dense_encoder.close()
    return unique


def _unique(chunks: Iterable[Chunk]) -> Iterator[Chunk]:
    seen: set[str] = set()
    for chunk in chunks:
        if chunk.id in seen:
            logger.warning("retrieval_duplicate_chunk_skipped", chunk_id=chunk.id)
            continue
        seen.add(chunk.id)
        yield chunk
