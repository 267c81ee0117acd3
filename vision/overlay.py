"""Drawing only: the track, its bounces, the herd line, the box regions and the verdict over a frame.

Kept apart from deciding (like supervision's annotators): nothing here changes a call.

    annotated = draw_overlay(frame_bgr, judge_or_track, rig, calibration, verdict=None)
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.rig import Rig
from vision.landing import herd_line_in_use

WATER = (200, 140, 60)
DINOSAUR = (60, 180, 60)
TRACK = (0, 220, 255)
BOUNCE = (255, 0, 255)
RELEASE = (255, 255, 255)


def _poly(image: np.ndarray, pixels: np.ndarray, colour, thickness: int = 1) -> None:
    if np.all(np.isfinite(pixels)):
        points = np.round(pixels).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(image, [points], True, colour, thickness, cv2.LINE_AA)


def herd_line_ends_mm(herd_line_mm, extension_mm: float = 400.0) -> np.ndarray:
    """The herd line's two ends on the table (2×2, mm), drawn `extension_mm` past its two measured points."""
    a, b = np.asarray(herd_line_mm, dtype=np.float64)
    direction = (b - a) / np.linalg.norm(b - a)
    return np.array([a - direction * extension_mm, b + direction * extension_mm])


def draw_overlay(frame_bgr: np.ndarray, judge_or_track, rig: Rig, calibration, verdict=None,
                 show_state: bool = True) -> np.ndarray:
    """An annotated copy of `frame_bgr`; `judge_or_track` is a LaunchJudge or a TrackView (or None).

    `show_state` writes the judge's live state in the corner; the dashboard leaves it out (its page
    shows the state beside the picture, and a saved clip's replay labels each frame from the verdict)."""
    image = frame_bgr.copy()
    if calibration is None:
        cv2.putText(image, "calibrating...", (12, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 255), 2, cv2.LINE_AA)
        return image
    camera = calibration.camera
    pose = calibration.box_pose
    floor = rig.box.floor_height_mm
    # box outline at the rim, regions on the floor
    outline = pose.box_to_table(np.asarray(rig.box.outline_mm))
    _poly(image, camera.project(np.column_stack([outline, np.full(len(outline), rig.box.rim_height_mm)])), (0, 0, 0), 2)
    for region in rig.box.regions:
        polygon = pose.box_to_table(np.asarray(region.polygon_mm))
        pixels = camera.project(np.column_stack([polygon, np.full(len(polygon), floor)]))
        _poly(image, pixels, WATER if region.kind == "water" else DINOSAUR, 1)
    herd = herd_line_in_use(rig, calibration)
    if herd is not None:
        pixels = camera.project(herd_line_ends_mm(herd))
        cv2.line(image, tuple(np.round(pixels[0]).astype(int)), tuple(np.round(pixels[1]).astype(int)),
                 (0, 0, 255), 2, cv2.LINE_AA)
    track = judge_or_track.current_track() if hasattr(judge_or_track, "current_track") else judge_or_track
    if track is not None and len(track.frames):
        points = np.round(track.px).astype(np.int32)
        good = np.isfinite(track.px).all(axis=1)
        cv2.polylines(image, [points[good].reshape(-1, 1, 2)], False, TRACK, 1, cv2.LINE_AA)
        for index in track.bounce_indices:
            if 0 <= index < len(points):
                cv2.circle(image, tuple(points[index]), 7, BOUNCE, 2, cv2.LINE_AA)
        if track.release_index is not None and 0 <= track.release_index < len(points):
            cv2.drawMarker(image, tuple(points[track.release_index]), RELEASE, cv2.MARKER_CROSS, 14, 2)
        cv2.circle(image, tuple(points[-1]), 5, TRACK, -1, cv2.LINE_AA)
    if verdict is None and hasattr(judge_or_track, "verdicts") and judge_or_track.verdicts:
        verdict = judge_or_track.verdicts[-1]
    if verdict is not None:
        if verdict.rest is not None:
            rest = camera.project(np.array([[*verdict.rest.table_mm, 0.0]]))[0]
            cv2.drawMarker(image, tuple(np.round(rest).astype(int)), (0, 255, 0), cv2.MARKER_TILTED_CROSS, 16, 2)
        text = verdict.outcome.upper() + (f" ({verdict.dinosaur})" if verdict.dinosaur else "")
        colour = (0, 200, 255) if verdict.disputed else ((0, 200, 0) if verdict.valid else (0, 0, 255))
        lines = [text + ("  DISPUTED" if verdict.disputed else ""),
                 f"bounces before box: {verdict.bounces_before_box}  region: {verdict.region}"]
        lines += verdict.reasons[:2] + verdict.dispute_reasons[:2]
        for row, line in enumerate(lines):
            y = 28 + 26 * row
            cv2.putText(image, line, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(image, line, (12, y), cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2, cv2.LINE_AA)
    elif show_state and hasattr(judge_or_track, "state"):
        cv2.putText(image, judge_or_track.state, (12, 28), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 255), 2,
                    cv2.LINE_AA)
    return image
