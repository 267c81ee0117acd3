"""The Calibration page's work: the frame with markers and regions drawn, figures, herd line, meteor colour."""

from __future__ import annotations

import contextlib
from typing import Any

import cv2
import numpy as np

from vision.landing import herd_line_in_use
from web.games import GameError
from web.live import calibration_summary, encode_jpeg, placeholder_jpeg


def calibration_in_force(ctx: Any) -> Any:
    """The calibration in force: the referee's latest change, else the live judge's, else the loaded one."""
    if getattr(ctx, "calibration_from_user", False) and ctx.calibration is not None:
        return ctx.calibration
    live = ctx.live
    if live is not None and live.judge is not None and getattr(live.judge, "calibration", None) is not None:
        return live.judge.calibration
    if live is not None and live.calibration is not None:
        return live.calibration
    return ctx.calibration


def calibration_info(ctx: Any) -> dict:
    calibration = calibration_in_force(ctx)
    rig = ctx.rig
    summary = calibration_summary(calibration) or {}
    expected = [m.id for m in rig.table_markers] + [m.id for m in rig.box.markers]
    warnings = []
    missing = summary.get("markers_missing") or []
    if calibration is None:
        warnings.append("not calibrated yet: the judge needs the table and box markers in view")
    if missing:
        warnings.append(f"markers not seen: {missing} — check that nothing covers them")
    live_warnings = ctx.live.status.warnings if ctx.live else []
    herd_line = summary.get("herd_line_mm") or (list(rig.herd_line_mm) if rig.herd_line_mm else None)
    return {
        "verdict": calibration_verdict(calibration is not None, summary, herd_line),
        "calibrated": calibration is not None,
        "expected_markers": expected,
        "figures": summary,
        "herd_line_mm": herd_line,
        "herd_line_source": getattr(calibration, "herd_line_source", None),
        "meteor_rgb": summary.get("meteor_rgb") or (list(rig.meteor.rgb) if rig.meteor.rgb else None),
        "warnings": warnings + list(live_warnings),
        "camera": bool(ctx.live),
    }


def calibration_verdict(calibrated: bool, figures: dict, herd_line: Any) -> dict:
    """"Calibration good", or bad with every reason a call could be wrong because of it."""
    from calibration.solve import MAX_MEDIAN_REPROJECTION_PX

    reasons = []
    if not calibrated:
        reasons.append("not calibrated: the table and box markers must be in view")
    missing = figures.get("markers_missing") or []
    if calibrated and missing:
        reasons.append(f"marker{'s' if len(missing) != 1 else ''} {', '.join(map(str, missing))} not seen")
    median = (figures.get("quality") or {}).get("reprojection_median_px")
    if median is not None and median > MAX_MEDIAN_REPROJECTION_PX:
        reasons.append(f"the markers fit the rig poorly ({median:.1f} px median error, "
                       f"at most {MAX_MEDIAN_REPROJECTION_PX:.0f} px is good)")
    if not herd_line:
        reasons.append("no herd line: releases cannot be judged")
    return {"good": not reasons, "reasons": reasons,
            "text": "calibration good" if not reasons else "calibration bad: " + "; ".join(reasons)}


def _raw_frame(ctx: Any) -> np.ndarray:
    frame = ctx.live.latest_raw() if ctx.live else None
    if frame is None:
        raise GameError("no camera frame yet (serve with --camera or --video)", None, 409)
    return frame


def calibration_jpeg(ctx: Any) -> bytes:
    """The latest raw frame with the detected markers, expected regions and herd line drawn."""
    try:
        frame = _raw_frame(ctx)
    except GameError:
        return placeholder_jpeg("no camera frame yet")
    out = frame.copy()
    rig = ctx.rig
    try:
        from calibration.markers import detect_markers

        found = detect_markers(frame, rig.aruco_dictionary)
    except Exception:
        found = {}
    for marker_id, corners in found.items():
        pts = np.asarray(corners, np.float32).reshape(-1, 2).astype(np.int32)
        cv2.polylines(out, [pts], True, (0, 220, 0), 2, cv2.LINE_AA)
        cv2.putText(out, str(marker_id), tuple(int(v) for v in pts[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                    (0, 220, 0), 2, cv2.LINE_AA)
    calibration = calibration_in_force(ctx)
    if calibration is not None:
        with contextlib.suppress(Exception):  # a partial calibration object: the markers alone will do
            _draw_model(out, calibration, rig, set(found))
    return encode_jpeg(out, 85)


def _draw_model(out: np.ndarray, calibration: Any, rig: Any, found: set[int]) -> None:
    box_pose, camera = calibration.box_pose, calibration.camera

    def box_px(points: Any, z: float) -> np.ndarray:
        xy = box_pose.box_to_table(np.asarray(points, float))
        return camera.project(np.column_stack([xy, np.full(len(xy), z)])).astype(np.int32)

    for region in rig.box.regions:
        colour = (255, 160, 0) if region.kind == "water" else (0, 200, 255)
        pts = box_px(region.polygon_mm, rig.box.floor_height_mm)
        cv2.polylines(out, [pts], True, colour, 2, cv2.LINE_AA)
        centre = pts.mean(axis=0).astype(int)
        cv2.putText(out, region.name[:5], tuple(int(v) for v in centre), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 1,
                    cv2.LINE_AA)
    cv2.polylines(out, [box_px(rig.box.outline_mm, rig.box.rim_height_mm)], True, (255, 255, 255), 1, cv2.LINE_AA)
    for marker in rig.table_markers:
        if marker.id not in found:
            pts = camera.project(np.asarray(marker.corners_mm, float)).astype(np.int32)
            cv2.polylines(out, [pts], True, (0, 0, 255), 2, cv2.LINE_AA)
            cv2.putText(out, f"{marker.id}?", tuple(int(v) for v in pts[0]), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (0, 0, 255), 2, cv2.LINE_AA)
    herd = herd_line_in_use(rig, calibration)
    if herd is not None:
        (x1, y1), (x2, y2) = herd
        direction = np.array([x2 - x1, y2 - y1], float)
        direction /= np.linalg.norm(direction)
        ends = np.array([[x1, y1] - direction * 600, [x2, y2] + direction * 600])
        pts = camera.project(ends).astype(np.int32)
        cv2.line(out, tuple(int(v) for v in pts[0]), tuple(int(v) for v in pts[1]), (255, 0, 255), 2, cv2.LINE_AA)


def solve(ctx: Any) -> dict:
    from calibration.solve import CalibrationError, calibrate_frame

    frame = _raw_frame(ctx)
    try:
        calibration = calibrate_frame(frame, ctx.rig, previous=calibration_in_force(ctx)
                                      if hasattr(calibration_in_force(ctx), "quality") else None)
    except CalibrationError as error:
        raise GameError(f"calibration failed: {error}", None, 422) from None
    ctx.calibration = calibration
    ctx.calibration_from_user = True
    if ctx.live:
        ctx.live.set_rig(ctx.rig, calibration)
    ctx.store.audit("referee", "calibrated", {"markers_missing": calibration.markers_missing})
    return calibration_info(ctx)


def _table_points(calibration: Any, pixels: np.ndarray) -> np.ndarray:
    """Table millimetres (N×2) of clicked pixels; a pixel off the frame or above the horizon is refused."""
    size = getattr(calibration, "frame_size", None)
    if size is not None:
        width, height = size
        if not ((pixels >= 0).all() and (pixels[:, 0] < width).all() and (pixels[:, 1] < height).all()):
            raise GameError(f"points_px: the points must be pixels of the {width}x{height} frame", "points_px")
    camera = calibration.camera
    ground = camera.pixel_to_plane(pixels, 0.0)
    ahead = np.einsum("ij,ij->i", ground - camera.center_mm, camera.rays(pixels)) > 0
    if not (np.isfinite(ground).all() and ahead.all()):
        raise GameError("points_px: a point is above the horizon, not on the table", "points_px")
    return ground[:, :2]


def set_herd_line(ctx: Any, points_px: list[tuple[float, float]]) -> dict:
    calibration = calibration_in_force(ctx)
    if calibration is None:
        raise GameError("calibrate first: the herd line is set in table millimetres", "points_px", 409)
    ground = _table_points(calibration, np.asarray(points_px, float))
    line = ((float(ground[0][0]), float(ground[0][1])), (float(ground[1][0]), float(ground[1][1])))
    if np.hypot(line[1][0] - line[0][0], line[1][1] - line[0][1]) < 1.0:
        raise GameError("the two points are the same place on the table", "points_px")
    ctx.rig = ctx.rig.model_copy(update={"herd_line_mm": line})
    ctx.games.rig = ctx.rig
    if hasattr(calibration, "model_copy"):
        updates = {"herd_line_mm": line}
        if "herd_line_source" in type(calibration).model_fields:
            updates["herd_line_source"] = "user"
        calibration = calibration.model_copy(update=updates)
    else:
        calibration.herd_line_mm = line
    ctx.calibration = calibration
    ctx.calibration_from_user = True
    if ctx.live:
        ctx.live.set_rig(ctx.rig, calibration)
    ctx.store.audit("referee", "herd line set", {"points_px": points_px, "herd_line_mm": line})
    return {**calibration_info(ctx), "herd_line_mm": [list(p) for p in line]}


def learn_meteor_colour(ctx: Any, x: float, y: float) -> dict:
    frame = _raw_frame(ctx)
    height, width = frame.shape[:2]
    if not (0 <= x < width and 0 <= y < height):
        raise GameError(f"the point is outside the {width}x{height} frame", "x")
    xi, yi = int(x), int(y)
    patch = frame[max(0, yi - 3): yi + 4, max(0, xi - 3): xi + 4].reshape(-1, 3)
    b, g, r = (int(v) for v in np.median(patch, axis=0))
    rgb = (r, g, b)
    meteor = ctx.rig.meteor.model_copy(update={"rgb": rgb})
    ctx.rig = ctx.rig.model_copy(update={"meteor": meteor})
    ctx.games.rig = ctx.rig
    calibration = calibration_in_force(ctx)
    if calibration is not None and hasattr(calibration, "model_copy"):
        calibration = calibration.model_copy(update={"meteor_rgb": rgb})
        ctx.calibration = calibration
        ctx.calibration_from_user = True
    if ctx.live:
        ctx.live.set_rig(ctx.rig, calibration)
    ctx.store.audit("referee", "meteor colour learnt", {"rgb": rgb, "at_px": [x, y]})
    return {**calibration_info(ctx), "meteor_rgb": list(rgb)}
