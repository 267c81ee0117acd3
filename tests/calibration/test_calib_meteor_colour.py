"""The meteor's colour, learned from a click or from the thing that moves, when the rig leaves it open."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.meteor_colour import MeteorColourError, colour_at, learn_from_motion


def _frames(rgb, count=8):
    frames = []
    for i in range(count):
        frame = np.full((120, 160, 3), (90, 120, 100), np.uint8)
        import cv2

        cv2.circle(frame, (20 + 15 * i, 60), 8, rgb[::-1], -1)
        frames.append(frame)
    return frames


def test_colour_from_a_click():
    frame = _frames((210, 90, 40))[0]
    assert colour_at(frame, (20, 60), 4) == (210, 90, 40)


def test_colour_from_what_moves():
    assert learn_from_motion(_frames((210, 90, 40))) == (210, 90, 40)


def test_nothing_moves_is_an_error():
    still = [np.zeros((50, 50, 3), np.uint8)] * 4
    with pytest.raises(MeteorColourError, match="nothing round moved"):
        learn_from_motion(still)
