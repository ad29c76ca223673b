"""TokenBudgetManager (seed 003): estimate, truncate and pack text under a token budget.

The estimate needs no tokenizer: Hangul syllables count 1.5 characters per token and every
other character 4 per token (seed 003, within about ±15% of real tokenizers). When the LLM
server can tokenize, an exact counter can be plugged in and is used instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")

_HANGUL = re.compile(r"[가-힣]")
TRUNCATION_MARKER = "... (truncated)"

TokenCounter = Callable[[str], int]


def estimate_tokens(text: str) -> int:
    """Seed 003 estimate; a non-empty text is never free."""
    if not text:
        return 0
    korean = len(_HANGUL.findall(text))
    other = len(text) - korean
    return max(1, int(korean / 1.5 + other / 4.0))


@dataclass(frozen=True)
class ModelBudget:
    """How one model's context window is split (seed 002 §1.2, scaled from the 8K table)."""

    context_window: int
    safety_margin: int
    system_prompt: int
    response: int

    @property
    def context(self) -> int:
        """Tokens left for meeting context and retrieved passages."""
        return self.context_window - self.safety_margin - self.system_prompt - self.response

    @classmethod
    def for_window(cls, context_window: int) -> "ModelBudget":
        if context_window < 2048:
            raise ValueError(f"context window {context_window} is too small; use >= 2048 tokens")
        if context_window <= 8192:  # seed 002 §1.2: 1,000 system / 4,000 context / 3,000 answer
            scale = context_window / 8192  # a smaller window keeps the same proportions
            return cls(context_window, int(192 * scale), int(1000 * scale), int(3000 * scale))
        margin = context_window // 8  # seed 003: 32K model keeps 4K spare
        return cls(context_window, margin, 1000, 4000)


class TokenBudgetManager:
    """Counts, truncates and packs text so a prompt never exceeds its budget."""

    def __init__(self, counter: TokenCounter | None = None) -> None:
        self._counter = counter or estimate_tokens

    def count(self, text: str) -> int:
        return self._counter(text)

    def truncate_to_budget(
        self, text: str, budget_tokens: int, *, marker: str = TRUNCATION_MARKER
    ) -> str:
        """Cut `text` so it fits `budget_tokens`, marking the cut (seed 003, 5% margin)."""
        if budget_tokens <= 0:
            return ""
        current = self.count(text)
        if current <= budget_tokens:
            return text
        marker_cost = self.count(marker)
        if marker_cost >= budget_tokens:
            return ""
        target_chars = int(len(text) * (budget_tokens - marker_cost) / current * 0.95)
        while target_chars > 0:
            candidate = text[:target_chars].rstrip() + marker
            if self.count(candidate) <= budget_tokens:
                return candidate
            target_chars = int(target_chars * 0.9)
        return ""

    def pack(
        self,
        items: Iterable[T],
        budget_tokens: int,
        *,
        text_of: Callable[[T], str] = str,
        skip_oversize: bool = False,
        per_item: int = 0,
    ) -> list[T]:
        """Take items in order while they fit. Stops at the first that does not fit (seed 003)
        unless `skip_oversize`, which passes over it and keeps trying smaller ones. Each item
        costs `per_item` tokens beyond its text (a line break, say)."""
        packed: list[T] = []
        used = 0
        for item in items:
            cost = self.count(text_of(item)) + per_item
            if used + cost > budget_tokens:
                if skip_oversize:
                    continue
                break
            packed.append(item)
            used += cost
        return packed

    def keep_newest(
        self, items: Sequence[T], budget_tokens: int, *, text_of: Callable[[T], str] = str,
        per_item: int = 0,
    ) -> list[T]:
        """The longest suffix of `items` that fits: the oldest drop first (L0 window). Each
        item costs `per_item` tokens beyond its text."""
        kept: list[T] = []
        used = 0
        for item in reversed(items):
            cost = self.count(text_of(item)) + per_item
            if used + cost > budget_tokens:
                break
            kept.append(item)
            used += cost
        kept.reverse()
        return kept

    def total(self, texts: Iterable[str]) -> int:
        return sum(self.count(text) for text in texts)
