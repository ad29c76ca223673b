"""Summarizer with a local LLM (seed 002 §3.3.1 recursive and §3.5 L1 prompts), falling back
to the extractive summarizer when the LLM fails or its JSON does not parse."""

from __future__ import annotations

from collections.abc import Sequence

import structlog
from pydantic import BaseModel, Field

from mithub.budget import TokenBudgetManager
from mithub.context.extractive import ExtractiveSummarizer, scan_cues
from mithub.context.models import TopicSegment, Utterance
from mithub.context.prompts.summarization import (
    SUMMARY_SCHEMA,
    SUMMARY_SYSTEM_PROMPT,
    l1_summary_prompt,
    recursive_summary_prompt,
)
from mithub.context.summary import SummaryResult, fit_summary
from mithub.errors import LLMError
from mithub.llm import LLMClient
from mithub.llm.json_output import parse_into

logger = structlog.get_logger(__name__)


class _LLMSummary(BaseModel):
    summary: str = Field(min_length=1)
    key_points: list[str] = Field(default_factory=list)
    decisions: list[str] = Field(default_factory=list)
    pending: list[str] = Field(default_factory=list)
    participants: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)


class LLMSummarizer:
    """Asks the LLM for the seed's JSON; on any LLM failure returns the extractive summary.

    `fallbacks` counts how often that happened (exported as a metric by the caller).
    """

    def __init__(
        self,
        llm: LLMClient,
        fallback: ExtractiveSummarizer,
        budget: TokenBudgetManager,
        max_tokens: int,
        *,
        max_output_tokens: int | None = None,
    ) -> None:
        self._llm = llm
        # The JSON around the fields costs tokens too; a cut-off answer falls back anyway.
        self._max_output_tokens = max_output_tokens or max_tokens + 150
        self._fallback = fallback
        self._budget = budget
        self._max_tokens = max_tokens
        self.fallbacks = 0

    async def summarize(
        self,
        topic_name: str,
        utterances: Sequence[Utterance],
        previous: TopicSegment | None = None,
        participants: Sequence[str] = (),
    ) -> SummaryResult:
        if previous is not None:
            prompt = recursive_summary_prompt(previous, utterances, self._max_tokens)
        else:
            prompt = l1_summary_prompt(topic_name, utterances, self._max_tokens)
        try:
            text = await self._llm.complete_json(
                system=SUMMARY_SYSTEM_PROMPT, user=prompt, schema=SUMMARY_SCHEMA,
                max_tokens=self._max_output_tokens,
            )
            payload = parse_into(text, _LLMSummary)
        except LLMError as exc:
            self.fallbacks += 1
            logger.warning("llm_summary_failed", error=str(exc), fallback="extractive",
                           utterances=len(utterances))
            return await self._fallback.summarize(topic_name, utterances, previous, participants)
        return fit_summary(self._merge(payload, utterances, previous, participants), self._budget,
                           self._max_tokens)

    @staticmethod
    def _merge(
        payload: _LLMSummary,
        utterances: Sequence[Utterance],
        previous: TopicSegment | None,
        participants: Sequence[str],
    ) -> SummaryResult:
        """LLM fields, plus action items from cue patterns (the seed's JSON has none) and the
        speakers actually heard (a small model may drop or invent names)."""
        names = list(dict.fromkeys([*(previous.participants if previous else []), *participants,
                                    *(u.speaker_name for u in utterances)]))
        _, _, actions = scan_cues(utterances, names)
        earlier = previous.action_items if previous else []
        return SummaryResult(
            summary=payload.summary,
            key_points=payload.key_points,
            decisions=payload.decisions,
            pending=payload.pending,
            participants=names,
            keywords=payload.keywords,
            action_items=list(dict.fromkeys([*earlier, *actions]))[-6:],
            mode="llm",
        )
