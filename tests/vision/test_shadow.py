"""The meteor's shadow: found in a frame, and the light fitted from a flight, giving its heights."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from launch_inputs import camera_looking_at, judge_launch_inputs

from calibration.camera import CameraModel
from calibration.truth import load_label
from vision.release import estimate_release
from vision.shadow import G_MM_S2, ShadowWatch, find_shadow, fit_light, shadow_heights

SAMPLES = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips"

TABLE_BGR = np.array([70.0, 110.0, 160.0])  # a wood table
SKIN_BGR = np.array([120.0, 150.0, 200.0])


def _table(rng: np.random.Generator, size=(360, 480)) -> np.ndarray:
    noise = rng.normal(0.0, 1.0, (*size, 3))
    return np.clip(TABLE_BGR + noise, 0, 255).astype(np.uint8)


def _darken_disc(image: np.ndarray, centre, radius: float, factor: float) -> np.ndarray:
    ys, xs = np.mgrid[0 : image.shape[0], 0 : image.shape[1]]
    inside = np.hypot(xs - centre[0], ys - centre[1]) < radius
    out = image.astype(np.float64)
    out[inside] *= factor
    return np.clip(out, 0, 255).astype(np.uint8)


def _paint_disc(image: np.ndarray, centre, radius: float, bgr) -> np.ndarray:
    out = image.copy()
    cv2.circle(out, (int(round(centre[0])), int(round(centre[1]))), int(radius), tuple(float(v) for v in bgr), -1)
    return out


def test_the_shadow_is_the_darker_patch_of_the_tables_own_hue():
    rng = np.random.default_rng(1)
    background = _table(rng)
    frame = _darken_disc(_table(rng), (300.0, 150.0), 9.0, 0.8)
    frame = _paint_disc(frame, (200.0, 180.0), 8.0, (60, 60, 220))  # the meteor itself
    found = find_shadow(frame, background, (200.0, 180.0), 16.0, 200.0)
    assert found is not None
    assert np.hypot(found.x_px - 300.0, found.y_px - 150.0) < 0.5
    assert 0.1 < found.depth < 0.25


def test_a_dark_patch_of_another_hue_is_not_the_shadow():
    """A hand (skin on wood) can be darker than the table but is not the same colour darkened."""
    rng = np.random.default_rng(2)
    background = _table(rng)
    frame = _darken_disc(_table(rng), (320.0, 150.0), 9.0, 0.85)
    frame = _paint_disc(frame, (150.0, 190.0), 14.0, SKIN_BGR * 0.55)  # darker than the table, nearer
    found = find_shadow(frame, background, (200.0, 180.0), 16.0, 220.0)
    assert found is not None
    assert np.hypot(found.x_px - 320.0, found.y_px - 150.0) < 0.5


def test_no_shadow_is_found_on_an_unchanged_table():
    rng = np.random.default_rng(3)
    assert find_shadow(_table(rng), _table(rng), (200.0, 180.0), 16.0, 200.0) is None


def test_the_watch_measures_against_the_table_before_the_launch_in_full_frame_pixels():
    rng = np.random.default_rng(4)
    scale = 4
    full_background = _table(rng, (720, 1280))
    small_background = cv2.resize(full_background, (320, 180), interpolation=cv2.INTER_AREA).astype(np.float32)
    watch = ShadowWatch()
    watch.start(small_background)
    frame = _darken_disc(_table(rng, (720, 1280)), (700.0, 300.0), 14.0, 0.8)
    found = watch.measure(frame, 10, scale, 600.0, 420.0, 18.0)
    assert found is not None
    assert np.hypot(found.x_px - 700.0, found.y_px - 300.0) < 1.5
    watch.reset()
    assert watch.measure(frame, 11, scale, 600.0, 420.0, 18.0) is None


def _camera() -> CameraModel:
    return camera_looking_at((-700.0, -150.0, 1100.0), (150.0, 0.0, 0.0))


def _flight(slope, n=14, fps=60.0):
    """A free arc and its shadow under a light of `slope` (the shadow's offset per mm of height)."""
    times_s = np.arange(n) / fps
    start, velocity = np.array([0.0, 0.0, 220.0]), np.array([1500.0, 200.0, 900.0])
    centres = start + times_s[:, None] * velocity
    centres[:, 2] -= 0.5 * G_MM_S2 * times_s**2
    shadows = np.column_stack([centres[:, :2] - np.outer(centres[:, 2], slope), np.zeros(n)])
    camera = _camera()
    return camera, times_s, centres, camera.project(centres), camera.project(shadows)


@pytest.mark.parametrize("slope", [(0.25, -0.1), (-0.05, 0.45), (0.6, 0.3)])
def test_the_light_is_the_one_under_which_the_heights_fall_freely(slope):
    camera, times_s, centres, meteor_px, shadow_px = _flight(np.array(slope))
    rng = np.random.default_rng(5)
    shadow_px = shadow_px + rng.normal(0.0, 0.3, shadow_px.shape)
    light = fit_light(camera, meteor_px, shadow_px, times_s)
    assert light is not None
    assert np.allclose(light.slope, slope, atol=0.02)
    assert np.abs(light.heights_mm - centres[:, 2]).max() < 8.0
    assert light.rms_mm < 2.0
    heights = shadow_heights(camera, light.slope, meteor_px, shadow_px)
    assert np.allclose(heights, light.heights_mm)


def test_a_stray_dark_patch_taken_for_the_shadow_is_left_out_of_the_light_fit():
    slope = np.array([0.3, 0.15])
    camera, times_s, centres, meteor_px, shadow_px = _flight(slope)
    shadow_px[9] += (60.0, -40.0)  # the meteor near a card's dark edge: something else was taken
    light = fit_light(camera, meteor_px, shadow_px, times_s)
    assert light is not None
    assert not light.inliers[9]
    assert light.inliers.sum() == len(times_s) - 1
    assert np.allclose(light.slope, slope, atol=0.01)


def test_too_few_shadows_give_no_light():
    camera, times_s, _, meteor_px, shadow_px = _flight(np.array([0.3, 0.1]), n=4)
    assert fit_light(camera, meteor_px, shadow_px, times_s) is None


def test_the_shadow_pins_the_release_height_of_a_real_clip():
    """tests/narrow_clips/clip_006: the apparent size alone puts the release 41 mm too low; the shadow's
    heights bring the fit within a centimetre of the label."""
    label = load_label(SAMPLES / "clip_006.json")
    track, rig, calibration = judge_launch_inputs(SAMPLES / label.video, label)[0][:3]
    shadowed = np.isfinite(track.shadow_px).all(axis=1)
    assert shadowed.sum() >= 10  # the streaming judge measured the flight's shadow

    def release_height_error_mm(track) -> tuple[float, object]:
        est = estimate_release(track, calibration.camera, rig.meteor.diameter_mm, size_scale=0.95)
        assert est.reliable
        at_release = est.model_position(est.frame_time_s(label.release.frame))[0]
        return float(at_release[2] - label.release.height_mm), est

    with_shadow, est = release_height_error_mm(track)
    without_shadow, bare = release_height_error_mm(replace(track, shadow_px=np.zeros((0, 2))))
    assert "shadow" in est.reason_kinds and "shadow" not in bare.reason_kinds
    assert abs(with_shadow) < 10.0
    assert abs(without_shadow) > 30.0
