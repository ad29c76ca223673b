"""HybridIndex: one directory holding the dense, sparse and Tri-Graph channels over the same
chunk rows, `meta.json` checked at load, weighted-RRF search, and incremental growth
(documents or finished meetings) without a rebuild."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import structlog

from mithub.config import RetrievalConfig, get_retrieval_config
from mithub.context.models import TopicSegment, Utterance
from mithub.embedders import load_embedder
from mithub.embedders.base import Embedder
from mithub.embedders.factory import POOLED_NAME_SUFFIX, build_embedder
from mithub.embedders.sentence_pooled import SentencePooledEmbedder
from mithub.errors import ConfigError, IndexFormatError, InputError, MitHubError
from mithub.observability import retrieval_timer
from mithub.retrieval import dense, fusion, sparse
from mithub.retrieval.build import (
    analyse_chunks,
    build_channels,
    build_encoder,
    build_settings,
    build_sparse,
    cache_root,
    encode_dense,
    read_chunks,
    shares_model,
    with_vector_cache,
)
from mithub.retrieval.dense_encoder import DenseEncoder
from mithub.retrieval.meetings import meeting_chunks
from mithub.retrieval.models import (
    CHANNELS,
    INDEX_FORMAT_VERSION,
    ChannelName,
    Chunk,
    Hit,
    IndexMeta,
)
from mithub.retrieval.profile import BuildProfile
from mithub.retrieval.trigraph import TriGraph

logger = structlog.get_logger(__name__)
META_FILE = "meta.json"


def corpus_hash(chunks: Iterable[Chunk], previous: str = "") -> str:
    digest = hashlib.blake2b(previous.encode(), digest_size=16)
    for chunk in chunks:
        digest.update(chunk.id.encode() + b"\x00" + chunk.text.encode() + b"\x01")
    return digest.hexdigest()


class HybridIndex:
    """Implements the `Retriever` port."""

    def __init__(
        self,
        directory: Path,
        config: RetrievalConfig,
        meta: IndexMeta,
        chunks: list[Chunk],
        embedder: Embedder | None,
        tri_embedder: Embedder | None,
        channels: dict[str, object],
    ) -> None:
        self.directory = directory
        self.config = config
        self.meta = meta
        self.chunks = chunks
        self.embedder = embedder
        self.tri_embedder = tri_embedder
        self.dense: dense.DenseIndex | None = channels.get("dense")  # type: ignore[assignment]
        self.sparse: sparse.SparseIndex | None = channels.get("sparse")  # type: ignore[assignment]
        self.trigraph: TriGraph | None = channels.get("trigraph")  # type: ignore[assignment]
        self._row_of = {c.id: i for i, c in enumerate(chunks)}

    @property
    def channels(self) -> list[ChannelName]:
        return [name for name in CHANNELS if getattr(self, name) is not None]

    # --- build ----------------------------------------------------------------------

    @classmethod
    def build(
        cls,
        chunks: Iterable[Chunk],
        directory: Path,
        config: RetrievalConfig | None = None,
        *,
        embedder: Embedder | None = None,
        tri_embedder: Embedder | None = None,
        progress: bool = True,
        profile: BuildProfile | None = None,
    ) -> HybridIndex:
        """Build every channel and save. Document vectors go through the vector cache
        (DIR/vectors by default), saved batch by batch: run the same build again after an
        interruption and it encodes only what was not finished."""
        config = config or get_retrieval_config()
        profile = profile or BuildProfile(progress)
        started = time.perf_counter()
        # The setting values are recorded only when they chose the models (for the fix a mismatch names).
        names = (config.embedding_model if embedder is None else None,
                 config.trigraph_embedding_model if tri_embedder is None else None)
        embedder, tri_embedder = _build_embedders(config, embedder, tri_embedder, cache_root(directory, config))
        dense_encoder = None if shares_model(embedder, tri_embedder) else DenseEncoder(
            build_encoder(embedder, names[0], config, directory), profile, config.build_batch)
        try:
            unique = read_chunks(chunks, profile, dense_encoder)
            if not unique:
                raise InputError("no chunks to index: the corpus is empty or every line was skipped", source=directory)
            directory.mkdir(parents=True, exist_ok=True)
            channels = build_channels([c.id for c in unique], [c.text for c in unique], embedder, tri_embedder,
                                      config, profile, dense_encoder)
        except BaseException:
            if dense_encoder is not None:
                dense_encoder.cancel()
            raise
        meta = IndexMeta(
            model_id=embedder.model_id,
            dim=embedder.dim,
            trigraph_model_id=tri_embedder.model_id,
            trigraph_dim=tri_embedder.dim,
            corpus_hash=corpus_hash(unique),
            chunks=len(unique),
            documents=len({c.doc_id for c in unique}),
            channels=list(CHANNELS),
            built_at=datetime.now(timezone.utc),
            settings=build_settings(config),
            embedding_model=names[0],
            trigraph_embedding_model=names[1],
        )
        index = cls(directory, config, meta, unique, embedder, tri_embedder, channels)
        with profile.stage("save", "chunk", len(unique)):
            index.meta.build_seconds = round(time.perf_counter() - started, 3)
            index.meta.build_stages = profile.stages
            index.save()
        logger.info("retrieval_index_built", chunks=meta.chunks, documents=meta.documents,
                    seconds=index.meta.build_seconds, directory=str(directory))
        return index

    def save(self) -> None:
        dense.save_docs(self.directory, self.chunks)
        if self.dense is not None:
            self.dense.save(self.directory)
        if self.sparse is not None:
            self.sparse.save(self.directory)
        if self.trigraph is not None:
            self.trigraph.save(self.directory, self.meta.corpus_hash)
        (self.directory / META_FILE).write_text(self.meta.model_dump_json(indent=2), encoding="utf-8")

    # --- load -----------------------------------------------------------------------

    @classmethod
    def load(
        cls,
        directory: Path,
        config: RetrievalConfig | None = None,
        *,
        embedder: Embedder | None = None,
        tri_embedder: Embedder | None = None,
    ) -> HybridIndex:
        config = config or get_retrieval_config()
        meta = read_meta(directory)
        chunks = dense.load_docs(directory)
        embedder = embedder or load_embedder(config.embedding_model)
        check_embedder(meta.model_id, meta.dim, embedder, "RETRIEVAL_EMBEDDING_MODEL", meta.embedding_model)
        loaded: dict[str, object] = {}
        _try_load(loaded, "dense", lambda: dense.DenseIndex.load(directory))
        _try_load(loaded, "sparse", lambda: sparse.SparseIndex.load(directory))

        if meta.trigraph_model_id:
            tri_embedder = tri_embedder or _optional_embedder(config.trigraph_embedding_model)
            if tri_embedder is not None:
                check_embedder(meta.trigraph_model_id, meta.trigraph_dim or 0, tri_embedder,
                               "RETRIEVAL_TRIGRAPH_EMBEDDING_MODEL", meta.trigraph_embedding_model)
                _try_load(loaded, "trigraph", lambda: TriGraph.load(directory))
        if not loaded:
            raise IndexFormatError(f"{directory}: no retrieval channel could be loaded; rebuild the index")
        for name, channel in loaded.items():
            size = len(channel.chunk_ids) if isinstance(channel, TriGraph) else channel.size  # type: ignore[attr-defined]
            if size != len(chunks):
                raise IndexFormatError(f"{directory}: {name} has {size} rows for {len(chunks)} chunks; rebuild the index")
        dense.use_single_thread()
        return cls(directory, config, meta, chunks, embedder, tri_embedder, loaded)

    # --- search ---------------------------------------------------------------------

    def channel_rankings(
        self, query: str, channels: Sequence[str] | None = None, depth: int | None = None
    ) -> dict[str, list[int]]:
        """Each channel's ranked chunk rows for `query` (channels not loaded are skipped)."""
        wanted = [c for c in (channels or CHANNELS) if c in self.channels]
        depth = depth or self.config.channel_depth
        rankings: dict[str, list[int]] = {}
        if "dense" in wanted and self.dense is not None and self.embedder is not None:
            with retrieval_timer("dense"):
                rows, _ = self.dense.search(self.embedder.embed_queries([query])[0], depth)
            rankings["dense"] = rows.tolist()
        if "sparse" in wanted and self.sparse is not None:
            with retrieval_timer("sparse"):
                rows, _ = self.sparse.search(query, depth)
            rankings["sparse"] = rows.tolist()
        if "trigraph" in wanted and self.trigraph is not None and self.tri_embedder is not None:
            seeds = _channel_seeds(rankings, self.config.seed_from_channels)
            with retrieval_timer("trigraph"):
                vector = self.tri_embedder.embed_queries([query])[0]
                rows, _ = self.trigraph.search(vector, depth, self.config, seeds)
            rankings["trigraph"] = rows.tolist()
        return rankings

    def fuse(self, query: str, rankings: dict[str, list[int]], top_k: int) -> list[Hit]:
        weights = fusion.adaptive_weights(query, self.config).as_dict()
        if len(rankings) == 1:
            weights = dict.fromkeys(rankings, 1.0)
        ranked_ids = {name: [self.chunks[r].id for r in rows] for name, rows in rankings.items()}
        fused = fusion.weighted_rrf(ranked_ids, weights, self.config.rrf_k)
        if self.config.channel_tops_first:
            fused = fusion.lead_with_channel_tops(fused, ranked_ids, weights)
        positions = {name: {r: i for i, r in enumerate(rows)} for name, rows in rankings.items()}
        hits = []
        for chunk_id, score in fused[:top_k]:
            row = self._row_of[chunk_id]
            chunk = self.chunks[row]
            ranks = {name: pos[row] for name, pos in positions.items() if row in pos}
            hits.append(Hit(chunk_id=chunk.id, doc_id=chunk.doc_id, text=chunk.text, score=score,
                            source=chunk.source, channel_ranks=ranks))
        return hits

    def search(
        self, query: str, top_k: int | None = None, channels: Sequence[ChannelName] | None = None
    ) -> list[Hit]:
        top_k = top_k or self.config.top_k
        started = time.perf_counter()
        with retrieval_timer("fused"):
            hits = self.fuse(query, self.channel_rankings(query, channels), top_k)
        logger.debug("retrieval_searched", hits=len(hits), ms=round((time.perf_counter() - started) * 1000, 2))
        return hits

    # --- grow -----------------------------------------------------------------------

    def add_chunks(
        self, chunks: Iterable[Chunk], vectors: np.ndarray | None = None, *, profile: BuildProfile | None = None
    ) -> int:
        """Append chunks to every loaded channel and save; ids already indexed are skipped.

        `vectors` (rows aligned with `chunks`, from this index's own dense model) are used as
        they are, never encoded again. Otherwise the new texts go through the vector cache.
        The result equals a full build of the same chunks (same rows, same rankings)."""
        chunks = list(chunks)
        keep = _new_rows(chunks, self._row_of)
        if vectors is not None:
            vectors = _checked_vectors(vectors, len(chunks), self.meta)[keep]
        new = [chunks[i] for i in keep]
        if not new:
            return 0
        profile = profile or BuildProfile(progress=False)
        texts = [c.text for c in new]
        root = cache_root(self.directory, self.config)
        if self.dense is not None:
            if vectors is None and self.embedder is not None:
                vectors = encode_dense(with_vector_cache(self.embedder, root, self.config.build_batch), texts, profile)
            if vectors is None:
                raise ConfigError("adding chunks to the dense channel needs vectors or an embedder")
            with profile.stage("dense index", "chunk", len(new)):
                self.dense.add(vectors)
        tokens, sentences = analyse_chunks(texts, profile)
        if self.sparse is not None:
            build_sparse(tokens, profile, self.sparse)
        if self.trigraph is not None and self.tri_embedder is not None:
            tri = with_vector_cache(self.tri_embedder, root, self.config.build_batch)
            self.trigraph.add([c.id for c in new], texts, tri, self.config, profile=profile, sentences=sentences)
        self.chunks.extend(new)
        self._row_of.update({c.id: len(self._row_of) + i for i, c in enumerate(new)})
        self.meta.corpus_hash = corpus_hash(new, self.meta.corpus_hash)
        self.meta.chunks = len(self.chunks)
        self.meta.documents = len({c.doc_id for c in self.chunks})
        with profile.stage("save", "chunk", len(new)):
            self.save()
        logger.info("retrieval_chunks_added", chunks=len(new), total=self.meta.chunks)
        return len(new)

    def add_meeting(self, meeting_id: str, segments: Sequence[TopicSegment], utterances: Sequence[Utterance]) -> int:
        """Index a finished meeting's topic segments and utterances; calling it again with more
        of the same meeting adds only what is new."""
        added = self.add_chunks(meeting_chunks(meeting_id, segments, utterances))
        if meeting_id not in self.meta.meetings:
            self.meta.meetings.append(meeting_id)
            self.save()
        logger.info("retrieval_meeting_indexed", meeting_id=meeting_id, chunks=added)
        return added


def read_meta(directory: Path) -> IndexMeta:
    path = directory / META_FILE
    if not path.is_file():
        raise IndexFormatError(f"{path} not found; build the index first: mithub index build --input PATH --out {directory}")
    meta = IndexMeta.model_validate(json.loads(path.read_text(encoding="utf-8")))
    if meta.format_version != INDEX_FORMAT_VERSION:
        raise IndexFormatError(
            f"{directory} has index format {meta.format_version}, this version reads {INDEX_FORMAT_VERSION}; "
            "rebuild it with `mithub index build`"
        )
    return meta


def check_embedder(model_id: str, dim: int, embedder: Embedder, setting: str, name: str | None = None) -> None:
    if embedder.model_id != model_id or embedder.dim != dim:
        fix = f"set {setting}={name}" if name else f"set {setting} to the index's model"
        raise IndexFormatError(
            f"index was built with embedder {model_id!r} ({dim} dims) but {setting} gives "
            f"{embedder.model_id!r} ({embedder.dim} dims); {fix} or rebuild the index"
        )


def _try_load(loaded: dict[str, object], name: str, load) -> None:  # noqa: ANN001
    """A channel that fails to load is dropped with a warning; the others still serve."""
    try:
        loaded[name] = load()
    except (MitHubError, OSError, ValueError, RuntimeError, KeyError) as exc:
        logger.warning("retrieval_channel_dropped", channel=name, error=f"{type(exc).__name__}: {exc}")


def _optional_embedder(name: str) -> Embedder | None:
    try:
        return load_embedder(name)
    except MitHubError as exc:
        logger.warning("retrieval_channel_dropped", channel="trigraph", error=str(exc))
        return None


def _channel_seeds(rankings: dict[str, list[int]], per_channel: int) -> list[tuple[int, float]]:
    """The top hits of dense and sparse as Tri-Graph seeds, weighted 1 / (rank + 1)."""
    seeds: dict[int, float] = {}
    for rows in rankings.values():
        for rank, row in enumerate(rows[:per_channel]):
            seeds[row] = max(seeds.get(row, 0.0), 1.0 / (rank + 1))
    return list(seeds.items())


def _build_embedders(
    config: RetrievalConfig, embedder: Embedder | None, tri_embedder: Embedder | None, root: Path
) -> tuple[Embedder, Embedder]:
    """The build's embedders (all cores, RETRIEVAL_BUILD_THREADS) behind the vector cache; a
    Tri-Graph model equal to the dense one's base is loaded once."""
    if embedder is None:
        embedder = build_embedder(config.embedding_model, config.build_threads)
        if tri_embedder is None and config.trigraph_embedding_model == config.embedding_model:
            tri_embedder = embedder
        elif tri_embedder is None and isinstance(embedder, SentencePooledEmbedder) and (
            f"{config.trigraph_embedding_model}{POOLED_NAME_SUFFIX}" == config.embedding_model
        ):
            tri_embedder = embedder.inner
    tri_embedder = tri_embedder or build_embedder(config.trigraph_embedding_model, config.build_threads)
    batch = config.build_batch
    return with_vector_cache(embedder, root, batch), with_vector_cache(tri_embedder, root, batch)


def _new_rows(chunks: Sequence[Chunk], indexed: dict[str, int]) -> list[int]:
    """Positions of the chunks not indexed yet (first of each id)."""
    seen = set(indexed)
    keep = []
    for i, chunk in enumerate(chunks):
        if chunk.id not in seen:
            seen.add(chunk.id)
            keep.append(i)
    return keep


def _checked_vectors(vectors: np.ndarray, rows: int, meta: IndexMeta) -> np.ndarray:
    vectors = np.asarray(vectors, np.float32)
    if vectors.shape != (rows, meta.dim):
        raise InputError(
            f"precomputed vectors have shape {vectors.shape}, expected ({rows}, {meta.dim}) for "
            f"{rows} chunks of model {meta.model_id!r}; pass one row per chunk, or none to encode"
        )
    return vectors


