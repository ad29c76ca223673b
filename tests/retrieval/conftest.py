"""Shared retrieval fixtures: the fixture corpus and one real index built once per session
(both channels' embedders are multilingual USE here: fast and Korean-capable)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mithub.config import RetrievalConfig
from mithub.jsonl import LineErrors
from mithub.retrieval.index import HybridIndex
from mithub.retrieval.loaders import load_corpus

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def retrieval_config() -> RetrievalConfig:
    return RetrievalConfig(embedding_model="use-multilingual", trigraph_embedding_model="use-multilingual")


@pytest.fixture(scope="session")
def corpus_chunks(retrieval_config: RetrievalConfig) -> list:
    return list(load_corpus(DATA / "corpus.jsonl", retrieval_config, LineErrors()))


@pytest.fixture(scope="session")
def built_index_dir(tmp_path_factory: pytest.TempPathFactory, retrieval_config: RetrievalConfig, corpus_chunks: list) -> Path:
    directory = tmp_path_factory.mktemp("index")
    HybridIndex.build(corpus_chunks, directory, retrieval_config, progress=False)
    return directory
