"""Composition of the agent side of a process from settings: store, retrieval index, LLM,
ContextBuilder, pipeline and session registry."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import structlog

from mithub.agent.documents import RetrieverDocuments
from mithub.agent.pipeline import AgentPipeline
from mithub.agent.registry import SessionRegistry
from mithub.budget import TokenBudgetManager
from mithub.config import (
    ContextConfig,
    MemoryConfig,
    get_context_config,
    get_memory_config,
    get_llm_config,
    get_retrieval_config,
)
from mithub.context.builder import ContextBuilder
from mithub.context.factory import create_context_manager
from mithub.context.repository import MeetingRepository
from mithub.embedders import Embedder, load_embedder
from mithub.llm.factory import create_llm_client
from mithub.memory import MemorySource, OrganisationMemory
from mithub.store.database import Database
from mithub.store.open import open_database
from mithub.store.sql import SqlRepository

logger = structlog.get_logger(__name__)


@dataclass
class AgentRuntime:
    database: Database
    repository: SqlRepository
    builder: ContextBuilder
    pipeline: AgentPipeline
    registry: SessionRegistry

    async def aclose(self) -> None:
        await self.database.dispose()

    def warm_up_in_background(self) -> threading.Thread:
        """Load the embedding model in a thread while the caller reads the store and loads
        Korean morphology (which holds the GIL; the model's load mostly does not): a one-shot
        command waits for the longer of the two rather than their sum."""
        thread = threading.Thread(target=self.builder.warm_up, name="embedder-warm-up", daemon=True)
        thread.start()
        return thread


def load_documents(index_dir: str) -> RetrieverDocuments | None:
    if not index_dir:
        return None
    from mithub.retrieval import HybridIndex

    index = HybridIndex.load(Path(index_dir))
    logger.info("retrieval_index_loaded", path=index_dir, chunks=index.meta.chunks)
    return RetrieverDocuments(index)


def memory_builder(
    config: ContextConfig, embedder: Embedder, source: MemorySource | None, *,
    documents: RetrieverDocuments | None = None, memory: MemoryConfig | None = None,
    progress: bool | None = None,
) -> ContextBuilder:
    """A ContextBuilder that also searches the finished meetings of `source` (MEMORY_SCOPE;
    `off`, or no source: today's meeting and documents only)."""
    memory = memory or get_memory_config()
    budget = TokenBudgetManager()
    past = None
    if source is not None and memory.scope != "off":
        past = OrganisationMemory(source, embedder, config=memory, count_text=budget.count,
                                  turn_max_tokens=config.excerpt_turn_max_tokens, progress=progress)
    return ContextBuilder(config=config, embedder=embedder, budget=budget, documents=documents,
                          past=past, past_share=memory.past_share, past_cue_share=memory.past_cue_share)


def build_runtime(database: Database, repository: SqlRepository, *,
                  config: ContextConfig | None = None, index_dir: str | None = None) -> AgentRuntime:
    config = config or get_context_config()
    llm_config = get_llm_config()
    llm = create_llm_client(llm_config)
    embedder = load_embedder(config.embedding_model)
    documents = load_documents(get_retrieval_config().index_dir if index_dir is None else index_dir)
    builder = memory_builder(config, embedder, repository, documents=documents)
    pipeline = AgentPipeline(builder, llm=llm, max_output_tokens=llm_config.max_output_tokens,
                             recorder=repository, records=repository)

    def manager_factory(meeting_id: str, repo: MeetingRepository):
        return create_context_manager(meeting_id, repo, config=config, llm=llm, embedder=embedder)

    registry = SessionRegistry(repository, manager_factory, builder)
    return AgentRuntime(database, repository, builder, pipeline, registry)


async def open_agent_runtime(database_url: str | None = None, *, index_dir: str | None = None) -> AgentRuntime:
    database = await open_database(database_url)
    return build_runtime(database, SqlRepository(database), index_dir=index_dir)
