"""A labelled clip's JSON can be given wherever a rig is asked for: its `scene` is the rig."""

import json
from pathlib import Path

import pytest

from calibration.rig import RigError, load_rig
from calibration.truth import load_label

SAMPLE_LABEL = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips" / "clip_000.json"


def test_a_label_file_loads_as_the_rig_of_its_scene():
    assert load_rig(SAMPLE_LABEL) == load_label(SAMPLE_LABEL).scene


def test_a_label_without_a_scene_is_refused_by_name(tmp_path):
    label = tmp_path / "clip.json"
    label.write_text(json.dumps({"schema": "meteors-launch-truth/1", "video": "clip.mp4"}))
    with pytest.raises(RigError, match="without a scene"):
        load_rig(label)
