"""The judge's use of the learned detector (`LaunchJudge._heat_sighting`): in a hold or a flight where
the colour search finds nothing near the prediction, the heat map's peak there is taken for the meteor."""

from __future__ import annotations

from pathlib import Path

from launch_inputs import without_heatmap

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
