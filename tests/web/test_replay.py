"""The replay's key frames and the judge's marks, projected into the clip's pixels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.truth import load_label
from vision.pipeline import calibration_from_label
from web.replay import in_clip, key_frames, marks_px, release_caption

SAMPLE = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips" / "clip_000.json"
pytestmark = pytest.mark.skipif(not SAMPLE.exists(), reason="bundled sample clip is not there")


@pytest.fixture
def labelled() -> tuple[dict, object]:
    """The bundled clip's label as a verdict would give it, and its calibration."""
    label = load_label(SAMPLE)
    verdict = json.loads(SAMPLE.read_text())
    verdict["start_frame"] = verdict["release"]["frame"] - 40
    return verdict, label


def test_key_frames_run_from_the_hold_to_the_rest(labelled):
    verdict, label = labelled
    keys = key_frames(verdict, fps=60.0)
    names = [key["name"] for key in keys]
    assert names == ["hold", "release", "bounce", "box", "bounce", "bounce", "bounce", "rest"]
    assert [key["frame"] for key in keys] == sorted(key["frame"] for key in keys)
    assert keys[0]["frame"] == verdict["release"]["frame"] - 15  # a quarter second before the release
    assert [key["label"] for key in keys if key["name"] == "bounce"] == [
        "bounce 1 on the table", "bounce 2 on the box floor", "bounce 3 on the box floor", "bounce 4 on the box floor"]
    clip = in_clip(keys, first_frame=verdict["release"]["frame"] - 60, frames=100)
    assert [key["clip_index"] for key in clip][:2] == [45, 60]
    assert all(0 <= key["clip_index"] < 100 for key in clip) and len(clip) < len(keys)  # the rest is past the clip


def test_marks_project_the_release_its_ground_point_and_the_bounces(labelled):
    verdict, label = labelled
    marks = marks_px(verdict, calibration_from_label(label), label.scene)
    meteor, ground = marks["release"]["meteor"], marks["release"]["ground"]
    width, height = label.frame_size
    assert all(0 <= x < width and 0 <= y < height for x, y in (meteor, ground, marks["rest"]))
    assert ground[1] > meteor[1] + 10  # the table under a meteor 156 mm up is lower in the picture
    assert len(marks["bounces"]) == 4 and marks["bounces"][0]["frame"] == 134
    assert len(marks["herd_line"]) == 2
    assert marks_px(verdict, None, label.scene) is None  # no calibration: no marks rather than wrong ones


def test_release_caption_says_where_the_release_was():
    assert release_caption({"release": {"herd_line_signed_mm": -12.4}}) == (
        "At the release the meteor is above a point 12 mm over the line (it must be released behind the line).")
    assert release_caption({"release": None}) == "The release was not seen."
