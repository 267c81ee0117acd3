"""Benchmark: decode and judge the bundled clip_000 (a plain test under --benchmark-disable).

`make bench` runs it with --benchmark-enable; speed is measured here, never asserted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.truth import load_label
from vision.runner import run_judge

CLIP = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips" / "clip_000.mp4"


@pytest.mark.skipif(not CLIP.exists(), reason="tests/narrow_clips/clip_000.mp4 is not there")
def test_judge_clip_000(benchmark):
    import cv2

    cv2.setNumThreads(1)  # one core, as `meteors-judge bench` measures it
    truth = load_label(CLIP.with_suffix(".json"))

    def judge() -> list:
        return run_judge(CLIP, truth.scene, launch_mode=truth.launch_mode).verdicts

    try:
        verdicts = benchmark.pedantic(judge, rounds=3, iterations=1)  # runs once when disabled
    finally:
        cv2.setNumThreads(-1)  # back to OpenCV's default for the tests that follow
    assert verdicts, "the judge found no launch in clip_000"
