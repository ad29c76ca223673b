"""Tri-Graph channel (seed 001 §3.3.5, §3.4): Entity–Sentence–Chunk graph built from
containment only (no relation extraction, no LLM), artefacts in `trigraph/`:
`entity_embeddings.npy`, `sentence_embeddings.npy` (float16), `sentence_chunk_idx.npy`,
`chunk_ids.json`, `entities.json`, CSR `s2e.npz`, `e2s.npz`, `e2c.npz`, the unfiltered entity
candidates (`candidates.npz`/`.json`, see candidates.py) and `meta.json`."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import faiss
import numpy as np

from mithub.config import RetrievalConfig
from mithub.embedders.base import Embedder, l2_normalize
from mithub.errors import IndexFormatError
from mithub.retrieval import bridging
from mithub.retrieval.candidates import Candidates
from mithub.retrieval.csr import CSR
from mithub.retrieval.entities import entities_per_sentence
from mithub.retrieval.profile import BuildProfile
from mithub.text import split_sentences

TRIGRAPH_DIR = "trigraph"
Progress = Callable[[int], None]


class TriGraph:
    def __init__(
        self,
        chunk_ids: list[str],
        entities: list[str],
        entity_vectors: np.ndarray,
        sentence_vectors: np.ndarray,
        sentence_chunk: np.ndarray,
        s2e: CSR,
        meta: dict,
        candidates: Candidates | None = None,
    ) -> None:
        self.chunk_ids = chunk_ids
        self.entities = entities
        self.entity_vectors = entity_vectors
        self.sentence_vectors = sentence_vectors
        # A plain view of the (memory-mapped) rows: np.memmap's own indexing adds overhead per call.
        self._sentence_rows = np.asarray(sentence_vectors)
        self.sentence_chunk = sentence_chunk.astype(np.int32)
        self.s2e = s2e
        self.meta = meta
        self.candidates = candidates or Candidates.empty()
        self._derive()

    def _derive(self) -> None:
        """Adjacency derived from s2e (e2s, e2c, chunk->sentences) and the entity search index."""
        self.e2s = self.s2e.transpose()
        self.e2c = self.e2s.map_columns(self.sentence_chunk, len(self.chunk_ids))
        rows = np.arange(len(self.sentence_chunk))
        self.c2s = CSR.from_pairs(self.sentence_chunk, rows, (len(self.chunk_ids), len(rows)))
        self.entity_lookup = {name: i for i, name in enumerate(self.entities)}
        self.entity_index = _entity_index(self.entity_vectors, int(self.meta["dim"]), self.meta.get("exact_limit", 20_000))

    # --- build / grow ---------------------------------------------------------------

    @classmethod
    def build(
        cls,
        chunk_ids: Sequence[str],
        texts: Sequence[str],
        embedder: Embedder,
        config: RetrievalConfig,
        progress: Progress | None = None,
        profile: BuildProfile | None = None,
        sentences: Sequence[list[str]] | None = None,
    ) -> TriGraph:
        """`sentences`: each text's `chunk_sentences`, when the caller has split them already."""
        profile = profile or BuildProfile(progress=False)
        with profile.stage("trigraph extract", "sentence") as stage:
            sentences, owners = _sentences_of(texts, offset=0, split=sentences)
            candidates = Candidates.empty().extend(entities_per_sentence(sentences))
            entities = _entities(candidates, config)
            stage.items = len(sentences)
        with profile.stage("trigraph encode", "text") as stage:
            entity_vectors, sentence_vectors = _encode(embedder, entities, sentences, progress, profile)
            stage.items = len(entities) + len(set(sentences))
        meta = {"model_id": embedder.model_id, "dim": embedder.dim, "exact_limit": config.entity_exact_limit}
        with profile.stage("trigraph graph", "sentence", len(sentences)):
            graph = cls(list(chunk_ids), entities, entity_vectors, sentence_vectors, owners,
                        candidates.s2e(entities), meta, candidates)
            graph.meta.update(graph.stats())
        return graph

    def add(
        self,
        chunk_ids: Sequence[str],
        texts: Sequence[str],
        embedder: Embedder,
        config: RetrievalConfig,
        profile: BuildProfile | None = None,
        sentences: Sequence[list[str]] | None = None,
    ) -> None:
        """Append chunks. Only the new sentences are parsed and encoded; the entity filter is
        redone over all stored candidates, so the graph equals a full build of the same corpus."""
        profile = profile or BuildProfile(progress=False)
        with profile.stage("trigraph extract", "sentence") as stage:
            sentences, owners = _sentences_of(texts, offset=len(self.chunk_ids), split=sentences)
            self.candidates = self.candidates.extend(entities_per_sentence(sentences))
            entities = _entities(self.candidates, config)
            stage.items = len(sentences)
        known = {name: i for i, name in enumerate(self.entities)}
        fresh = [e for e in entities if e not in known]
        with profile.stage("trigraph encode", "text") as stage:
            fresh_vectors, new_sentence_vectors = _encode(embedder, fresh, sentences, None, profile)
            stage.items = len(fresh) + len(set(sentences))
        with profile.stage("trigraph graph", "sentence", len(sentences)):
            old_vectors = np.asarray(self.entity_vectors)
            fresh_row = {name: i for i, name in enumerate(fresh)}
            self.entity_vectors = np.stack(
                [old_vectors[known[e]] if e in known else fresh_vectors[fresh_row[e]] for e in entities]
            ) if entities else np.zeros((0, self.meta["dim"]), np.float16)
            self.sentence_vectors = np.concatenate([np.asarray(self.sentence_vectors), new_sentence_vectors])
            self._sentence_rows = self.sentence_vectors
            self.sentence_chunk = np.concatenate([self.sentence_chunk, owners]).astype(np.int32)
            self.chunk_ids = self.chunk_ids + list(chunk_ids)
            self.entities, self.s2e = entities, self.candidates.s2e(entities)
            self._derive()
            self.meta.update(self.stats())

    def stats(self) -> dict[str, int]:
        return {
            "chunks": len(self.chunk_ids),
            "sentences": int(self.s2e.shape[0]),
            "entities": len(self.entities),
            "entity_sentence_edges": int(self.s2e.indices.size),
            "entity_chunk_edges": int(self.e2c.indices.size),
        }

    # --- disk -------------------------------------------------------------------------

    def save(self, directory: Path, corpus_hash: str) -> None:
        target = directory / TRIGRAPH_DIR
        target.mkdir(parents=True, exist_ok=True)
        np.save(target / "entity_embeddings.npy", np.asarray(self.entity_vectors, np.float16), allow_pickle=False)
        np.save(target / "sentence_embeddings.npy", np.asarray(self.sentence_vectors, np.float16), allow_pickle=False)
        np.save(target / "sentence_chunk_idx.npy", self.sentence_chunk, allow_pickle=False)
        _write_json(target / "chunk_ids.json", self.chunk_ids)
        _write_json(target / "entities.json", self.entities)
        self.s2e.save(target / "s2e.npz")
        self.e2s.save(target / "e2s.npz")
        self.e2c.save(target / "e2c.npz")
        self.candidates.save(target)
        self.meta.update(corpus_hash=corpus_hash)
        _write_json(target / "meta.json", self.meta)

    @classmethod
    def load(cls, directory: Path) -> TriGraph:
        target = directory / TRIGRAPH_DIR
        if not (target / "meta.json").is_file():
            raise IndexFormatError(f"{target}/meta.json is missing; rebuild the index with `mithub index build`")
        meta = json.loads((target / "meta.json").read_text(encoding="utf-8"))
        return cls(
            json.loads((target / "chunk_ids.json").read_text(encoding="utf-8")),
            json.loads((target / "entities.json").read_text(encoding="utf-8")),
            np.load(target / "entity_embeddings.npy", mmap_mode="r", allow_pickle=False),
            np.load(target / "sentence_embeddings.npy", mmap_mode="r", allow_pickle=False),
            np.load(target / "sentence_chunk_idx.npy", allow_pickle=False),
            CSR.load(target / "s2e.npz"),
            meta,
            Candidates.load(target),
        )

    # --- search (Algorithm 1) -----------------------------------------------------------

    def search(
        self,
        query_vector: np.ndarray,
        top_k: int,
        config: RetrievalConfig,
        seed_chunks: Sequence[tuple[int, float]] = (),
    ) -> tuple[np.ndarray, np.ndarray]:
        """(chunk rows, scores) best first. `seed_chunks` are (row, weight) hits of the other
        channels: the entities of their best sentences join the query's seed entities, so the
        walk starts at the first hop and can reach the second."""
        query = l2_normalize(query_vector.reshape(1, -1))[0]

        def sentence_sims(rows: np.ndarray) -> np.ndarray:
            # Entities share sentences: score each distinct sentence once.
            unique, inverse = np.unique(rows, return_inverse=True)
            return _dot(self._sentence_rows[unique], query)[inverse]

        seeds = self._seed_entities(query, config, seed_chunks, sentence_sims)
        settings = bridging.BridgeSettings(
            config.bridge_sentences, config.bridge_iterations, config.max_active_entities, config.bridge_frontier
        )
        active = bridging.expand_entities(seeds, self.e2s, self.s2e, sentence_sims, settings)
        chunk_scores = bridging.score_chunks(active, self.e2c, config.max_candidate_chunks)
        if config.use_ppr:
            chunk_scores = bridging.personalized_pagerank(active, chunk_scores, self.e2c, config.ppr_damping, config.ppr_iterations)
        ranked = sorted(chunk_scores.items(), key=lambda kv: -kv[1])[:top_k]
        rows = np.array([c for c, _ in ranked], dtype=np.int64)
        return rows, np.array([s for _, s in ranked], dtype=np.float32)

    def _seed_entities(self, query, config, seed_chunks, sentence_sims) -> dict[int, float]:  # noqa: ANN001
        seeds: dict[int, float] = {}
        if hasattr(self.entity_index, "nprobe"):
            self.entity_index.nprobe = config.entity_ivf_probe
        if self.entities:
            sims, ids = self.entity_index.search(query.reshape(1, -1).astype(np.float32), min(config.seed_entities, len(self.entities)))
            for entity, sim in zip(ids[0].tolist(), sims[0].tolist(), strict=True):
                if entity >= 0 and sim >= config.seed_threshold:
                    seeds[entity] = float(sim)
        owner, sentences, _ = self.c2s.gather(np.asarray([row for row, _ in seed_chunks], dtype=np.int64))
        sims = sentence_sims(sentences) if sentences.size else np.zeros(0, np.float32)
        bounds = np.searchsorted(owner, np.arange(len(seed_chunks) + 1)).tolist()
        for i, (_, weight) in enumerate(seed_chunks):
            if bounds[i] == bounds[i + 1]:
                continue
            chunk_sentences = sentences[bounds[i] : bounds[i + 1]].astype(np.int64)
            chosen, chosen_sims = bridging.top_sentences(chunk_sentences, sims[bounds[i] : bounds[i + 1]], config.bridge_sentences)
            for sentence, sim in zip(chosen.tolist(), chosen_sims.tolist(), strict=True):
                for entity in self.s2e.row(sentence).tolist():
                    seeds[entity] = max(seeds.get(entity, 0.0), weight * max(sim, 0.0))
        return seeds


def _dot(rows: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Similarity of float16 `rows` to a float32 query, equal bit for bit to
    `rows.astype(np.float32) @ query` computed without BLAS (see `_as_scaled_float32`)."""
    return np.einsum("ij,j->i", _as_scaled_float32(rows), query * _HALF_TO_SINGLE_SCALE)


# A float16 magnitude's bits shifted left 13 read as a float32 of the same mantissa whose
# exponent is 127 - 15 = 112 too small; multiplying by 2**112 (exact) restores the value.
_HALF_TO_SINGLE_SCALE = np.float32(2.0**112)


def _as_scaled_float32(rows: np.ndarray) -> np.ndarray:
    """Finite float16 values as float32 times 2**-112, exactly. numpy casts float16 one
    element at a time (~2.5 ns each here, most of a Tri-Graph query); these integer ops are
    vectorized. The sign-extended int16 shifted left 13 has the sign bit right and three
    copies of it in bits 28-30, which the mask clears."""
    bits = rows.view(np.int16).astype(np.int32)
    bits <<= 13
    bits &= np.int32(-0x70000001)  # 0x8FFFFFFF
    return bits.view(np.float32)


def _entity_index(vectors: np.ndarray, dim: int, exact_limit: int) -> faiss.Index:
    """Seed-entity search. FAISS keeps the vectors as fp16 and scores them with SIMD (numpy
    fp16 matmul is slow); past `exact_limit` entities an exact scan costs tens of ms, so an
    inverted file (k-means lists, trained on a sample at load) scans only the nearest lists."""
    n = len(vectors)
    quantizer = faiss.ScalarQuantizer.QT_fp16
    if n <= exact_limit:
        index = faiss.IndexScalarQuantizer(dim, quantizer, faiss.METRIC_INNER_PRODUCT)
    else:
        lists = int(4 * np.sqrt(n))
        index = faiss.IndexIVFScalarQuantizer(
            faiss.IndexFlatIP(dim), dim, lists, quantizer, faiss.METRIC_INNER_PRODUCT
        )
        sample = np.random.default_rng(0).choice(n, size=min(n, 40 * lists), replace=False)
        index.train(np.asarray(vectors[np.sort(sample)], dtype=np.float32))
    for start in range(0, n, 65536):
        index.add(np.asarray(vectors[start : start + 65536], dtype=np.float32))
    return index


def chunk_sentences(text: str) -> list[str]:
    """The sentences the graph links a chunk through (the whole chunk if it has none)."""
    return split_sentences(text) or [text]


def _sentences_of(texts: Sequence[str], offset: int, split: Sequence[list[str]] | None = None) -> tuple[list[str], np.ndarray]:
    sentences: list[str] = []
    owners: list[int] = []
    for row, text in enumerate(texts):
        for sentence in split[row] if split is not None else chunk_sentences(text):
            sentences.append(sentence)
            owners.append(offset + row)
    return sentences, np.asarray(owners, dtype=np.int32)


def _entities(candidates: Candidates, config: RetrievalConfig) -> list[str]:
    return candidates.entities(
        config.entity_min_df, config.entity_max_df_ratio, config.entity_max_df_floor, config.entity_max_df_cap
    )


def _encode(
    embedder: Embedder,
    entities: Sequence[str],
    sentences: Sequence[str],
    progress: Progress | None,
    profile: BuildProfile,
) -> tuple[np.ndarray, np.ndarray]:
    """(entity vectors, sentence vectors) as float16; a sentence repeated by overlapping
    chunks is encoded once."""
    unique = list(dict.fromkeys(sentences))
    texts = list(entities) + unique
    with profile.bar("trigraph encode", len(texts), "text") as bar:
        def advance(n: int) -> None:
            bar.update(n)
            if progress is not None:
                progress(n)

        vectors = _embed(embedder, texts, advance)
    row_of = {s: len(entities) + i for i, s in enumerate(unique)}
    sentence_rows = np.asarray([row_of[s] for s in sentences], np.int64)
    empty = np.zeros((0, embedder.dim), np.float16)
    return vectors[: len(entities)], (vectors[sentence_rows] if sentences else empty)


def _embed(embedder: Embedder, texts: Sequence[str], progress: Progress | None, batch: int = 256) -> np.ndarray:
    parts = [np.zeros((0, embedder.dim), np.float32)]
    for start in range(0, len(texts), batch):
        parts.append(embedder.embed_documents(list(texts[start : start + batch])))
        if progress is not None:
            progress(min(batch, len(texts) - start))
    return np.concatenate(parts).astype(np.float16)


def _write_json(path: Path, value: object) -> None:
    path.write_text(json.dumps(value, ensure_ascii=False), encoding="utf-8")
