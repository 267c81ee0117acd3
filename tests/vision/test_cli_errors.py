"""User mistakes given to `analyze`, `eval` and `bench` end in one clear line, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli.main import main

STANDARD_RIG = Path(__file__).resolve().parents[2] / "calibration" / "rigs" / "standard.json"


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def text_mp4(tmp_path: Path) -> Path:
    path = tmp_path / "holiday.mp4"
    path.write_text("this is not a video\n")
    return path


@pytest.fixture
def bad_rig(tmp_path: Path) -> Path:
    rig = json.loads(STANDARD_RIG.read_text())
    rig["meteor"]["diameter_mm"] = -5
    path = tmp_path / "bad_rig.json"
    path.write_text(json.dumps(rig))
    return path


@pytest.fixture
def tiny_video(tmp_path: Path) -> Path:
    """A real three-frame video (nothing to judge in it)."""
    import cv2
    import numpy as np

    clip = tmp_path / "tiny.avi"
    writer = cv2.VideoWriter(str(clip), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (64, 48))
    for _ in range(3):
        writer.write(np.zeros((48, 64, 3), np.uint8))
    writer.release()
    return clip


def assert_clear_error(code: int, err: str, *needles: str) -> None:
    assert code == 2
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith("meteors-judge ")]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], err


def test_analyze_missing_clip(capsys, tmp_path):
    code, out, err = run_cli(capsys, "analyze", str(tmp_path / "nope.mp4"), "--rig", str(STANDARD_RIG))
    assert_clear_error(code, err, "analyze: error:", "video not found", "nope.mp4")
    assert out == ""


def test_analyze_unreadable_video(capsys, text_mp4):
    code, _, err = run_cli(capsys, "analyze", str(text_mp4), "--rig", str(STANDARD_RIG))
    assert_clear_error(code, err, "cannot open video", "holiday.mp4")


def test_analyze_bad_rig(capsys, text_mp4, bad_rig):
    code, _, err = run_cli(capsys, "analyze", str(text_mp4), "--rig", str(bad_rig))
    assert_clear_error(code, err, "bad rig", "bad_rig.json", "meteor.diameter_mm")


def test_analyze_missing_rig(capsys, text_mp4, tmp_path):
    code, _, err = run_cli(capsys, "analyze", str(text_mp4), "--rig", str(tmp_path / "rig.json"))
    assert_clear_error(code, err, "rig file not found")


def test_analyze_rig_that_is_not_json(capsys, text_mp4, tmp_path):
    rig = tmp_path / "rig.json"
    rig.write_text("{oops")
    code, _, err = run_cli(capsys, "analyze", str(text_mp4), "--rig", str(rig))
    assert_clear_error(code, err, "not valid JSON")


def test_analyze_bad_calibration(capsys, text_mp4, tmp_path):
    cal = tmp_path / "cal.json"
    cal.write_text(json.dumps({"schema": "meteors-calibration/1"}))
    code, _, err = run_cli(capsys, "analyze", str(text_mp4), "--rig", str(STANDARD_RIG), "--cal", str(cal))
    assert_clear_error(code, err, "bad calibration", "cal.json")


def test_analyze_snapshot_into_a_missing_folder(capsys, tmp_path, tiny_video):
    out = tmp_path / "no" / "s.png"
    code, _, err = run_cli(capsys, "analyze", str(tiny_video), "--rig", str(STANDARD_RIG), "--snapshot", str(out))
    assert_clear_error(code, err, "cannot write snapshot", "does not exist")


def test_eval_missing_folder(capsys, tmp_path):
    code, _, err = run_cli(capsys, "eval", str(tmp_path / "nowhere"))
    assert_clear_error(code, err, "eval: error:", "folder not found")


def test_eval_folder_without_labelled_clips(capsys, tmp_path, text_mp4):
    (tmp_path / "notes.json").write_text("{}")
    shutil.copy(STANDARD_RIG, tmp_path / "rig.json")
    code, _, err = run_cli(capsys, "eval", str(tmp_path))
    assert code == 2 and "Traceback" not in err
    assert "no labelled clips" in err and "notes.json" in err and "rig.json" in err


def test_bench_missing_clip(capsys, tmp_path):
    code, _, err = run_cli(capsys, "bench", str(tmp_path / "nope.mp4"))
    assert_clear_error(code, err, "bench: error:", "video not found")


def test_bench_unreadable_video(capsys, text_mp4):
    code, _, err = run_cli(capsys, "bench", str(text_mp4))
    assert_clear_error(code, err, "cannot open video")


def test_bench_bad_rig(capsys, tiny_video, bad_rig):
    code, _, err = run_cli(capsys, "bench", str(tiny_video), "--rig", str(bad_rig))
    assert_clear_error(code, err, "bad rig", "meteor.diameter_mm")
