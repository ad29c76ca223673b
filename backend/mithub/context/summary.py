"""The summary a Summarizer returns, and the Summarizer port the ContextManager calls."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, Field

from mithub.budget import TokenBudgetManager
from mithub.context.models import TopicSegment, Utterance


class SummaryResult(BaseModel):
    """The fields of seed 002 §3.5's JSON, plus action items and which mode produced it."""

    summary: str
    key_points: list[str] = Field(default_factory=list)
    decisions: list[str] = Field(default_factory=list)
    pending: list[str] = Field(default_factory=list)
    participants: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    action_items: list[str] = Field(default_factory=list)
    mode: Literal["llm", "extractive"] = "extractive"


class Summarizer(Protocol):
    async def summarize(
        self,
        topic_name: str,
        utterances: Sequence[Utterance],
        previous: TopicSegment | None = None,
        participants: Sequence[str] = (),
    ) -> SummaryResult: ...


def segment_tokens(segment: TopicSegment | SummaryResult, budget: TokenBudgetManager) -> int:
    """Tokens a segment costs when shown to an LLM (every text field counted)."""
    if isinstance(segment, TopicSegment):
        lists = [segment.key_points, segment.key_decisions, segment.pending_items,
                 segment.action_items, segment.participants, segment.keywords]
    else:
        lists = [segment.key_points, segment.decisions, segment.pending,
                 segment.action_items, segment.participants, segment.keywords]
    return budget.count(segment.summary) + sum(budget.total(items) for items in lists)


_SHARES = {"key_points": 0.12, "decisions": 0.24, "pending": 0.08, "action_items": 0.16,
           "keywords": 0.05}
LIST_ITEM_MARKER = "…"


def fit_summary(result: SummaryResult, budget: TokenBudgetManager, max_tokens: int) -> SummaryResult:
    """Trim every field to its share of `max_tokens` (the summary text gets what the lists
    leave), so a segment never costs more than `l1_summary_max_tokens`."""
    updates: dict[str, object] = {}
    used = 0
    for field, share in _SHARES.items():
        field_budget = int(max_tokens * share)
        items = [budget.truncate_to_budget(x, max(field_budget // 2, 8), marker=LIST_ITEM_MARKER)
                 for x in getattr(result, field)]
        packed = budget.pack([x for x in items if x], field_budget, skip_oversize=True)
        updates[field] = packed
        used += budget.total(packed)
    participants = budget.pack(result.participants, max(int(max_tokens * 0.04), 8), skip_oversize=True)
    updates["participants"] = participants
    used += budget.total(participants)
    updates["summary"] = budget.truncate_to_budget(result.summary, max_tokens - used)
    return result.model_copy(update=updates)
