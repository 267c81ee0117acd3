"""End to end on bundled clips: the judge gets only the video and the rig (it calibrates itself).

It must never make a confident wrong call: a verdict either agrees with the label on the outcome
and validity, or is marked disputed.
"""

from pathlib import Path

import numpy as np
import pytest

from vision.pipeline import JudgeConfig, LaunchJudge
from vision.truth import load_label
from vision.video import read_frames

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
CLIPS = sorted(SAMPLES.glob("clip_*.json"))[:4]


def _judge(label_path: Path):
    label = load_label(label_path)
    judge = LaunchJudge(label.scene, calibration=None, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    events = []
    for index, frame in read_frames(label_path.with_suffix(".mp4")):
        events += judge.process(frame, index)
    events += judge.finish()
    return label, judge, events


@pytest.mark.skipif(not CLIPS, reason="no bundled sample clips")
@pytest.mark.parametrize("label_path", CLIPS, ids=[p.stem for p in CLIPS])
def test_bundled_clip_is_judged_right_or_disputed(label_path):
    label, judge, events = _judge(label_path)
    assert events[0].kind in ("calibrated", "warning")
    verdicts = [e.verdict for e in events if e.kind == "verdict"]
    assert verdicts, "no verdict"
    verdict = verdicts[-1]
    assert judge.calibration is not None
    if not verdict.disputed:
        assert verdict.outcome == label.outcome and verdict.valid == label.valid, verdict.summary()
        # the bounce count is scored on its own: a miscount that cannot change the ruling is no dispute
        assert verdict.bounces_before_box >= 1 or not verdict.valid
    if verdict.rest is not None and label.rest is not None:
        assert np.hypot(*np.subtract(verdict.rest.table_mm, label.rest.table_mm)) < 25.0
    track = judge.current_track()
    assert len(track.frames) == len(track.px) == len(track.flags)


def test_overlay_draws_without_changing_the_frame():
    from vision.overlay import draw_overlay

    if not CLIPS:
        pytest.skip("no bundled sample clips")
    label, judge, _ = _judge(CLIPS[0])
    frame = next(iter(read_frames(CLIPS[0].with_suffix(".mp4"))))[1]
    original = frame.copy()
    annotated = draw_overlay(frame, judge, label.scene, judge.calibration)
    assert annotated.shape == frame.shape and np.array_equal(frame, original)
    assert not np.array_equal(annotated, frame)
