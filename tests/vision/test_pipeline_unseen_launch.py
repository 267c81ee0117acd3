"""A launch the tracker missed is still judged, disputed, once the meteor is found lying in the box.

The clip is generated seed 9019's clip_046 (`tests/vision/clips/`): a blue meteor on a blue table. The
background learns the launcher's still arm; when the arm moves, the table it uncovers passes the
colour test, and the tracker, holding "the meteor", follows that ghost to the end of the clip while
the real meteor flies into the velociraptor space unseen. Before, no verdict was given at all.
"""

from __future__ import annotations

import math
from pathlib import Path

from launch_inputs import judge_labelled

from calibration.truth import load_label

CLIP = Path(__file__).resolve().parent / "clips" / "camouflaged_9019_046.mp4"


def test_a_meteor_found_lying_in_the_box_while_a_ghost_is_held_is_judged_disputed():
    label = load_label(CLIP.with_suffix(".json"))
    verdicts = judge_labelled(CLIP, label).verdicts
    assert len(verdicts) == 1
    verdict = verdicts[0]
    assert verdict.disputed
    assert any(reason.startswith("launch not seen") for reason in verdict.dispute_reasons)
    assert verdict.region == label.region == "velociraptor"  # the meteor found is the real one


TINY = Path(__file__).resolve().parent / "clips" / "landed_unseen_tiny_9061_084.mp4"


def test_a_meteor_first_seen_bouncing_in_the_box_then_still_is_judged_its_launch_unseen():
    """Held-out 9061 clip_084 (640×480, 30 fps): a meteor 4 px across lobbed straight into the box, its
    flight streaks too faint to detect. First seen bouncing on the box floor, it was taken as held
    ("meteor in hand") and stayed so, still, to the end of the clip: no verdict at all, which the
    label's void launch scores as a confident wrong call. Seen moving over the box, never with a hand,
    then still with none near, it is a landing whose launch went unseen: judged, and disputed."""
    label = load_label(TINY.with_suffix(".json"))
    verdicts = judge_labelled(TINY, label).verdicts
    assert len(verdicts) == 1
    verdict = verdicts[0]
    assert verdict.disputed
    assert "launch not seen: the meteor was first found in the box, already landed" in verdict.dispute_reasons
    assert verdict.region == label.region == "pterodactyl"
    rest_error_mm = math.dist(verdict.rest.table_mm, label.rest.table_mm)
    assert rest_error_mm < 5.0


NO_FLIGHT = Path(__file__).resolve().parent / "clips" / "no_flight_after_release_9063_045.mp4"


def test_a_release_followed_by_no_flight_is_no_launch():
    """Held-out 9063 clip_045 (30 fps): the tracker held a hand, then jumped onto a small blob beside
    it, which passed for a fast release and lay still 4 frames on. That was judged a void launch
    resting outside, and the real meteor, unseen in flight, was found in the box later: two verdicts
    for one launch. A "flight" that never left its release point is no flight: the judge waits on, finds
    the meteor in the box and gives the one verdict, its launch unseen and disputed."""
    label = load_label(NO_FLIGHT.with_suffix(".json"))
    result = judge_labelled(NO_FLIGHT, label)
    assert any(event.event.message.startswith("no flight after the release") for event in result.events)
    assert len(result.verdicts) == 1
    verdict = result.verdicts[0]
    assert verdict.disputed
    assert "launch not seen: the meteor was first found in the box, already landed" in verdict.dispute_reasons
    assert verdict.region == label.region == "stegosaurus"
