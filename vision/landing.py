"""Where things are relative to the box and the herd: regions, outline, surfaces, the herd line's sign.

Pure geometry on millimetres (no images): the box's outline and regions are given in the box frame
by the rig and placed on the table by the box pose found by the calibration.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from calibration.geometry import BoxPose, signed_distance_to_polygon
from calibration.rig import Rig

RIM_BAND_MM = 6.0  # half the thickness of a box wall, as seen from above: the top of a wall


@dataclass(frozen=True)
class RegionCall:
    region: str  # a region's name, "outside" or "rim"
    landing: str  # "dinosaur", "water" or "outside"
    dinosaur: str | None
    margin_mm: float  # distance to the nearest border that would change the call
    box_mm: tuple[float, float]


def box_outline_table(rig: Rig, pose: BoxPose) -> np.ndarray:
    return pose.box_to_table(np.asarray(rig.box.outline_mm, dtype=np.float64))


def outline_signed_mm(rig: Rig, pose: BoxPose, table_xy: np.ndarray) -> float:
    """Signed distance of a table point from the box outline: positive inside the box."""
    box_xy = pose.table_to_box(np.asarray(table_xy, dtype=np.float64))[0]
    return signed_distance_to_polygon(box_xy, np.asarray(rig.box.outline_mm))


def classify_point(rig: Rig, pose: BoxPose, table_xy: np.ndarray, on_rim: bool = False) -> RegionCall:
    """The region a resting point lies in, and its distance to the nearest border."""
    box_xy = pose.table_to_box(np.asarray(table_xy, dtype=np.float64))[0]
    outline_sd = signed_distance_to_polygon(box_xy, np.asarray(rig.box.outline_mm))
    point = (float(box_xy[0]), float(box_xy[1]))
    if on_rim:
        return RegionCall("rim", "outside", None, max(0.0, RIM_BAND_MM - abs(outline_sd)), point)
    if outline_sd <= 0:
        return RegionCall("outside", "outside", None, -outline_sd, point)
    best_name, best_sd, best_region = None, -np.inf, None
    for region in rig.box.regions:
        sd = signed_distance_to_polygon(box_xy, np.asarray(region.polygon_mm))
        if sd > best_sd:
            best_name, best_sd, best_region = region.name, sd, region
    assert best_region is not None
    if best_sd <= 0:
        # inside the outline but in no compartment: on a partition (a wall top)
        return RegionCall("rim", "outside", None, max(0.0, -best_sd), point)
    margin = min(best_sd, outline_sd)
    return RegionCall(
        best_name or "outside",
        best_region.kind,
        best_region.dinosaur if best_region.kind == "dinosaur" else None,
        float(margin),
        point,
    )


def herd_normal(rig: Rig, pose: BoxPose, herd_line_mm=None, direction=None) -> np.ndarray | None:
    """Unit vector across the herd line pointing to the launcher's side.

    The launcher's side is the side away from the box, when the whole box lies on one side of the
    line (the label format's definition). Only a line through the box leaves it to the meteor: the
    side it comes *from*, opposite `direction` (its ground velocity at the release, or its
    displacement over the flight), when that is given, else the side away from the box centre. A
    fitted release velocity can point backwards (a downward throw); the box cannot.
    """
    line = herd_line_mm if herd_line_mm is not None else rig.herd_line_mm
    if line is None:
        return None
    start, end = np.asarray(line, dtype=np.float64).reshape(2, 2)
    along = (end - start) / np.linalg.norm(end - start)
    normal = np.array([-along[1], along[0]])
    box_sides = (box_outline_table(rig, pose) - start) @ normal
    box_on_one_side = bool(np.all(box_sides > 0) or np.all(box_sides < 0))
    has_direction = direction is not None and float(np.hypot(*np.asarray(direction, dtype=np.float64)[:2])) > 1e-9
    if has_direction and not box_on_one_side:
        if float(np.dot(np.asarray(direction, dtype=np.float64)[:2], normal)) > 0:
            normal = -normal
    elif float(np.mean(box_sides)) > 0:
        normal = -normal
    return normal


def herd_line_in_use(rig: Rig, calibration=None):
    """The herd line the calls are made against: the calibration's, measured at the table, else the rig's
    (None when neither has one)."""
    return getattr(calibration, "herd_line_mm", None) or rig.herd_line_mm


def herd_line_signed(
    rig: Rig, pose: BoxPose, table_xy: np.ndarray, herd_line_mm=None, direction=None
) -> float | None:
    """Signed distance from the herd line, positive on the launcher's side (see `herd_normal`).

    `table_xy` may be one point (a float is returned) or N×2 points (an array is returned).
    """
    line = herd_line_mm if herd_line_mm is not None else rig.herd_line_mm
    if line is None:
        return None
    normal = herd_normal(rig, pose, line, direction)
    start = np.asarray(line, dtype=np.float64).reshape(2, 2)[0]
    xy = np.asarray(table_xy, dtype=np.float64)
    signed = (xy.reshape(-1, 2) - start) @ normal
    return float(signed[0]) if xy.ndim == 1 else signed


def surface_of_impact(rig: Rig, pose: BoxPose, position_mm: np.ndarray, radius_mm: float) -> str:
    """Which surface an impact at this 3D centre position struck: table, box_floor, box_wall or box_rim."""
    x, y, z = (float(v) for v in np.asarray(position_mm).reshape(3))
    sd = outline_signed_mm(rig, pose, np.array([x, y]))
    floor = rig.box.floor_height_mm
    rim = rig.box.rim_height_mm
    if sd < -radius_mm * 0.6:
        return "table"
    if z > rim + radius_mm * 0.4 and abs(sd) < radius_mm + RIM_BAND_MM:
        return "box_rim"
    if sd < radius_mm + RIM_BAND_MM:
        return "box_wall" if z < rim + radius_mm * 0.4 else "box_rim"
    if z < floor + radius_mm + 0.5 * (rim - floor):
        return "box_floor"
    return "box_wall"  # high inside the box: a partition
