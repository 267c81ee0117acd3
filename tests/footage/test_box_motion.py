"""The moving box: bumped between launches, tapped left and right in a hard-mode T-Rex launch.

The motion ends where the label's `box_pose` says; the physics carries or pushes the meteor with the
box; the rendered box stands where the label's `box_track` says in every frame.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.geometry import BoxPose
from calibration.truth import load_label
from footage.box_motion import draw_box_motion
from footage.generate import generate_clip
from footage.physics import World, simulate
from footage.world import WIDE, draw_look
from vision.video import read_frames

FINAL = BoxPose(yaw_deg=10.0, translation_mm=(600.0, 0.0))
TAPPED_CLIP = (11, 7)  # (seed, index) of wide clips at 640×480, 30 fps: a tapped box
BUMPED_CLIP = (14, 7)  # and a bumped one


def test_a_tapped_box_moves_side_to_side_across_the_throw_and_ends_at_the_labelled_pose():
    motion = draw_box_motion(np.random.default_rng(3), "tapped", FINAL, np.array([1.0, 0.0]), 0.0, 1.5)
    assert len(motion.start_s) >= 3
    assert np.allclose(motion.shift_mm[:, 0], 0.0)  # across a throw along +x
    assert np.all(np.sign(motion.shift_mm[1:, 1]) == -np.sign(motion.shift_mm[:-1, 1]))
    assert np.all(np.abs(motion.shift_mm[:, 1]) <= 7.0) and np.all(np.abs(motion.turn_deg) <= 1.2)
    assert motion.start_s[0] < 1.5 < motion.end_s - 0.3  # tapped before, during and after the release
    assert motion.pose_at(motion.end_s) == FINAL
    assert motion.pose_at(0.0) != FINAL


def test_a_bumped_box_moves_once_and_stands_still_before_the_release():
    motion = draw_box_motion(np.random.default_rng(4), "bumped", FINAL, np.array([1.0, 0.0]), 0.2, 2.0)
    assert len(motion.start_s) == 1 and motion.start_s[0] >= 0.2
    assert motion.end_s <= 2.0 - 0.35
    assert 8.0 <= float(np.hypot(*motion.shift_mm[0])) <= 35.0
    assert motion.pose_at(2.0) == FINAL
    assert draw_box_motion(np.random.default_rng(4), "still", FINAL, np.array([1.0, 0.0]), 0.0, 2.0) is None


def _box_solids() -> list:
    hx, hy, wall, rim, floor = 150.0, 110.0, 8.0, 55.0, 20.0
    return [
        ((-hx, hx, -hy, -hy + wall, 0.0, rim), "outer"),
        ((-hx, hx, hy - wall, hy, 0.0, rim), "outer"),
        ((-hx, -hx + wall, -hy + wall, hy - wall, 0.0, rim), "outer"),
        ((hx - wall, hx, -hy + wall, hy - wall, 0.0, rim), "outer"),
        ((-hx + wall, hx - wall, -hy + wall, hy - wall, 0.0, floor), "floor"),
    ]


def _sliding_box(shift_mm: float, start_s: float = 0.1, shove_s: float = 0.3):
    """A box at (400, 0) that slides `shift_mm` along +x, eased, from `start_s` for `shove_s`."""

    def state(t_s: float) -> tuple[float, float, float]:
        s = min(max((t_s - start_s) / shove_s, 0.0), 1.0)
        return 0.0, 400.0 + shift_mm * 0.5 * (1 - math.cos(math.pi * s)), 0.0

    return state


def test_a_meteor_lying_in_a_sliding_box_is_carried_and_rests_once_the_box_stands_still():
    world = World(radius=10.0, solids=_box_solids(), box_motion=_sliding_box(30.0), box_still_from=0.4)
    traj = simulate(world, (400.0, 0.0, 30.0), (0.0, 0.0, 0.0), max_time=3.0)
    carried_mm = traj.positions[-1][0] - 400.0
    assert 5.0 < carried_mm <= 30.0 + 0.5  # friction drags it along; it cannot outrun the box
    assert traj.still_time is not None and traj.still_time >= 0.4


def test_a_wall_swept_into_a_meteor_on_the_table_pushes_it_and_a_still_wall_does_not():
    start = (400.0 + 150.0 + 10.0 + 5.0, 0.0, 10.0)  # on the table, 5 mm beyond the box's +x wall
    moving = World(radius=10.0, solids=_box_solids(), box_motion=_sliding_box(30.0), box_still_from=0.4)
    pushed = simulate(moving, start, (0.0, 0.0, 0.0), max_time=3.0)
    still = World(radius=10.0, solids=_box_solids(), box_center=(400.0, 0.0))
    left = simulate(still, start, (0.0, 0.0, 0.0), max_time=3.0)
    assert pushed.positions[-1][0] - start[0] > 15.0
    assert abs(left.positions[-1][0] - start[0]) < 0.5


def test_the_wide_world_draws_every_box_motion_and_taps_only_in_a_hands_on_chest_launch():
    looks = [draw_look(np.random.default_rng([5, i, 1]), np.random.default_rng([5, i, 2])) for i in range(400)]
    kinds = [look.box_motion for look in looks]
    assert {"still", "bumped", "tapped"} == set(kinds)
    assert 0.05 < kinds.count("tapped") / len(kinds) < 0.2
    assert all(look.motion.name == "hands_on_chest" for look in looks if look.box_motion == "tapped")
    assert all(draw_look(np.random.default_rng([5, i, 1])).box_motion == "still" for i in range(20))


@pytest.fixture(scope="module")
def moving_box_clips(tmp_path_factory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("moving_box")
    clips = {}
    for name, (seed, index) in {"tapped": TAPPED_CLIP, "bumped": BUMPED_CLIP}.items():
        folder = out / name
        folder.mkdir()
        info = generate_clip(folder, index, seed, WIDE)
        clips[name] = folder / info["label"]
    return clips


def _box_marker_errors_px(label, frame: np.ndarray, frame_index: int) -> dict[int, float]:
    """For each box marker ArUco finds: how far its corners lie from where the label's box pose puts them."""
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    found = {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.reshape(-1), corners, strict=True)}
    pose = label.box_pose_at(frame_index)
    errors = {}
    for marker in label.scene.box.markers:
        if marker.id in found:
            xy = pose.box_to_table(np.array(marker.corners_mm))
            want = label.camera.project(np.column_stack([xy, np.full(4, marker.z_mm)]))
            errors[marker.id] = float(np.linalg.norm(found[marker.id] - want, axis=1).max())
    return errors


@pytest.mark.parametrize("kind", ["tapped", "bumped"])
def test_the_rendered_box_stands_where_the_box_track_says_in_every_frame(moving_box_clips, kind: str):
    label = load_label(moving_box_clips[kind])
    assert label.box_track, "a moving box is labelled frame by frame"
    moving_frames = [t.frame for t in label.box_track]
    assert label.box_pose_at(label.frame_count - 1) == label.box_pose

    def marker_px(frame_index: int) -> np.ndarray:
        marker = np.array(label.scene.box.markers[0].corners_mm).mean(axis=0, keepdims=True)
        return label.camera.project(np.append(label.box_pose_at(frame_index).box_to_table(marker)[0], 0.0)[None])

    assert max(np.linalg.norm(marker_px(i) - marker_px(label.frame_count - 1)) for i in moving_frames) > 1.5
    checked = np.linspace(0, label.frame_count - 1, 8).round().astype(int).tolist()
    errors = [err for index, frame in read_frames(moving_box_clips[kind].with_suffix(".mp4")) if index in checked
              for err in _box_marker_errors_px(label, frame, index).values()]
    assert len(errors) >= 8
    assert max(errors) < 2.0
    assert label.rest is not None and label.rest.frame > max(moving_frames)  # at rest once the box stands still
