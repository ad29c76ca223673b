"""The fitted commitment-turn model: which (line, person) pairs of a meeting settle an action item.

The weights ship in the package (`record/weights/actions.json`, with `actions.md` as its model
card) and are rebuilt by one command, REBUILD. The JSON carries the decision rule chosen by
cross-validation with it: `threshold` (an item users see), `candidate_floor` (kept as a
candidate below it) and `window` (two lines of the same owner this close are one item).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from pathlib import Path

import numpy as np

from mithub.context.models import Utterance
from mithub.learn.estimator import LogisticModel
from mithub.record.action_features import FEATURE_NAMES, Candidate, TurnReading, pair_rows
from mithub.text.tokens import has_hangul

WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
WEIGHTS = WEIGHTS_DIR / "actions.json"
REBUILD = "python -m mithub.record.training actions --data ../shared/benchmarks/data"


@dataclass(frozen=True)
class DecisionRule:
    threshold: float
    candidate_floor: float
    window: int
    # Korean and English meetings get their own threshold: the model's probabilities are not
    # equally calibrated in the two (chosen by cross-validation like the rest).
    by_language: dict[str, float] = field(default_factory=dict)

    def threshold_for(self, language: str) -> float:
        return self.by_language.get(language, self.threshold)


@dataclass(frozen=True)
class ActionModel:
    model: LogisticModel
    rule: DecisionRule

    @classmethod
    def from_estimator(cls, model: LogisticModel) -> ActionModel:
        meta = model.meta.get("rule") or {}
        return cls(model, DecisionRule(float(meta.get("threshold", 0.5)), float(meta.get("candidate_floor", 0.25)),
                                       int(meta.get("window", 2)),
                                       {k: float(v) for k, v in (meta.get("by_language") or {}).items()}))


@dataclass(frozen=True)
class ScoredPair:
    line: int  # 0-based
    owner: str
    role: str
    confidence: float
    candidate: bool  # below the threshold users see


def load_action_model(path: Path | None = None) -> ActionModel:
    """The shipped model (`WEIGHTS`), read once per process; a missing or corrupt file is a
    ModelLoadError naming REBUILD."""
    return _load(path or WEIGHTS)


@lru_cache(maxsize=4)
def _load(path: Path) -> ActionModel:
    return ActionModel.from_estimator(LogisticModel.load(path, rebuild=REBUILD, expect=FEATURE_NAMES))


def meeting_language(turns: Sequence[Utterance]) -> str:
    """"ko" when most lines are Korean, else "en"."""
    return "ko" if sum(has_hangul(t.text) for t in turns) * 2 > len(turns) else "en"


def decode(cands: Sequence[Candidate], probs: np.ndarray, rule: DecisionRule, language: str = ""
           ) -> list[ScoredPair]:
    """Items from pair probabilities: strongest first, a pair is kept unless the same owner
    already has a kept pair within `window` lines (the request and its yes are one item).
    Pairs at or above `candidate_floor` are kept; below `threshold` they are candidates."""
    kept: list[ScoredPair] = []
    threshold = rule.threshold_for(language)
    for i in np.argsort(-probs, kind="stable"):
        p = float(probs[i])
        if p < rule.candidate_floor:
            break
        c = cands[i]
        if any(k.owner == c.owner and abs(k.line - c.line) <= rule.window for k in kept):
            continue
        kept.append(ScoredPair(c.line, c.owner, c.role, p, p < threshold))
    return sorted(kept, key=lambda k: (k.line, -k.confidence))


def score_meeting(turns: Sequence[Utterance], meeting_date: date, model: ActionModel
                  ) -> tuple[list[ScoredPair], list[TurnReading], list[Candidate], np.ndarray]:
    cands, X, readings = pair_rows(turns, meeting_date)
    probs = model.model.predict_proba(X) if len(cands) else np.zeros(0)
    return decode(cands, probs, model.rule, meeting_language(turns)), readings, cands, probs
