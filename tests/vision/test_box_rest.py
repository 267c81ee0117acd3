"""A meteor the colour detector loses, or never sees, is found lying in the box as a change from the
box before the launch.

Real decoded frames of generated launches (`tests/vision/clips/`): a near-black meteor (seed 9101
clip_320, 1280×720) and a white one at 640×480 (seed 9101 clip_124) lost in flight, and further
clips named at their tests. Their labels say where each comes to rest.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest
from launch_inputs import hue_test_only, judge_labelled, without_heatmap

import vision.pipeline as pipeline
from calibration.truth import load_label
from vision.box_rest import BoxRestSettings, largest_channel, new_against_all, new_blobs_on_floor
from vision.video import read_frames

CLIPS = Path(__file__).resolve().parent / "clips"
DARK = CLIPS / "found_lying_dark_9101_320.mp4"
WHITE = CLIPS / "found_lying_white_9101_124.mp4"


def _scene_at_rest(video: Path):
    """The clip's first frame, its frame 3 after the labelled rest, the box floor's polygon (px), the
    meteor's apparent diameter there (px) and where the label puts the meteor (px)."""
    label = load_label(video.with_suffix(".json"))
    frames = dict(read_frames(video))
    camera, box = label.camera, label.scene.box
    floor_mm = box.floor_height_mm + label.scene.meteor.diameter_mm / 2
    corners = label.box_pose_at(label.rest.frame).box_to_table(np.asarray(box.outline_mm, dtype=np.float64))
    floor_px = camera.project(np.column_stack([corners, np.full(len(corners), floor_mm)]))
    rest = np.array([[*label.rest.table_mm, floor_mm]])
    diameter_px = float(camera.apparent_diameter_px(rest, label.scene.meteor.diameter_mm)[0])
    return frames[0], frames[label.rest.frame + 3], floor_px, diameter_px, camera.project(rest)[0]


@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_largest_channel_is_each_pixels_largest_channel(dtype):
    """A decoded frame, its channels shuffled per pixel so that each channel is the largest somewhere."""
    frame = next(image for _index, image in read_frames(DARK))
    order = np.random.default_rng(0).permuted(np.tile([0, 1, 2], (*frame.shape[:2], 1)), axis=2)
    image = np.take_along_axis(frame, order, axis=2).astype(dtype)
    assert np.array_equal(largest_channel(image), image.max(axis=2))


@pytest.mark.parametrize("video", [DARK, WHITE], ids=["near-black", "white at 640x480"])
def test_a_meteor_lying_in_the_box_is_the_one_new_blob_on_its_floor(video: Path):
    before, now, floor_px, diameter_px, rest_px = _scene_at_rest(video)
    blobs = new_blobs_on_floor(now, before, floor_px, diameter_px, BoxRestSettings())
    assert len(blobs) == 1
    assert np.hypot(blobs[0].x - rest_px[0], blobs[0].y - rest_px[1]) < 0.2 * diameter_px
    assert new_blobs_on_floor(before, before, floor_px, diameter_px, BoxRestSettings()) == []


@pytest.mark.parametrize("video", [DARK, WHITE], ids=["near-black", "white at 640x480"])
def test_a_meteor_gone_from_where_the_picture_before_caught_it_is_no_new_blob(video: Path):
    """The picture before shows the meteor lying in the box, the frame now shows the floor there: the
    change is a hole, not a meteor."""
    empty, at_rest, floor_px, diameter_px, _ = _scene_at_rest(video)
    assert new_blobs_on_floor(empty, at_rest, floor_px, diameter_px, BoxRestSettings()) == []


def test_a_pattern_in_the_box_nudged_a_few_pixels_is_no_new_blob():
    """A meteor-sized black-and-white pattern (a marker's corner on the rim) that moves 3 px with a nudged
    box changes as a compact blob: without the shift test it passes for a meteor; with it, it does not."""
    before, _, floor_px, diameter_px, rest_px = _scene_at_rest(DARK)
    cells = np.kron(np.array([[0, 1, 0], [1, 0, 1], [0, 1, 1]], np.uint8) * 255, np.ones((5, 5), np.uint8))
    pattern = cv2.cvtColor(cells, cv2.COLOR_GRAY2BGR)
    x, y = int(rest_px[0]) - 7, int(rest_px[1]) - 7
    drawn, nudged = before.copy(), before.copy()
    drawn[y : y + 15, x : x + 15] = pattern
    nudged[y + 2 : y + 17, x + 3 : x + 18] = pattern
    no_shift_test = BoxRestSettings(min_unexplained=0.0)
    assert len(new_blobs_on_floor(nudged, drawn, floor_px, diameter_px, no_shift_test)) == 1
    assert new_blobs_on_floor(nudged, drawn, floor_px, diameter_px, BoxRestSettings()) == []


def test_a_shadow_on_the_patterned_floor_is_no_new_blob_but_a_dark_disc_is():
    """The box floor darkened to 60 % over a meteor-sized disc, its pattern kept, is a shadow; the same
    disc painted one dark grey is a thing lying there."""
    before, _, floor_px, diameter_px, rest_px = _scene_at_rest(DARK)
    disc = np.zeros(before.shape[:2], np.uint8)
    centre = (int(rest_px[0]), int(rest_px[1]))
    cv2.circle(disc, centre, int(diameter_px / 2), 255, -1)
    shaded = before.copy()
    shaded[disc > 0] = (0.6 * before[disc > 0]).astype(np.uint8)
    settings = BoxRestSettings()
    assert new_blobs_on_floor(shaded, before, floor_px, diameter_px, settings) == []
    no_shadow_test = replace(settings, shadow_min_correlation=2.0)
    assert len(new_blobs_on_floor(shaded, before, floor_px, diameter_px, no_shadow_test)) == 1
    painted = before.copy()
    painted[disc > 0] = 40
    assert len(new_blobs_on_floor(painted, before, floor_px, diameter_px, settings)) == 1


def test_a_blob_only_a_ghost_in_the_background_explains_is_dropped_by_an_earlier_frame():
    """A background that learned a pale ghost (an arm's) over the box floor fades a dark print there; once
    the ghost is gone the print looks new against that background, but not against a frame from before
    the ghost. A disc newly lying there is new against both."""
    frame_then, _, floor_px, diameter_px, rest_px = _scene_at_rest(DARK)
    x, y, d = int(rest_px[0]), int(rest_px[1]), int(diameter_px)
    frame_then = frame_then.copy()
    frame_then[y - 3 * d : y + 3 * d, x - 3 * d : x + 3 * d] = 100  # a plain patch of floor ...
    cv2.circle(frame_then, (x, y), d // 2, (40, 40, 40), -1)  # ... with a meteor-sized dark print on it
    ghosted = frame_then.copy()
    patch = ghosted[y - 3 * d : y + 3 * d, x - 3 * d : x + 3 * d]
    patch[:] = (0.5 * patch + 0.5 * 140).astype(np.uint8)
    settings = BoxRestSettings()
    assert len(new_against_all(frame_then, (ghosted,), floor_px, diameter_px, settings).blobs) == 1
    assert new_against_all(frame_then, (ghosted, frame_then), floor_px, diameter_px, settings).blobs == []
    lying = frame_then.copy()
    cv2.circle(lying, (x + 2 * d, y), d // 2, (20, 20, 20), -1)
    assert len(new_against_all(lying, (ghosted,), floor_px, diameter_px, settings).blobs) == 2
    [blob] = new_against_all(lying, (ghosted, frame_then), floor_px, diameter_px, settings).blobs
    assert abs(blob.x - (x + 2 * d)) < 2 and abs(blob.y - y) < 2


@pytest.mark.parametrize("video", [DARK, WHITE], ids=["near-black", "white at 640x480"])
def test_a_launch_lost_in_flight_is_judged_where_the_meteor_lies(video: Path):
    """The colour tracker loses the meteor in flight; it is found lying in the box and the launch is
    judged there, in the label's space, disputed for the flight it did not see."""
    label = load_label(video.with_suffix(".json"))
    with without_heatmap():  # the heat map follows the near-black one into the box
        result = judge_labelled(video, label)
    assert len(result.verdicts) == 1
    verdict = result.verdicts[0]
    assert verdict.region == label.region
    assert verdict.disputed
    assert any("found lying in the box" in reason for reason in verdict.dispute_reasons)


@pytest.mark.parametrize("video", [DARK, WHITE], ids=["near-black", "white at 640x480"])
def test_without_the_box_search_the_same_launch_is_lost_and_placed_by_its_last_sighting_over_the_box(video: Path):
    """Blind to the box floor, the judge never finds the meteor lying there: no rest, disputed for the loss.
    It came into the box and was never seen to leave, so it is placed where it was last seen over the box
    floor, here the label's space too."""
    label = load_label(video.with_suffix(".json"))
    with without_heatmap():
        result = judge_labelled(video, label, judge=_judge_with_the_box_search_blind(label))
    [verdict] = result.verdicts
    assert verdict.rest is None and verdict.region == label.region
    assert "meteor lost from view inside the picture" in verdict.dispute_reasons


def test_with_the_heat_map_the_near_black_meteor_is_found_again_in_flight_without_the_box_search():
    """The near-black meteor of the tests above, with the learned detector and the box search blind: lost
    leaving the hand, it is found again in flight, and the heat map's sightings where the colour test
    finds nothing carry the track into the box, so the launch is judged in the label's space."""
    label = load_label(DARK.with_suffix(".json"))
    [verdict] = judge_labelled(DARK, label, judge=_judge_with_the_box_search_blind(label)).verdicts
    assert verdict.region == label.region
    assert not any("found lying" in reason for reason in verdict.dispute_reasons)


def _judge_with_the_box_search_blind(label) -> pipeline.LaunchJudge:
    blind = BoxRestSettings(change_level=256.0)  # no pixel ever changes that much
    config = pipeline.JudgeConfig(launch_mode=label.launch_mode, box_rest=blind)
    return pipeline.LaunchJudge(label.scene, config=config, fps=label.fps)

FLUNG = CLIPS / "flung_found_lying_9101_232.mp4"


def test_a_meteor_flung_out_of_the_trackers_reach_is_found_lying_in_the_box():
    """Seed 9101 clip_232 (1280×720, 30 fps, a near-black meteor, a bumped box): the tracker loses the
    meteor as it leaves the hand and waits for it where it lands. Found lying in the box, the launch is
    judged there, in the label's space, disputed; with the search blinded no launch is judged at all."""
    label = load_label(FLUNG.with_suffix(".json"))
    with hue_test_only():  # with the table-hue test the tracker follows the meteor into the box
        result = judge_labelled(FLUNG, label)
    assert [verdict.region for verdict in result.verdicts] == [label.region] == ["trex"]
    assert any("found lying in the box" in reason for reason in result.verdicts[0].dispute_reasons)
    with hue_test_only():
        assert judge_labelled(FLUNG, label, judge=_judge_with_the_box_search_blind(label)).verdicts == []


def test_a_meteor_found_lying_while_the_tracker_coasts_keeps_one_sighting_a_frame():
    """The white meteor is found lying while the tracker still coasts on its predictions: those
    predictions give way to the blob's sightings, and the judged track has one entry per frame."""
    label = load_label(WHITE.with_suffix(".json"))
    judge = pipeline.LaunchJudge(label.scene, config=pipeline.JudgeConfig(launch_mode=label.launch_mode),
                                 fps=label.fps)
    tracks = []
    for index, frame in read_frames(WHITE):
        if any(event.kind == "verdict" for event in judge.process(frame, index)):
            tracks.append(judge.current_track())
    assert len(tracks) == 1
    frames = tracks[0].frames
    assert len(frames) > 10 and np.all(np.diff(frames) > 0)
    assert tracks[0].flags[-1] == 0  # the last entry is the blob seen lying, not a prediction


NEVER_SEEN = CLIPS / "never_seen_found_lying_9101_729.mp4"


def test_a_meteor_the_colour_test_never_sees_is_found_lying_in_the_box():
    """Seed 9101 clip_729 (640×480, 30 fps, a 7 px teal meteor): the colour detector never finds the meteor,
    and with the learned detector off nothing else does, so the judge never leaves waiting. The box,
    compared with the picture as waiting began, shows it lying there: one launch, judged in the label's
    space and disputed for the launch it did not see; with the search blinded no launch is judged at all."""
    label = load_label(NEVER_SEEN.with_suffix(".json"))
    with without_heatmap():
        result = judge_labelled(NEVER_SEEN, label)
        blinded = judge_labelled(NEVER_SEEN, label, judge=_judge_with_the_box_search_blind(label))
    assert [verdict.region for verdict in result.verdicts] == [label.region] == ["stegosaurus"]
    assert result.verdicts[0].disputed
    assert any("its launch was not seen" in reason for reason in result.verdicts[0].dispute_reasons)
    assert blinded.verdicts == []


HELD_ELSEWHERE = CLIPS / "held_elsewhere_found_lying_9101_723.mp4"


def test_a_meteor_lying_in_the_box_while_the_tracker_holds_something_else_is_judged_once():
    """Seed 9101 clip_723 (1280×720, 60 fps, a white meteor): the colour tracker follows something in
    the launcher's hand to the end of the clip and never sees the launch. The meteor lying in the box,
    far from what is held, is judged as a launch not seen, disputed, in the label's space; afterwards
    the blob where that launch was judged at rest is not taken for a second launch. With the search
    blinded the meteor in the box is never found: only what is held, seen moving before, is judged
    where it stops when the footage ends, disputed for that."""
    label = load_label(HELD_ELSEWHERE.with_suffix(".json"))
    with hue_test_only():  # with the table-hue test the tracker follows the meteor's flight
        result = judge_labelled(HELD_ELSEWHERE, label)
    assert [verdict.region for verdict in result.verdicts] == [label.region] == ["velociraptor"]
    assert any("its launch was not seen" in reason for reason in result.verdicts[0].dispute_reasons)
    with hue_test_only():
        blinded = judge_labelled(HELD_ELSEWHERE, label, judge=_judge_with_the_box_search_blind(label)).verdicts
    assert [verdict.region for verdict in blinded] == ["outside"]
    assert blinded[0].disputed and any(reason.endswith("until the video ended; judged as if it came to rest there")
                                       for reason in blinded[0].dispute_reasons)


HELD_SPELL_FIRST = CLIPS / "lying_after_a_held_spell_9101_598.mp4"


def test_a_meteor_lying_in_the_box_after_a_spell_that_judged_nothing_is_found():
    """Seed 9101 clip_598 (1280×720, 60 fps, a near-white meteor on a near-white table): the tracker never
    follows the launch; it holds something else from before the meteor lands until after it lies still,
    then drops it and waits. The pictures of the box from before that spell are kept (it judged nothing),
    so the meteor lying there is new against them: one launch, judged in the label's space, disputed for
    the launch it did not see. With the search blinded no launch is judged at all."""
    label = load_label(HELD_SPELL_FIRST.with_suffix(".json"))
    result = judge_labelled(HELD_SPELL_FIRST, label)
    assert [verdict.region for verdict in result.verdicts] == [label.region] == ["trex"]
    assert result.verdicts[0].disputed
    assert any("launch not seen" in reason for reason in result.verdicts[0].dispute_reasons)
    assert judge_labelled(HELD_SPELL_FIRST, label, judge=_judge_with_the_box_search_blind(label)).verdicts == []


TRACKED_ELSEWHERE = CLIPS / "track_ends_outside_meteor_in_box_9101_372.mp4"


def test_a_track_ending_still_outside_the_box_gives_way_to_the_meteor_lying_in_it():
    """Seed 9101 clip_372 (1920×1080, 60 fps, a pale grey meteor): the tracker follows the meteor
    into the box, loses it there, and finds something still far outside the box, which it holds to the end
    of the footage. The meteor lies in the box, new against the pictures before the launch: one meteor
    cannot lie in two places, so the launch is judged by it, in the label's space, disputed for what was
    not seen. With the box search blinded the same launch is judged outside."""
    label = load_label(TRACKED_ELSEWHERE.with_suffix(".json"))
    [verdict] = judge_labelled(TRACKED_ELSEWHERE, label).verdicts
    assert verdict.region == label.region == "triceratops"
    assert verdict.disputed
    assert any("found lying in the box" in reason for reason in verdict.dispute_reasons)
    [blind] = judge_labelled(TRACKED_ELSEWHERE, label, judge=_judge_with_the_box_search_blind(label)).verdicts
    assert blind.region == "outside"
