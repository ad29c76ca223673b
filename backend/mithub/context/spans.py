"""Best contiguous span under a cost budget: the maximum-sum subarray of per-turn gains whose
total cost fits. Exact, O(n log n): a sparse table answers "where is the largest prefix sum
between these two ends" for every start at once."""

from __future__ import annotations

import numpy as np


def best_span(gains: np.ndarray, costs: np.ndarray, budget: float) -> tuple[float, int, int]:
    """(total gain, start, end) of the best span `[start, end)` with sum(costs) <= budget;
    (0.0, 0, 0) when no span has a positive gain."""
    n = len(gains)
    if n == 0:
        return 0.0, 0, 0
    prefix = np.concatenate([[0.0], np.cumsum(gains, dtype=np.float64)])
    cumcost = np.concatenate([[0.0], np.cumsum(costs, dtype=np.float64)])
    table = _argmax_table(prefix)
    starts = np.arange(n)
    lo = starts + 1
    hi = np.searchsorted(cumcost, cumcost[starts] + budget, side="right") - 1
    ok = hi >= lo
    starts, lo, hi = starts[ok], lo[ok], hi[ok]
    if starts.size == 0:
        return 0.0, 0, 0
    level = np.floor(np.log2(hi - lo + 1)).astype(np.int64)
    left = table[level, lo]
    right = table[level, hi - (1 << level) + 1]
    ends = np.where(prefix[left] >= prefix[right], left, right)
    gain = prefix[ends] - prefix[starts]
    best = int(np.argmax(gain))
    if gain[best] <= 0:
        return 0.0, 0, 0
    return float(gain[best]), int(starts[best]), int(ends[best])


def _argmax_table(values: np.ndarray) -> np.ndarray:
    """table[k, i] = index of the max of values[i : i + 2**k] (padded rows past the end)."""
    size = len(values)
    rows = [np.arange(size)]
    width = 1
    while width * 2 <= size:
        previous = rows[-1]
        left, right = previous[: size - width * 2 + 1], previous[width : size - width + 1]
        rows.append(np.where(values[left] >= values[right], left, right))
        width *= 2
    table = np.zeros((len(rows), size), dtype=np.int64)
    for level, row in enumerate(rows):
        table[level, : len(row)] = row
    return table
