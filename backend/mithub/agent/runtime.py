"""Composition of the agent side of a process from settings: store, retrieval index, LLM,
ContextBuilder, pipeline and session registry."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import structlog

from mithub.agent.documents import RetrieverDocuments
from mithub.agent.pipeline import AgentPipeline
from mithub.agent.registry import SessionRegistry
from mithub.config import (
    ContextConfig,
    get_context_config,
    get_llm_config,
    get_retrieval_config,
)
from mithub.context.builder import ContextBuilder
from mithub.context.factory import create_context_manager
from mithub.context.repository import MeetingRepository
from mithub.embedders import load_embedder
from mithub.llm.factory import create_llm_client
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


def load_documents(index_dir: str) -> RetrieverDocuments | None:
    if not index_dir:
        return None
    from mithub.retrieval import HybridIndex

    index = HybridIndex.load(Path(index_dir))
    logger.info("retrieval_index_loaded", path=index_dir, chunks=index.meta.chunks)
    return RetrieverDocuments(index)


def build_runtime(database: Database, repository: SqlRepository, *,
                  config: ContextConfig | None = None, index_dir: str | None = None) -> AgentRuntime:
    config = config or get_context_config()
    llm_config = get_llm_config()
    llm = create_llm_client(llm_config)
    embedder = load_embedder(config.embedding_model)
    documents = load_documents(get_retrieval_config().index_dir if index_dir is None else index_dir)
    builder = ContextBuilder(config=config, embedder=embedder, documents=documents)
    pipeline = AgentPipeline(builder, llm=llm, max_output_tokens=llm_config.max_output_tokens,
                             recorder=repository)

    def manager_factory(meeting_id: str, repo: MeetingRepository):
        return create_context_manager(meeting_id, repo, config=config, llm=llm, embedder=embedder)

    registry = SessionRegistry(repository, manager_factory, builder)
    return AgentRuntime(database, repository, builder, pipeline, registry)


async def open_agent_runtime(database_url: str | None = None, *, index_dir: str | None = None) -> AgentRuntime:
    database = await open_database(database_url)
    return build_runtime(database, SqlRepository(database), index_dir=index_dir)
