"""A random overhead camera framing the play area (height, tilt and lens distortion from the world's ranges)."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraModel


def look_at(center: np.ndarray, target: np.ndarray, right_hint: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """rvec, tvec of a camera at `center` looking at `target`, image x as close as possible to `right_hint`."""
    forward = target - center
    forward = forward / np.linalg.norm(forward)
    right = right_hint - forward * np.dot(right_hint, forward)
    right = right / np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.vstack([right, down, forward])
    rvec = cv2.Rodrigues(rotation)[0].reshape(3)
    tvec = -rotation @ center
    return rvec, tvec


def random_camera(
    rng: np.random.Generator,
    frame_size: tuple[int, int],
    must_see: np.ndarray,
    launch_direction: np.ndarray,
    distortion: bool,
    margin_px: float = 24.0,
    height_mm: tuple[float, float] = (900.0, 1600.0),
    tilt_max_deg: float = 15.0,
    k1_max: float = 0.05,
    k2_max: float = 0.0,
) -> CameraModel:
    """A camera whose frame holds every point of `must_see` (N×3, table mm) with a margin."""
    width, height = frame_size
    pts = np.asarray(must_see, float)
    lo, hi = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
    target = np.append((lo + hi) / 2 + rng.normal(0, 15, 2), 0.0)
    cam_height = float(rng.uniform(*height_mm))
    tilt = np.radians(float(rng.uniform(0, tilt_max_deg)))
    azimuth = float(rng.uniform(0, 2 * np.pi))
    offset = np.array([np.cos(azimuth), np.sin(azimuth)]) * cam_height * np.tan(tilt)
    center = np.array([target[0] + offset[0], target[1] + offset[1], cam_height])
    yaw = np.radians(float(rng.uniform(-12, 12)))
    d = np.asarray(launch_direction, float)[:2]
    d = d / np.linalg.norm(d)
    if rng.random() < 0.25:
        d = -d  # box on the left of the picture
    right_hint = np.array([d[0] * np.cos(yaw) - d[1] * np.sin(yaw), d[0] * np.sin(yaw) + d[1] * np.cos(yaw), 0.0])
    rvec, tvec = look_at(center, target, right_hint)
    rotation = cv2.Rodrigues(rvec)[0]
    cam_pts = pts @ rotation.T + tvec
    xn, yn = cam_pts[:, 0] / cam_pts[:, 2], cam_pts[:, 1] / cam_pts[:, 2]
    cx = width / 2 + float(rng.normal(0, width * 0.004))
    cy = height / 2 + float(rng.normal(0, height * 0.004))
    f_x = min((cx - margin_px) / max(-xn.min(), 1e-6), (width - cx - margin_px) / max(xn.max(), 1e-6))
    f_y = min((cy - margin_px) / max(-yn.min(), 1e-6), (height - cy - margin_px) / max(yn.max(), 1e-6))
    focal = float(min(f_x, f_y)) * float(rng.uniform(0.9, 0.97))
    k1 = float(rng.uniform(-k1_max, k1_max)) if distortion else 0.0
    k2 = float(rng.uniform(-k2_max, k2_max)) if distortion and k2_max > 0 else 0.0
    return CameraModel(
        K=((focal, 0.0, cx), (0.0, focal, cy), (0.0, 0.0, 1.0)),
        dist=(k1, k2, 0.0, 0.0, 0.0),
        rvec=tuple(float(v) for v in rvec),
        tvec=tuple(float(v) for v in tvec),
    )


def in_view(camera: CameraModel, point: np.ndarray, frame_size: tuple[int, int], margin_px: float = 0.0) -> bool:
    u, v = camera.project(np.asarray(point, float).reshape(1, 3))[0]
    return -margin_px <= u < frame_size[0] + margin_px and -margin_px <= v < frame_size[1] + margin_px
