"""Sentence embedders behind one port, shared by meeting memory (topic shifts, extractive
summaries) and retrieval (dense channel, Tri-Graph). Weights come from installed packages or
local paths; nothing is downloaded at run time."""

from mithub.embedders.base import CachedEmbedder, Embedder
from mithub.embedders.factory import available_embedders, load_embedder

__all__ = ["CachedEmbedder", "Embedder", "available_embedders", "load_embedder"]
