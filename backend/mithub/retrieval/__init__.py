"""Edge hybrid retrieval (seeds 001 and 004): LLM-free one-time indexing of documents and
past meetings into dense (FAISS), sparse (BM25) and Tri-Graph channels, fused by weighted RRF.

    index = HybridIndex.build(load_corpus(path, config, errors), out_dir)   # or HybridIndex.load(dir)
    hits = index.search("what did we decide about the launch?", top_k=4)
"""

from mithub.retrieval.index import HybridIndex
from mithub.retrieval.loaders import load_corpus
from mithub.retrieval.models import Chunk, Hit, Source
from mithub.retrieval.retriever import Retriever

__all__ = ["Chunk", "Hit", "HybridIndex", "Retriever", "Source", "load_corpus"]
