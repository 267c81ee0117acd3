"""Kinds of scene are read from a label (and the table's hue from the clip's first frame), and the
figures per kind add up."""

from pathlib import Path

import numpy as np
import pytest

from calibration.truth import load_label
from vision.evaluate import score_clip
from vision.scene_kinds import box_marker_side_px, kinds_table, scene_kinds, table_hue_angle_deg
from vision.video import read_frames

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"


def test_a_near_black_meteor_early_at_640x480_is_named_so():
    kinds = scene_kinds(load_label(SAMPLES / "clip_023.json"))
    assert {"low-colour meteor", "dark meteor", "640x480", "60 fps", "released < 0.5 s in", "standard"} <= set(kinds)


def test_a_saturated_late_hard_mode_launch_is_named_so():
    kinds = scene_kinds(load_label(SAMPLES / "clip_025.json"))
    assert {"saturated meteor", "1280x720", "30 fps", "hard_velociraptor"} <= set(kinds)
    assert "dark meteor" not in kinds


def test_box_markers_too_small_to_read_are_measured_from_the_labels_camera():
    # clip_007's box markers are about 7 px wide at 640x480 (no ArUco reader decodes them)
    tiny = box_marker_side_px(load_label(SAMPLES / "clip_007.json"))
    readable = box_marker_side_px(load_label(SAMPLES / "clip_006.json"))
    assert tiny is not None and 4.0 < tiny < 12.0
    assert readable is not None and readable > 14.0
    assert "box markers < 14 px" in scene_kinds(load_label(SAMPLES / "clip_007.json"))


def test_the_table_counts_each_clip_once_per_kind():
    labels = [load_label(SAMPLES / f"clip_{index:03d}.json") for index in (7, 23, 25)]
    found = labels[1].model_dump(mode="json")  # a verdict that agrees with its label in every field
    found["release"]["herd_line_signed_mm"] = labels[1].release.herd_line_signed_mm
    scores = [score_clip(labels[0], []), score_clip(labels[1], [found]), score_clip(labels[2], [])]
    table = kinds_table(labels, scores)
    rows = {line.split("  ")[0].strip(): line.split() for line in table.splitlines()[1:]}
    assert rows["all"][1:4] == ["3", "33.3", "%"]  # clips, outcome
    assert rows["640x480"][1] == "2"
    assert rows["hard_velociraptor"][1] == "1"
    assert table.splitlines()[0].split()[:2] == ["kind", "clips"]


def _first_frame(name: str):
    return next(read_frames(SAMPLES / f"{name}.mp4"))[1]


def test_a_meteor_of_the_tables_hue_is_told_from_one_unlike_it_by_the_clips_first_frame():
    # clip_025: a brown meteor on a brown table; clip_006: a green meteor on a purple one
    brown = load_label(SAMPLES / "clip_025.json")
    green = load_label(SAMPLES / "clip_006.json")
    brown_deg = table_hue_angle_deg(brown, _first_frame("clip_025"))
    green_deg = table_hue_angle_deg(green, _first_frame("clip_006"))
    assert brown_deg is not None and brown_deg < 3.0
    assert green_deg is not None and green_deg > 25.0
    assert "meteor of the table's hue" in scene_kinds(brown, brown_deg)
    assert "meteor unlike the table" in scene_kinds(green, green_deg)
    assert not {"meteor of the table's hue", "meteor unlike the table"} & set(scene_kinds(brown))


def test_the_table_hue_is_the_angle_between_the_meteor_and_the_table_under_the_release():
    label = load_label(SAMPLES / "clip_006.json")
    frame = np.zeros((*label.frame_size[::-1], 3), np.uint8)
    frame[:] = label.scene.meteor.rgb[::-1]  # a table of the meteor's own colour
    assert table_hue_angle_deg(label, frame) == pytest.approx(0.0, abs=0.5)
    frame[:] = (0, 0, 255)  # pure red
    red = np.array([1.0, 0.0, 0.0])
    meteor = np.asarray(label.scene.meteor.rgb, float)
    expected = np.degrees(np.arccos(meteor @ red / np.linalg.norm(meteor)))
    assert table_hue_angle_deg(label, frame) == pytest.approx(expected, abs=0.5)
