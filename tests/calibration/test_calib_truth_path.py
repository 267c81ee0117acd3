"""Where a label fixes the meteor's centre: its drag-free flight through the labelled points, and its rest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.truth import load_label
from calibration.truth_path import GRAVITY_MM_S2, flight_centres_mm, held_frames, known_centres_mm, rest_centre_mm

CLIPS = Path(__file__).resolve().parents[1] / "narrow_clips"


@pytest.fixture(params=["clip_000", "clip_004"])
def label(request):
    """Labels with a table bounce before the box (at 60 and 30 fps)."""
    return load_label(CLIPS / f"{request.param}.json")


def test_the_flight_passes_through_each_labelled_table_bounce(label):
    centres = flight_centres_mm(label)
    radius = label.scene.meteor.diameter_mm / 2
    table_bounces = [b for b in label.bounces if b.before_box and b.surface == "table"]
    assert table_bounces, "the clip has a table bounce before the box"
    for bounce in table_bounces:
        assert np.allclose(centres[bounce.frame], [*bounce.table_mm, radius], atol=1e-6)
    assert min(centres) == label.release.frame + 1 and max(centres) == table_bounces[-1].frame


def test_between_the_labelled_points_the_meteor_falls_with_gravity(label):
    centres = flight_centres_mm(label)
    first_bounce = next(b.frame for b in label.bounces if b.surface == "table")
    frames = range(label.release.frame + 2, first_bounce)  # inside the first arc
    dt = 1.0 / label.fps
    for frame in frames:
        z_before, z, z_after = (centres[f][2] for f in (frame - 1, frame, frame + 1))
        assert (z_after - 2 * z + z_before) / dt**2 == pytest.approx(-GRAVITY_MM_S2, rel=1e-6)
        # the ground point moves at a constant speed along the straight line between the points
        step_before = centres[frame][:2] - centres[frame - 1][:2]
        step_after = centres[frame + 1][:2] - centres[frame][:2]
        assert np.allclose(step_before, step_after, atol=1e-6)


def test_a_flight_straight_into_the_box_is_not_fixed_by_the_label():
    label = load_label(CLIPS / "clip_013.json")
    assert not any(b.surface == "table" for b in label.bounces)
    assert flight_centres_mm(label) == {}
    assert min(known_centres_mm(label)) == label.rest.frame


def test_from_the_rest_on_the_meteor_lies_at_its_rest_centre(label):
    centres = known_centres_mm(label, rest_every=2)
    rest = rest_centre_mm(label)
    after = [f for f in centres if f >= label.rest.frame]
    assert after == list(range(label.rest.frame, label.frame_count, 2))
    assert all(np.array_equal(centres[f], rest) for f in after)
    assert rest[2] == pytest.approx(label.scene.box.floor_height_mm + label.scene.meteor.diameter_mm / 2)


def test_a_meteor_track_fixes_every_frame_before_the_rest_and_which_are_held(label):
    """With the optional `meteor_track`, the hold and the whole flight are known, not just the arcs."""
    from calibration.truth import TrueMeteorPoint

    flight = flight_centres_mm(label)
    track = [TrueMeteorPoint(frame=f, centre_mm=(1.0 * f, 2.0, 3.0), held=f < label.release.frame)
             for f in range(label.frame_count)]
    tracked = label.model_copy(update={"meteor_track": track})
    centres = known_centres_mm(tracked, rest_every=2)
    assert [f for f in centres if f < label.rest.frame] == list(range(label.rest.frame))
    assert all(np.array_equal(centres[f], [1.0 * f, 2.0, 3.0]) for f in flight)
    assert np.array_equal(centres[label.rest.frame], rest_centre_mm(label))
    assert held_frames(tracked) == set(range(label.release.frame))
    assert held_frames(label) == set()
