"""The document channel of agent calls: hybrid retrieval hits as quoted passages."""

from __future__ import annotations

from mithub.context.models import DocumentPassage
from mithub.retrieval import Retriever


class RetrieverDocuments:
    """Adapts a `Retriever` (HybridIndex) to the ContextBuilder's DocumentSearch port."""

    def __init__(self, retriever: Retriever) -> None:
        self._retriever = retriever

    def search_passages(self, query: str, top_k: int) -> list[DocumentPassage]:
        return [
            DocumentPassage(id=hit.chunk_id, text=hit.text, source=hit.source.label(),
                            title=hit.source.title, path=hit.source.path, score=hit.score)
            for hit in self._retriever.search(query, top_k)
        ]
