"""LLM-free, online topic-shift detection over turn embeddings.

For each candidate turn c the detector compares the next turns (c .. c+window-1, or fewer, see
below) with a memory of everything said before c, in three channels: sentence embeddings, content
words and who is speaking (a new topic often brings a new questioner or presenter). The memory is an
exponentially decayed sum of the past turns whose half-life grows with the meeting
(`memory_ratio` x the turns so far, between window/2 and `memory_max_turns`): early on it is the
last few turns, later it is the current topic as a whole, so the detector looks for changes at the
scale of the meeting's topics rather than at every local digression. A similarity becomes a
novelty (1 - cosine) and is turned into a z-score against the running mean and spread of that
channel in this meeting, so the threshold is relative to the meeting's own score distribution,
never a raw cosine.

The window is `window` turns or, when the turns are long, a fixed amount of content: it stops at the
turn that brings it to `window_max_terms` content terms, once it has `window_min_turns` turns. In
backchannel-heavy talk 20 turns hold a few dozen content words; in a hearing of long speeches they
hold more than half a topic, and a window that reaches into the next topic blurs the change being
scored.

A fourth channel is the substance of the turn itself (its number of content terms, z-scored the
same way): a topic tends to open with substantive turns (an announcement, a question, the start of
a presentation) and to fade out in backchannel. The weighted z-scores are summed, smoothed over ±s
turns, and a cue-phrase bonus of the turn itself is added. A boundary is a local maximum (±p
turns) above `sigma` plus `boundary_step` for each boundary already found (meetings have a handful
of topics, so each further one needs stronger evidence), at least `min_segment_turns` and
`min_segment_ratio` x the turns so far after the previous boundary. The smoothed peak often sits
on the backchannel lull before a topic ("okay", "right", "mm-hmm"); the new topic starts at the
first turn that opens it: the peak turn or one of the next `smoothing` turns that has substance
(`OPENING_TERMS` content terms) or a strong cue phrase.

It is online: the decision about turn c needs window - 1 + s + p turns after it (the lookahead)
and nothing later; the memory makes each step cost the same however long the meeting runs.
Backchannel turns ("yeah", "mm-hmm", "네", "음") have no content terms: they weigh nothing in the
embedding and word channels and little in the speaker channel. Parameters and the benchmark that
chose them: benchmarks/RESULTS.md (benchmarks/segmentation.py).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mithub.topics.shift_memory import LaggedStats, TopicMemory
from mithub.topics.turns import TurnFeatures

STATE_VERSION = 2

CHANNELS = ("embedding", "lexical", "speaker", "substance")
# Relative weights of the channels' z-scores; the substance weight is a setting. Words count half:
# they repeat what the embedding says and are noisier (benchmarks/segmentation.py chose these).
_FIXED_WEIGHTS = {"embedding": 1.0, "lexical": 0.5, "speaker": 1.0}
# The threshold rises with each boundary found, for at most this many boundaries: in a long
# meeting the bar should stop climbing once a typical number of topics has been seen.
_MAX_RAISED_BOUNDARIES = 5
# A turn with this many content terms (or a strong cue) can open a topic; fewer is backchannel.
OPENING_TERMS = 3
_STRONG_CUE = 1.0


@dataclass(frozen=True)
class ShiftParams:
    window_turns: int = 20
    window_min_turns: int = 12
    window_max_terms: int = 200
    memory_ratio: float = 0.2
    memory_max_turns: int = 100
    min_segment_turns: int = 15
    min_segment_ratio: float = 0.1
    sigma: float = 0.6
    smoothing_turns: int = 5
    peak_radius_turns: int = 3
    cue_weight: float = 1.5
    substance_weight: float = 1.5
    boundary_step: float = 0.2

    @property
    def lookahead(self) -> int:
        return self.window_turns - 1 + self.smoothing_turns + self.peak_radius_turns

    @property
    def history_turns(self) -> int:
        """Turns kept: the window plus the one entering the memory, and every undecided turn."""
        return max(self.window_turns + 1, self.lookahead + 1)

    def half_life(self, turns_before: int) -> float:
        low = self.window_turns / 2
        return min(float(self.memory_max_turns), max(low, self.memory_ratio * turns_before))

    def channel_weights(self) -> tuple[float, ...]:
        return (*_FIXED_WEIGHTS.values(), self.substance_weight)


@dataclass(frozen=True)
class ShiftDecision:
    position: int  # 0-based turn index in the meeting of the first turn of the new topic
    seq: int
    score: float  # smoothed novelty + cue bonus at the peak, in running standard deviations
    novelty: float  # the semantic part alone
    cue: float  # the cue part (keyword and LLM evidence, weighted)
    threshold: float = 0.0  # what the score had to exceed (sigma + the raise for past boundaries)
    llm_cue: float = 0.0  # the LLM's share of `cue`

    @property
    def confidence(self) -> float:
        # At the threshold 0.5; two standard deviations above it, 0.98.
        return 1.0 / (1.0 + math.exp(-2.0 * (self.score - self.threshold)))


class SemanticShiftDetector:
    """Feed turns in order with `push`; it returns a ShiftDecision `lookahead` turns after the
    boundary it decides, or None. The caller accepts every decision (a new segment starts)."""

    def __init__(self, params: ShiftParams | None = None) -> None:
        self.params = params or ShiftParams()
        self._turns: deque[TurnFeatures] = deque(maxlen=self.params.history_turns)
        self._seen = 0
        self._last_boundary = 0
        self._boundaries = 0
        self._memory = TopicMemory()
        self._stats = [LaggedStats(self.params.window_turns) for _ in CHANNELS]
        self._combined: deque[float] = deque(maxlen=2 * self.params.smoothing_turns + 1)
        self._smoothed: deque[float] = deque(maxlen=2 * self.params.peak_radius_turns + 1)
        self._extra_cue: dict[int, float] = {}

    @property
    def turns_seen(self) -> int:
        return self._seen

    @property
    def lookahead(self) -> int:
        return self.params.lookahead

    @property
    def history_turns(self) -> int:
        return self.params.history_turns

    def finish(self) -> list[ShiftDecision]:
        """The end of a meeting: this detector never decides on a truncated window."""
        return []

    def add_cue(self, seqs: Iterable[int], strength: float) -> list[int]:
        """Add outside evidence (the LLM's verdict) to recent turns not yet decided; returns
        the positions that took it."""
        first_open = self._seen - 1 - self.params.lookahead
        wanted = set(seqs)
        taken = []
        for position, turn in self._positions():
            if turn.seq in wanted and position > first_open:
                self._extra_cue[position] = self._extra_cue.get(position, 0.0) + strength
                taken.append(position)
        return taken

    def cue_at(self, position: int) -> tuple[float, float]:
        """(own cue of the turn, outside evidence) at a buffered position."""
        return self._turn(position).cue, self._extra_cue.get(position, 0.0)

    def push(self, turn: TurnFeatures) -> ShiftDecision | None:
        self._turns.append(turn)
        self._seen += 1
        p = self.params
        scored = self._seen - p.window_turns  # first turn of the window that now is full
        if scored >= 1:
            self._combined.append(self._combined_z(scored))
        smoothed_at = scored - p.smoothing_turns
        if smoothed_at >= 1:
            self._smoothed.append(sum(self._combined) / (2 * p.smoothing_turns + 1))
        candidate = smoothed_at - p.peak_radius_turns
        if candidate < 1:
            return None
        decision = self._decide(candidate, smoothed_at)
        self._extra_cue = {k: v for k, v in self._extra_cue.items() if k > candidate}
        return decision

    # ------------------------------------------------------------------ scoring

    def _positions(self) -> Iterable[tuple[int, TurnFeatures]]:
        start = self._seen - len(self._turns)
        return ((start + i, t) for i, t in enumerate(self._turns))

    def _turn(self, position: int) -> TurnFeatures:
        return self._turns[position - (self._seen - len(self._turns))]

    def _combined_z(self, c: int) -> float:
        """Weighted sum of the channels' z-scores at candidate `c`, divided by the weights'
        norm so that it stays in standard units (the channels are roughly independent)."""
        self._memory.add(self._turn(c - 1), 0.5 ** (1.0 / self.params.half_life(c)))
        window = self._window()
        novelties = [1.0 - s for s in self._memory.similarities(window)]
        novelties.append(math.log1p(len(window[0].terms)))  # substance of the turn at c
        weights = self.params.channel_weights()
        total = sum(w * stats.push(x) for w, stats, x in zip(weights, self._stats, novelties))
        return total / math.sqrt(sum(w * w for w in weights))

    def _window(self) -> list[TurnFeatures]:
        """The turns compared with the memory: the last `window_turns` turns, cut after the one that
        brings them to `window_max_terms` content terms once there are `window_min_turns`."""
        p = self.params
        window = list(self._turns)[-p.window_turns :]
        terms = 0
        for count, turn in enumerate(window, start=1):
            terms += len(turn.terms)
            if terms >= p.window_max_terms and count >= p.window_min_turns:
                return window[:count]
        return window

    def _opening_turn(self, candidate: int) -> int:
        """The turn that opens the topic whose score peaks at `candidate`: the first of it and the
        next `smoothing_turns` turns with substance or a strong cue; else the candidate itself."""
        last = min(self._seen - 1, candidate + self.params.smoothing_turns)
        for position in range(candidate, last + 1):
            turn = self._turn(position)
            if len(turn.terms) >= OPENING_TERMS or turn.cue >= _STRONG_CUE:
                return position
        return candidate

    def _score(self, position: int, smoothed_at: int) -> float:
        offset = len(self._smoothed) - 1 - (smoothed_at - position)
        own, extra = self.cue_at(position)
        return self._smoothed[offset] + self.params.cue_weight * own + extra

    def _decide(self, candidate: int, smoothed_at: int) -> ShiftDecision | None:
        p = self.params
        score = self._score(candidate, smoothed_at)
        threshold = p.sigma + p.boundary_step * min(self._boundaries, _MAX_RAISED_BOUNDARIES)
        if score <= threshold:
            return None
        lo = max(1, candidate - p.peak_radius_turns)
        if any(self._score(x, smoothed_at) > score for x in range(lo, smoothed_at + 1)):
            return None
        shortest = max(p.min_segment_turns, p.min_segment_ratio * self._seen)
        if candidate - self._last_boundary < shortest:
            return None
        own, extra = self.cue_at(candidate)
        cue = p.cue_weight * own + extra
        opening = self._opening_turn(candidate)
        self._last_boundary = opening
        self._boundaries += 1
        seq = self._turn(opening).seq
        return ShiftDecision(opening, seq, score, score - cue, cue, threshold, llm_cue=extra)

    # ------------------------------------------------------------------ state

    def state_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "seen": self._seen,
            "last_boundary": self._last_boundary,
            "boundaries": self._boundaries,
            "memory": self._memory.state_dict(),
            "stats": [s.state() for s in self._stats],
            "combined": list(self._combined),
            "smoothed": list(self._smoothed),
            "extra_cue": [[k, v] for k, v in sorted(self._extra_cue.items())],
        }

    def load_state(self, state: dict[str, Any], history: Sequence[TurnFeatures]) -> None:
        """Restore from `state_dict()` plus the features of the last turns it had seen."""
        if state.get("version") != STATE_VERSION:
            raise ValueError(f"unsupported semantic shift state version {state.get('version')!r}")
        self._seen = int(state["seen"])
        self._last_boundary = int(state["last_boundary"])
        self._boundaries = int(state["boundaries"])
        self._memory = TopicMemory.from_state(state["memory"])
        self._stats = [
            LaggedStats(self.params.window_turns, int(c), float(m), float(m2), map(float, pending))
            for c, m, m2, pending in state["stats"]
        ]
        self._combined = deque((float(v) for v in state["combined"]), maxlen=self._combined.maxlen)
        self._smoothed = deque((float(v) for v in state["smoothed"]), maxlen=self._smoothed.maxlen)
        self._extra_cue = {int(k): float(v) for k, v in state["extra_cue"]}
        self._turns = deque(history[-self.params.history_turns :], maxlen=self.params.history_turns)
