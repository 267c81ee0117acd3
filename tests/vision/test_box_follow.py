"""The box followed while it moves: the detector's background keeps the box where the video shows it.

Real decoded frames of bundled wide clips whose labels say where the box stood in every frame.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.truth import load_label
from vision.box_follow import BoxFollower, box_silhouette_px
from vision.detector import MeteorDetector
from vision.video import read_frames

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
pytestmark = pytest.mark.skipif(not (SAMPLES / "clip_014.mp4").exists(), reason="no bundled sample clips")


def _changed_share(frame_bgr: np.ndarray, detector: MeteorDetector, silhouette_px: np.ndarray) -> float:
    """Share of the box's reduced pixels whose grey level differs from the background by more than 25."""
    small = detector.reduce(frame_bgr)
    mask = np.zeros(small.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.int32(np.round(silhouette_px / detector.scale)), 255)
    grey = cv2.cvtColor(small.astype(np.float32), cv2.COLOR_BGR2GRAY)
    background = cv2.cvtColor(detector.background, cv2.COLOR_BGR2GRAY)
    return float(np.count_nonzero((np.abs(grey - background) > 25) & (mask > 0))) / np.count_nonzero(mask)


def _follow_clip(name: str, last_frame: int | None = None) -> tuple[BoxFollower, MeteorDetector, np.ndarray, object]:
    """A detector whose background is the clip's first frame and a follower placed where the label puts
    the box then, fed every frame up to `last_frame`; returns them, the last frame and the label."""
    label = load_label(SAMPLES / f"{name}.json")
    detector = MeteorDetector(tuple(label.frame_size), (200, 80, 40), (8.0, 40.0), scale=4)
    follower = None
    frame = None
    for index, frame in read_frames(SAMPLES / f"{name}.mp4"):
        if index == 0:
            detector.update_background(detector.reduce(frame), None, 1.0)
            detector.update_full_background(frame, None, 1.0)
            follower = BoxFollower(label.scene, label.box_pose_at(0), label.camera, detector)
            continue
        follower.follow(frame, detector, None)
        if last_frame is not None and index >= last_frame:
            break
    return follower, detector, frame, label


def test_a_bumped_box_is_followed_and_the_background_shows_it_where_it_now_stands():
    label = load_label(SAMPLES / "clip_014.json")
    assert label.box_track, "clip_014 is a bumped box"
    stopped = label.box_track[-1].frame + 3  # the bump is over, the launch not yet begun
    assert stopped < label.release.frame - 10
    follower, detector, frame, label = _follow_clip("clip_014", stopped)
    where = box_silhouette_px(label.scene, label.box_pose_at(stopped), label.camera)
    assert follower.moves >= 1
    followed = _changed_share(frame, detector, where)
    unfollowed = MeteorDetector(tuple(label.frame_size), (200, 80, 40), (8.0, 40.0), scale=4)
    first = next(f for _, f in read_frames(SAMPLES / "clip_014.mp4"))
    unfollowed.update_background(unfollowed.reduce(first), None, 1.0)
    assert _changed_share(frame, unfollowed, where) > 0.05  # the bump shows as change against the old picture
    assert followed < 0.25 * _changed_share(frame, unfollowed, where)


def test_a_picture_from_before_the_bump_is_moved_to_where_the_box_now_stands():
    """`moved_since`: the first frame, taken before clip_014's bump, moved by the follower's warp since
    then, matches the frame after the bump over the box far better than the first frame as it was."""
    label = load_label(SAMPLES / "clip_014.json")
    stopped = label.box_track[-1].frame + 3
    follower, _, frame, label = _follow_clip("clip_014", stopped)
    first = next(f for _, f in read_frames(SAMPLES / "clip_014.mp4"))
    mask = np.zeros(frame.shape[:2], np.uint8)
    cv2.fillConvexPoly(mask, np.int32(np.round(box_silhouette_px(label.scene, label.box_pose_at(stopped),
                                                                 label.camera))), 255)

    def changed_share(picture: np.ndarray) -> float:
        changed = cv2.absdiff(frame, picture.astype(np.uint8)).max(axis=2) > 30
        return float(np.count_nonzero(changed & (mask > 0))) / np.count_nonzero(mask)

    moved = follower.moved_since(first, np.eye(2, 3, dtype=np.float32))
    assert changed_share(first) > 0.05
    assert changed_share(moved) < 0.25 * changed_share(first)
    assert follower.moved_since(first, follower.warp) is first  # no motion since: the picture itself


@pytest.mark.parametrize("name", ["clip_000", "clip_003"])
def test_a_box_that_stands_still_is_never_moved_whatever_passes_over_it(name: str):
    label = load_label(SAMPLES / f"{name}.json")
    assert not label.box_track, f"{name} has a still box"
    follower, *_ = _follow_clip(name)
    assert follower.moves == 0


def _holds_before_release_px(name: str, follow_box: bool) -> list[tuple[float, float]]:
    """Where the judge saw the meteor each time it took it for held in a hand, before the labelled release."""
    from vision import pipeline

    label = load_label(SAMPLES / f"{name}.json")
    judge = pipeline.LaunchJudge(label.scene, config=pipeline.JudgeConfig(follow_box=follow_box), fps=label.fps)
    holds = []
    for index, frame in read_frames(SAMPLES / f"{name}.mp4"):
        if index > label.release.frame:
            break
        for event in judge.process(frame, index):
            if event.kind == "state" and judge.state == "in_hand" and judge.tracker.x is not None:
                holds.append((float(judge.tracker.x[0]), float(judge.tracker.x[1])))
    return holds


def test_the_marker_borders_of_a_tapped_box_are_not_taken_for_a_held_meteor():
    """clip_013: a white meteor and a box tapped from the first frame. Unfollowed, the box's moving white
    marker borders are taken for the meteor in a hand; followed, the holds seen before the throw are off the box."""
    label = load_label(SAMPLES / "clip_013.json")
    assert label.box_track and label.scene.meteor.rgb is not None
    box = box_silhouette_px(label.scene, label.box_pose_at(0), label.camera).astype(np.float32)

    def on_box(point: tuple[float, float]) -> bool:
        return cv2.pointPolygonTest(box.reshape(-1, 1, 2), point, False) >= 0

    assert any(on_box(p) for p in _holds_before_release_px("clip_013", follow_box=False))
    holds = _holds_before_release_px("clip_013", follow_box=True)
    assert holds and not any(on_box(p) for p in holds)
