"""When a flight ends: the verdict must come within 0.3 s of the meteor coming to rest, and the launch's
analysis takes up to 0.2 s of that. A meteor clearly still for a tenth of a second is at rest; one
still creeping (rolling back after it turned) waits for the full rest; one that slid out of the
picture is judged at once, not looked for over the picture for half a second."""

from pathlib import Path

from launch_inputs import judge_labelled

from vision.pipeline import JudgeConfig, LaunchJudge
from vision.truth import load_label

ROOT = Path(__file__).resolve().parents[2]
CLIPS = Path(__file__).resolve().parent / "clips"
STILL_AT_ONCE = ROOT / "sample_videos" / "clip_008.mp4"  # 60 fps, still from its labelled rest on
ROLLED_BACK = CLIPS / "rolled_back_9056_052.mp4"  # 60 fps, turns and creeps 4 mm back before its rest
SLID_OUT = CLIPS / "slid_out_of_view_9055_084.mp4"  # 60 fps, comes to rest half out of the picture
PARTIAL_AT_REST = CLIPS / "rest_with_partial_sightings_9061_143.mp4"  # 60 fps, every third sighting a piece
PARTIAL_IN_HOLD = CLIPS / "hold_with_partial_sightings_9060_035.mp4"  # 60 fps, carried in, held, then thrown


def _verdict_frame_and_label(video: Path, **config_changes):
    """The frame that emitted the clip's one verdict, the verdict and the label; `config_changes` are
    `JudgeConfig` fields changed from their defaults (the label's launch mode is always kept)."""
    label = load_label(video.with_suffix(".json"))
    config = JudgeConfig(launch_mode=label.launch_mode, **config_changes)
    judge = LaunchJudge(label.scene, config=config, fps=label.fps)
    result = judge_labelled(video, label, judge=judge)
    assert len(result.verdicts) == 1
    return result.verdict_emitted_at()[0], result.verdicts[0], label


def test_a_meteor_clearly_still_is_judged_a_tenth_of_a_second_after_its_rest():
    emitted, verdict, label = _verdict_frame_and_label(STILL_AT_ONCE)
    # the full 0.2 s rest came 12 frames after the labelled one; the early rest needs 6 still sightings
    assert 0 <= emitted - label.rest.frame <= round(0.1 * label.fps)
    assert (verdict.outcome, verdict.valid) == (label.outcome, label.valid)


def test_a_meteor_creeping_back_after_it_turned_is_not_called_at_rest_as_it_turns():
    emitted, verdict, label = _verdict_frame_and_label(ROLLED_BACK)
    assert emitted >= label.rest.frame
    assert verdict.rest is not None and verdict.outcome == label.outcome
    # with the full rule's 0.8 px noise floor the turn itself passed for a rest, 7 frames early
    early, _, _ = _verdict_frame_and_label(ROLLED_BACK, early_rest_floor_px=0.8)
    assert early < label.rest.frame


def test_a_meteor_that_slid_out_of_the_picture_is_judged_without_a_search_for_it():
    emitted, verdict, label = _verdict_frame_and_label(SLID_OUT)
    assert emitted - label.rest.frame <= round(0.1 * label.fps)
    assert (verdict.outcome, verdict.valid, verdict.region) == ("void", True, "outside")
    # looking for it over the picture first put the verdict 31 frames (0.52 s) after the rest
    late, _, _ = _verdict_frame_and_label(SLID_OUT, gone_out_of_view_seconds=10.0)
    assert late - label.rest.frame > round(0.3 * label.fps)


def test_sightings_of_only_part_of_the_meteor_do_not_keep_it_from_rest():
    """Held-out 9061 clip_143: at rest in the box, every third sighting was a 6 px piece of the 19 px
    meteor, 6 px off its centre; the rest test took those for motion and the verdict came 0.25 s after
    the rest. Left out while most sightings are whole, they no longer delay it."""
    emitted, verdict, label = _verdict_frame_and_label(PARTIAL_AT_REST)
    assert emitted - label.rest.frame <= round(0.1 * label.fps)
    assert verdict.region == label.region == "stegosaurus"


def test_a_hold_seen_partly_is_still_a_hold_and_the_throw_after_it_the_launch():
    """Held-out 9060 clip_035: carried into view and held still, the meteor showed only part of itself in
    some sightings; the hold never looked still, the carry was taken for the throw (release at frame 83
    for 101, disputed). Still by its whole sightings, the hold is a hold: the launch is the throw from it."""
    _emitted, verdict, label = _verdict_frame_and_label(PARTIAL_IN_HOLD)
    assert verdict.release is not None and abs(verdict.release.frame - label.release.frame) <= 2
    assert verdict.bounces_before_box == label.bounces_before_box == 1
    assert (verdict.outcome, verdict.region) == (label.outcome, label.region)
