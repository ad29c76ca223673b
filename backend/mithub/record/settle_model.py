"""The decision-settling turn model: P(this turn settles a decision), learned from data
(`python -m mithub.record.training decisions`), never from phrase tables.

Inputs are the shared turn features (record/turn_features.py) plus the turn's sentence
embedding projected on a few principal directions fitted at training. Two fitted models ship:
`decision_settle.json` reads two later turns (agreement after a proposal) and lists a
finished meeting's decisions; `decision_settle_live.json` reads none and serves the live
change check, which judges a line when it is said.

    model = settle_model(live=False)
    p = model.probabilities(turns, reference=date(2026, 5, 4), vectors=embeddings)
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from mithub.learn.estimator import LogisticModel, read_weights
from mithub.record.turn_features import Turn, TurnInfo, meeting_features, vectorize

WEIGHTS = Path(__file__).with_name("weights")
REBUILD = "python -m mithub.record.training decisions --data ../shared/benchmarks/data"
SETTLE_FILE = "decision_settle.json"
SETTLE_LIVE_FILE = "decision_settle_live.json"


class Projection:
    """Principal directions of the training turns' embeddings (centred)."""

    def __init__(self, mean: np.ndarray, components: np.ndarray) -> None:
        self.mean = np.asarray(mean, dtype=np.float64)
        self.components = np.asarray(components, dtype=np.float64)  # (k, dim)

    @classmethod
    def fit(cls, vectors: np.ndarray, k: int) -> Projection:
        mean = vectors.mean(axis=0)
        _, _, vt = np.linalg.svd(vectors - mean, full_matrices=False)
        comps = vt[:k]
        # SVD leaves each direction's sign free: fix it so a refit gives the same weights.
        signs = np.sign(comps[np.arange(len(comps)), np.abs(comps).argmax(axis=1)])
        return cls(mean, comps * signs[:, None])

    def apply(self, vectors: np.ndarray) -> np.ndarray:
        if len(self.components) == 0:
            return np.zeros((len(vectors), 0))
        return (np.asarray(vectors, dtype=np.float64) - self.mean) @ self.components.T

    def to_dict(self) -> dict[str, Any]:
        return {"mean": [float(v) for v in self.mean], "components": [[float(v) for v in row] for row in self.components]}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Projection:
        return cls(np.asarray(data["mean"]), np.asarray(data["components"]).reshape(-1, len(data["mean"])))


def embedding_names(k: int) -> list[str]:
    return [f"embedding_pc{i}" for i in range(k)]


class SettleModel:
    """A fitted settle model: the estimator, its embedding projection, the lookahead it was
    trained with, and the threshold above which a decision is shown (below it: a candidate)."""

    def __init__(self, estimator: LogisticModel, projection: Projection, lookahead: int,
                 threshold: float, floor: float) -> None:
        self.estimator = estimator
        self.projection = projection
        self.lookahead = lookahead
        self.threshold = threshold  # shown above it (chosen by cross-validation for precision)
        self.floor = floor  # kept as a candidate between the floor and the threshold
        k = len(projection.components)
        self.turn_names = [n for n in estimator.feature_names if n not in set(embedding_names(k))]

    def matrix(self, rows: Sequence[dict[str, float]], vectors: np.ndarray | None) -> np.ndarray:
        X = vectorize(rows, self.turn_names)
        k = len(self.projection.components)
        E = self.projection.apply(vectors) if vectors is not None and k else np.zeros((len(rows), k))
        return np.hstack([X, E])

    def probabilities(self, turns: Sequence[Turn], *, reference: date | None, vectors: np.ndarray | None,
                      infos: Sequence[TurnInfo] | None = None) -> np.ndarray:
        if not turns:
            return np.zeros(0)
        rows = meeting_features(turns, reference=reference, lookahead=self.lookahead, vectors=vectors, infos=infos)
        return self.estimator.predict_proba(self.matrix(rows, vectors))

    def to_dict(self) -> dict[str, Any]:
        data = self.estimator.to_dict()
        data["meta"] = {**data.get("meta", {}), "projection": self.projection.to_dict(), "lookahead": self.lookahead,
                        "threshold": self.threshold, "floor": self.floor}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SettleModel:
        estimator = LogisticModel.from_dict(data)
        meta = estimator.meta
        return cls(estimator, Projection.from_dict(meta["projection"]), int(meta["lookahead"]),
                   float(meta["threshold"]), float(meta["floor"]))


def load_settle_model(path: Path) -> SettleModel:
    """The stored model; a missing or corrupt file is a ModelLoadError naming the rebuild command."""
    return read_weights(path, SettleModel.from_dict, what="decision model", rebuild=REBUILD)


@lru_cache(maxsize=4)
def _cached(path: str, stamp: float) -> SettleModel:
    return load_settle_model(Path(path))


def settle_model(*, live: bool, folder: Path | None = None) -> SettleModel:
    """The shipped settle model (loaded once per process; reloaded when the file changes)."""
    path = (folder or WEIGHTS) / (SETTLE_LIVE_FILE if live else SETTLE_FILE)
    try:
        stamp = path.stat().st_mtime
    except OSError:
        stamp = -1.0
    return _cached(str(path), stamp)
