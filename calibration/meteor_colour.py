"""The meteor's colour, when the rig leaves it open: from a user's click, or from the thing that moves.

Colours are (r, g, b) 0–255, the rig's `meteor.rgb` form.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from calibration.rig import Rig


class MeteorColourError(ValueError):
    """The colour cannot be learned from what was given; the message says why."""


def colour_at(frame_bgr: np.ndarray, pixel: tuple[float, float], radius_px: float = 4.0) -> tuple[int, int, int]:
    """Median colour (r, g, b) of the disc of `radius_px` round `pixel` (e.g. where the user clicked)."""
    height, width = frame_bgr.shape[:2]
    x, y = pixel
    if not (0 <= x < width and 0 <= y < height):
        raise MeteorColourError(f"pixel ({x:.0f}, {y:.0f}) is outside the {width}×{height} frame")
    radius = max(1, int(round(radius_px)))
    mask = np.zeros((height, width), np.uint8)
    cv2.circle(mask, (int(round(x)), int(round(y))), radius, 255, -1)
    b, g, r = np.median(frame_bgr[mask > 0].reshape(-1, 3), axis=0)
    return int(round(r)), int(round(g)), int(round(b))


def learn_from_click(frame_bgr: np.ndarray, pixel: tuple[float, float], calibration=None,
                     rig: Rig | None = None, height_mm: float = 0.0) -> tuple[int, int, int]:
    """The meteor's colour at a clicked pixel; the disc is sized to the meteor when the camera is known."""
    radius = 4.0
    if calibration is not None and rig is not None:
        ground = calibration.camera.pixel_to_plane(np.array([pixel], float), height_mm + rig.meteor.diameter_mm / 2)
        diameter = float(calibration.camera.apparent_diameter_px(ground, rig.meteor.diameter_mm)[0])
        radius = max(2.0, 0.3 * diameter)
    return colour_at(frame_bgr, pixel, radius)


def learn_from_motion(frames: Iterable[np.ndarray], min_area_px: int = 20, max_area_px: int = 20000,
                      ) -> tuple[int, int, int]:
    """The colour of the compact thing that moves: the background is the per-pixel median of the frames,
    the meteor the roundest moving blob in each frame; its core's median colour over the frames is returned.
    """
    stack = [np.asarray(f) for f in frames]
    if len(stack) < 3:
        raise MeteorColourError("need at least 3 frames to learn the meteor's colour from motion")
    background = np.median(np.stack(stack), axis=0).astype(np.float32)
    samples = []
    for frame in stack:
        difference = np.max(np.abs(frame.astype(np.float32) - background), axis=2)
        moving = (difference > 40).astype(np.uint8) * 255
        moving = cv2.morphologyEx(moving, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(moving, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        best, best_roundness = None, 0.6
        for contour in contours:
            area = cv2.contourArea(contour)
            if not min_area_px <= area <= max_area_px:
                continue
            (cx, cy), radius = cv2.minEnclosingCircle(contour)
            roundness = area / (np.pi * radius**2 + 1e-9)
            if roundness > best_roundness:
                best, best_roundness = (cx, cy, radius), roundness
        if best is not None:
            cx, cy, radius = best
            samples.append(colour_at(frame, (cx, cy), max(1.0, 0.5 * radius)))
    if not samples:
        raise MeteorColourError("nothing round moved in the frames: click on the meteor instead")
    r, g, b = np.median(np.asarray(samples), axis=0)
    return int(round(r)), int(round(g)), int(round(b))
