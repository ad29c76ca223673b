"""Incremental, resumable, cached indexing (issue 14): `index add` equals a full build, a
killed build resumes without encoding finished batches again, and an unchanged chunk is
never encoded twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from counting_embedder import CountingEmbedder

from mithub.cli import main
from mithub.config import RetrievalConfig
from mithub.embedders import load_embedder
from mithub.embedders.base import text_key
from mithub.embedders.vector_cache import VectorCache, _OPEN
from mithub.jsonl import LineErrors
from mithub.retrieval.index import HybridIndex
from mithub.retrieval.loaders import load_corpus

PEOPLE = ["Ada Moreau", "Jonas Berg", "Mina Park", "Luis Ortega", "Hana Kim", "Omar Haddad", "Sofia Rossi"]
CITIES = ["Lisbon", "Busan", "Tromso", "Quito", "Tampere", "Cusco", "Daegu", "Porto"]
TOPICS = ["glass bridges", "tidal power", "rice genetics", "cloud forests", "harbour cranes", "old maps"]
QUERIES = ["Who studied tidal power in Busan?", "Mina Park harbour cranes", "Where did Jonas Berg work?",
           "rice genetics in Quito", "old maps of Porto by Sofia Rossi"]


def write_corpus(path: Path, documents: range, sentences: int = 8) -> Path:
    """Documents of `sentences` sentences each, people and cities recurring across them so
    the Tri-Graph has entities to bridge."""
    with path.open("w", encoding="utf-8") as handle:
        for d in documents:
            rng = np.random.default_rng(d)  # a document reads the same in every corpus it is in
            person, city = PEOPLE[d % len(PEOPLE)], CITIES[(d * 3) % len(CITIES)]
            lines = []
            for s in range(sentences):
                topic = TOPICS[int(rng.integers(len(TOPICS)))]
                other = CITIES[int(rng.integers(len(CITIES)))]
                lines.append(f"In {1900 + d * 7 + s}, {person} wrote report {d}-{s} on {topic} near {other} for {city}.")
            handle.write(json.dumps({"id": f"doc{d}", "title": f"{person} in {city}", "text": " ".join(lines)}) + "\n")
    return path


@pytest.fixture
def use_settings(monkeypatch):
    from mithub.config import get_retrieval_config

    monkeypatch.setenv("RETRIEVAL_EMBEDDING_MODEL", "use-multilingual")
    monkeypatch.setenv("RETRIEVAL_TRIGRAPH_EMBEDDING_MODEL", "use-multilingual")
    get_retrieval_config.cache_clear()
    yield get_retrieval_config()
    get_retrieval_config.cache_clear()


def _rankings(index: HybridIndex) -> list:
    out = []
    for query in QUERIES:
        rankings = index.channel_rankings(query, depth=20)
        out.append({name: [index.chunks[r].id for r in rows] for name, rows in rankings.items()})
        out.append([(h.chunk_id, round(h.score, 9)) for h in index.search(query, top_k=10)])
    return out


def test_incremental_add_equals_a_full_build(tmp_path, capsys, use_settings):
    whole = write_corpus(tmp_path / "whole.jsonl", range(40))
    first = write_corpus(tmp_path / "first.jsonl", range(25))
    second = write_corpus(tmp_path / "second.jsonl", range(25, 40))
    assert main(["index", "build", "--input", str(whole), "--out", str(tmp_path / "full"), "--no-progress"]) == 0
    assert main(["index", "build", "--input", str(first), "--out", str(tmp_path / "grown"), "--no-progress"]) == 0
    assert main(["index", "add", "--index", str(tmp_path / "grown"), "--input", str(second), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "added " in printed and "dense encode" in printed and "trigraph extract" in printed
    full = HybridIndex.load(tmp_path / "full", use_settings)
    grown = HybridIndex.load(tmp_path / "grown", use_settings)
    assert [c.id for c in grown.chunks] == [c.id for c in full.chunks]
    assert grown.trigraph.entities == full.trigraph.entities
    assert grown.trigraph.stats() == full.trigraph.stats()
    assert _rankings(grown) == _rankings(full)
    # Adding the same documents again changes nothing, and loads no model to find that out.
    saved = (tmp_path / "grown" / "meta.json").stat().st_mtime_ns
    assert main(["index", "add", "--index", str(tmp_path / "grown"), "--input", str(second), "--no-progress"]) == 0
    assert "nothing to add: the " in capsys.readouterr().out
    assert (tmp_path / "grown" / "meta.json").stat().st_mtime_ns == saved


def test_build_prints_time_per_stage(tmp_path, capsys, use_settings):
    corpus = write_corpus(tmp_path / "c.jsonl", range(6))
    assert main(["index", "build", "--input", str(corpus), "--out", str(tmp_path / "i"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    for stage in ("load + chunk", "dense encode", "sparse tokenize", "trigraph encode", "total"):
        assert stage in out
    meta = json.loads((tmp_path / "i" / "meta.json").read_text())
    assert {s["name"] for s in meta["build_stages"]} >= {"dense encode", "trigraph encode"}


def test_add_with_other_chunking_settings_is_a_clear_error(tmp_path, capsys, use_settings, monkeypatch):
    from mithub.config import get_retrieval_config

    corpus = write_corpus(tmp_path / "c.jsonl", range(4))
    assert main(["index", "build", "--input", str(corpus), "--out", str(tmp_path / "i"), "--no-progress"]) == 0
    monkeypatch.setenv("RETRIEVAL_WINDOW_STRIDE", "3")
    get_retrieval_config.cache_clear()
    capsys.readouterr()
    assert main(["index", "add", "--index", str(tmp_path / "i"), "--input", str(corpus)]) == 1
    assert "built with other settings: RETRIEVAL_WINDOW_STRIDE=3 (index: 2)" in capsys.readouterr().err


def test_unchanged_chunks_are_never_encoded_twice(tmp_path, use_settings):
    config = use_settings
    corpus = write_corpus(tmp_path / "c.jsonl", range(12))
    chunks = list(load_corpus(corpus, config, LineErrors()))
    HybridIndex.build(chunks, tmp_path / "i", config, progress=False)
    edited = [c if c.id != "doc3#c1" else c.model_copy(update={"text": c.text + " A new closing sentence."}) for c in chunks]
    _OPEN.clear()  # as a new process would
    counting = CountingEmbedder(load_embedder("use-multilingual").inner)
    HybridIndex.build(edited, tmp_path / "i", config, embedder=counting, tri_embedder=counting, progress=False)
    # Only the edited chunk and its one new sentence reach the model.
    assert counting.encoded == [edited[[c.id for c in edited].index("doc3#c1")].text, "A new closing sentence."]


def _shards(folder: Path) -> int:
    return len(list(folder.glob("shard-*.npz"))) if folder.is_dir() else 0


def _kill_build_after_three_batches(corpus: Path, out: Path, cache: Path, env: dict, before_kill=None) -> None:  # noqa: ANN001
    """`mithub index build` in a process of its own, SIGKILLed once three batches of `cache`
    are saved (`before_kill` runs just before)."""
    process = subprocess.Popen([sys.executable, "-m", "mithub.cli", "index", "build", "--input", str(corpus),
                                "--out", str(out), "--no-progress"], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 180
    while _shards(cache) < 3 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    if before_kill is not None:
        before_kill()
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert not (out / "meta.json").exists(), "the build finished before it could be killed"


def test_killed_build_resumes_without_encoding_finished_batches(tmp_path, use_settings):
    corpus = write_corpus(tmp_path / "big.jsonl", range(160), sentences=12)
    out = tmp_path / "idx"
    cache = out / "vectors" / "use-multilingual-v3"
    env = {**os.environ, "RETRIEVAL_EMBEDDING_MODEL": "use-multilingual",
           "RETRIEVAL_TRIGRAPH_EMBEDDING_MODEL": "use-multilingual", "RETRIEVAL_BUILD_BATCH": "32"}
    _kill_build_after_three_batches(corpus, out, cache, env)
    finished = VectorCache(cache, 512)
    assert len(finished) >= 3 * 32
    done_before = set(finished._rows)

    config = RetrievalConfig(embedding_model="use-multilingual", trigraph_embedding_model="use-multilingual", build_batch=32)
    _OPEN.clear()
    counting = CountingEmbedder(load_embedder("use-multilingual").inner)
    chunks = list(load_corpus(corpus, config, LineErrors()))
    index = HybridIndex.build(chunks, out, config, embedder=counting, tri_embedder=counting, progress=False)
    encoded_keys = {text_key("d", t) for t in counting.encoded}
    assert counting.encoded and not encoded_keys & done_before
    assert len(counting.encoded) == len(encoded_keys)  # nothing twice within the resumed build either
    assert index.meta.chunks == len(chunks) and HybridIndex.load(out, config).search(QUERIES[0])


def test_precomputed_vectors_are_used_as_given(tmp_path, use_settings):
    config = use_settings
    chunks = list(load_corpus(write_corpus(tmp_path / "c.jsonl", range(8)), config, LineErrors()))
    index = HybridIndex.build(chunks[:10], tmp_path / "i", config, progress=False)
    new = chunks[10:]
    vectors = load_embedder("use-multilingual").embed_documents([c.text for c in new])
    counting = CountingEmbedder(load_embedder("use-multilingual").inner)
    index.embedder = counting
    assert index.add_chunks(chunks[8:], np.concatenate([index.dense.index.reconstruct_n(8, 2), vectors])) == len(new)
    assert counting.encoded == []
    rows, _ = index.dense.search(vectors[0], 1)
    assert index.chunks[int(rows[0])].id == new[0].id
    with pytest.raises(Exception, match="expected \\(1, 512\\)"):
        index.add_chunks(chunks[:1], vectors[:2])


def test_search_with_another_dense_model_names_the_setting_to_use(tmp_path, capsys, use_settings, monkeypatch):
    from mithub.config import get_retrieval_config

    corpus = write_corpus(tmp_path / "c.jsonl", range(4))
    assert main(["index", "build", "--input", str(corpus), "--out", str(tmp_path / "i"), "--no-progress"]) == 0
    monkeypatch.setenv("RETRIEVAL_EMBEDDING_MODEL", "use-multilingual-sentences")
    get_retrieval_config.cache_clear()
    capsys.readouterr()
    assert main(["search", "Mina Park", "--index", str(tmp_path / "i")]) == 1
    assert "set RETRIEVAL_EMBEDDING_MODEL=use-multilingual or rebuild" in capsys.readouterr().err


def _processes_with(mark: str) -> list[int]:
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if mark.encode() in environ.read_bytes():
                found.append(int(environ.parent.name))
        except OSError:
            continue
    return found


def test_a_killed_default_build_resumes_and_leaves_no_encoder_process(tmp_path):
    """The default build encodes the dense channel in a child process; a killed build keeps
    the batches that process finished, and the process ends with its parent."""
    import uuid

    corpus = write_corpus(tmp_path / "big.jsonl", range(160), sentences=12)
    out = tmp_path / "idx"
    cache = out / "vectors" / "multilingual-e5-small-q4-torch"
    mark = f"MITHUB_TEST_MARK={uuid.uuid4().hex}"
    env = {**os.environ, "RETRIEVAL_BUILD_BATCH": "32", mark.split("=")[0]: mark.split("=")[1]}
    env.pop("RETRIEVAL_EMBEDDING_MODEL", None)
    running = []
    _kill_build_after_three_batches(corpus, out, cache, env, before_kill=lambda: running.extend(_processes_with(mark)))
    assert len(running) >= 2, "the build and its encoder process"
    deadline = time.monotonic() + 30
    while _processes_with(mark) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_with(mark), "the encoder process outlived its build"

    _OPEN.clear()
    done_before = set(VectorCache(cache, 384)._rows)
    assert len(done_before) >= 3 * 32
    config = RetrievalConfig(build_batch=32, build_process=False)
    counting = CountingEmbedder(load_embedder("e5-small").inner)
    chunks = list(load_corpus(corpus, config, LineErrors()))
    index = HybridIndex.build(chunks, out, config, embedder=counting, progress=False)
    encoded_keys = {text_key("d", t) for t in counting.encoded}
    assert counting.encoded and not encoded_keys & done_before
    assert index.meta.chunks == len(chunks)
