"""A meteor the tracker loses in flight is looked for over the whole picture before its launch is judged
lost; found again, it is the same launch (one verdict, disputed), not a second one."""

from pathlib import Path

import numpy as np
import pytest

from vision.pipeline import JudgeConfig, LaunchJudge, calibration_from_label
from vision.runner import run_judge
from vision.track import SEEN
from vision.truth import load_label

LABEL = Path(__file__).resolve().parents[2] / "sample_videos" / "clip_000.json"
LOST_THEN_FOUND = Path(__file__).resolve().parent / "clips" / "lost_then_found_in_box_9038_014.mp4"


def _empty_frame() -> np.ndarray:
    width, height = load_label(LABEL).frame_size
    return np.zeros((height, width, 3), np.uint8)


@pytest.fixture
def judge_in_flight():
    """A judge following a meteor in free flight (13 sightings), whose tracker has just given up on it."""
    label = load_label(LABEL)
    judge = LaunchJudge(label.scene, calibration=calibration_from_label(label), config=JudgeConfig(), fps=60.0)
    judge.process(_empty_frame(), 0)
    xs = list(range(100, 100 + 30 * 13, 30))
    judge._frames = list(range(len(xs)))
    judge._px = [v for x in xs for v in (float(x), 300.0)]
    judge._diam = [12.0] * len(xs)
    judge._flags = [SEEN] * len(xs)
    judge._box = [min(xs), max(xs), 300.0, 300.0]
    judge.state = "in_flight"
    return judge


@pytest.mark.parametrize(
    ("case", "frames_after", "state", "verdicts"),
    [
        ("just lost: looked for", 0, "in_flight", 0),
        ("looked for a little less than regain_seconds", 29, "in_flight", 0),
        ("not found within regain_seconds: a lost launch", 30, "waiting", 1),
    ],
)
def test_a_meteor_lost_in_flight_is_looked_for_before_its_launch_is_judged_lost(
    judge_in_flight, case, frames_after, state, verdicts
):
    judge = judge_in_flight
    lost_at = judge._frames[-1] + 1
    judge._advance_state(_empty_frame(), lost_at, None, [])  # the tracker is inactive: lost
    assert judge._regain_deadline == lost_at + round(judge.config.regain_seconds * judge.fps)
    if frames_after:
        judge._advance_state(_empty_frame(), lost_at + frames_after, None, [])
    assert judge.state == state, case
    assert len(judge.verdicts) == verdicts, case
    assert all(v.disputed for v in judge.verdicts), case


def test_a_meteor_found_again_tells_the_analysis_how_long_it_was_unseen(judge_in_flight):
    judge = judge_in_flight
    judge._advance_state(_empty_frame(), 13, None, [])  # lost after the sighting at frame 12
    judge.state = "in_flight"
    judge._note_regained(20)
    assert judge._regained == [(20, 7)]
    assert judge._regain_deadline is None  # lost again later, it is looked for again


def test_a_meteor_lost_in_flight_and_found_again_in_the_box_is_one_launch():
    """Dev 9038 clip_014 (60 fps, two table bounces into the velociraptor space): after the release the
    tracker stayed on the hand and followed it out of the picture. Judged lost at once, the launch got
    a void verdict, and the meteor, found a frame later rolling in the box, a second launch of its
    own. Looked for before the launch is judged lost, it is found, its track continues, and the one
    verdict has the labelled rest, disputed for the sightings lost."""
    label = load_label(LOST_THEN_FOUND.with_suffix(".json"))
    result = run_judge(LOST_THEN_FOUND, label.scene, launch_mode=label.launch_mode)
    assert len(result.verdicts) == 1
    verdict = result.verdicts[0]
    assert verdict.region == label.region == "velociraptor"
    assert np.hypot(*np.subtract(verdict.rest.table_mm, label.rest.table_mm)) < 5.0
    assert verdict.disputed and any("found again" in reason for reason in verdict.dispute_reasons)
