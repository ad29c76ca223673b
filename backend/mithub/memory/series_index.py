"""The transcript index of a whole series: today's `TranscriptIndex`, whose turns also score
by the region of the meeting they lie in.

A past-meeting question rarely says which meeting it is about, and many meetings of a series
discuss the same things, so a single turn that repeats the question's words is weak evidence
of where the answer was discussed. A region of a few consecutive turns, scored as one
BM25 document, catches a discussion whose words are spread over several turns (the dense
side is left to the turns: the mean vector of a region scored worse on the benchmark). Each turn's relevance is its own blended with
that of the best region holding it, so the search's stretch and single turns land in the
parts of the series that discuss the question, not on a stray turn that echoes it.

Regions never run across two meetings: each `add` is one meeting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from mithub.context.models import Utterance
from mithub.context.transcript_index import IncrementalBM25, TranscriptIndex, query_terms
from mithub.embedders import Embedder

# Chosen on benchmarks/meeting_series.py (QMSum series), by cross-validation over series.
REGION_TURNS = 8  # turns per region; regions start every REGION_TURNS // 2 turns
REGION_WEIGHT = 0.5  # a turn's relevance: this much its best region's, the rest its own


class _RecordingBM25(IncrementalBM25):
    """Keeps the token lists it was given until taken, so regions reuse the turns' tokens
    (Korean morpheme analysis is the costly part of indexing)."""

    def __init__(self) -> None:
        super().__init__()
        self.pending: list[list[str]] = []

    def add(self, tokens: Sequence[str]) -> None:
        super().add(tokens)
        self.pending.append(list(tokens))


class SeriesIndex(TranscriptIndex):
    """Turns of many meetings, searchable by their own and their region's relevance."""

    def __init__(
        self,
        embedder: Embedder,
        count_tokens: Callable[[Utterance], int],
        *,
        region_turns: int = REGION_TURNS,
        region_weight: float = REGION_WEIGHT,
        turn_max_tokens: int = 0,
        count_text: Callable[[str], int] | None = None,
    ) -> None:
        super().__init__(embedder, count_tokens, turn_max_tokens=turn_max_tokens, count_text=count_text)
        self._bm25 = _RecordingBM25()
        self._stride = max(region_turns // 2, 1)
        self.region_weight = region_weight
        self._regions = IncrementalBM25()
        # Per turn, the two regions that hold it (the same one twice at a meeting's start).
        self._turn_regions = np.zeros((0, 2), dtype=np.int64)

    def add(self, utterances: Sequence[Utterance], *, vectors: np.ndarray | None = None,
            tokens: Sequence[Sequence[str]] | None = None) -> None:
        """Index one meeting's turns (ids increasing past every turn indexed so far)."""
        first = len(self)
        super().add(utterances, vectors=vectors, tokens=tokens)
        tokens, self._bm25.pending = self._bm25.pending, []
        count = len(self) - first
        if count == 0:
            return
        stride, offset = self._stride, len(self._regions)
        starts = range(0, max(count - stride, 1), stride)
        for start in starts:
            self._regions.add([t for turn in tokens[start : start + 2 * stride] for t in turn])
        raw = np.arange(count) // stride
        own = np.minimum(raw, len(starts) - 1)  # the last region runs to the meeting's end
        previous = np.where(raw == own, np.maximum(own - 1, 0), own)
        regions = np.stack([own, previous], axis=1) + offset
        self._turn_regions = np.concatenate([self._turn_regions, regions])

    def relevance(self, query: str) -> np.ndarray:
        own = super().relevance(query)
        if self.region_weight <= 0 or len(self._regions) == 0 or own.max() <= 0:
            return own
        regions = self._regions.scores(query_terms(query))
        if regions.max() <= 0:
            return own
        region = regions[self._turn_regions].max(axis=1) / regions.max()
        # On the scale of the turns' own relevance, which the search's thresholds expect.
        return ((1 - self.region_weight) * own + self.region_weight * own.max() * region).astype(np.float32)
