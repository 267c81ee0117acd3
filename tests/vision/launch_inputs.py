"""Test support: what the streaming judge hands to `judge_launch` for each launch of a real clip."""

from __future__ import annotations

from pathlib import Path

import pytest

import vision.pipeline as pipeline
from vision.runner import run_judge


def judge_launch_inputs(video: Path, label) -> list[tuple]:
    """Run the judge on `video` with its label's scene and launch mode; every `judge_launch` call's
    arguments (track, rig, calibration, config, frame_index), in order."""
    calls = []
    original = pipeline.judge_launch

    def capture(*arguments):
        calls.append(arguments)
        return original(*arguments)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "judge_launch", capture)
        run_judge(video, label.scene, launch_mode=label.launch_mode)
    return calls
