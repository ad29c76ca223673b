"""Peak picking for the topic boundary model (topics/boundary.py), its parameters chosen by
cross-validation in topics/training.py. Candidate logits are averaged over ±`smoothing`
candidates; a candidate opens a topic when its smoothed logit is the highest within ±`radius`,
reaches the threshold (rising by `step` for each boundary already found), lies at least
max(`min_gap_turns`, `min_gap_ratio` x turns so far) after the previous boundary, and leaves the
last topic at least `min_gap_turns` turns. The gap grows with the meeting instead of being a fixed
number of turns, so one rule fits a 60-turn meeting and a 1,000-turn one.

`pick_boundaries` applies the rule to a whole meeting with array operations (training);
`OnlinePicker` applies it one candidate at a time (the live detector); tests hold them equal.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

# The threshold stops rising after this many boundaries: a long meeting has more topics.
MAX_RAISED_BOUNDARIES = 5


@dataclass(frozen=True)
class DecisionRule:
    threshold: float = 0.5
    radius: int = 4
    min_gap_ratio: float = 0.1
    min_gap_turns: int = 3
    step: float = 0.0  # the threshold's logit rises by this for each boundary already found
    smoothing: int = 0  # logits averaged over ±this many candidates before peak picking

    def min_gap(self, position: int) -> float:
        return max(float(self.min_gap_turns), self.min_gap_ratio * position)

    def logit_threshold(self, found: int) -> float:
        return logit(self.threshold) + self.step * min(found, MAX_RAISED_BOUNDARIES)


def smooth_logits(logits: np.ndarray, width: int) -> np.ndarray:
    """Mean over ±width candidates, the first and last value repeated past the ends."""
    if width == 0 or len(logits) == 0:
        return np.asarray(logits, dtype=np.float64)
    padded = np.concatenate([np.full(width, logits[0]), logits, np.full(width, logits[-1])])
    total = np.zeros(len(logits))
    for shift in range(2 * width + 1):  # summed in the order _Smoother sums, for equal floats
        total += padded[shift : shift + len(logits)]
    return total / (2 * width + 1)


def pick_boundaries(probabilities: Sequence[float] | np.ndarray, rule: DecisionRule) -> list[int]:
    """The rule applied to a whole meeting at once (index = turn position, position 0 ignored):
    the decisions the online detector makes, computed with array operations for training."""
    peaks, scores = candidate_peaks(probabilities, rule.smoothing, rule.radius)
    return accept_peaks(peaks, scores, rule)


def candidate_peaks(
    probabilities: Sequence[float] | np.ndarray, smoothing: int, radius: int
) -> tuple[np.ndarray, np.ndarray]:
    """Positions whose smoothed logit beats every earlier one and equals or beats every later
    one within ±radius, and the smoothed logits of all positions."""
    p = np.clip(np.asarray(probabilities, dtype=np.float64), 1e-12, 1 - 1e-12)
    n, r = len(p), radius
    if n < 2:
        return np.zeros(0, dtype=np.int64), np.full(n, -np.inf)
    scores = np.concatenate([[-np.inf], smooth_logits(np.log(p[1:] / (1 - p[1:])), smoothing)])
    padded = np.concatenate([np.full(r, -np.inf), scores, np.full(r, -np.inf)])
    before = np.full(n, -np.inf)
    after = np.full(n, -np.inf)
    for d in range(1, r + 1):
        before = np.maximum(before, padded[r - d : r - d + n])
        after = np.maximum(after, padded[r + d : r + d + n])
    peaks = np.flatnonzero((scores > before) & (scores >= after))
    return peaks[peaks > 0], scores


def accept_peaks(peaks: np.ndarray, scores: np.ndarray, rule: DecisionRule) -> list[int]:
    """The peaks above the (rising) threshold and far enough from the previous boundary; the last
    topic, too, lasts at least `min_gap_turns` turns."""
    out: list[int] = []
    last = 0
    for position in peaks.tolist():
        if len(scores) - position < rule.min_gap_turns:
            break
        if scores[position] >= rule.logit_threshold(len(out)) and position - last >= rule.min_gap(position):
            out.append(position)
            last = position
    return out


class Smoother:
    """Online `smooth_logits`: emits (position, mean) once ±width neighbours are in."""

    def __init__(self, width: int, values: Iterable[tuple[int, float]] = (), first: float | None = None) -> None:
        self.width = width
        self.values: deque[tuple[int, float]] = deque(values, maxlen=2 * width + 1)
        self.first = first  # the first logit of the meeting, repeated before it

    def push(self, position: int, value: float) -> list[tuple[int, float]]:
        if self.first is None:
            self.first = value
        self.values.append((position, value))
        if self.width == 0:
            return [(position, value)]
        center = position - self.width
        return [(center, self._mean(center, None))] if center >= 1 else []

    def finish(self) -> list[tuple[int, float]]:
        if self.width == 0 or not self.values:
            return []
        last = self.values[-1][0]
        return [(c, self._mean(c, self.values[-1][1])) for c in range(max(1, last - self.width + 1), last + 1)]

    def _mean(self, center: int, tail: float | None) -> float:
        known = dict(self.values)
        total = 0.0
        for position in range(center - self.width, center + self.width + 1):
            if position < 1:
                total += self.first  # type: ignore[operator]
            else:
                total += known.get(position, tail if tail is not None else 0.0)
        return total / (2 * self.width + 1)


class Picker:
    """Online peak picking over (position, score) pushed in order of position, from 1 on."""

    def __init__(
        self, rule: DecisionRule, last: int = 0, cursor: int = 1,
        pending: Iterable[tuple[int, float]] = (), found: int = 0,
        extra: dict[int, float] | None = None,
    ) -> None:
        self.rule = rule
        self.extra = {} if extra is None else extra  # outside evidence by position, added when deciding
        self.last = last  # the previous boundary (0: none yet)
        self.cursor = cursor  # the next position to decide
        self.pending: deque[tuple[int, float]] = deque(pending)  # positions >= cursor - radius
        self.found = found  # boundaries so far
        self.decided_score = 0.0  # the score of the last boundary found (without outside evidence)
        self.end: int | None = None  # set when the meeting is over

    def push(self, position: int, score: float) -> list[int]:
        self.pending.append((position, score))
        out = []
        while position - self.cursor >= self.rule.radius:
            out += self._decide()
        return out

    def finish(self) -> list[int]:
        out = []
        while self.pending and self.pending[-1][0] >= self.cursor:
            out += self._decide()
        return out

    def _decide(self) -> list[int]:
        position, radius = self.cursor, self.rule.radius
        self.cursor += 1
        scores = {p: v + self.extra.get(p, 0.0) for p, v in self.pending}
        while self.pending and self.pending[0][0] < self.cursor - radius:
            self.pending.popleft()
        score = scores.get(position, -math.inf)
        if score < self.rule.logit_threshold(self.found) or position - self.last < self.rule.min_gap(position):
            return []
        if self.end is not None and self.end - position < self.rule.min_gap_turns:
            return []
        for other, value in scores.items():
            if 0 < abs(other - position) <= radius and (value > score or (value == score and other < position)):
                return []
        self.last = position
        self.found += 1
        self.decided_score = score - self.extra.get(position, 0.0)
        return [position]


def logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


class OnlinePicker:
    """Smoothing, then peak picking, one candidate logit at a time: the online twin of
    `pick_boundaries` (tests hold them equal)."""

    def __init__(self, rule: DecisionRule, extra: dict[int, float] | None = None) -> None:
        self.smoother = Smoother(rule.smoothing)
        self.picker = Picker(rule, extra=extra)

    def push(self, position: int, logit: float) -> list[int]:
        out: list[int] = []
        for center, value in self.smoother.push(position, logit):
            out += self.picker.push(center, value)
        return out

    def ending(self, turns: int) -> None:
        """The meeting is over after `turns` turns: the last topic must last min_gap_turns too.
        Called before the last candidates (those inside the feature lookahead) come in."""
        self.picker.end = turns

    def finish(self) -> list[int]:
        out: list[int] = []
        for center, value in self.smoother.finish():
            out += self.picker.push(center, value)
        return out + self.picker.finish()
