"""The doubt model: the probability that a verdict's ruling is right, from the judge's evidence (issue 38).

A logistic regression on features of `vision.evidence.LaunchEvidence`, stored as a small JSON file
(`meteors-doubt-model/1`: the feature names, their means and scales, the coefficients) and applied
with numpy alone. `meteors-judge train-doubt` fits one from `meteors-judge eval --out` rows
(`cli/train_doubt.py`); `features` is the one mapping from evidence to numbers, for training and use.

Features: each numeric measurement (0 when not measured, with a flag saying so), each yes/no as
0/1, the release fit's group and reasons one-hot, and the ratios a person would read first (herd
and region margins in units of their uncertainty, the log of the distances).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

SCHEMA = "meteors-doubt-model/1"
SHIPPED_MODEL = Path(__file__).with_name("doubt_model.json")  # made by `meteors-judge train-doubt`
FIT_GROUPS = ("clean", "hidden", "push", "hand", "rough")
FIT_REASONS = (
    "no_fit", "few_clear", "short_hold", "hidden", "poor_fit", "hand", "shadow", "sigma", "implausible_throw",
    "push_in_hold", "height",
)
SURFACES = ("table", "floor", "rim")
NUMBERS = (  # measurements that may be missing: value (0 if None) and a `_missing` flag
    "fps", "meteor_diameter_px", "px_per_mm", "seen_fraction", "partial_fraction", "coasted_fraction",
    "hand_fraction", "regained_count", "regained_frames_max", "markers_missing", "release_fit_rms_px",
    "release_fit_free_frames", "release_fit_hidden_frames", "release_fit_covered_sightings",
    "release_time_sigma_frames", "release_size_scale_stray", "release_window_late_frames",
    "release_window_early_frames", "release_second_opinions", "hand_meteor_disagree_frames",
    "arcs_fit_height_gap_mm", "throw_to_free_frames", "release_height_mm", "release_blur_diameters",
    "release_slowdown_ratio", "herd_first_free_height_sigma_mm", "herd_uncertainty_mm", "bounces_required",
    "bounces_counted", "bounce_count_min", "bounce_count_max", "bounce_weakest_chi2", "flight_gap_frames_max",
    "flight_sightings_before_box", "flight_size_ratio", "flight_sunk_mm", "flight_arcs",
    "flight_chi2_per_sighting", "flight_restitution", "flight_doubtful_reasons", "table_bounces_after_entry",
    "rest_sightings", "rest_alternatives", "region_uncertainty_mm", "region_places", "left_picture_from_box_mm",
)
FLAGS = (
    "track_lost", "clip_ended_early", "flight_unseen", "calibration_doubtful", "always_disputed", "herd_line_known",
    "release_fit_reliable", "hand_timed", "hand_free_seen", "hand_seen_letting_go", "herd_call_unsure",
    "release_over_box", "bounce_count_lower_bound", "entered_box", "bounces_call_unsure", "rest_found",
    "region_call_unsure",
)


def _number(value: Any) -> float | None:
    if value is None or isinstance(value, str):
        return None
    number = float(value)
    return number if math.isfinite(number) else None


def _signed_log(value: float | None) -> float:
    """log(1 + |x|) with x's sign: millimetres from 1 to 1000 on one scale."""
    return 0.0 if value is None else math.copysign(math.log1p(abs(value)), value)


def _in_sigmas(margin: float | None, sigma: float | None) -> float:
    """A margin in units of its uncertainty, capped at 50 (0 when either is unknown)."""
    if margin is None or sigma is None:
        return 0.0
    return min(abs(margin) / max(sigma, 1e-6), 50.0)


def features(evidence: Mapping[str, Any]) -> dict[str, float]:
    """The doubt model's inputs, by name, from one verdict's evidence (a `LaunchEvidence` dumped to JSON)."""
    out: dict[str, float] = {}
    for name in NUMBERS:
        value = _number(evidence.get(name))
        out[name] = 0.0 if value is None else value
        out[f"{name}_missing"] = float(value is None)
    for name in FLAGS:
        out[name] = float(bool(evidence.get(name)))
    group = evidence.get("release_fit_group")
    for name in FIT_GROUPS:
        out[f"fit_group_{name}"] = float(group == name)
    reasons = set(evidence.get("release_fit_reasons") or ())
    for name in FIT_REASONS:
        out[f"fit_reason_{name}"] = float(name in reasons)
    surface = evidence.get("rest_surface")
    for name in SURFACES:
        out[f"rest_on_{name}"] = float(surface == name)
    out["bounce_unseen_reasons"] = float(len(evidence.get("bounce_unseen_reasons") or ()))
    out["bounces_doubtful"] = float(sum(bool(b.get("doubtful")) for b in evidence.get("bounces") or ()))
    herd = _number(evidence.get("herd_signed_mm"))
    out["herd_log_mm"] = _signed_log(herd)
    out["herd_first_free_log_mm"] = _signed_log(_number(evidence.get("herd_first_free_signed_mm")))
    low, high = _number(evidence.get("herd_low_mm")), _number(evidence.get("herd_high_mm"))
    out["herd_window_log_mm"] = _signed_log(None if low is None or high is None else high - low)
    out["herd_window_straddles"] = float(low is not None and high is not None and low < 0 <= high)
    out["herd_in_sigmas"] = _in_sigmas(
        _number(evidence.get("herd_margin_mm")), _number(evidence.get("herd_uncertainty_mm"))
    )
    out["region_log_mm"] = _signed_log(_number(evidence.get("region_margin_mm")))
    out["region_in_sigmas"] = _in_sigmas(
        _number(evidence.get("region_margin_mm")), _number(evidence.get("region_uncertainty_mm"))
    )
    out["bounce_spread"] = float((evidence.get("bounce_count_max") or 0) - (evidence.get("bounce_count_min") or 0))
    return out


FEATURE_NAMES = tuple(features({}))


def design_matrix(evidence_rows: Sequence[Mapping[str, Any]], names: Sequence[str] = FEATURE_NAMES) -> np.ndarray:
    """Rows of features (one per evidence mapping) in the order of `names`."""
    table = [features(evidence) for evidence in evidence_rows]
    return np.array([[row[name] for name in names] for row in table], dtype=np.float64).reshape(len(table), len(names))


class ModelError(ValueError):
    """A doubt model file that cannot be read or is not `meteors-doubt-model/1`."""


@dataclass(frozen=True)
class DoubtModel:
    """A fitted logistic regression over standardized features."""

    names: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    about: dict[str, Any]  # how it was trained and what it gave on held-out rows

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(ruling right) for rows of features in the order of `names`."""
        z = ((x - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))

    def probability(self, evidence: Mapping[str, Any]) -> float:
        return float(self.probabilities(design_matrix([evidence], self.names))[0])

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "features": list(self.names),
            "mean": [round(float(v), 6) for v in self.mean],
            "scale": [round(float(v), 6) for v in self.scale],
            "coef": [round(float(v), 6) for v in self.coef],
            "intercept": round(float(self.intercept), 6),
            "about": self.about,
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")


def load_model(path: str | Path) -> DoubtModel:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ModelError(f"cannot read the doubt model {path}: {error}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise ModelError(f"{path} is not a {SCHEMA} file")
    names = tuple(data["features"])
    unknown = set(names) - set(FEATURE_NAMES)
    if unknown:
        raise ModelError(f"{path} uses features this judge does not compute: {sorted(unknown)[:5]}")
    arrays = [np.asarray(data[key], dtype=np.float64) for key in ("mean", "scale", "coef")]
    if any(len(array) != len(names) for array in arrays):
        raise ModelError(f"{path}: mean, scale and coef must have one value per feature")
    return DoubtModel(names, *arrays, float(data["intercept"]), dict(data.get("about") or {}))


@functools.cache
def shipped_model() -> DoubtModel | None:
    """The model shipped in the package (None when there is none)."""
    return load_model(SHIPPED_MODEL) if SHIPPED_MODEL.is_file() else None


def ruling_probability(evidence: Mapping[str, Any]) -> float | None:
    """The shipped model's probability that the ruling this evidence backs is right (None: no model)."""
    model = shipped_model()
    return None if model is None else model.probability(evidence)
