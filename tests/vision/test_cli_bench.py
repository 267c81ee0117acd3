"""`meteors-judge bench` and the video runner, with a stand-in judge on a tiny video.

The stand-in makes the figures exact (which frame the verdict comes out at); the real judge's
speed is measured by `meteors-judge bench` itself and tests/benchmarks, never asserted.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

import vision.runner
from cli.main import main
from vision.verdict import Verdict

STANDARD_RIG = Path(__file__).resolve().parents[2] / "calibration" / "rigs" / "standard.json"
FRAMES = 30
REST_FRAME = 10  # labelled
VERDICT_AT = 14  # the stand-in's verdict comes out while processing this frame
ANALYSIS_S = 0.05  # ... which takes at least this long (as the real judge's analysis of a launch does)


def verdict_dict() -> dict:
    return {
        "outcome": "water", "dinosaur": None, "valid": True, "region": "water_center", "landing": "water",
        "bounces_before_box": 1, "release": {"frame": 3, "table_mm": [0, -300], "height_mm": 100,
                                             "herd_line_signed_mm": 30},
        "herd_line_ok": True, "entered_box_frame": 7, "rest": {"frame": 11, "table_mm": [0, 0], "box_mm": [0, 0]},
        "start_frame": 0, "verdict_frame": VERDICT_AT,
    }


@dataclass
class Event:
    kind: str
    frame: int
    message: str = ""
    verdict: Verdict | None = None


class StandInJudge:
    calibration = None

    def __init__(self) -> None:
        self.seen: list[int] = []

    def process(self, frame, index):
        self.seen.append(index)
        if index == VERDICT_AT:
            time.sleep(ANALYSIS_S)
            return [Event("rest", 11), Event("verdict", index, "water", Verdict.model_validate(verdict_dict()))]
        return []

    def finish(self):
        return [Event("warning", self.seen[-1], "end")]


@pytest.fixture
def clip(tmp_path: Path) -> Path:
    import cv2
    import numpy as np

    path = tmp_path / "tiny.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (64, 48))
    for i in range(FRAMES):
        writer.write(np.full((48, 64, 3), i * 8, np.uint8))
    writer.release()
    return path


@pytest.fixture
def labelled_clip(clip: Path) -> Path:
    scene = json.loads(STANDARD_RIG.read_text())
    label = {
        "schema": "meteors-launch-truth/1", "video": clip.name, "fps": 30.0, "frame_size": [64, 48],
        "frame_count": FRAMES, "launch_mode": "hard_velociraptor", "scene": scene,
        "box_pose": {"yaw_deg": 0, "translation_mm": [0, 0]},
        "release": {"frame": 3, "table_mm": [0, -300], "height_mm": 100, "herd_line_signed_mm": 30},
        "herd_line_ok": True, "bounces": [], "bounces_before_box": 2, "entered_box_frame": 7,
        "rest": {"frame": REST_FRAME, "table_mm": [0, 0], "box_mm": [0, 0]},
        "region": "water_center", "landing": "water", "valid": True, "outcome": "water", "dinosaur": None,
    }
    clip.with_name("some_label.json").write_text(json.dumps(label))  # any name: the label names its video
    return clip


@pytest.fixture(autouse=True)
def default_threads():
    """`bench` sets OpenCV to one thread; give the tests that follow OpenCV's default back."""
    import cv2

    yield
    cv2.setNumThreads(-1)


@pytest.fixture
def stand_in(monkeypatch) -> list:
    made: list = []

    def make_judge(rig, calibration=None, launch_mode="standard", fps=60.0, on_decision=None):
        judge = StandInJudge()
        made.append((judge, rig, launch_mode, fps))
        return judge

    monkeypatch.setattr(vision.runner, "make_judge", make_judge)
    return made


def test_runner_feeds_every_frame_and_notes_when_each_event_came(clip, stand_in):
    result = vision.runner.run_judge(clip, rig=None)
    judge = stand_in[0][0]
    assert judge.seen == list(range(FRAMES))
    assert result.frames == FRAMES and result.fps == pytest.approx(30.0)
    assert len(result.verdicts) == 1 and result.verdict_emitted_at() == [VERDICT_AT]
    assert [(e.event.kind, e.emitted_at) for e in result.events] == [
        ("rest", VERDICT_AT), ("verdict", VERDICT_AT), ("warning", FRAMES)
    ]


def test_bench_json_with_a_label_beside_the_clip(capsys, labelled_clip, stand_in):
    code = main(["bench", str(labelled_clip), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    figures = json.loads(out)
    assert figures["frames"] == FRAMES and figures["launches"] == 1
    assert figures["rig"] == "the label's scene" and figures["launch_mode"] == "hard_velociraptor"
    assert stand_in[0][2] == "hard_velociraptor"
    assert figures["latency_frames"] == VERDICT_AT - REST_FRAME
    assert figures["latency_seconds"] == pytest.approx((VERDICT_AT - REST_FRAME) / 30.0)
    assert figures["verdict_frame_seconds"] >= ANALYSIS_S  # the verdict frame's own decode and judge time
    assert figures["decode_fps"] > 0 and figures["judge_fps"] > 0 and figures["ratio"] > 0
    assert figures["peak_rss_mb"] >= figures["peak_rss_after_decode_mb"] > 0
    assert "ru_maxrss" in figures["memory_measure"]

    import cv2

    assert cv2.getNumThreads() == 1


def test_bench_table_without_a_label_uses_the_standard_rig(capsys, clip, stand_in):
    code = main(["bench", str(clip)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "decode only" in out and "decode + judge" in out and "× the bare decode" in out
    assert "peak memory" in out and "ru_maxrss" in out and "cv2.setNumThreads(1)" in out
    assert "latency" not in out  # no label, no latency
    assert "standard.json" in out


def test_bench_table_says_when_a_live_camera_gets_the_verdict(capsys, labelled_clip, stand_in):
    """The verdict comes out while a frame is judged; on a live camera it comes that frame's decode
    and judge time later than the video's frames say."""
    code = main(["bench", str(labelled_clip)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"verdict latency     {VERDICT_AT - REST_FRAME} frames" in out
    assert "to decode and judge: on a live camera the verdict comes about" in out
