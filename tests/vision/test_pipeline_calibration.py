"""The judge keeps its calibration right during play (issue 4): a bumped camera is followed,
and hidden table markers make the calls unsafe, named by id, instead of judging on stale geometry."""

from pathlib import Path

import cv2
import numpy as np
import pytest
from launch_inputs import scene_for_another_box

from calibration.truth import load_label
from vision.pipeline import JudgeConfig, LaunchJudge
from vision.video import read_frames

CLIP = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips" / "clip_000.mp4"


def _judge(edit) -> list:
    label = load_label(CLIP.with_suffix(".json"))
    judge = LaunchJudge(label.scene, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    events = []
    for index, frame in read_frames(CLIP):
        events += judge.process(edit(index, frame, label), index)
    return events + judge.finish()


def _bump(index, frame, label):
    if index < 60:
        return frame
    shift = np.float32([[1, 0, 12], [0, 1, -7]])
    return cv2.warpAffine(frame, shift, (frame.shape[1], frame.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def _cover_two_table_markers(index, frame, label):
    if index < 50:
        return frame
    for marker in label.scene.table_markers[:2]:
        corners = label.camera.project(np.asarray(marker.corners_mm)).astype(np.int32)
        cv2.fillConvexPoly(frame, cv2.convexHull(corners), (60, 90, 120))
    return frame


@pytest.fixture(scope="module")
def bumped_events():
    return _judge(_bump)


def test_a_bumped_camera_is_followed_and_the_launch_still_judged(bumped_events):
    assert any(e.kind == "calibrated" and "camera moved" in e.message for e in bumped_events)
    verdicts = [e.verdict for e in bumped_events if e.kind == "verdict"]
    assert len(verdicts) == 1
    label = load_label(CLIP.with_suffix(".json"))
    assert verdicts[0].disputed or verdicts[0].outcome == label.outcome


def test_hidden_table_markers_make_calls_unsafe_and_name_the_missing_ids():
    events = _judge(_cover_two_table_markers)
    label = load_label(CLIP.with_suffix(".json"))
    hidden = sorted(m.id for m in label.scene.table_markers[:2])
    warnings = [e.message for e in events if e.kind == "warning"]
    assert any("unsafe" in w and str(hidden) in w for w in warnings), warnings
    verdicts = [e.verdict for e in events if e.kind == "verdict"]
    assert verdicts and all(v.disputed for v in verdicts)
    assert any("unsafe" in reason for reason in verdicts[0].dispute_reasons)


def test_the_calibration_frame_is_searched_for_markers_once(monkeypatch):
    """The tracker's first check uses the markers the calibration was solved from: a second search of
    the same picture cost about 12 ms of CPU at 720p (clip_000's first frame: 52 ms, now 40 ms)."""
    import calibration.markers
    import calibration.tracking

    searches = []
    real = calibration.markers.detect_markers

    def counting(frame, *args, **kwargs):
        searches.append(frame.shape)
        return real(frame, *args, **kwargs)

    monkeypatch.setattr(calibration.markers, "detect_markers", counting)
    monkeypatch.setattr(calibration.tracking, "detect_markers", counting)
    label = load_label(CLIP.with_suffix(".json"))
    judge = LaunchJudge(label.scene, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    _, frame = next(iter(read_frames(CLIP)))
    events = judge.process(frame, 0)
    assert [e.kind for e in events][:1] == ["calibrated"]
    assert searches == [frame.shape]  # the one whole-frame search, no windows round each marker
    status = judge._calibration_tracker.status
    assert status.last_check_frame == 0 and status.safe and status.table_markers_seen


def test_markers_hidden_from_the_first_frame_make_calls_unsafe_at_once():
    """Seeded from the calibration's own markers, the tracker still warns on the calibration frame."""

    def cover_from_start(index, frame, label):
        return _cover_two_table_markers(50, frame, label)

    label = load_label(CLIP.with_suffix(".json"))
    judge = LaunchJudge(label.scene, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    _, frame = next(iter(read_frames(CLIP)))
    events = judge.process(cover_from_start(0, frame, label), 0)
    hidden = sorted(m.id for m in label.scene.table_markers[:2])
    assert any(e.kind == "warning" and "unsafe" in e.message and str(hidden) in e.message for e in events), events


def test_an_empty_frame_before_calibration_is_a_warning_not_a_crash():
    """The marker search now runs before `calibrate_frame`; an empty picture still gets its clear error."""
    label = load_label(CLIP.with_suffix(".json"))
    judge = LaunchJudge(label.scene, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    events = judge.process(np.zeros((0, 0, 3), np.uint8), 0)
    assert [(e.kind, e.message) for e in events] == [("warning", "calibration failed: the frame is empty")]


def test_a_scene_that_never_calibrates_is_searched_less_and_less_often(monkeypatch):
    """clip_000 with a rig for another box (its markers' ids moved) never calibrates. Every third frame
    was searched for markers, a whole-frame search each time: judging ran at 77 frames a second on
    sample clip_026 given the standard rig, 35 times its bare decode. The wait between attempts now
    doubles after each failure, up to `calibrate_every_max` frames (24: 0.4 s at 60 fps)."""
    attempts = []
    real = LaunchJudge._try_calibrate

    def counting(judge, frame, index, events):
        attempts.append(index)
        return real(judge, frame, index, events)

    monkeypatch.setattr(LaunchJudge, "_try_calibrate", counting)
    label = load_label(CLIP.with_suffix(".json"))
    config = JudgeConfig(launch_mode=label.launch_mode)
    judge = LaunchJudge(scene_for_another_box(label.scene), config=config, fps=label.fps)
    events = []
    frames = 0
    for index, frame in read_frames(CLIP):
        events += judge.process(frame, index)
        frames += 1
    assert judge.calibration is None and frames == 233
    assert attempts == [0, 3, 9, 21, 45, 69, 93, 117, 141, 165, 189, 213]  # was every third frame: 78
    assert [e.kind for e in events] == ["warning"] and "calibration failed: no box marker visible" in events[0].message


def test_markers_that_appear_late_still_calibrate_within_the_longest_wait():
    """The first 60 frames show a blank table (no marker: the search fails and its waits grow); the
    judge calibrates on its next attempt after they come into view, within 24 frames."""
    label = load_label(CLIP.with_suffix(".json"))
    judge = LaunchJudge(label.scene, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    calibrated_at = None
    for index, frame in read_frames(CLIP):
        picture = np.full_like(frame, 90) if index < 60 else frame
        if any(e.kind == "calibrated" for e in judge.process(picture, index)) and calibrated_at is None:
            calibrated_at = index
    assert calibrated_at is not None and 60 <= calibrated_at < 60 + 24
