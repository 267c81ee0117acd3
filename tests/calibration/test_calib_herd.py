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
