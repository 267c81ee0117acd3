"""The judge's use of the learned detector (`LaunchJudge._heat_sighting`): wherever a track is followed
and the colour search finds nothing near the prediction, the heat map's peak there is taken for the meteor."""

from __future__ import annotations

from pathlib import Path

from launch_inputs import judge_labelled, without_heatmap

import vision.pipeline as pipeline
from calibration.truth import load_label
from vision.track_check import check_clip

# seed 9104 (the shipped model was fitted on seed 9101): the meteor followed out of the hand
FOLLOWED = Path(__file__).resolve().parent / "clips" / "followed_out_of_hand_9104_070.json"


def test_the_heat_map_puts_the_track_on_the_flying_meteor_where_the_colour_search_found_nothing():
    with_heat = check_clip(FOLLOWED)
    with without_heatmap():
        colour_only = check_clip(FOLLOWED)
    # frames of the flight before the box: more on the meteor, none more on something else
    assert with_heat["flight", "on_meteor"] > colour_only["flight", "on_meteor"]
    assert with_heat["flight", "elsewhere"] <= colour_only["flight", "elsewhere"]
    assert with_heat["flight", "unseen"] < colour_only["flight", "unseen"]


# seed 9101 clip_405: a near-black meteor, 7 px across at 640×480 on a grey table, flicked from the hand
# to bounce to rest outside the box. The colour test finds it in about one frame in fifteen, each time
# starting a track that the colour test alone drops again before the judge ever takes it for the meteor
SEEN_NOW_AND_THEN = Path(__file__).resolve().parent / "clips" / "dark_meteor_seen_now_and_then_9101_405.json"


def test_a_track_started_while_waiting_is_kept_by_the_heat_map_and_its_launch_found():
    label = load_label(SEEN_NOW_AND_THEN)
    with without_heatmap():
        colour_only = judge_labelled(SEEN_NOW_AND_THEN.with_suffix(".mp4"), label, progress=False)
    assert colour_only.verdicts == []  # a launch missed without a word
    result = judge_labelled(SEEN_NOW_AND_THEN.with_suffix(".mp4"), label, progress=False)
    [verdict] = result.verdicts
    assert verdict.outcome == label.outcome == "void"
    assert verdict.disputed  # its release was never seen


# seed 9701 clip_143 (640×480, 60 fps, a pale grey meteor on a pale table): the colour test loses the
# meteor as it leaves the hand and finds it again only lying in the box
FOUND_FLYING = Path(__file__).resolve().parent / "clips" / "flight_found_by_heat_map_9701_143.json"


def test_a_flight_the_colour_test_lost_is_found_again_by_the_heat_map_over_the_whole_picture():
    """The learned detector's peaks over the whole picture move as a flight does: the track is taken up
    again in flight, and the launch is judged as labelled (the bounce before the box seen, released behind
    the line, in its water space). Without that search the flight goes unseen and the launch is judged
    as first found in the box, void."""
    label = load_label(FOUND_FLYING)
    video = FOUND_FLYING.with_suffix(".mp4")
    [verdict] = judge_labelled(video, label).verdicts
    assert (verdict.region, verdict.bounces_before_box, verdict.herd_line_ok) == (label.region, 1, True)
    assert verdict.region == "water_west"
    config = pipeline.JudgeConfig(launch_mode=label.launch_mode, heat_flight=None)
    [unsearched] = judge_labelled(video, label, judge=pipeline.LaunchJudge(label.scene, config=config,
                                                                          fps=label.fps)).verdicts
    assert unsearched.outcome == "void"
    assert any("first found in the box" in reason for reason in unsearched.dispute_reasons)
