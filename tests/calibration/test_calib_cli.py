"""The commands: `markers`, `calibrate` (image, video, errors without tracebacks) and `calibrate-lens`."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

import cli.main as main

MINE = ("markers", "calibrate", "calibrate-lens")


@pytest.fixture()
def run(monkeypatch):
    monkeypatch.setattr(main, "COMMANDS", {k: v for k, v in main.COMMANDS.items() if k in MINE})
    return main.main


def test_markers_writes_a_pdf(run, tmp_path, capsys):
    assert run(["markers", "--out", str(tmp_path / "m.pdf"), "--dpi", "150"]) == 0
    assert (tmp_path / "m.pdf").read_bytes().startswith(b"%PDF")
    assert "100 mm bar" in capsys.readouterr().out


def test_calibrate_an_image_writes_json_and_overlay(run, tmp_path, oblique, capsys):
    _, frame = oblique
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), frame)
    out, overlay = tmp_path / "cal.json", tmp_path / "overlay.png"
    assert run(["calibrate", str(image), "--out", str(out), "--overlay", str(overlay)]) == 0
    data = json.loads(out.read_text())
    assert data["herd_line_source"] == "cards" and data["quality"]["reprojection_median_px"] < 1.0
    assert cv2.imread(str(overlay)).shape == frame.shape
    assert "box pose: yaw" in capsys.readouterr().out


def test_calibrate_a_video_uses_its_first_still_frames(run, tmp_path, oblique):
    _, frame = oblique
    video = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 30, (frame.shape[1], frame.shape[0]))
    for _ in range(6):
        writer.write(frame)
    writer.release()
    out = tmp_path / "cal.json"
    assert run(["calibrate", str(video), "--out", str(out), "--herd-line=-300,0,300,0"]) == 0
    assert json.loads(out.read_text())["herd_line_source"] == "user"


@pytest.mark.parametrize(
    ("make_source", "extra", "message"),
    [
        (lambda d: str(d / "missing.png"), [], "no such file"),
        (lambda d: _write(d / "grey.png", np.full((200, 300, 3), 128, np.uint8)), [], "no DICT_4X4_50 markers found"),
        (lambda d: _write_text(d / "junk.mp4", "not a video"), [], "cannot read"),
        (lambda d: _write(d / "g.png", np.zeros((50, 50, 3), np.uint8)), ["--rig", "nope.json"], "rig file not found"),
        (lambda d: "9", [], "cannot open camera 9"),
    ],
)
def test_calibrate_bad_input_is_a_message_not_a_traceback(run, tmp_path, capsys, make_source, extra, message):
    code = run(["calibrate", make_source(tmp_path), "--out", str(tmp_path / "c.json"), *extra])
    assert code == 2
    assert message in capsys.readouterr().err


def test_calibrate_lens_from_a_chessboard_video(run, tmp_path):
    video = tmp_path / "board.mp4"
    board = np.full((600, 800), 255, np.uint8)
    for r in range(5):
        for c in range(7):
            if (r + c) % 2 == 0:
                board[100 + r * 60 : 160 + r * 60, 190 + c * 60 : 250 + c * 60] = 0
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 30, (800, 600))
    rng = np.random.default_rng(1)
    for _ in range(12):
        src = np.float32([[0, 0], [800, 0], [800, 600], [0, 600]])
        dst = src + rng.uniform(-70, 70, src.shape).astype(np.float32)
        warped = cv2.warpPerspective(board, cv2.getPerspectiveTransform(src, dst), (800, 600), borderValue=255)
        writer.write(cv2.cvtColor(warped, cv2.COLOR_GRAY2BGR))
    writer.release()
    out = tmp_path / "lens.json"
    code = run(["calibrate-lens", str(video), "--out", str(out), "--board", "chessboard", "--step", "1",
                "--squares", "7x5", "--square-mm", "30"])
    assert code == 0
    assert json.loads(out.read_text())["frames_used"] >= 4


def _write(path, image):
    cv2.imwrite(str(path), image)
    return str(path)


def _write_text(path, text):
    path.write_text(text)
    return str(path)
