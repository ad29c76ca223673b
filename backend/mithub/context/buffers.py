"""Bounded utterance buffers that know their token cost (L0 window, topic buffer)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator

from mithub.context.models import Utterance


class TokenWindow:
    """A deque of utterances bounded in turns, and optionally in tokens (oldest drop first).

    Token costs are computed once per utterance, so appending is O(1) amortised.
    """

    def __init__(
        self, max_turns: int, count_tokens: Callable[[str], int], max_tokens: int | None = None
    ) -> None:
        self._items: deque[tuple[Utterance, int]] = deque(maxlen=max_turns)
        self._count = count_tokens
        self._max_tokens = max_tokens
        self.tokens = 0

    def append(self, utterance: Utterance) -> None:
        if len(self._items) == self._items.maxlen:
            self.tokens -= self._items[0][1]
        cost = self._count(utterance.text)
        self._items.append((utterance, cost))
        self.tokens += cost
        if self._max_tokens is not None:
            while self.tokens > self._max_tokens and len(self._items) > 1:
                self.tokens -= self._items.popleft()[1]

    def extend(self, utterances: Iterable[Utterance]) -> None:
        for utterance in utterances:
            self.append(utterance)

    def replace(self, utterances: Iterable[Utterance]) -> None:
        self.clear()
        self.extend(utterances)

    def clear(self) -> None:
        self._items.clear()
        self.tokens = 0

    def relabel(self, from_seq: int, topic: str, topic_id: str) -> None:
        """Give utterances from `from_seq` on a new topic (a boundary found with lookahead)."""
        update = {"topic": topic, "topic_id": topic_id}
        relabelled = [((u.model_copy(update=update) if u.id >= from_seq else u), cost)
                      for u, cost in self._items]
        self._items = deque(relabelled, maxlen=self._items.maxlen)

    def utterances(self) -> list[Utterance]:
        return [u for u, _ in self._items]

    def __iter__(self) -> Iterator[Utterance]:
        return (u for u, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)
