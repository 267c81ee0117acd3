"""End to end on bundled clips: the judge gets only the video and the rig (it calibrates itself).

It must never make a confident wrong call: a verdict either agrees with the label on the outcome
and validity, or is marked disputed.
"""

from pathlib import Path

import numpy as np
import pytest
from launch_inputs import judge_labelled

from calibration.truth import load_label
from vision.pipeline import JudgeConfig, LaunchJudge
from vision.video import read_frames

SAMPLES = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips"
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


@pytest.mark.skipif(not (SAMPLES / "clip_004.json").exists(), reason="bundled clip_004 missing")
def test_a_streak_washed_out_by_motion_blur_is_still_tracked():
    """Bundled clip_004 (30 fps): between the release and the first bounce the meteor is a long faint
    streak the colour test misses. The faint-streak search keeps it in sight for most of those frames."""
    from vision.track import COASTED, PARTIAL

    label = load_label(SAMPLES / "clip_004.json")
    tracks = []

    def keep_track(index, frame, judge, events):
        if any(e.kind == "verdict" for e in events):
            tracks.append(judge.current_track())

    judge_labelled(SAMPLES / label.video, label, on_frame=keep_track)
    track = tracks[-1]
    first_bounce = min(b.frame for b in label.bounces)
    flight = (track.frames >= label.release.frame) & (track.frames < first_bounce)
    flags = track.flags[flight]
    assert len(flags) == first_bounce - label.release.frame
    assert np.sum(flags == COASTED) <= len(flags) // 2  # before faint streaks: 6 of these 9 frames coasted
    assert np.any(flags == PARTIAL)  # the faint sightings are marked as less sure than clear ones


STREAK_AFTER_GRIP = Path(__file__).resolve().parent / "clips" / "streak_after_partial_grip_9024_086.mp4"


def test_a_streak_is_not_refused_for_the_small_sightings_of_the_meteor_in_the_hand():
    """Dev 9024 clip_086 (30 fps): pushed in the hand, the meteor showed only part of itself (6–9 px
    sightings against about 14 px clear); measured against those, its streaks after the release (16–20
    px) read too large and were refused, 4 of the 5 frames before its table bounce were coasted, and the
    bounce, at the first clear sighting, was never counted (0 of 1, a valid launch called void). The
    streak is measured against the upper quartile of the recent sizes as well as their median."""
    from vision.track import COASTED

    label = load_label(STREAK_AFTER_GRIP.with_suffix(".json"))
    tracks = []

    def keep_track(index, frame, judge, events):
        if any(e.kind == "verdict" for e in events):
            tracks.append(judge.current_track())

    result = judge_labelled(STREAK_AFTER_GRIP, label, on_frame=keep_track)
    track = tracks[-1]
    first_bounce = min(b.frame for b in label.bounces)
    before_bounce = (track.frames > label.release.frame + 3) & (track.frames < first_bounce)
    assert np.count_nonzero(track.flags[before_bounce] == COASTED) <= 1
    verdict = result.verdicts[-1]
    assert verdict.bounces_before_box == label.bounces_before_box == 1
    assert verdict.outcome == label.outcome and verdict.valid == label.valid
