"""An overlay for a person to check a calibration: markers, a table grid, the box, its regions, the herd line."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.herd import table_extent
from calibration.rig import Rig
from calibration.solve import Calibration

# BGR
GREEN, RED, YELLOW = (60, 220, 60), (40, 40, 230), (0, 220, 255)
MAGENTA, WHITE, CYAN = (220, 60, 220), (255, 255, 255), (230, 200, 0)
REGION_COLOURS = [(80, 180, 255), (255, 160, 80), (120, 120, 255), (90, 220, 160), (220, 120, 220), (80, 230, 230)]
WATER = (230, 140, 40)


def _pt(p: np.ndarray) -> tuple[int, int]:
    return int(round(float(p[0]) * 16)), int(round(float(p[1]) * 16))


def _polyline(image, pixels, colour, thickness=2, closed=True) -> None:
    cv2.polylines(image, [np.round(np.asarray(pixels) * 16).astype(np.int32)], closed, colour, thickness,
                  cv2.LINE_AA, 4)


def _label(image, text, origin, colour=WHITE, scale=0.5) -> None:
    x, y = int(origin[0]), int(origin[1])
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(image, text, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def draw_overlay(frame_bgr: np.ndarray, calibration: Calibration, rig: Rig,
                 detections: dict[int, np.ndarray] | None = None, grid_mm: float = 100.0) -> np.ndarray:
    """The frame with the calibration drawn on it (a new image)."""
    image = frame_bgr.copy()
    camera = calibration.camera
    pose = calibration.box_pose

    # table grid every `grid_mm`, over the markers' extent, sampled finely so distortion shows
    xmin, xmax, ymin, ymax = table_extent(rig, margin_mm=0.0)
    xs = np.arange(np.floor(xmin / grid_mm) * grid_mm, xmax + 1e-6, grid_mm)
    ys = np.arange(np.floor(ymin / grid_mm) * grid_mm, ymax + 1e-6, grid_mm)
    grid = image.copy()
    for x in xs:
        line = np.column_stack([np.full(50, x), np.linspace(ys[0], ys[-1], 50)])
        _polyline(grid, camera.project(line), CYAN, 1, closed=False)
    for y in ys:
        line = np.column_stack([np.linspace(xs[0], xs[-1], 50), np.full(50, y)])
        _polyline(grid, camera.project(line), CYAN, 1, closed=False)
    origin = camera.project(np.array([[0.0, 0.0, 0.0], [grid_mm, 0, 0], [0, grid_mm, 0]]))
    cv2.arrowedLine(grid, _pt(origin[0]), _pt(origin[1]), RED, 2, cv2.LINE_AA, 4, 0.15)
    cv2.arrowedLine(grid, _pt(origin[0]), _pt(origin[2]), GREEN, 2, cv2.LINE_AA, 4, 0.15)
    image = cv2.addWeighted(grid, 0.55, image, 0.45, 0)
    _label(image, "x", origin[1] + [4, -4], RED)
    _label(image, "y", origin[2] + [4, -4], GREEN)

    # regions at floor height, filled translucently, named
    fill = image.copy()
    for index, region in enumerate(rig.box.regions):
        xy = pose.box_to_table(np.asarray(region.polygon_mm, float))
        pixels = camera.project(np.column_stack([xy, np.full(len(xy), rig.box.floor_height_mm)]))
        colour = WATER if region.kind == "water" else REGION_COLOURS[index % len(REGION_COLOURS)]
        cv2.fillPoly(fill, [np.round(pixels * 16).astype(np.int32)], colour, cv2.LINE_AA, 4)
    image = cv2.addWeighted(fill, 0.35, image, 0.65, 0)
    for index, region in enumerate(rig.box.regions):
        xy = pose.box_to_table(np.asarray(region.polygon_mm, float))
        pixels = camera.project(np.column_stack([xy, np.full(len(xy), rig.box.floor_height_mm)]))
        colour = WATER if region.kind == "water" else REGION_COLOURS[index % len(REGION_COLOURS)]
        _polyline(image, pixels, colour, 1)
        centre = pixels.mean(axis=0)
        _label(image, region.name[:12], centre + [-30, 4], WHITE, 0.4)

    # the box: outline on the table and at the rim, joined at the corners
    outline = pose.box_to_table(np.asarray(rig.box.outline_mm, float))
    bottom = camera.project(np.column_stack([outline, np.zeros(len(outline))]))
    top = camera.project(np.column_stack([outline, np.full(len(outline), rig.box.rim_height_mm)]))
    _polyline(image, bottom, YELLOW, 1)
    _polyline(image, top, YELLOW, 2)
    for a, b in zip(bottom, top, strict=True):
        cv2.line(image, _pt(a), _pt(b), YELLOW, 1, cv2.LINE_AA, 4)

    # markers: detected outline (green) and the rig's corners where the solution puts them (red)
    expected = {m.id: np.column_stack([np.asarray(m.corners_mm, float), np.zeros(4)]) for m in rig.table_markers}
    for marker in rig.box.markers:
        xy = pose.box_to_table(np.asarray(marker.corners_mm, float))
        expected[marker.id] = np.column_stack([xy, np.full(4, marker.z_mm)])
    for marker_id, points in expected.items():
        pixels = camera.project(points)
        if detections and marker_id in detections:
            _polyline(image, detections[marker_id], GREEN, 2)
            cv2.circle(image, _pt(detections[marker_id][0]), 5 * 16, GREEN, 1, cv2.LINE_AA, 4)  # ArUco corner 0
        else:
            _polyline(image, pixels, RED, 1)
        for p in pixels:
            cv2.circle(image, _pt(p), 2 * 16, RED, -1, cv2.LINE_AA, 4)
        error = calibration.quality.reprojection_px.get(marker_id)
        text = f"{marker_id}" + (f" {error:.2f}px" if error is not None else " missing")
        _label(image, text, pixels.max(axis=0) + [4, 0], GREEN if error is not None else RED, 0.45)

    # herd line, drawn long across the table
    if calibration.herd_line_mm is not None:
        a, b = (np.asarray(p, float) for p in calibration.herd_line_mm)
        direction = (b - a) / np.linalg.norm(b - a)
        extended = np.array([a - direction * 150, b + direction * 150])
        samples = np.linspace(extended[0], extended[1], 40)
        _polyline(image, camera.project(samples), MAGENTA, 3, closed=False)
        for p in (a, b):
            cv2.circle(image, _pt(camera.project(p[None])[0]), 4 * 16, MAGENTA, -1, cv2.LINE_AA, 4)
        _label(image, f"herd line ({calibration.herd_line_source})", camera.project(b[None])[0] + [8, -8], MAGENTA)

    q = calibration.quality
    lines = [
        f"reprojection median {q.reprojection_median_px:.2f} px (max {q.reprojection_max_px:.2f})"
        f"   table error median {q.table_error_median_mm:.2f} mm",
        f"focal {camera.focal_px:.0f} px ({'estimated' if q.focal_estimated else 'lens file'})"
        f"   box yaw {pose.yaw_deg:.2f} deg at ({pose.translation_mm[0]:.1f}, {pose.translation_mm[1]:.1f}) mm",
        f"markers seen {calibration.markers_seen}" + (f"   MISSING {calibration.markers_missing}"
                                                     if calibration.markers_missing else ""),
    ]
    panel_h = 22 * len(lines) + 10
    cv2.rectangle(image, (0, 0), (image.shape[1], panel_h), (0, 0, 0), -1)
    for i, text in enumerate(lines):
        _label(image, text, (10, 22 * (i + 1)), WHITE if "MISSING" not in text else YELLOW, 0.55)
    return image
