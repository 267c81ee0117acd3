"""A user's mistake shows our one line only: no FFmpeg, OpenCV or numpy lines printed before it.

Run as real processes: FFmpeg and OpenCV write to the process's standard error themselves.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NO_SUCH_CAMERA = "63"  # an index no machine of ours has


def _stderr_lines(*argv: str) -> tuple[int, list[str]]:
    done = subprocess.run([sys.executable, "-m", "cli.main", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    return done.returncode, [line for line in done.stderr.splitlines() if line.strip()]


@pytest.fixture
def not_a_video(tmp_path) -> Path:
    path = tmp_path / "holiday.mp4"
    path.write_text("this is not a video\n")
    return path


@pytest.mark.parametrize("command", [
    ("calibrate", "{video}", "--out", "{tmp}/cal.json"),
    ("calibrate-lens", "{video}", "--out", "{tmp}/lens.json"),
    ("serve", "--video", "{video}", "--port", "0", "--data", "{tmp}/data"),
    ("demo", "--video", "{video}", "--port", "0", "--data", "{tmp}/data"),
    ("analyze", "{video}", "--rig", str(ROOT / "calibration" / "rigs" / "standard.json")),
    ("calibrate", NO_SUCH_CAMERA, "--out", "{tmp}/cal.json"),
])
def test_only_our_error_line(tmp_path, not_a_video, command):
    argv = [part.format(video=not_a_video, tmp=tmp_path) for part in command]
    code, lines = _stderr_lines(*argv)
    assert code == 2
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"meteors-judge {command[0]}: error: "), lines


def test_a_damaged_video_gives_our_warning_not_ffmpegs(tmp_path):
    import random

    import cv2
    import numpy as np

    path = tmp_path / "damaged.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (320, 240))
    noise = np.random.default_rng(5)
    for _ in range(60):
        writer.write(noise.integers(0, 255, (240, 320, 3), dtype=np.uint8))
    writer.release()
    data = bytearray(path.read_bytes())
    first, last = int(len(data) * 0.4), int(len(data) * 0.6)
    stream = random.Random(3)
    data[first:last] = bytes(stream.getrandbits(8) for _ in range(last - first))
    path.write_bytes(bytes(data))
    code, lines = _stderr_lines("analyze", str(path), "--rig", str(ROOT / "calibration" / "rigs" / "standard.json"))
    assert code == 0
    assert lines and all(line.startswith("meteors-judge analyze: warning: damaged.avi: ") for line in lines), lines
