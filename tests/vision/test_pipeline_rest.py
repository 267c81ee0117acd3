"""When a flight ends: the verdict must come within 0.3 s of the meteor coming to rest, and the launch's
analysis takes up to 0.2 s of that. A meteor clearly still for a tenth of a second is at rest; one
still creeping (rolling back after it turned) waits for the full rest; one that slid out of the
picture is judged at once, not looked for over the picture for half a second."""

import math
from pathlib import Path

import pytest
from launch_inputs import judge_labelled

from calibration.truth import load_label
from vision import pipeline
from vision.pipeline import JudgeConfig, LaunchJudge
from vision.track import sizes_by_turns

ROOT = Path(__file__).resolve().parents[2]
CLIPS = Path(__file__).resolve().parent / "clips"
STILL_AT_ONCE = ROOT / "tests" / "narrow_clips" / "clip_008.mp4"  # 60 fps, still from its labelled rest on
ROLLED_BACK = CLIPS / "rolled_back_9056_052.mp4"  # 60 fps, turns and creeps 4 mm back before its rest
SLID_OUT = CLIPS / "slid_out_of_view_9055_084.mp4"  # 60 fps, comes to rest half out of the picture
PARTIAL_AT_REST = CLIPS / "rest_with_partial_sightings_9061_143.mp4"  # 60 fps, every third sighting a piece
PARTIAL_IN_HOLD = CLIPS / "hold_with_partial_sightings_9060_035.mp4"  # 60 fps, carried in, held, then thrown
FLICKERING_SIZE = CLIPS / "rest_with_flickering_size_9064_192.mp4"  # 60 fps, at rest reads two sizes by turns


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


def test_a_meteor_read_at_two_sizes_by_turns_is_at_rest_when_it_stops():
    """Held-out 9064 clip_192 (1920×1080, 60 fps): at rest in the box the meteor read 24 px and 21.6 px
    by turns, the two centroids 2.2 px apart, beyond the rest's 2.0 px; the verdict came 13 frames
    (0.22 s) after the rest. Each size's sightings are still on their own, and the verdict comes at it;
    the whole meteor's sightings place it (the median of both readings: 2.3 mm off)."""
    emitted, verdict, label = _verdict_frame_and_label(FLICKERING_SIZE)
    assert abs(emitted - label.rest.frame) <= round(0.1 * label.fps)
    assert verdict.rest is not None and math.dist(verdict.rest.table_mm, label.rest.table_mm) < 2.0
    assert (verdict.outcome, verdict.region) == (label.outcome, label.region) == ("dinosaur", "velociraptor")


def test_one_reading_of_the_flickering_rest_alone_comes_late(monkeypatch):
    monkeypatch.setattr(pipeline, "sizes_by_turns", lambda indices, _sizes: [indices])
    emitted, _verdict, label = _verdict_frame_and_label(FLICKERING_SIZE)
    assert emitted - label.rest.frame > round(0.2 * label.fps)


@pytest.mark.parametrize(
    ("sizes", "groups"),
    [
        ([24.0, 24.2, 23.9, 24.1, 24.0, 23.8], 1),  # one reading, its noise
        ([24.0, 21.6, 24.1, 21.7, 23.9, 21.6], 2),  # whole and piece by turns
        ([24.0, 21.6, 21.7, 24.1, 21.6, 21.7, 23.9, 21.6], 2),  # ... not strictly alternating
        ([21.6, 21.7, 21.6, 24.0, 24.1, 23.9], 1),  # a change of reading over time: its motion would hide
        ([24.0, 24.1, 21.6, 24.0, 23.9, 24.1], 1),  # a single piece is no second reading
        ([9.9, 9.4, 9.6, 9.7, 9.9, 10.0], 1),  # a creeping meteor's sizes (rolled_back_9056_052)
        ([24.0, 21.6, 24.1], 1),  # too few to tell
        ([16.7, 15.5, 15.5, 15.5, 15.5, 15.5, 15.5, 16.7], 1),  # a piece for a while, then whole again
    ],
)
def test_a_meteor_is_read_at_two_sizes_only_when_they_take_turns(sizes, groups):
    indices = list(range(len(sizes)))
    found = sizes_by_turns(indices, sizes)
    assert len(found) == groups
    assert sorted(i for group in found for i in group) == indices
