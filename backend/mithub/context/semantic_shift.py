"""LLM-free, online topic-shift detection over turn embeddings (TextTiling-style).

For each candidate turn c the detector compares the turns before c with the turns from c on, at
three scales of the base window b: (b before | b after), (2b | b), (4b | 2b). Each comparison is
made in three channels: sentence embeddings, content words and who is speaking (a new topic often
brings a new questioner or presenter). A similarity becomes a novelty (1 - cosine) and is turned
into a z-score against the running mean and spread of that same channel and scale in this meeting,
so the threshold is relative to the meeting's own score distribution, never a raw cosine. The
z-scores are averaged, smoothed over ±s turns, and a cue-phrase bonus of the turn itself is added.
A boundary is a local maximum (±p turns) above `sigma`, at least `min_segment_turns` and
`min_segment_ratio` × the turns so far after the previous boundary.

It is online: the decision about turn c needs 2b - 1 + s + p turns after it (the lookahead) and
nothing later. Backchannel turns ("yeah", "mm-hmm", "네", "음") have no content terms: they weigh
nothing in the embedding and word channels and little in the speaker channel, so they do not
dilute the windows. Parameters and the benchmark that chose them: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import math
import re
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from mithub.text import content_tokens

STATE_VERSION = 1

# Words that carry no topic in conversation: acknowledgements, fillers and hesitations.
BACKCHANNEL_TOKENS = frozenset(
    "yeah yes yep yup okay ok oh right mm hmm mhm mmm hm uh um huh uh-huh mm-hmm so well alright "
    "sure no nope ah eh er erm 네 예 응 음 어 아 그렇 맞 알 그래".split()
)
# Non-speech annotations of transcripts and STT output: {vocalsound}, [laughter], {disfmarker}.
_ANNOTATION = re.compile(r"\{[^{}\n]{1,40}\}|\[[^\[\]\n]{1,40}\]")

CHANNELS = ("embedding", "lexical", "speaker")


def spoken_text(text: str) -> str:
    """The words actually spoken: annotations removed, whitespace collapsed."""
    return " ".join(_ANNOTATION.sub(" ", text).split())


def content_terms(text: str) -> tuple[str, ...]:
    """Topic-bearing terms of a turn (nouns, stems, words), backchannel words removed."""
    return tuple(t for t in content_tokens(spoken_text(text)) if t not in BACKCHANNEL_TOKENS)


@dataclass(frozen=True)
class TurnFeatures:
    """What the detector keeps of one turn. `vector` is None for a turn without content."""

    seq: int
    speaker: str
    terms: tuple[str, ...]
    vector: np.ndarray | None
    cue: float = 0.0

    @property
    def embedding_weight(self) -> float:
        # Longer turns say more about the topic, with diminishing returns.
        return math.log1p(len(self.terms)) if self.vector is not None else 0.0

    @property
    def speaker_weight(self) -> float:
        return min(1.0, 0.2 + len(self.terms) / 5)


@dataclass(frozen=True)
class ShiftParams:
    window_turns: int = 10
    min_segment_turns: int = 15
    min_segment_ratio: float = 0.1
    sigma: float = 1.0
    smoothing_turns: int = 5
    peak_radius_turns: int = 3
    cue_weight: float = 1.0

    @property
    def scales(self) -> tuple[tuple[int, int], ...]:
        """(turns before, turns after) the candidate, for each comparison scale."""
        b = self.window_turns
        return ((b, b), (2 * b, b), (4 * b, 2 * b))

    @property
    def lookahead(self) -> int:
        after = max(r for _, r in self.scales)
        return after - 1 + self.smoothing_turns + self.peak_radius_turns

    @property
    def history_turns(self) -> int:
        return max(left + right for left, right in self.scales)


@dataclass(frozen=True)
class ShiftDecision:
    position: int  # 0-based turn index in the meeting of the first turn of the new topic
    seq: int
    score: float  # smoothed novelty + cue bonus, in running standard deviations
    novelty: float  # the semantic part alone
    cue: float  # the cue part (keyword and LLM evidence, weighted)


class RunningStats:
    """Welford running mean and variance; `push` returns the z-score of the new value."""

    __slots__ = ("count", "m2", "mean")

    def __init__(self, count: int = 0, mean: float = 0.0, m2: float = 0.0) -> None:
        self.count, self.mean, self.m2 = count, mean, m2

    def push(self, value: float) -> float:
        self.count += 1
        delta = value - self.mean
        self.mean += delta / self.count
        self.m2 += delta * (value - self.mean)
        std = math.sqrt(self.m2 / self.count) if self.count > 1 else 0.0
        return (value - self.mean) / std if std > 1e-9 else 0.0


def _cosine_bags(a: Counter[str], b: Counter[str]) -> float:
    if not a or not b:
        return 1.0
    small, large = (a, b) if len(a) <= len(b) else (b, a)
    dot = sum(v * large.get(k, 0.0) for k, v in small.items())
    norm = math.sqrt(sum(v * v for v in a.values()) * sum(v * v for v in b.values()))
    return dot / norm if norm > 0 else 1.0


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    norm = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norm if norm > 1e-12 else 1.0


class SemanticShiftDetector:
    """Feed turns in order with `push`; it returns a ShiftDecision `lookahead` turns after the
    boundary it decides, or None. The caller accepts every decision (a new segment starts)."""

    def __init__(self, params: ShiftParams | None = None) -> None:
        self.params = params or ShiftParams()
        self._turns: deque[TurnFeatures] = deque(maxlen=self.params.history_turns)
        self._seen = 0
        self._last_boundary = 0
        self._stats = [RunningStats() for _ in range(len(self.params.scales) * len(CHANNELS))]
        self._combined: deque[float] = deque(maxlen=2 * self.params.smoothing_turns + 1)
        self._smoothed: deque[float] = deque(maxlen=2 * self.params.peak_radius_turns + 1)
        self._extra_cue: dict[int, float] = {}

    @property
    def turns_seen(self) -> int:
        return self._seen

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
        newest = self._seen - 1
        scored = newest - max(r for _, r in p.scales) + 1
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

    def _window(self, start: int, stop: int) -> list[TurnFeatures]:
        first = self._seen - len(self._turns)
        return list(self._turns)[max(start, first) - first : max(stop, first) - first]

    def _combined_z(self, c: int) -> float:
        """Novelty z-score at candidate `c`: summed over channels (roughly independent evidence,
        so divided by sqrt(channels) to stay in standard units), averaged over scales (which
        largely agree)."""
        total = 0.0
        for s, (before, after) in enumerate(self.params.scales):
            left = self._window(max(0, c - before), c)
            right = self._window(c, c + after)
            for k, similarity in enumerate(_similarities(left, right)):
                total += self._stats[s * len(CHANNELS) + k].push(1.0 - similarity)
        return total / (len(self.params.scales) * math.sqrt(len(CHANNELS)))

    def _score(self, position: int, smoothed_at: int) -> float:
        offset = len(self._smoothed) - 1 - (smoothed_at - position)
        own, extra = self.cue_at(position)
        return self._smoothed[offset] + self.params.cue_weight * own + extra

    def _decide(self, candidate: int, smoothed_at: int) -> ShiftDecision | None:
        p = self.params
        score = self._score(candidate, smoothed_at)
        if score <= p.sigma:
            return None
        lo = max(1, candidate - p.peak_radius_turns)
        if any(self._score(x, smoothed_at) > score for x in range(lo, smoothed_at + 1)):
            return None
        shortest = max(p.min_segment_turns, p.min_segment_ratio * self._seen)
        if candidate - self._last_boundary < shortest:
            return None
        self._last_boundary = candidate
        own, extra = self.cue_at(candidate)
        cue = p.cue_weight * own + extra
        return ShiftDecision(candidate, self._turn(candidate).seq, score, score - cue, cue)

    # ------------------------------------------------------------------ state

    def state_dict(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "seen": self._seen,
            "last_boundary": self._last_boundary,
            "stats": [[s.count, s.mean, s.m2] for s in self._stats],
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
        self._stats = [RunningStats(int(c), float(m), float(m2)) for c, m, m2 in state["stats"]]
        self._combined = deque((float(v) for v in state["combined"]), maxlen=self._combined.maxlen)
        self._smoothed = deque((float(v) for v in state["smoothed"]), maxlen=self._smoothed.maxlen)
        self._extra_cue = {int(k): float(v) for k, v in state["extra_cue"]}
        self._turns = deque(history[-self.params.history_turns :], maxlen=self.params.history_turns)


def _similarities(
    left: Sequence[TurnFeatures], right: Sequence[TurnFeatures]
) -> tuple[float, float, float]:
    """Cosine of the two windows in the embedding, word and speaker channels."""
    return (
        _cosine(_embedding_sum(left), _embedding_sum(right)),
        _cosine_bags(_term_bag(left), _term_bag(right)),
        _cosine_bags(_speaker_bag(left), _speaker_bag(right)),
    )


def _embedding_sum(turns: Sequence[TurnFeatures]) -> np.ndarray:
    rows = [t.vector * t.embedding_weight for t in turns if t.vector is not None]
    if not rows:
        return np.zeros(1, dtype=np.float32)
    return np.sum(rows, axis=0)


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
