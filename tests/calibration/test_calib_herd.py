"""The herd line: found from the six face-up cards when the rig leaves it open; a rig or user line overrides."""

from __future__ import annotations

import numpy as np
from calib_synthetic import herd_cards, render, standard_scene

from calibration.herd import find_cards, fit_herd_line, herd_line_errors_mm
from calibration.solve import calibrate_frame


def _truth(cards):
    return fit_herd_line(np.array([c[:2] for c in cards]))[0]


def test_herd_line_from_cards_within_5mm_at_its_ends(oblique, rig):
    scene, frame = oblique
    calibration = calibrate_frame(frame, rig)
    assert calibration.herd_line_source == "cards"
    assert herd_line_errors_mm(calibration.herd_line_mm, _truth(scene.cards_mm)) < 5.0
    assert len(find_cards(frame, calibration, rig)) == 6


def test_rig_herd_line_overrides_the_cards(oblique, rig):
    _, frame = oblique
    line = ((-300.0, 10.0), (300.0, 20.0))
    calibration = calibrate_frame(frame, rig.model_copy(update={"herd_line_mm": line}))
    assert calibration.herd_line_source == "rig" and calibration.herd_line_mm == line


def test_a_card_off_the_line_is_left_out(rig):
    cards = herd_cards() + [(-380.0, -230.0, 30.0)]
    scene = standard_scene(rig, cards_mm=cards)
    calibration = calibrate_frame(render(scene), rig)
    assert herd_line_errors_mm(calibration.herd_line_mm, _truth(cards[:6])) < 5.0


def test_no_cards_no_herd_line(rig):
    calibration = calibrate_frame(render(standard_scene(rig)), rig)
    assert calibration.herd_line_mm is None and calibration.herd_line_source is None


def test_touching_cards_are_told_apart(rig):
    """Six cards laid edge to edge make one blob: it is cut into cards of the known size."""
    for pitch, angle in ((63.0, 0.0), (88.0, 90.0)):  # short sides touching, then long sides touching
        half = 2.5 * pitch
        cards = herd_cards(start=(-half - 60.0, -70.0), end=(half - 60.0, -70.0), jitter_deg=(angle,))
        scene = standard_scene(rig, cards_mm=cards)
        frame = render(scene)
        calibration = calibrate_frame(frame, rig)
        found = find_cards(frame, calibration, rig)
        assert len(found) == 6, (pitch, [c.centre_mm for c in found])
        assert herd_line_errors_mm(calibration.herd_line_mm, _truth(cards)) < 5.0


def test_line_fit_leaves_out_a_centre_off_the_line():
    centres = np.array([[x, 0.5 * (x % 3)] for x in np.arange(0.0, 450.0, 75.0)] + [[200.0, 22.0]])
    (start, end), inliers = fit_herd_line(centres)
    assert inliers.tolist() == [True] * 6 + [False]
    assert herd_line_errors_mm((start, end), ((0.0, 0.0), (375.0, 0.0))) < 1.0
