"""`analyze` on a damaged video: it says which frames the file could not give, and still judges the rest.

The videos are made here from a bundled clip (re-encoded as MJPEG AVI), then damaged: cut short,
or with a stretch of random bytes, as a failing disk or an interrupted copy leaves them.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from cli.main import main
from vision.video import FrameReader, read_frames

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "tests" / "narrow_clips" / "clip_000.mp4"
RIG = CLIP.with_suffix(".json")


def _frames(path: Path) -> list[np.ndarray]:
    return [frame for _, frame in read_frames(path)]


def _write_avi(path: Path, frames: list[np.ndarray], fps: float) -> Path:
    height, width = frames[0].shape[:2]
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (width, height))
    for frame in frames:
        writer.write(frame)
    writer.release()
    return path


def _damage(source: Path, out: Path, start: float, end: float, seed: int = 1) -> Path:
    """A copy with random bytes from `start` to `end` (fractions of the file's length)."""
    data = bytearray(source.read_bytes())
    first, last = int(len(data) * start), int(len(data) * end)
    noise = random.Random(seed)
    data[first:last] = bytes(noise.getrandbits(8) for _ in range(last - first))
    out.write_bytes(bytes(data))
    return out


@pytest.fixture(scope="module")
def clip_frames() -> tuple[list[np.ndarray], float]:
    capture = cv2.VideoCapture(str(CLIP))
    fps = capture.get(cv2.CAP_PROP_FPS)
    capture.release()
    return _frames(CLIP), fps


@pytest.fixture(scope="module")
def videos(tmp_path_factory, clip_frames) -> dict[str, Path]:
    frames, fps = clip_frames
    folder = tmp_path_factory.mktemp("damaged")
    intact = _write_avi(folder / "intact.avi", frames, fps)
    twice = _write_avi(folder / "twice.avi", frames + frames, fps)  # the same launch thrown twice
    cut = folder / "cut.avi"
    cut.write_bytes(intact.read_bytes()[: int(intact.stat().st_size * 0.9)])
    return {"intact": intact, "twice": twice, "cut": cut,
            "damaged": _damage(intact, folder / "damaged.avi", 0.45, 0.55),
            # frames 205-225 of 466: after the first throw's verdict, before the second throw
            "twice_damaged": _damage(twice, folder / "twice_damaged.avi", 205 / 466, 225 / 466)}


@pytest.fixture(scope="module")
def intact_launches(videos) -> list[dict]:
    """The verdicts of the undamaged video, as `analyze --json` gives them."""
    from calibration.rig import load_rig
    from vision.runner import run_judge

    result = run_judge(videos["intact"], load_rig(RIG))
    assert result.decode_problems == []
    return [verdict.model_dump(mode="json") for verdict in result.verdicts]


def _analyze(capsys, video: Path) -> tuple[int, dict, list[str]]:
    code = main(["analyze", str(video), "--rig", str(RIG), "--json"])
    out, err = capsys.readouterr()
    return code, json.loads(out), [line for line in err.splitlines() if "warning" in line]


def test_a_video_cut_short_is_reported_and_its_verdicts_given(capsys, videos, clip_frames, intact_launches):
    declared = len(clip_frames[0])
    decodable = len(_frames(videos["cut"]))
    assert decodable < declared - 2  # the damage is real
    code, payload, warnings = _analyze(capsys, videos["cut"])
    assert code == 0
    expected = f"the video ends after {decodable} of the {declared} frames it declares"
    assert len(warnings) == 1 and expected in warnings[0] and warnings[0].startswith("meteors-judge analyze: warning")
    assert expected in payload["warnings"][0]
    assert payload["launches"] == intact_launches  # the throw ended before the cut: the same verdict
    main(["analyze", str(videos["cut"]), "--rig", str(RIG)])
    out, err = capsys.readouterr()
    assert "1 launch" in out and expected in err  # the summary for a person, with the warning line


def test_a_damaged_stretch_is_skipped_and_named(videos, clip_frames):
    """The frames read on after the damage are the true frames, under their true numbers."""
    frames = clip_frames[0]
    capture = cv2.VideoCapture(str(videos["damaged"]))
    reader = FrameReader(capture, int(capture.get(cv2.CAP_PROP_FRAME_COUNT)))
    read = dict(reader)
    capture.release()
    assert len(reader.problems) == 1
    first, last = (int(v) for v in re.search(r"frames (\d+)-(\d+) of", reader.problems[0]).groups())
    assert 0 < first <= last < len(frames) - 1
    assert sorted(read) == [*range(first), *range(last + 1, len(frames))]
    intact = _frames(videos["intact"])
    assert all(np.array_equal(frame, intact[number]) for number, frame in read.items())


def test_a_throw_after_a_damaged_stretch_is_still_judged(capsys, videos, intact_launches):
    code, payload, warnings = _analyze(capsys, videos["twice_damaged"])
    assert code == 0
    assert len(warnings) == 1 and "could not be decoded" in warnings[0]
    first, last = (int(v) for v in re.search(r"frames (\d+)-(\d+) of 466", warnings[0]).groups())
    assert len(payload["launches"]) == 2, payload["warnings"]
    one, two = payload["launches"]
    assert [one] == intact_launches  # judged before the damage, as in the intact clip
    assert two["start_frame"] > last  # the second throw, judged after it
    assert (two["outcome"], two["dinosaur"], two["valid"]) == (one["outcome"], one["dinosaur"], one["valid"])
    assert two["release"]["frame"] == one["release"]["frame"] + 233


def test_a_throw_whose_start_was_lost_is_disputed(capsys, videos):
    code, payload, warnings = _analyze(capsys, videos["damaged"])
    assert code == 0 and len(warnings) == 1
    for launch in payload["launches"]:
        assert launch["disputed"]
        assert any("could not be decoded" in reason or "damaged" in reason for reason in launch["dispute_reasons"])


def test_a_callers_judge_keeps_its_config_and_decision_hook_past_a_damaged_stretch(videos):
    from calibration.rig import load_rig
    from vision.pipeline import JudgeConfig, LaunchJudge
    from vision.runner import run_judge

    rig = load_rig(RIG)
    decided = []
    config = JudgeConfig(launch_mode="hard_velociraptor")
    judge = LaunchJudge(rig, config=config, fps=30.0, on_decision=lambda decision, verdict: decided.append(decision))
    result = run_judge(videos["twice_damaged"], rig, judge=judge)
    assert len(result.verdicts) == 2  # one throw before the damage, one after it
    assert len(decided) == 2  # the judge made afresh after the damage told the caller's hook too
    assert [decision.config.launch_mode for decision in decided] == ["hard_velociraptor"] * 2
    assert [verdict.launch_mode for verdict in result.verdicts] == ["hard_velociraptor"] * 2


def test_a_decision_hook_beside_a_callers_judge_is_refused(videos):
    from calibration.rig import load_rig
    from vision.pipeline import LaunchJudge
    from vision.runner import run_judge

    rig = load_rig(RIG)
    with pytest.raises(ValueError, match="give on_decision to the LaunchJudge"):
        run_judge(videos["intact"], rig, judge=LaunchJudge(rig), on_decision=lambda decision, verdict: None)
