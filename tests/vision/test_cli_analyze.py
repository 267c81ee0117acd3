"""`meteors-judge analyze` end to end on a bundled clip: its verdict is its label's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from launch_inputs import scene_for_another_box

from calibration.truth import load_label
from cli.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips"
CLIP = SAMPLES / "clip_000.mp4"

pytestmark = pytest.mark.skipif(not CLIP.exists(), reason="tests/narrow_clips/clip_000.mp4 is not there")


@pytest.fixture(scope="module")
def label():
    return load_label(CLIP.with_suffix(".json"))


@pytest.fixture
def rig_file(tmp_path: Path, label) -> Path:
    """The label's scene saved as a rig file, as a user would write it."""
    path = tmp_path / "rig.json"
    path.write_text(label.scene.model_dump_json(indent=2))
    return path


@pytest.fixture(scope="module")
def analyzed(tmp_path_factory, label):
    """`analyze --json --snapshot` run once on clip_000: (exit code, stdout, stderr, snapshot path)."""
    import subprocess
    import sys

    folder = tmp_path_factory.mktemp("analyze")
    rig = folder / "rig.json"
    rig.write_text(label.scene.model_dump_json(indent=2))
    snapshot = folder / "moment.png"
    argv = ["analyze", str(CLIP), "--rig", str(rig), "--launch-mode", label.launch_mode, "--json",
            "--snapshot", str(snapshot)]
    done = subprocess.run([sys.executable, "-m", "cli.main", *argv], capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr, snapshot


def test_analyze_json_is_one_object_and_the_snapshot_is_written(analyzed, label):
    code, out, err, snapshot = analyzed
    assert code == 0, err
    payload = json.loads(out)  # exactly one JSON object on standard output
    assert list(payload) == ["launches", "warnings"]
    assert len(payload["launches"]) == 1
    assert "\r" not in err  # no progress bar when standard error is not a terminal

    import cv2

    picture = cv2.imread(str(snapshot))
    assert picture is not None and picture.shape[:2] == (label.frame_size[1], label.frame_size[0])


def test_analyze_json_gives_the_verdict_of_the_label(analyzed, label):
    code, out, err, _ = analyzed
    assert code == 0, err
    verdict = json.loads(out)["launches"][0]
    judged = {key: verdict[key] for key in ("outcome", "dinosaur", "valid", "bounces_before_box", "herd_line_ok")}
    truth = {key: getattr(label, key) for key in judged}
    assert judged == truth
    assert abs(verdict["release"]["frame"] - label.release.frame) <= 3


def test_analyze_prints_a_summary_for_a_person(capsys, rig_file, label):
    code = main(["analyze", str(CLIP), "--rig", str(rig_file), "--launch-mode", label.launch_mode])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "clip_000.mp4: 1 launch" in out
    assert "Launch 1 (frames" in out and ("VOID" in out or "valid launch" in out)
    assert "release" in out and "bounces" in out and "rest" in out
    # each margin in its own unit: bounces are counted, distances in mm
    margins = next(line for line in out.splitlines() if line.strip().startswith("margins"))
    assert re.search(r"bounces \d+ ± \d+ bounce\(s\)", margins), margins
    assert re.search(r"herd_line -?[0-9.]+ ± [0-9.]+ mm", margins), margins


def test_analyze_summary_lists_the_doubts_that_cannot_change_the_ruling(capsys) -> None:
    """clip_029's verdict carries notes (an unreliable release fit and why, a bounce count of at least 1
    where 1 is needed); a person reading the summary sees them, not only the JSON."""
    clip = SAMPLES / "clip_029.mp4"
    code = main(["analyze", str(clip), "--rig", str(clip.with_suffix(".json"))])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "  notes     release estimate unreliable (meteor hidden for 6 frames around the release;" in out
    assert "cannot change the ruling" in out


@pytest.fixture
def other_box_rig(tmp_path: Path, label) -> Path:
    """The label's scene with a box whose markers carry other ids: a rig file for another game box."""
    path = tmp_path / "other_box.json"
    path.write_text(scene_for_another_box(label.scene).model_dump_json(indent=2))
    return path


def test_a_rig_that_never_calibrates_says_why_no_launch_was_judged(capsys, other_box_rig, label):
    """With a rig file for another box no frame calibrates, so nothing can be judged. The summary used
    to end at "No launch found." and drop the judge's warnings, the only place the reason was; it now
    says no frame calibrated and lists them. With --json, standard output stays one JSON object and
    the reason goes to standard error."""
    wrong_ids = sorted(marker.id for marker in scene_for_another_box(label.scene).box.markers)
    code = main(["analyze", str(CLIP), "--rig", str(other_box_rig)])
    out, _ = capsys.readouterr()
    assert code == 0
    assert "clip_000.mp4: 0 launches" in out and "No launch judged: no frame gave a calibration" in out
    assert f"calibration failed: no box marker visible (box ids {wrong_ids} missing)" in out

    code = main(["analyze", str(CLIP), "--rig", str(other_box_rig), "--json"])
    out, err = capsys.readouterr()
    payload = json.loads(out)
    assert code == 0 and payload["launches"] == []
    assert any(f"box ids {wrong_ids} missing" in line for line in payload["warnings"])
    assert "No launch judged" in err and f"box ids {wrong_ids} missing" in err
