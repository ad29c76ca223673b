"""The port the agent pipeline searches through (SEARCH and IMMEDIATE_RESPONSE calls).
Synchronous: embedding, FAISS and BM25 are CPU work, so async callers wrap it in
`asyncio.to_thread`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from mithub.retrieval.models import ChannelName, Hit


@runtime_checkable
class Retriever(Protocol):
    def search(
        self, query: str, top_k: int | None = None, channels: Sequence[ChannelName] | None = None
    ) -> list[Hit]: ...
