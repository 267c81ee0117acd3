"""Kept right during play: cheap per frame, follows a bumped camera, says when calls are unsafe, re-finds the box."""

from __future__ import annotations

import numpy as np
import pytest
from calib_synthetic import look_at_camera, render, standard_scene

import calibration.tracking as tracking
from calibration.geometry import BoxPose
from calibration.solve import calibrate_frame
from calibration.tracking import CalibrationTracker, calibration_doubt


@pytest.fixture(scope="module")
def start(rig):
    scene = standard_scene(rig)
    frame = render(scene)
    return scene, frame, calibrate_frame(frame, rig, find_herd=False)


def test_markers_are_searched_only_every_n_frames(start, rig, monkeypatch):
    _, frame, calibration = start
    calls = []
    real = tracking.detect_markers
    monkeypatch.setattr(tracking, "detect_markers", lambda *a, **k: calls.append(current[0]) or real(*a, **k))
    tracker = CalibrationTracker(calibration, rig, every=30)
    current = [0]
    statuses = []
    for i in range(90):
        current[0] = i
        statuses.append(tracker.update(frame, i))
    assert sorted(set(calls)) == [0, 30, 60]
    assert all(s.safe for s in statuses) and not any(s.camera_moved for s in statuses)
    assert [i for i, s in enumerate(statuses) if s.checked] == [0, 30, 60]


def test_a_bumped_camera_is_followed(start, rig):
    scene, frame, calibration = start
    tracker = CalibrationTracker(calibration, rig, every=30)
    tracker.update(frame, 0)
    bumped_camera = look_at_camera((100.0, -880.0, 1240.0), (10.0, 50.0, 0.0), scene.camera.focal_px)
    bumped = render(standard_scene(rig, camera=bumped_camera, box_pose=scene.box_pose))
    status = tracker.update(bumped, 1)  # most table patches changed: checked at once, not at frame 30
    assert status.checked and status.camera_moved and status.safe
    points = np.array([[x, y] for x in (-400, 0, 400) for y in (-250, 250)], float)
    found = status.calibration.ground_point(bumped_camera.project(points))
    assert np.abs(found - points).max() < 2.0


def test_too_few_table_markers_make_calls_unsafe_and_name_the_missing_ids(start, rig):
    scene, _, calibration = start
    tracker = CalibrationTracker(calibration, rig, every=30)
    hidden = render(standard_scene(rig, camera=scene.camera, box_pose=scene.box_pose, hidden_markers={1, 2, 3, 4}))
    status = tracker.update(hidden, 0)
    assert not status.safe
    assert "missing ids [1, 2, 3, 4]" in status.reason and "unsafe" in status.reason


def test_refresh_box_finds_the_moved_box_and_moving_frames_are_flagged(start, rig):
    scene, frame, calibration = start
    tracker = CalibrationTracker(calibration, rig, every=1000)
    tracker.update(frame, 0)
    moved_pose = BoxPose(yaw_deg=-8.0, translation_mm=(-70.0, 150.0))
    moved = render(standard_scene(rig, camera=scene.camera, box_pose=moved_pose))
    assert tracker.update(moved, 1).box_moving
    pose = tracker.refresh_box(moved, 2)
    assert abs(pose.yaw_deg - moved_pose.yaw_deg) < 0.5
    assert np.hypot(*np.subtract(pose.translation_mm, moved_pose.translation_mm)) < 3.0
    assert not tracker.update(moved, 3).box_moving


def test_without_the_box_watch_a_moving_box_is_not_reported_but_a_bumped_camera_still_is(start, rig):
    scene, frame, calibration = start
    tracker = CalibrationTracker(calibration, rig, every=1000, watch_box=False)
    tracker.update(frame, 0)
    moved_pose = BoxPose(yaw_deg=-8.0, translation_mm=(-70.0, 150.0))
    moved = render(standard_scene(rig, camera=scene.camera, box_pose=moved_pose))
    status = tracker.update(moved, 1)
    assert not status.box_moving and not status.checked
    bumped_camera = look_at_camera((100.0, -880.0, 1240.0), (10.0, 50.0, 0.0), scene.camera.focal_px)
    bumped = render(standard_scene(rig, camera=bumped_camera, box_pose=scene.box_pose))
    status = tracker.update(bumped, 2)
    assert status.checked and status.camera_moved


def test_a_hidden_marker_alone_leaves_calls_safe_when_three_table_markers_and_the_box_are_solved(start, rig):
    scene, _, _ = start
    frame = render(standard_scene(rig, camera=scene.camera, box_pose=scene.box_pose, hidden_markers={1, 2, 3, 11}))
    calibration = calibrate_frame(frame, rig, find_herd=False)
    assert calibration.markers_missing == [1, 2, 3, 11]
    assert calibration_doubt(calibration, rig) is None


def test_fewer_than_three_table_markers_solved_make_calls_doubtful_naming_the_missing(start, rig):
    scene, _, _ = start
    frame = render(standard_scene(rig, camera=scene.camera, box_pose=scene.box_pose, hidden_markers={1, 2, 3, 4}))
    calibration = calibrate_frame(frame, rig, find_herd=False)  # two table markers still calibrate
    doubt = calibration_doubt(calibration, rig)
    assert doubt is not None and "only 2 table markers" in doubt and "[1, 2, 3, 4]" in doubt


def test_a_box_pose_taken_from_an_earlier_calibration_makes_calls_doubtful(start, rig):
    scene, _, calibration = start
    frame = render(standard_scene(rig, camera=scene.camera, box_pose=scene.box_pose, hidden_markers={10, 11, 12, 13}))
    later = calibrate_frame(frame, rig, previous=calibration, find_herd=False)
    assert later.box_pose_source == "previous"
    assert "no box marker seen" in calibration_doubt(later, rig)
