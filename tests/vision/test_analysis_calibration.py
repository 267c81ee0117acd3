"""Markers missing dispute a call only when they leave the calibration unsure (bundled clip, real frames)."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest
from launch_inputs import judge_launch_inputs

from calibration.markers import detect_rig_markers
from calibration.solve import calibrate_frame
from calibration.truth import load_label
from vision.analysis import judge_launch
from vision.pipeline import JudgeConfig

VIDEO = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips" / "clip_000.mp4"


@pytest.fixture(scope="module")
def launch():
    """The judge's own track of the clip's launch, its frame index, and the markers found on frame 0."""
    label = load_label(VIDEO.with_suffix(".json"))
    track, _rig, _calibration, _config, frame_index = judge_launch_inputs(VIDEO, label)[0]
    capture_video = cv2.VideoCapture(str(VIDEO))
    ok, frame = capture_video.read()
    capture_video.release()
    assert ok
    ids = {m.id for m in label.scene.table_markers} | {m.id for m in label.scene.box.markers}
    found = detect_rig_markers(frame, label.scene.aruco_dictionary, ids)
    return label, track, frame_index, frame, found


def _judge_without(launch, hidden: set[int]):
    label, track, frame_index, frame, found = launch
    detections = {i: corners for i, corners in found.items() if i not in hidden}
    calibration = calibrate_frame(frame, label.scene, detections=detections)
    config = JudgeConfig(launch_mode=label.launch_mode)
    return judge_launch(track, label.scene, calibration, config, frame_index)[0]


def test_one_table_marker_missing_is_a_note_and_the_labelled_call_stands(launch):
    label = launch[0]
    verdict = _judge_without(launch, {0})
    assert not verdict.disputed, verdict.dispute_reasons
    assert any("markers missing: [0]" in note for note in verdict.notes)
    assert (verdict.outcome, verdict.dinosaur, verdict.valid) == (label.outcome, label.dinosaur, label.valid)


def test_two_table_markers_missing_leave_too_few_and_dispute_the_call(launch):
    verdict = _judge_without(launch, {0, 1})
    assert verdict.disputed
    assert any("markers missing: [0, 1]" in reason and "only 2 table markers" in reason
               for reason in verdict.dispute_reasons)
