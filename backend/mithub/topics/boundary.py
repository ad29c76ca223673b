"""The topic boundary model: a logistic regression over the online candidate features
(topics/features.py) and a peak-picking rule, both fitted on data by topics/training.py and
shipped as JSON in topics/weights/ (never pickle).

The rule (topics/peaks.py) picks peaks of the model's logits. A decision about turn i needs
RIGHT_TURNS - 1 + smoothing + radius turns after it (the lookahead); at the end of a meeting
(`finish`) the rest is decided at once.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mithub.errors import ModelLoadError
from mithub.learn.estimator import LogisticModel
from mithub.topics.features import (
    CUE_FEATURES,
    FEATURE_NAMES,
    RIGHT_TURNS,
    Candidate,
    OnlineFeatures,
)
from mithub.topics.peaks import DecisionRule, OnlinePicker, Picker, Smoother
from mithub.topics.turns import TurnFeatures

FORMAT = "mithub-topic-boundary-v1"
REBUILD_COMMAND = "python -m mithub.topics.training --data ../shared/benchmarks/data"
STATE_VERSION = 1


def default_weights_path() -> Path:
    return Path(str(resources.files("mithub.topics").joinpath("weights", "boundary.json")))


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
        for position, turn in self._features.buffered():
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
    def _picker(self) -> Picker:
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
        self._online.smoother = Smoother(
            self.model.rule.smoothing, ((int(p), float(s)) for p, s in state["smoother"]),
            None if state["first"] is None else float(state["first"]))
        self._online.picker = Picker(
            self.model.rule, int(state["last"]), int(state["cursor"]),
            ((int(p), float(s)) for p, s in state["pending"]), int(state["found"]), extra=self._extra_cue)
        self._scored = {int(p): Scored(int(p), int(q), float(a), float(b)) for p, q, a, b in state["scored"]}
