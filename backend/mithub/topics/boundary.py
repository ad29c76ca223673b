"""The topic boundary model: a logistic regression over the online candidate features
(topics/features.py) and a peak-picking rule, both fitted on data by topics/training.py and
shipped as JSON in topics/weights/ (never pickle).

The rule, with its three parameters chosen by cross-validation: a candidate turn opens a topic
when its probability is at least `threshold`, is the highest within ±`radius` candidates, and
lies at least max(`min_gap_turns`, `min_gap_ratio` x turns so far) after the previous boundary.
The gap grows with the meeting instead of being a fixed number of turns, so the same rule fits a
60-turn meeting and a 1,000-turn one. A decision about turn i needs RIGHT_TURNS - 1 + radius
turns after it (the lookahead); at the end of a meeting (`finish`) the rest is decided at once.
"""

from __future__ import annotations

import json
import math
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mithub.errors import ModelLoadError
from mithub.record.estimator import LogisticModel
from mithub.topics.features import (
    CUE_FEATURES,
    FEATURE_NAMES,
    RIGHT_TURNS,
    Candidate,
    OnlineFeatures,
)
from mithub.topics.turns import TurnFeatures

FORMAT = "mithub-topic-boundary-v1"
REBUILD_COMMAND = "python -m mithub.topics.training --data ../shared/benchmarks/data"
STATE_VERSION = 1
# The threshold stops rising after this many boundaries: a long meeting has more topics.
MAX_RAISED_BOUNDARIES = 5


def default_weights_path() -> Path:
    return Path(str(resources.files("mithub.topics").joinpath("weights", "boundary.json")))


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
        return _logit(self.threshold) + self.step * min(found, MAX_RAISED_BOUNDARIES)


@dataclass(frozen=True)
class BoundaryModel:
    classifier: LogisticModel
    rule: DecisionRule

    @property
    def lookahead(self) -> int:
        return RIGHT_TURNS - 1 + self.rule.smoothing + self.rule.radius

    def logits(self, rows: np.ndarray) -> np.ndarray:
        return self.classifier.decision_function(rows)

    def cue_free_logits(self, rows: np.ndarray) -> np.ndarray:
        """The same rows with no cue phrase: what the semantic evidence alone says."""
        rows = np.array(rows, dtype=np.float64, copy=True)
        for name in CUE_FEATURES:
            rows[:, FEATURE_NAMES.index(name)] = 0.0
        return self.classifier.decision_function(rows)

    def to_dict(self, meta: dict[str, Any] | None = None) -> dict[str, Any]:
        return {"format": FORMAT, "classifier": self.classifier.to_dict(),
                "rule": asdict(self.rule), "meta": meta or {}}

    def save(self, path: Path, meta: dict[str, Any] | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.to_dict(meta), ensure_ascii=False, indent=1, sort_keys=True)
        path.write_text(text + "\n", encoding="utf-8")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> BoundaryModel:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file (format={data.get('format')!r})")
        classifier = LogisticModel.from_dict(data["classifier"])
        if classifier.feature_names != list(FEATURE_NAMES):
            raise ValueError("fitted on other features than topics/features.py computes")
        rule = DecisionRule(**data["rule"])
        if not (0.0 < rule.threshold < 1.0 and rule.radius >= 0 and rule.min_gap_turns >= 1):
            raise ValueError(f"decision rule out of range: {rule}")
        return cls(classifier, rule)

    @classmethod
    def load(cls, path: Path | None = None) -> BoundaryModel:
        """The shipped (or given) model; a missing or unreadable file is a ModelLoadError naming
        the command that rebuilds it."""
        path = path or default_weights_path()
        try:
            return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise ModelLoadError(
                f"topic boundary weights missing: {path}; rebuild them with `{REBUILD_COMMAND}`"
            ) from None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ModelLoadError(
                f"topic boundary weights unreadable ({path}: {exc}); rebuild them with `{REBUILD_COMMAND}`"
            ) from None


@dataclass(frozen=True)
class Scored:
    position: int
    seq: int
    logit: float  # the model's evidence
    cue_free: float  # the same without the cue-phrase features


@dataclass(frozen=True)
class BoundaryDecision:
    position: int
    seq: int
    score: float  # logit + outside (LLM) evidence
    novelty: float  # the cue-free logit
    threshold: float  # logit of the rule's threshold
    llm_cue: float
    confidence: float

    @property
    def cue(self) -> float:
        return self.score - self.novelty


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


class _Smoother:
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


class _Picker:
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


def _logit(p: float) -> float:
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


class OnlinePicker:
    """Smoothing, then peak picking, one candidate logit at a time: the online twin of
    `pick_boundaries` (tests hold them equal)."""

    def __init__(self, rule: DecisionRule, extra: dict[int, float] | None = None) -> None:
        self.smoother = _Smoother(rule.smoothing)
        self.picker = _Picker(rule, extra=extra)

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


class BoundaryDetector:
    """The model-based online detector, with the SemanticShiftDetector's interface (push,
    add_cue, cue_at, finish, state) so TopicDetector can run either."""

    def __init__(self, model: BoundaryModel, *, use_cues: bool = True) -> None:
        self.model = model
        self._use_cues = use_cues
        self._features = OnlineFeatures()
        self._extra_cue: dict[int, float] = {}
        self._online = OnlinePicker(model.rule, extra=self._extra_cue)
        self._scored: dict[int, Scored] = {}

    @property
    def lookahead(self) -> int:
        return self.model.lookahead

    @property
    def history_turns(self) -> int:
        return max(OnlineFeatures.history_turns(), self.lookahead + 1)

    @property
    def turns_seen(self) -> int:
        return self._features.turns_seen

    def add_cue(self, seqs: Iterable[int], strength: float) -> list[int]:
        """Outside evidence (the LLM's verdict, in logit units) for turns not yet decided."""
        wanted, taken = set(seqs), []
        first_open = self.turns_seen - 1 - self.lookahead
        start = self.turns_seen - len(self._features._turns)
        for offset, turn in enumerate(self._features._turns):
            position = start + offset
            if turn.seq in wanted and position > first_open:
                self._extra_cue[position] = self._extra_cue.get(position, 0.0) + strength
                taken.append(position)
        return taken

    def cue_at(self, position: int) -> tuple[float, float]:
        return self._features.turn_at(position).cue, self._extra_cue.get(position, 0.0)

    def push(self, turn: TurnFeatures) -> list[BoundaryDecision]:
        return self._decisions(self._score(self._features.push(turn)), finish=False)

    def finish(self) -> list[BoundaryDecision]:
        self._online.ending(self.turns_seen)
        return self._decisions(self._score(self._features.finish()), finish=True)

    def _score(self, candidates: list[Candidate]) -> list[Scored]:
        if not candidates:
            return []
        rows = np.vstack([c.values for c in candidates])
        logits, cue_free = self.model.logits(rows), self.model.cue_free_logits(rows)
        if not self._use_cues:  # the cue-phrase check is switched off in the settings
            logits = cue_free
        return [Scored(c.position, c.seq, float(a), float(b))
                for c, a, b in zip(candidates, logits, cue_free, strict=True)]

    @property
    def _picker(self) -> _Picker:
        return self._online.picker

    def _decisions(self, scored: list[Scored], *, finish: bool) -> list[BoundaryDecision]:
        positions: list[int] = []
        for item in scored:
            self._scored[item.position] = item
            positions += self._online.push(item.position, item.logit)
        if finish:
            positions += self._online.finish()
        out = [self._decision(p) for p in positions]
        horizon = self._picker.cursor - self.model.rule.radius
        self._scored = {p: s for p, s in self._scored.items() if p >= horizon - self.model.rule.smoothing}
        for position in [p for p in self._extra_cue if p < horizon]:
            del self._extra_cue[position]
        return out

    def _decision(self, position: int) -> BoundaryDecision:
        item = self._scored[position]
        extra = self._extra_cue.get(position, 0.0)
        score = self._picker.decided_score + extra
        novelty = score - extra - (item.logit - item.cue_free)  # without the turn's own cue phrase
        return BoundaryDecision(position, item.seq, score, novelty,
                                self.model.rule.logit_threshold(self._picker.found - 1),
                                extra, 1.0 / (1.0 + math.exp(-score)))

    def state_dict(self) -> dict[str, Any]:
        return {
            "kind": "model",
            "version": STATE_VERSION,
            "features": self._features.state_dict(),
            "last": self._picker.last,
            "found": self._picker.found,
            "cursor": self._picker.cursor,
            "pending": [[p, s] for p, s in self._picker.pending],
            "smoother": [[p, s] for p, s in self._online.smoother.values],
            "first": self._online.smoother.first,
            "scored": [[s.position, s.seq, s.logit, s.cue_free] for s in self._scored.values()],
            "extra_cue": [[k, v] for k, v in sorted(self._extra_cue.items())],
        }

    def load_state(self, state: dict[str, Any], history: Sequence[TurnFeatures]) -> None:
        if state.get("kind") != "model" or state.get("version") != STATE_VERSION:
            raise ValueError("the saved topic detector state is not this boundary model's")
        self._features.load_state(state["features"], history)
        self._extra_cue = {int(k): float(v) for k, v in state["extra_cue"]}
        self._online = OnlinePicker(self.model.rule, extra=self._extra_cue)
        self._online.smoother = _Smoother(
            self.model.rule.smoothing, ((int(p), float(s)) for p, s in state["smoother"]),
            None if state["first"] is None else float(state["first"]))
        self._online.picker = _Picker(
            self.model.rule, int(state["last"]), int(state["cursor"]),
            ((int(p), float(s)) for p, s in state["pending"]), int(state["found"]), extra=self._extra_cue)
        self._scored = {int(p): Scored(int(p), int(q), float(a), float(b)) for p, q, a, b in state["scored"]}
