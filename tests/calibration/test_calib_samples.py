"""The figures of issue 4 on the narrow-world labelled clips of tests/narrow_clips/.

Each clip's `scene` is the rig as it stands (proving a label's scene is a valid rig file) but
with its herd line removed, so that the line must come from the cards.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.evaluate import evaluate_clip
from calibration.rig import load_rig

SAMPLES = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips"
LABELS = sorted(SAMPLES.glob("clip_*.json"))  # every bundled clip (~1 s each)

pytestmark = pytest.mark.skipif(not LABELS, reason="no labelled clips in tests/narrow_clips/")


@pytest.fixture(scope="module", params=LABELS, ids=[p.stem for p in LABELS])
def figures(request):
    return evaluate_clip(request.param)


def test_label_scene_saved_as_json_is_a_valid_rig(tmp_path):
    for label in LABELS:
        path = tmp_path / f"{label.stem}-rig.json"
        path.write_text(json.dumps(json.loads(label.read_text())["scene"]))
        load_rig(path)


def test_sample_clip_calibrates(figures):
    assert figures.error is None


def test_sample_marker_corners_reproject_within_1px_median(figures):
    assert figures.reprojection_median_px < 1.0


def test_sample_table_points_within_2mm(figures):
    assert figures.table_error_max_mm < 2.0


def test_sample_box_pose_within_3mm_and_half_a_degree(figures):
    assert figures.box_translation_error_mm < 3.0
    assert figures.box_yaw_error_deg < 0.5


def test_sample_herd_line_from_cards_within_5mm_at_its_ends(figures):
    assert figures.herd_line_error_mm is not None, "the herd line was not found from the cards"
    assert figures.herd_line_error_mm < 5.0
