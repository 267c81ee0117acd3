"""The herd line from the six face-up cards: card-like rectangles on the rectified table, a line through their centres.

The table plane is rectified to a top-down image (`PX_PER_MM` pixels per millimetre) through
the calibrated camera; the box (its footprint and everything it hides), the markers and the
image border are masked out; whatever differs from the table's own colour is segmented;
card-sized, card-shaped rectangles are kept; the largest set of nearly collinear ones gives
the line (total least squares through their centres), its ends at the outermost cards.
A rig's or a user's line overrides this (see `calibrate_frame`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.rig import Point2, Rig

if TYPE_CHECKING:
    from calibration.solve import Calibration

PX_PER_MM = 2.0
#: card sides accepted (mm): a little smaller than mini cards to a little larger than tarot
CARD_SIDE_MM = (35.0, 140.0)
CARD_ASPECT = (1.0, 2.0)
#: a card centre farther than this from the line is not part of the herd
COLLINEAR_MM = 30.0


class HerdError(ValueError):
    """The herd line cannot be found; the message says why."""


@dataclass(frozen=True)
class Card:
    centre_mm: tuple[float, float]
    size_mm: tuple[float, float]  # (short side, long side)
    angle_deg: float


def rectify_table(frame_bgr: np.ndarray, calibration: Calibration, extent_mm: tuple[float, float, float, float],
                  px_per_mm: float = PX_PER_MM) -> tuple[np.ndarray, np.ndarray]:
    """Top-down view of the table plane over `extent_mm` (xmin, xmax, ymin, ymax); +y is up in the image.

    Returns the image and a mask of the pixels that come from inside the frame.
    """
    xmin, xmax, ymin, ymax = extent_mm
    width, height = int(round((xmax - xmin) * px_per_mm)), int(round((ymax - ymin) * px_per_mm))
    # project a coarse grid (every `step` pixels) and interpolate: the mapping is smooth
    step = 8
    coarse_w, coarse_h = width // step + 2, height // step + 2
    xs = xmin + (np.arange(coarse_w) * step + 0.5) / px_per_mm
    ys = ymax - (np.arange(coarse_h) * step + 0.5) / px_per_mm
    grid_x, grid_y = np.meshgrid(xs, ys)
    pixels = calibration.camera.project(np.column_stack([grid_x.ravel(), grid_y.ravel()]))
    coarse = pixels.reshape(coarse_h, coarse_w, 2).astype(np.float32)
    fine_x, fine_y = np.meshgrid(np.arange(width, dtype=np.float32) / step, np.arange(height, dtype=np.float32) / step)
    maps = cv2.remap(coarse, fine_x, fine_y, cv2.INTER_LINEAR)
    map_x, map_y = np.ascontiguousarray(maps[..., 0]), np.ascontiguousarray(maps[..., 1])
    image = cv2.remap(frame_bgr, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    frame_h, frame_w = frame_bgr.shape[:2]
    inside = (map_x >= 1) & (map_y >= 1) & (map_x < frame_w - 2) & (map_y < frame_h - 2)
    return image, inside


def _to_rect(points_mm: np.ndarray, extent_mm, px_per_mm: float) -> np.ndarray:
    xmin, _, _, ymax = extent_mm
    points = np.asarray(points_mm, float).reshape(-1, 2)
    return np.column_stack([(points[:, 0] - xmin) * px_per_mm, (ymax - points[:, 1]) * px_per_mm])


def _from_rect(points_px: np.ndarray, extent_mm, px_per_mm: float) -> np.ndarray:
    xmin, _, _, ymax = extent_mm
    points = np.asarray(points_px, float).reshape(-1, 2)
    return np.column_stack([xmin + points[:, 0] / px_per_mm, ymax - points[:, 1] / px_per_mm])


def table_extent(rig: Rig, margin_mm: float = 60.0) -> tuple[float, float, float, float]:
    corners = np.vstack([np.asarray(m.corners_mm, float) for m in rig.table_markers])
    return (
        float(corners[:, 0].min() - margin_mm),
        float(corners[:, 0].max() + margin_mm),
        float(corners[:, 1].min() - margin_mm),
        float(corners[:, 1].max() + margin_mm),
    )


def _occluded_by_box(calibration: Calibration, rig: Rig, extent_mm, px_per_mm: float, shape) -> np.ndarray:
    """Table pixels hidden by (or part of) the box: its footprint and its top's shadow along the rays."""
    mask = np.zeros(shape, np.uint8)
    outline = np.asarray(rig.box.outline_mm, float)
    table_outline = calibration.box_pose.box_to_table(outline)
    top_px = calibration.camera.project(np.column_stack([table_outline, np.full(len(outline), rig.box.rim_height_mm)]))
    top_on_table = calibration.camera.pixel_to_plane(top_px, 0.0)[:, :2]
    hull = cv2.convexHull(np.vstack([table_outline, top_on_table]).astype(np.float32))
    polygon = _to_rect(hull.reshape(-1, 2), extent_mm, px_per_mm)
    cv2.fillPoly(mask, [np.round(polygon).astype(np.int32)], 255)
    return cv2.dilate(mask, np.ones((int(20 * px_per_mm),) * 2, np.uint8)) > 0


def find_cards(frame_bgr: np.ndarray, calibration: Calibration, rig: Rig,
               px_per_mm: float = PX_PER_MM) -> list[Card]:
    """Card-like rectangles lying on the table, outside the box and away from the markers."""
    extent = table_extent(rig)
    image, inside = rectify_table(frame_bgr, calibration, extent, px_per_mm)
    valid = inside.copy()
    valid &= ~_occluded_by_box(calibration, rig, extent, px_per_mm, inside.shape)
    marker_mask = np.zeros(inside.shape, np.uint8)
    for marker in rig.table_markers:
        corners = np.asarray(marker.corners_mm, float)
        centre = corners.mean(axis=0)
        grown = centre + (corners - centre) * 1.6
        cv2.fillConvexPoly(marker_mask, np.round(_to_rect(grown, extent, px_per_mm)).astype(np.int32), 255)
    valid &= marker_mask == 0
    valid = cv2.erode(valid.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0

    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB).astype(np.float32)
    background = np.median(lab[valid], axis=0) if valid.any() else np.zeros(3)
    difference = np.linalg.norm((lab - background) * [0.7, 1.0, 1.0], axis=2)
    difference[~valid] = 0
    values = difference[valid]
    if values.size == 0:
        return []
    spread = float(np.median(np.abs(values - np.median(values)))) + 1e-6
    threshold = max(18.0, float(np.median(values)) + 6.0 * 1.4826 * spread)
    foreground = ((difference > threshold) & valid).astype(np.uint8) * 255
    # no closing: cards laid a few millimetres apart must stay apart (their insides are filled below anyway)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(2 * px_per_mm)),) * 2)
    foreground = cv2.morphologyEx(foreground, cv2.MORPH_OPEN, kernel)
    contours, _ = cv2.findContours(foreground, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    cards = []
    for contour in contours:
        area_mm2 = cv2.contourArea(contour) / px_per_mm**2
        if area_mm2 < CARD_SIDE_MM[0] ** 2:
            continue
        (cx, cy), (w, h), angle = cv2.minAreaRect(contour)
        short, long = sorted((w / px_per_mm, h / px_per_mm))
        if short < CARD_SIDE_MM[0] or long > CARD_SIDE_MM[1] or not CARD_ASPECT[0] <= long / short <= CARD_ASPECT[1]:
            continue
        if area_mm2 / (short * long) < 0.85:
            continue
        # the centre of a filled card is the centroid of its outline's region
        moments = cv2.moments(contour)
        if moments["m00"] > 0:
            cx, cy = moments["m10"] / moments["m00"], moments["m01"] / moments["m00"]
        centre = _from_rect(np.array([[cx, cy]]), extent, px_per_mm)[0]
        cards.append(Card(centre_mm=(float(centre[0]), float(centre[1])), size_mm=(short, long), angle_deg=angle))
    return cards


def fit_herd_line(centres_mm: np.ndarray, min_cards: int = 3) -> tuple[tuple[Point2, Point2], np.ndarray] | None:
    """The line through the largest nearly collinear subset of card centres; its ends at the outermost ones."""
    centres = np.asarray(centres_mm, float).reshape(-1, 2)
    if len(centres) < min_cards:
        return None
    best_inliers: np.ndarray | None = None
    best_score = (-1, 0.0)
    for i in range(len(centres)):
        for j in range(i + 1, len(centres)):
            direction = centres[j] - centres[i]
            if np.linalg.norm(direction) < 1e-6:
                continue
            normal = np.array([-direction[1], direction[0]]) / np.linalg.norm(direction)
            distances = np.abs((centres - centres[i]) @ normal)
            inliers = distances < COLLINEAR_MM
            score = (int(inliers.sum()), -float(distances[inliers].sum()))
            if score > best_score:
                best_score, best_inliers = score, inliers
    if best_inliers is None or best_inliers.sum() < min_cards:
        return None
    points = centres[best_inliers]
    mean = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - mean)
    direction = vt[0]
    along = (points - mean) @ direction
    start, end = mean + along.min() * direction, mean + along.max() * direction
    if start[0] > end[0] or (start[0] == end[0] and start[1] > end[1]):
        start, end = end, start
    return ((float(start[0]), float(start[1])), (float(end[0]), float(end[1]))), best_inliers


def find_herd_line(frame_bgr: np.ndarray, calibration: Calibration, rig: Rig, min_cards: int = 3,
                   cards: list[Card] | None = None) -> tuple[Point2, Point2] | None:
    """The herd line (two table points) from the face-up cards, or None when fewer than `min_cards` line up."""
    cards = find_cards(frame_bgr, calibration, rig) if cards is None else cards
    fitted = fit_herd_line(np.array([c.centre_mm for c in cards]).reshape(-1, 2), min_cards)
    return None if fitted is None else fitted[0]


def herd_line_errors_mm(found: tuple[Point2, Point2], truth: tuple[Point2, Point2]) -> float:
    """The largest distance, at the ends, between two lines: each end of one from the other line."""

    def distance(points: np.ndarray, line: np.ndarray) -> np.ndarray:
        start, end = line
        direction = (end - start) / np.linalg.norm(end - start)
        normal = np.array([-direction[1], direction[0]])
        return np.abs((points - start) @ normal)

    a, b = np.asarray(found, float), np.asarray(truth, float)
    return float(max(distance(b, a).max(), distance(a, b).max()))
