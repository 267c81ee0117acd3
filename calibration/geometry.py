"""Pure plane geometry shared by the calibration, the judge and the footage generator.

Points are numpy arrays of millimetres. The box pose follows the label format:
`table_xy = R(yaw_deg) · box_xy + translation_mm`.
"""

from __future__ import annotations

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict


class BoxPose(BaseModel):
    """Where the box stands on the table (the label format's `box_pose`)."""

    model_config = ConfigDict(frozen=True)

    yaw_deg: float
    translation_mm: tuple[float, float]

    @property
    def rotation(self) -> np.ndarray:
        return yaw_rotation(self.yaw_deg)

    def box_to_table(self, box_xy_mm: np.ndarray) -> np.ndarray:
        return box_to_table_mm(box_xy_mm, self.yaw_deg, self.translation_mm)

    def table_to_box(self, table_xy_mm: np.ndarray) -> np.ndarray:
        points = np.asarray(table_xy_mm, dtype=np.float64).reshape(-1, 2)
        return (points - np.asarray(self.translation_mm)) @ self.rotation


def yaw_rotation(yaw_deg: float) -> np.ndarray:
    """The 2×2 rotation of a box pose's yaw."""
    yaw = np.radians(yaw_deg)
    return np.array([[np.cos(yaw), -np.sin(yaw)], [np.sin(yaw), np.cos(yaw)]])


def box_to_table_mm(box_xy_mm: np.ndarray, yaw_deg: float, translation_mm: tuple[float, float]) -> np.ndarray:
    """`BoxPose.box_to_table` without a `BoxPose`: for a solver trying hundreds of poses (a pydantic
    model per trial cost more than the arithmetic)."""
    points = np.asarray(box_xy_mm, dtype=np.float64).reshape(-1, 2)
    return points @ yaw_rotation(yaw_deg).T + np.asarray(translation_mm)


def signed_distance_to_polygon(point_mm: np.ndarray, polygon_mm: np.ndarray) -> float:
    """Distance from the polygon's border: positive inside, negative outside, zero on it."""
    contour = np.asarray(polygon_mm, dtype=np.float32).reshape(-1, 1, 2)
    x, y = (float(v) for v in np.asarray(point_mm, dtype=np.float64).reshape(2))
    return float(cv2.pointPolygonTest(contour, (x, y), True))


def inside_polygon(point_mm: np.ndarray, polygon_mm: np.ndarray) -> bool:
    return signed_distance_to_polygon(point_mm, polygon_mm) > 0.0


def signed_distance_to_line(points_mm: np.ndarray, line_mm: np.ndarray, positive_side_mm: np.ndarray) -> np.ndarray:
    """Signed distances (N) of points from the infinite line through `line_mm` (2×2).

    Positive on the side where `positive_side_mm` lies (for the herd line: the launcher's
    side, away from the box).
    """
    start, end = np.asarray(line_mm, dtype=np.float64).reshape(2, 2)
    direction = (end - start) / np.linalg.norm(end - start)
    normal = np.array([-direction[1], direction[0]])
    if np.dot(np.asarray(positive_side_mm, dtype=np.float64) - start, normal) < 0:
        normal = -normal
    points = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
    return (points - start) @ normal
