"""The state the semantic-shift detector keeps as a meeting runs (topics/semantic_shift.py):
running channel statistics that lag behind the turn being scored, and an exponentially
decayed memory of everything said so far, whose every step costs the same however long the
meeting runs."""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from mithub.topics.turns import TurnFeatures

# Below this the decayed memory is rescaled and negligible words are dropped (memory stays flat).
_RESCALE_BELOW = 1e-6
_NEGLIGIBLE = 1e-4


class LaggedStats:
    """Running mean and variance (Welford) of a channel's values, `lag` values behind: a value is
    z-scored against the values before the last `lag`, so the rising novelty of the change being
    scored does not inflate the spread it is measured with."""

    __slots__ = ("count", "lag", "m2", "mean", "pending")

    def __init__(
        self,
        lag: int,
        count: int = 0,
        mean: float = 0.0,
        m2: float = 0.0,
        pending: Iterable[float] = (),
    ) -> None:
        self.lag, self.count, self.mean, self.m2 = lag, count, mean, m2
        self.pending = deque(pending)

    def push(self, value: float) -> float:
        """The z-score of `value`; then `value` joins the distribution, `lag` pushes later."""
        std = math.sqrt(self.m2 / self.count) if self.count > 1 else 0.0
        z = (value - self.mean) / std if std > 1e-9 else 0.0
        self.pending.append(value)
        if len(self.pending) > self.lag:
            old = self.pending.popleft()
            self.count += 1
            delta = old - self.mean
            self.mean += delta / self.count
            self.m2 += delta * (old - self.mean)
        return z

    def state(self) -> list[Any]:
        return [self.count, self.mean, self.m2, list(self.pending)]


class DecayedBag:
    """Weighted words (or speakers) whose weights all shrink by a factor per turn. Decay costs
    O(1): values are stored divided by `scale`, the product of all factors so far."""

    __slots__ = ("raw", "scale", "sumsq")

    def __init__(
        self, raw: dict[str, float] | None = None, scale: float = 1.0, sumsq: float | None = None
    ) -> None:
        self.raw = raw or {}
        self.scale = scale
        self.sumsq = sum(v * v for v in self.raw.values()) if sumsq is None else sumsq

    def decay(self, factor: float) -> None:
        self.scale *= factor
        if self.scale < _RESCALE_BELOW:
            scale, self.scale = self.scale, 1.0
            self.raw = {k: v * scale for k, v in self.raw.items() if v * scale > _NEGLIGIBLE}
            self.sumsq = sum(v * v for v in self.raw.values())

    def add(self, key: str, value: float) -> None:
        old = self.raw.get(key, 0.0)
        new = old + value / self.scale
        self.raw[key] = new
        self.sumsq += new * new - old * old

    def cosine(self, bag: Counter[str]) -> float:
        """Cosine with a plain bag; 1.0 (no novelty) when either side is empty."""
        dot = sum(self.raw.get(k, 0.0) * v for k, v in bag.items())
        norm = math.sqrt(max(self.sumsq, 0.0) * sum(v * v for v in bag.values()))
        return dot / norm if norm > 1e-12 else 1.0


class TopicMemory:
    """The decayed sum of all turns before the candidate, in the three content channels."""

    def __init__(self) -> None:
        self.vector: np.ndarray | None = None
        self.terms = DecayedBag()
        self.speakers = DecayedBag()

    def add(self, turn: TurnFeatures, factor: float) -> None:
        if self.vector is not None:
            self.vector *= factor
        if turn.vector is not None:
            weighted = turn.vector.astype(np.float64) * turn.embedding_weight
            self.vector = weighted if self.vector is None else self.vector + weighted
        for bag in (self.terms, self.speakers):
            bag.decay(factor)
        for term in turn.terms:
            self.terms.add(term, 1.0)
        self.speakers.add(turn.speaker, turn.speaker_weight)

    def similarities(self, window: Sequence[TurnFeatures]) -> tuple[float, float, float]:
        """Cosine of the memory with the window in the embedding, word and speaker channels."""
        return (
            _cosine(self.vector, _embedding_sum(window)),
            self.terms.cosine(_term_bag(window)),
            self.speakers.cosine(_speaker_bag(window)),
        )

    def state_dict(self) -> dict[str, Any]:
        return {
            "vector": None if self.vector is None else self.vector.tolist(),
            "terms": [self.terms.scale, self.terms.sumsq, self.terms.raw],
            "speakers": [self.speakers.scale, self.speakers.sumsq, self.speakers.raw],
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> TopicMemory:
        memory = cls()
        if state["vector"] is not None:
            memory.vector = np.asarray(state["vector"], dtype=np.float64)
        for name in ("terms", "speakers"):
            scale, sumsq, raw = state[name]
            bag = DecayedBag({str(k): float(v) for k, v in raw.items()}, scale, sumsq)
            setattr(memory, name, bag)
        return memory


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float:
    if a is None or b is None:
        return 1.0
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norm if norm > 1e-12 else 1.0


def _embedding_sum(turns: Sequence[TurnFeatures]) -> np.ndarray | None:
    rows = [t.vector * t.embedding_weight for t in turns if t.vector is not None]
    return np.sum(rows, axis=0, dtype=np.float64) if rows else None


def _term_bag(turns: Sequence[TurnFeatures]) -> Counter[str]:
    bag: Counter[str] = Counter()
    for turn in turns:
        bag.update(turn.terms)
    return bag


def _speaker_bag(turns: Sequence[TurnFeatures]) -> Counter[str]:
    bag: Counter[str] = Counter()
    for turn in turns:
        bag[turn.speaker] += turn.speaker_weight
    return bag
