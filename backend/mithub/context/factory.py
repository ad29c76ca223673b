"""Wiring of a ContextManager from settings: embedder, topic detector, summarizer (LLM with
extractive fallback, or extractive alone in LLM-free mode)."""

from __future__ import annotations

from mithub.budget import TokenBudgetManager
from mithub.clock import Clock, utc_now
from mithub.config import ContextConfig, get_context_config
from mithub.context.extractive import ExtractiveSummarizer
from mithub.context.manager import ContextManager
from mithub.context.repository import MeetingRepository
from mithub.context.summarizer import LLMSummarizer
from mithub.context.summary import Summarizer
from mithub.embedders import Embedder, load_embedder
from mithub.llm import LLMClient
from mithub.topics.detector import TopicDetector


def create_context_manager(
    meeting_id: str,
    repository: MeetingRepository,
    *,
    config: ContextConfig | None = None,
    llm: LLMClient | None = None,
    embedder: Embedder | None = None,
    clock: Clock = utc_now,
) -> ContextManager:
    config = config or get_context_config()
    embedder = embedder or load_embedder(config.embedding_model)
    budget = TokenBudgetManager()
    extractive = ExtractiveSummarizer(embedder, budget, config.l1_summary_max_tokens)
    summarizer: Summarizer = (
        LLMSummarizer(llm, extractive, budget, config.l1_summary_max_tokens) if llm else extractive
    )
    return ContextManager(
        meeting_id,
        repository=repository,
        topic_detector=TopicDetector(config, embedder, llm),
        summarizer=summarizer,
        config=config,
        budget=budget,
        clock=clock,
    )
