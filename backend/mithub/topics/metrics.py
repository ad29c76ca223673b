"""Topic segmentation scores as `../shared/benchmarks/README.md` defines them (the benchmarks
and the boundary model's training share them).

Pk and WindowDiff over the covered turns only (turns whose gold `turn_topic` is -1 are dropped
and boundaries remapped onto the remaining turns), k = half the mean gold segment length in
covered turns, rounded half up, at least 2. Boundary F1 matches predicted and gold boundaries
one-to-one within k // 2 covered turns.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MeetingScore:
    pk: float
    window_diff: float
    f1: float
    predicted: int
    gold: int


def covered_turns(turn_topic: Sequence[int]) -> list[int]:
    return [i for i, topic in enumerate(turn_topic) if topic != -1]


def remap_boundaries(boundaries: Sequence[int], covered: Sequence[int]) -> list[int]:
    """Boundary turn indices -> positions in the covered sequence (the first covered turn at
    or after each boundary); boundaries at the first covered turn or past the last vanish."""
    out = set()
    for boundary in boundaries:
        position = bisect.bisect_left(covered, boundary)
        if 0 < position < len(covered):
            out.add(position)
    return sorted(out)


def _segment_ids(boundaries: Sequence[int], n: int) -> np.ndarray:
    ids = np.zeros(n, dtype=np.int64)
    for boundary in boundaries:
        ids[boundary:] += 1
    return ids


def pk_and_window_diff(
    gold: Sequence[int], predicted: Sequence[int], n: int, k: int
) -> tuple[float, float]:
    if n <= k:
        return 0.0, 0.0
    ref, hyp = _segment_ids(gold, n), _segment_ids(predicted, n)
    i = np.arange(n - k)
    pk = np.mean((ref[i] == ref[i + k]) != (hyp[i] == hyp[i + k]))
    wd = np.mean((ref[i + k] - ref[i]) != (hyp[i + k] - hyp[i]))
    return float(pk), float(wd)


def matched_boundaries(gold: Sequence[int], predicted: Sequence[int], tolerance: int) -> int:
    """Largest one-to-one matching of sorted points within `tolerance` (greedy is optimal on
    a line: match the leftmost pair that fits, else drop the leftmost point)."""
    i = j = matched = 0
    while i < len(gold) and j < len(predicted):
        if abs(gold[i] - predicted[j]) <= tolerance:
            matched, i, j = matched + 1, i + 1, j + 1
        elif predicted[j] < gold[i]:
            j += 1
        else:
            i += 1
    return matched


def score_meeting(
    turn_topic: Sequence[int], gold_boundaries: Sequence[int], predicted: Sequence[int]
) -> MeetingScore:
    covered = covered_turns(turn_topic)
    n = len(covered)
    gold = remap_boundaries(gold_boundaries, covered)
    hyp = remap_boundaries(predicted, covered)
    k = max(2, int(n / (len(gold) + 1) / 2 + 0.5))
    pk, wd = pk_and_window_diff(gold, hyp, n, k)
    matched = matched_boundaries(gold, hyp, k // 2)
    precision = matched / len(hyp) if hyp else 0.0
    recall = matched / len(gold) if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return MeetingScore(pk, wd, f1, len(hyp), len(gold))


def evenly_spaced(n_turns: int, count: int) -> list[int]:
    return [round(n_turns * j / (count + 1)) for j in range(1, count + 1)]


def average(scores: Sequence[MeetingScore]) -> dict[str, float]:
    if not scores:
        return {}
    return {
        "meetings": len(scores),
        "pk": float(np.mean([s.pk for s in scores])),
        "window_diff": float(np.mean([s.window_diff for s in scores])),
        "f1": float(np.mean([s.f1 for s in scores])),
        "predicted": float(np.mean([s.predicted for s in scores])),
        "gold": float(np.mean([s.gold for s in scores])),
    }


class PkScorer:
    """Pk of many predictions for one meeting (the gold side computed once; for rule search)."""

    def __init__(self, turn_topic: Sequence[int], gold_boundaries: Sequence[int]) -> None:
        self.covered = covered_turns(turn_topic)
        self.n = len(self.covered)
        gold = remap_boundaries(gold_boundaries, self.covered)
        self.k = max(2, int(self.n / (len(gold) + 1) / 2 + 0.5))
        ref = _segment_ids(gold, self.n)
        self._same = ref[: self.n - self.k] == ref[self.k :] if self.n > self.k else None

    def pk(self, predicted: Sequence[int]) -> float:
        if self._same is None:
            return 0.0
        hyp = _segment_ids(remap_boundaries(predicted, self.covered), self.n)
        return float(np.mean(self._same != (hyp[: self.n - self.k] == hyp[self.k :])))
