"""The renderer's hand: an arm reaching past the camera is drawn, never mirrored."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.camera import CameraModel
from footage.camera_rig import look_at
from footage.render import HandState, Renderer


def _overhead_renderer(camera_height_mm: float) -> Renderer:
    rvec, tvec = look_at(np.array([0.0, 0.0, camera_height_mm]), np.zeros(3), np.array([1.0, 0.0, 0.0]))
    camera = CameraModel(K=((900.0, 0.0, 640.0), (0.0, 900.0, 360.0), (0.0, 0.0, 1.0)),
                         rvec=tuple(float(v) for v in rvec), tvec=tuple(float(v) for v in tvec))
    renderer = Renderer.__new__(Renderer)  # only the projection is needed, not the scene's textures
    renderer.camera, renderer.R, renderer.t = camera, camera.rotation, camera.translation
    renderer.skin = np.array((120.0, 150.0, 200.0), np.float32)
    renderer.look = None  # the narrow world's hand
    return renderer


def test_a_shoulder_above_the_camera_is_clipped_to_a_finite_convex_arm():
    """The shoulder is drawn 260 mm above the palm: a raised palm under a low camera puts it behind
    the camera plane, where projecting it mirrors the arm into a frame-wide bow-tie (or NaN)."""
    renderer = _overhead_renderer(camera_height_mm=700.0)
    hand = HandState(palm=np.array([300.0, 0.0, 480.0]), forward=np.array([1.0, 0.0, 0.0]), grip=1.0, visible=True)
    arm_px = renderer._hand_shapes(hand)[0][0]
    assert np.isfinite(arm_px).all()
    assert cv2.isContourConvex(np.round(arm_px).astype(np.int32).reshape(-1, 1, 2))


def test_a_shoulder_well_below_the_camera_is_left_where_it_is():
    renderer = _overhead_renderer(camera_height_mm=1400.0)
    hand = HandState(palm=np.array([300.0, 0.0, 120.0]), forward=np.array([1.0, 0.0, 0.0]), grip=1.0, visible=True)
    shoulder = np.array([300.0 - 650.0, 120.0, 380.0])
    assert np.allclose(renderer._in_front(shoulder, hand.palm), shoulder)
