"""The detector on synthetic frames with known answers."""

import cv2
import numpy as np

from vision.detector import MeteorDetector

TABLE_BGR = (60, 100, 140)
METEOR_RGB = (245, 135, 20)


def _table(width=640, height=360, seed=0):
    rng = np.random.default_rng(seed)
    frame = np.zeros((height, width, 3), np.uint8)
    frame[:] = TABLE_BGR
    noise = rng.normal(0, 3, (height, width, 1))
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def _disc(frame, x, y, diameter, colour_rgb=METEOR_RGB):
    out = frame.copy()
    cv2.circle(out, (int(round(x * 16)), int(round(y * 16))), int(round(diameter / 2 * 16)), colour_rgb[::-1], -1,
               cv2.LINE_AA, 4)
    return out


def _detector(frame):
    detector = MeteorDetector((frame.shape[1], frame.shape[0]), METEOR_RGB, (10.0, 40.0), scale=2)
    small = detector.reduce(frame)
    detector.update_background(small, None, 1.0)
    detector.update_full_background(frame, None, 1.0)
    return detector


def _detect(detector, frame):
    small = detector.reduce(frame)
    found = detector.candidates(small)
    assert found, "no candidate"
    x, y, area, _, _ = max(found, key=lambda c: c[2])
    return detector.refine(frame, x, y, area)


def test_finds_centroid_and_diameter_of_a_disc():
    table = _table()
    detector = _detector(table)
    detection = _detect(detector, _disc(table, 300.3, 170.6, 20.0))
    assert abs(detection.x - 300.3) < 0.5 and abs(detection.y - 170.6) < 0.5
    assert abs(detection.diameter_px - 20.0) < 2.0
    assert detection.elongation < 1.2


def test_ignores_a_shadow_and_finds_nothing_on_the_bare_table():
    table = _table()
    detector = _detector(table)
    shadowed = table.copy()
    cv2.circle(shadowed, (200, 200), 14, tuple(int(c * 0.55) for c in TABLE_BGR), -1)
    assert detector.candidates(detector.reduce(shadowed)) == []
    assert detector.candidates(detector.reduce(table)) == []


def test_motion_blurred_streak_centre_is_mid_exposure_and_size_survives():
    table = _table()
    detector = _detector(table)
    accumulated = np.zeros(table.shape, np.float32)
    steps = 12
    for k in range(steps):  # the meteor sweeps 30 px to the right during the exposure
        accumulated += _disc(table, 280 + 30 * (k + 0.5) / steps, 150, 18.0).astype(np.float32)
    streak = (accumulated / steps).astype(np.uint8)
    detection = _detect(detector, streak)
    assert abs(detection.x - 295.0) < 1.0 and abs(detection.y - 150.0) < 0.7
    assert detection.elongation > 1.5
    assert abs(detection.diameter_px - 18.0) < 3.0
