"""Kinks of a pixel track from a simulated bouncing flight with known answers."""

import cv2
import numpy as np

from calibration.camera import CameraModel
from vision.kinks import pixel_segments
from vision.release import G_MM_S2


def _camera():
    rotation = cv2.Rodrigues(np.array([np.pi, 0.0, 0.0]))[0]  # looking straight down
    centre = np.array([300.0, 200.0, 1200.0])
    return CameraModel(K=((1000, 0, 640), (0, 1000, 360), (0, 0, 1)),
                       rvec=tuple(cv2.Rodrigues(rotation)[0].ravel()), tvec=tuple(-rotation @ centre))


def _bouncing_flight(fps=60.0, radius=12.0):
    """Release at 200 mm, then table bounces: positions per frame and the frames after each bounce."""
    dt = 1e-4
    p = np.array([0.0, 100.0, 200.0])
    v = np.array([1500.0, 300.0, 0.0])
    out, bounces, t, next_frame = [], [], 0.0, 0.0
    while len(out) < 40:
        if t >= next_frame:
            out.append(p.copy())
            next_frame += 1 / fps
        v[2] -= G_MM_S2 * dt
        p = p + v * dt
        if p[2] < radius and v[2] < 0:
            v[2] *= -0.6
            v[:2] *= 0.8
            bounces.append(len(out))
        t += dt
    return np.array(out), bounces


def test_pixel_track_breaks_at_the_bounce():
    camera = _camera()
    positions, bounces = _bouncing_flight()
    positions, bounces = positions[:32], [b for b in bounces if b < 30][:2]  # two bounces, both big
    rng = np.random.default_rng(1)
    pixels = camera.project(positions) + rng.normal(0, 0.3, (len(positions), 2))
    times = np.arange(len(pixels)) / 60.0
    pieces = pixel_segments(times, pixels, np.full(len(pixels), 0.3), penalty=60.0)
    breaks = [start for start, _ in pieces[1:]]
    assert len(breaks) == len(bounces) and all(abs(b - t) <= 2 for b, t in zip(breaks, bounces, strict=True))


def test_smooth_flight_has_no_break():
    camera = _camera()
    positions, bounces = _bouncing_flight()
    pixels = camera.project(positions[: bounces[0] - 1])
    times = np.arange(len(pixels)) / 60.0
    assert len(pixel_segments(times, pixels, np.full(len(pixels), 0.3), penalty=60.0)) == 1
