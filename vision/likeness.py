"""How much a candidate blob looks like the meteor: a small logistic model over blob measurements.

The whole-frame search finds every meteor-coloured, meteor-sized blob; on a busy table there are
a dozen. The model ranks them by what a person would look at: the blob's size against the meteor's
calibrated size, how round and filled it is, how far its colour is from the table under it and
from the meteor's, how much of it moved. Fitted on generated launches (`meteors-judge
train-likeness`), it ships as a small JSON file and runs with numpy alone.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SCHEMA = "meteors-likeness-model/1"
SHIPPED_MODEL = Path(__file__).with_name("likeness_model.json")
FEATURE_NAMES = (
    "log_size", "moving", "fill", "aspect", "meteor_angle_deg", "log_brightness", "table_angle_deg",
    "alpha", "residual", "log_contrast", "change", "log_size_sq", "meteor_angle_sq", "alpha_miss_sq", "residual_sq",
)


def _angles_deg(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Angles (degrees) between the rows of u and v (90 where either is black)."""
    nu, nv = np.linalg.norm(u, axis=1), np.linalg.norm(v, axis=1)
    ok = (nu > 1e-3) & (nv > 1e-3)
    cos = np.einsum("ij,ij->i", u, v) / np.where(ok, nu * nv, 1.0)
    return np.where(ok, np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))), 90.0)


def blob_features(
    mean_bgr: np.ndarray, background_bgr: np.ndarray, meteor_bgr: np.ndarray, area_px: np.ndarray,
    box_px: np.ndarray, moving: np.ndarray, disc_area_px: float,
) -> np.ndarray:
    """N×len(FEATURE_NAMES) features of N blobs: their mean colour and their background's (BGR), the
    meteor's colour, their areas and bounding boxes (w, h) in the same pixels as `disc_area_px` (the
    meteor's disc on the table), and the share of their pixels that moved."""
    mean_bgr = np.asarray(mean_bgr, np.float64).reshape(-1, 3)
    background_bgr = np.asarray(background_bgr, np.float64).reshape(-1, 3)
    meteor = np.broadcast_to(np.asarray(meteor_bgr, np.float64), mean_bgr.shape)
    area = np.asarray(area_px, np.float64)
    box = np.asarray(box_px, np.float64).reshape(-1, 2)
    ref = meteor - background_bgr
    delta = mean_bgr - background_bgr
    rr = np.einsum("ij,ij->i", ref, ref) + 1e-3
    alpha = np.einsum("ij,ij->i", delta, ref) / rr
    residual = np.linalg.norm(delta - alpha[:, None] * ref, axis=1) / np.sqrt(rr)
    log_size = np.log(np.maximum(area, 1e-6) / max(disc_area_px, 1e-6))
    meteor_angle = _angles_deg(mean_bgr, meteor)
    columns = [
        log_size, np.asarray(moving, np.float64), area / np.maximum(box[:, 0] * box[:, 1], 1.0),
        box.max(axis=1) / np.maximum(box.min(axis=1), 1.0), meteor_angle,
        np.log((np.linalg.norm(mean_bgr, axis=1) + 1.0) / (np.linalg.norm(meteor, axis=1) + 1.0)),
        _angles_deg(mean_bgr, background_bgr), alpha, residual, np.log(rr), np.linalg.norm(delta, axis=1) / 255.0,
        log_size**2, meteor_angle**2 / 100.0, (alpha - 1.0) ** 2, residual**2,
    ]
    return np.column_stack(columns)


class ModelError(ValueError):
    """A likeness model file that cannot be read."""


@dataclass(frozen=True)
class LikenessModel:
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    about: dict

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        z = ((features - self.mean) / self.scale) @ self.coef + self.intercept
        return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))

    def to_json(self) -> dict:
        return {"schema": SCHEMA, "features": list(FEATURE_NAMES),
                "mean": [round(float(v), 6) for v in self.mean], "scale": [round(float(v), 6) for v in self.scale],
                "coef": [round(float(v), 6) for v in self.coef], "intercept": round(float(self.intercept), 6),
                "about": self.about}

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")


def load_model(path: str | Path) -> LikenessModel:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ModelError(f"cannot read the likeness model {path}: {error}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or tuple(data.get("features", ())) != FEATURE_NAMES:
        raise ModelError(f"{path} is not a {SCHEMA} file for this judge's features")
    arrays = [np.asarray(data[key], np.float64) for key in ("mean", "scale", "coef")]
    return LikenessModel(*arrays, float(data["intercept"]), dict(data.get("about") or {}))


@functools.cache
def shipped_model() -> LikenessModel | None:
    return load_model(SHIPPED_MODEL) if SHIPPED_MODEL.is_file() else None
