"""Fitting the doubt model (`vision.doubt`) from `meteors-judge eval --out` rows, with a held-out check.

Each row whose launch was found gives one example: the verdict's evidence, and whether its ruling
(outcome, dinosaur, valid) was right. Rows are split into fitting and held-out ones by a hash of
their clip (reproducible, independent of the files' order); the L2 strength is chosen by 5-fold
cross-validation on the fitting rows; the held-out rows then give the calibration (reliability
bins, expected calibration error, Brier score) and the risk–coverage of a dispute threshold.
Launches never found stay in the held-out risk figures as the confident wrong calls they are.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.doubt import FEATURE_NAMES, DoubtModel, design_matrix
from vision.reliability import reliability, risk_coverage

L2_CHOICES = (0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


class RowsError(ValueError):
    """An eval file that cannot be read or holds no rows."""


@dataclass(frozen=True)
class Example:
    """One scored launch of an eval file, as the doubt model sees it."""

    key: str  # "<eval file stem>/<clip>": what the split hashes
    evidence: dict[str, Any] | None  # None: the launch was never found
    ruling_ok: bool
    disputed: bool


@dataclass
class Rated:
    """An example with a predicted probability: what `vision.reliability` reads."""

    judged: dict[str, Any] | None
    disputed: bool
    ruling_probability: float | None
    ruling_ok: bool


def read_rows(paths: Sequence[str | Path]) -> list[Example]:
    """The examples of every `eval --json`/`--out` file given."""
    examples = []
    for path in map(Path, paths):
        try:
            payload = json.loads(path.read_text(encoding="utf-8"))
            rows = payload["clips"]
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise RowsError(f"{path} is not the JSON of `meteors-judge eval --out`: {error}") from None
        for row in rows:
            examples.append(Example(
                key=f"{path.stem}/{row['clip']}",
                evidence=row.get("evidence") if row.get("judged") is not None else None,
                ruling_ok=bool(row["outcome_ok"] and row["valid_ok"]),
                disputed=bool(row["disputed"]),
            ))
    with_evidence = [e for e in examples if e.evidence is not None]
    if not with_evidence:
        raise RowsError("no row carries the judge's evidence: run `meteors-judge eval --out` with this judge")
    return examples


def is_held_out(key: str, fraction: float) -> bool:
    """Whether a clip is held out: a hash of its key below `fraction` of the range (stable across runs)."""
    return zlib.crc32(key.encode("utf-8")) / 2**32 < fraction


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float, iterations: int = 100) -> tuple[np.ndarray, float]:
    """Coefficients and intercept of an L2-penalised logistic regression (Newton's method; the
    intercept is not penalised). `x` should be standardized."""
    n, d = x.shape
    a = np.hstack([x, np.ones((n, 1))])
    penalty = np.full(d + 1, l2)
    penalty[-1] = 0.0
    mean_y = float(np.clip(np.mean(y), 1e-3, 1 - 1e-3))
    theta = np.zeros(d + 1)
    theta[-1] = np.log(mean_y / (1 - mean_y))
    for _ in range(iterations):
        p = _sigmoid(a @ theta)
        gradient = a.T @ (p - y) + penalty * theta
        hessian = (a * (p * (1 - p))[:, None]).T @ a + np.diag(penalty) + 1e-9 * np.eye(d + 1)
        step = np.linalg.solve(hessian, gradient)
        theta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return theta[:-1], float(theta[-1])


def _log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def standardize(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


def choose_l2(x: np.ndarray, y: np.ndarray, folds: int = 5) -> float:
    """The L2 strength of `L2_CHOICES` with the least cross-validated log loss."""
    order = np.arange(len(y)) % folds
    losses = []
    for l2 in L2_CHOICES:
        loss = 0.0
        for fold in range(folds):
            train, test = order != fold, order == fold
            if not test.any() or len(set(y[train])) < 2:
                continue
            mean, scale = standardize(x[train])
            coef, intercept = fit_logistic((x[train] - mean) / scale, y[train], l2)
            loss += _log_loss(_sigmoid(((x[test] - mean) / scale) @ coef + intercept), y[test]) * test.sum()
        losses.append(loss)
    return L2_CHOICES[int(np.argmin(losses))]


def train(examples: Sequence[Example], held_out_fraction: float = 0.3) -> tuple[DoubtModel, list[Rated]]:
    """The model fitted on the examples not held out, and the held-out examples rated by it."""
    fitting = [e for e in examples if e.evidence is not None and not is_held_out(e.key, held_out_fraction)]
    held = [e for e in examples if is_held_out(e.key, held_out_fraction)]
    y = np.array([e.ruling_ok for e in fitting], dtype=float)
    if len(fitting) < 10 or len(set(y)) < 2:
        raise RowsError(f"{len(fitting)} fitting rows, {int(y.sum())} right: too few to fit a doubt model")
    x = design_matrix([e.evidence for e in fitting])
    l2 = choose_l2(x, y)
    mean, scale = standardize(x)
    coef, intercept = fit_logistic((x - mean) / scale, y, l2)
    about = {"fitting_rows": len(fitting), "fitting_right": int(y.sum()), "l2": l2,
             "held_out_fraction": held_out_fraction}
    model = DoubtModel(FEATURE_NAMES, mean, scale, coef, intercept, about)
    rated = [
        Rated(judged=e.evidence, disputed=e.disputed, ruling_ok=e.ruling_ok,
              ruling_probability=model.probability(e.evidence) if e.evidence is not None else None)
        for e in held
    ]
    return model, rated


def held_out_check(rated: Sequence[Rated]) -> dict[str, Any]:
    """The held-out figures: calibration, and the least threshold with no confident wrong found launch."""
    table = reliability(rated)
    found = [r for r in rated if r.judged is not None]
    check: dict[str, Any] = {"held_out_rows": len(rated), "held_out_found": len(found),
                             "held_out_right": sum(r.ruling_ok for r in found)}
    if table is None:
        return check
    p = np.array([r.ruling_probability for r in found])
    y = np.array([r.ruling_ok for r in found], dtype=float)
    check.update(brier_score=table.brier_score, expected_calibration_error=table.expected_calibration_error,
                 log_loss=_log_loss(p, y))
    wrong_p = p[y == 0]
    # disputing below the highest probability given to a wrong call (and a hair above): none left undisputed
    threshold = float(np.nextafter(wrong_p.max(), 1.0)) if len(wrong_p) else 0.0
    point = risk_coverage(rated, thresholds=(threshold,))[0]
    check.update(no_confident_wrong_threshold=threshold, disputed_rate_at_that_threshold=point.disputed_rate)
    return check
