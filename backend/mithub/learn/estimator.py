"""A small estimator for the models learned from data (the record's turn-level models, the
topic boundary model): L2-regularised logistic regression in numpy, fitted by Newton's method
(IRLS), stored as JSON (never pickle: loading a pickle runs code).

    model = LogisticModel(feature_names, l2=1.0).fit(X, y)
    p = model.predict_proba(X)          # P(positive) per row
    model.save(path, meta={...})        # JSON: names, standardisation, weights, meta
    model = LogisticModel.load(path, rebuild="python -m mithub.record.training actions ...")

Why this and not a library: the fit is deterministic (no random start, no solver threads), so
retraining on the same data gives the same weights bit for bit; it needs nothing beyond numpy at
run time; and a few thousand rows with a few dozen features fit in well under a second.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from mithub.errors import ModelLoadError

FORMAT = "mithub-logistic-v1"
T = TypeVar("T")
_MAX_ITER = 50
_TOL = 1e-8


class LogisticModel:
    """P(y=1 | x) = sigmoid(w · standardise(x) + b). Features are standardised with the training
    mean and spread (constant columns keep a spread of 1), so one `l2` suits every feature."""

    def __init__(self, feature_names: Sequence[str], l2: float = 1.0) -> None:
        self.feature_names = list(feature_names)
        self.l2 = float(l2)
        n = len(self.feature_names)
        self.mean = np.zeros(n)
        self.scale = np.ones(n)
        self.coef = np.zeros(n)
        self.intercept = 0.0
        self.meta: dict[str, Any] = {}

    def fit(self, X: np.ndarray, y: np.ndarray, sample_weight: np.ndarray | None = None) -> LogisticModel:
        X = self._check(X)
        y = np.asarray(y, dtype=np.float64)
        w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
        self.mean = X.mean(axis=0) if len(X) else np.zeros(X.shape[1])
        spread = X.std(axis=0) if len(X) else np.ones(X.shape[1])
        self.scale = np.where(spread > 1e-12, spread, 1.0)
        Z = np.hstack([(X - self.mean) / self.scale, np.ones((len(X), 1))])
        beta = np.zeros(Z.shape[1])
        penalty = np.full(Z.shape[1], self.l2)
        penalty[-1] = 0.0  # the intercept is not shrunk
        for _ in range(_MAX_ITER):
            p = _sigmoid(Z @ beta)
            grad = Z.T @ (w * (p - y)) + penalty * beta
            hess = (Z * (w * p * (1 - p))[:, None]).T @ Z + np.diag(penalty) + 1e-9 * np.eye(Z.shape[1])
            step = np.linalg.solve(hess, grad)
            beta -= step
            if float(np.max(np.abs(step))) < _TOL:
                break
        self.coef, self.intercept = beta[:-1].copy(), float(beta[-1])
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        X = self._check(X)
        return ((X - self.mean) / self.scale) @ self.coef + self.intercept

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return _sigmoid(self.decision_function(X))

    def _check(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.feature_names):
            raise ValueError(f"expected rows of {len(self.feature_names)} features, got shape {X.shape}")
        return X

    # --- storage ------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "feature_names": self.feature_names, "l2": self.l2,
                "mean": _floats(self.mean), "scale": _floats(self.scale), "coef": _floats(self.coef),
                "intercept": float(self.intercept), "meta": self.meta}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LogisticModel:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file (format={data.get('format')!r})")
        model = cls(data["feature_names"], data["l2"])
        n = len(model.feature_names)
        model.mean, model.scale, model.coef = (np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "coef"))
        if not all(len(a) == n for a in (model.mean, model.scale, model.coef)):
            raise ValueError("weight vectors and feature names differ in length")
        if not all(math.isfinite(float(v)) for v in [*model.coef, *model.scale, data["intercept"]]):
            raise ValueError("non-finite weights")
        model.intercept = float(data["intercept"])
        model.meta = dict(data.get("meta") or {})
        return model

    def save(self, path: Path, meta: dict[str, Any] | None = None) -> None:
        if meta is not None:
            self.meta = meta
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(self.to_dict(), ensure_ascii=False, indent=1, sort_keys=True) + "\n",
                        encoding="utf-8")

    @classmethod
    def load(cls, path: Path, *, rebuild: str, expect: Sequence[str] | None = None) -> LogisticModel:
        """The stored model; a missing, unreadable or mismatched file is a ModelLoadError that
        names the command rebuilding it. `expect`: the feature names the caller computes."""
        model = read_weights(path, cls.from_dict, what="model", rebuild=rebuild)
        if expect is not None and list(expect) != model.feature_names:
            raise ModelLoadError(f"model weights {path} were fitted on other features; rebuild them with `{rebuild}`")
        return model


def read_weights(path: Path, parse: Callable[[dict[str, Any]], T], *, what: str, rebuild: str) -> T:
    """A weights file parsed by `parse`; a missing or unreadable one is a ModelLoadError naming
    `what` it holds and the command that rebuilds it."""
    try:
        return parse(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        raise ModelLoadError(f"{what} weights missing: {path}; rebuild them with `{rebuild}`") from None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ModelLoadError(f"{what} weights unreadable ({path}: {exc}); rebuild them with `{rebuild}`") from None


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -35.0, 35.0)))


def _floats(a: np.ndarray) -> list[float]:
    # 17 significant digits round-trip a float64 exactly, so a reload predicts the same.
    return [float(f"{v:.17g}") for v in np.asarray(a, dtype=np.float64)]
