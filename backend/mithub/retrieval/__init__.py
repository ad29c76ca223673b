"""Edge hybrid retrieval (seeds 001 and 004): LLM-free one-time indexing of documents and
past meetings into dense (FAISS), sparse (BM25) and Tri-Graph channels, fused by weighted RRF.

    index = HybridIndex.build(load_corpus(path, config, errors), out_dir)   # or HybridIndex.load(dir)
    hits = index.search("what did we decide about the launch?", top_k=4)

The names below are imported when first used: a process that only needs the `Retriever`
port (an agent call without a document index) does not load FAISS, bm25s and SciPy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mithub.retrieval.index import HybridIndex
    from mithub.retrieval.loaders import load_corpus
    from mithub.retrieval.models import Chunk, Hit, Source
    from mithub.retrieval.retriever import Retriever

_HOMES = {
    "HybridIndex": "mithub.retrieval.index",
    "load_corpus": "mithub.retrieval.loaders",
    "Chunk": "mithub.retrieval.models",
    "Hit": "mithub.retrieval.models",
    "Source": "mithub.retrieval.models",
    "Retriever": "mithub.retrieval.retriever",
}

__all__ = ["Chunk", "Hit", "HybridIndex", "Retriever", "Source", "load_corpus"]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'mithub.retrieval' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
