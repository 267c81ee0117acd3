"""The detector on bundled clips, against the truth of their labels projected with the label's camera.

The judge is given the label's own calibration, so that only detection and tracking are under test:
the measured centre (px) and apparent diameter (px) must match the projected true meteor where the
label fixes it: at rest, at the release and at each table bounce. Guards the speed work on the
per-frame path (window search, change gate, cheaper backgrounds) against losing accuracy.
"""

from pathlib import Path

import numpy as np
import pytest
from launch_inputs import judge_labelled

from calibration.truth import load_label
from calibration.truth_path import rest_centre_mm
from vision.pipeline import JudgeConfig, LaunchJudge, calibration_from_label
from vision.track import COASTED
from vision.video import read_frames

SAMPLES = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips"
# 1280×720 at 60 fps (reduced ×2), 1280×720 at 30 fps with motion blur (a small meteor: full
# resolution), 1920×1080 at 60 fps (reduced ×4)
CLIPS = ["clip_000", "clip_004", "clip_013"]


def _track(clip: Path):
    label = load_label(clip.with_suffix(".json"))
    judge = LaunchJudge(
        label.scene, calibration_from_label(label), JudgeConfig(launch_mode=label.launch_mode), fps=label.fps
    )
    recorded: dict[int, tuple[float, float, float, int]] = {}
    record = judge._record

    def keep(frame_index, x, y, diameter, flag):
        recorded[frame_index] = (x, y, diameter, flag)
        record(frame_index, x, y, diameter, flag)

    judge._record = keep
    for index, frame in read_frames(clip.with_suffix(".mp4")):
        judge.process(frame, index)
    judge.finish()
    return label, judge, recorded


def _truth_px(label, centre_mm):
    centre = np.asarray(centre_mm, float).reshape(1, 3)
    pixel = label.camera.project(centre)[0]
    diameter = float(label.camera.apparent_diameter_px(centre, label.scene.meteor.diameter_mm)[0])
    return pixel, diameter


@pytest.fixture(scope="module", params=CLIPS)
def tracked(request):
    if not (SAMPLES / f"{request.param}.mp4").exists():
        pytest.skip("bundled clip missing")
    return _track(SAMPLES / request.param)


def test_rest_position_and_size_match_the_truth(tracked):
    label, judge, recorded = tracked
    assert label.rest is not None
    pixel, diameter = _truth_px(label, rest_centre_mm(label))
    frames = [f for f in range(label.rest.frame, label.rest.frame + 4) if f in recorded]
    assert frames, "the meteor at rest was not tracked"
    for frame in frames:
        x, y, measured, flag = recorded[frame]
        assert flag != COASTED
        assert np.hypot(x - pixel[0], y - pixel[1]) < 2.0, (frame, (x, y), pixel)
        assert abs(measured / diameter - 1.0) < 0.15, (frame, measured, diameter)
    assert any(v.rest is not None for v in judge.verdicts), "no rest reported"


def test_release_area_is_tracked_near_the_truth(tracked):
    label, _judge, recorded = tracked
    release = label.release
    pixel, diameter = _truth_px(label, [*release.table_mm, release.height_mm])
    assert release.frame in recorded, "no track at the release"
    x, y, _measured, _flag = recorded[release.frame]
    assert np.hypot(x - pixel[0], y - pixel[1]) < max(6.0, 0.5 * diameter)
    # the hand-held approach and the release are followed without a gap
    before = [f for f in range(release.frame - 5, release.frame + 1)]
    assert all(f in recorded for f in before)


def test_table_bounces_are_tracked_near_the_truth(tracked):
    label, _judge, recorded = tracked
    radius = label.scene.meteor.diameter_mm / 2
    for bounce in label.bounces:
        if bounce.surface != "table":
            continue
        pixel, diameter = _truth_px(label, [*bounce.table_mm, radius])
        near = [recorded[f] for f in range(bounce.frame - 1, bounce.frame + 2) if f in recorded]
        errors = [np.hypot(x - pixel[0], y - pixel[1]) for x, y, _d, flag in near if flag != COASTED]
        assert errors, f"bounce at frame {bounce.frame} not seen"
        assert min(errors) < max(4.0, 0.25 * diameter), (bounce.frame, errors)


TABLE_HUE_CLIP = Path(__file__).resolve().parent / "clips" / "table_hue_brown_9101_663"


def test_a_meteor_of_the_tables_hue_is_tracked_over_the_table_and_its_bounces_counted():
    """Seed 9101 clip_663 (1280×720, 60 fps): a brown meteor on a brown table, 8° apart in hue, which the
    hue test alone never told from the table in flight. Each table bounce is seen within half a
    diameter of the truth, and the verdict counts them all and places the rest in the label's space."""
    label, judge, recorded = _track(TABLE_HUE_CLIP)
    radius = label.scene.meteor.diameter_mm / 2
    table_bounces = [bounce for bounce in label.bounces if bounce.surface == "table"]
    assert len(table_bounces) == label.bounces_before_box == 3
    for bounce in table_bounces:
        pixel, diameter = _truth_px(label, [*bounce.table_mm, radius])
        near = [recorded[f] for f in range(bounce.frame - 1, bounce.frame + 2) if f in recorded]
        errors = [np.hypot(x - pixel[0], y - pixel[1]) for x, y, _d, flag in near if flag != COASTED]
        assert errors and min(errors) < 0.5 * diameter, (bounce.frame, errors)
    assert [(v.bounces_before_box, v.region) for v in judge.verdicts] == [(3, label.region)]


TABLE_HUE_WEAKNESSES = {
    "found_flying_ghost_held_9101_568": "a brown meteor on a table of its hue, followed from the hand: the track "
    "ends on something lying outside the box, judged as its rest",
}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=why))
        for name, why in TABLE_HUE_WEAKNESSES.items()
    ],
)
def test_a_meteor_the_table_hue_test_follows_is_judged_where_it_rests(name):
    """Bundled clips whose meteor the table-hue test now follows where the hue test alone lost it (their
    tests of the searches that found it run without the table-hue test): its rest is still misplaced.
    Strict: a clip that starts passing fails here."""
    clip = Path(__file__).resolve().parent / "clips" / f"{name}.mp4"
    label = load_label(clip.with_suffix(".json"))
    verdicts = judge_labelled(clip, label).verdicts
    assert [verdict.region for verdict in verdicts] == [label.region]
