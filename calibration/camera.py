"""The pinhole camera model: table millimetres to pixels and back, at any height.

The pose maps table-frame points (x, y on the table, z up, millimetres) into the
camera frame: `X_cam = R(rvec) · X_table + tvec`, the OpenCV convention.
"""

from __future__ import annotations

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field


class CameraModel(BaseModel):
    """OpenCV intrinsics `K`, distortion `dist` and the table-to-camera pose."""

    model_config = ConfigDict(frozen=True)

    K: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
    dist: tuple[float, ...] = Field(default=(0.0, 0.0, 0.0, 0.0, 0.0))
    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]

    # numpy views, built on demand (the model itself stays plain JSON)
    @property
    def camera_matrix(self) -> np.ndarray:
        return np.asarray(self.K, dtype=np.float64)

    @property
    def dist_coeffs(self) -> np.ndarray:
        return np.asarray(self.dist, dtype=np.float64)

    @property
    def rotation(self) -> np.ndarray:
        return cv2.Rodrigues(np.asarray(self.rvec, dtype=np.float64))[0]

    @property
    def translation(self) -> np.ndarray:
        return np.asarray(self.tvec, dtype=np.float64)

    @property
    def center_mm(self) -> np.ndarray:
        """The camera's optical centre in the table frame."""
        return -self.rotation.T @ self.translation

    def depth_mm(self, points_mm: np.ndarray) -> np.ndarray:
        """How far in front of the lens (along the optical axis) table-frame points (N×3) lie; negative
        behind it. Projections are meaningless for points at or behind zero depth."""
        points = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        return (points @ self.rotation.T + self.translation)[:, 2]

    @property
    def focal_px(self) -> float:
        return float(np.sqrt(self.K[0][0] * self.K[1][1]))

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixels (N×2) of table-frame points (N×3, or N×2 on the table plane)."""
        points = np.asarray(points_mm, dtype=np.float64).reshape(-1, np.shape(points_mm)[-1])
        if points.shape[1] == 2:
            points = np.column_stack([points, np.zeros(len(points))])
        pixels, _ = cv2.projectPoints(
            points, np.asarray(self.rvec, float), self.translation, self.camera_matrix, self.dist_coeffs
        )
        return pixels.reshape(-1, 2)

    def rays(self, pixels: np.ndarray) -> np.ndarray:
        """Unit directions (N×3, table frame) of the rays through the given pixels (N×2)."""
        pixels = np.asarray(pixels, dtype=np.float64).reshape(-1, 1, 2)
        normalized = cv2.undistortPoints(pixels, self.camera_matrix, self.dist_coeffs).reshape(-1, 2)
        directions_cam = np.column_stack([normalized, np.ones(len(normalized))])
        directions = directions_cam @ self.rotation  # R^T · d for each row
        return directions / np.linalg.norm(directions, axis=1, keepdims=True)

    def pixel_to_plane(self, pixels: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Where the rays through `pixels` meet the horizontal plane at height `z_mm` (N×3)."""
        directions = self.rays(pixels)
        center = self.center_mm
        steps = (np.asarray(z_mm, dtype=np.float64) - center[2]) / directions[:, 2]
        return center + directions * steps[:, None]

    def sphere_from_apparent_size(self, pixels: np.ndarray, diameters_px: np.ndarray, diameter_mm: float) -> np.ndarray:
        """Centres (N×3, table frame) of spheres of known size seen at `pixels` with `diameters_px`.

        A sphere of diameter D at distance d along the ray looks f·D/d pixels wide,
        so d = f·D/diameter_px; that fixes its height, hence its true ground point.
        """
        directions = self.rays(pixels)
        distances = self.focal_px * diameter_mm / np.asarray(diameters_px, dtype=np.float64)
        return self.center_mm + directions * distances[:, None]

    def apparent_diameter_px(self, centers_mm: np.ndarray, diameter_mm: float) -> np.ndarray:
        """How many pixels wide a sphere of `diameter_mm` centred at `centers_mm` (N×3) looks."""
        centers = np.asarray(centers_mm, dtype=np.float64).reshape(-1, 3)
        distances = np.linalg.norm(centers - self.center_mm, axis=1)
        return self.focal_px * diameter_mm / distances
