"""Telling a flight from the learned detector's peaks in frames in a row (`vision.heat_flight`)."""

from __future__ import annotations

import pytest

from vision.heat_flight import FlyingPeaks, HeatFlightSettings, steady_flight

DIAMETER_PX = 20.0
SETTINGS = HeatFlightSettings()


def _feed(peaks: FlyingPeaks, per_frame: list[list[tuple[float, float, float]]], first_frame: int = 10) -> None:
    for offset, frame_peaks in enumerate(per_frame):
        peaks.add(first_frame + offset, frame_peaks)


def test_three_likely_peaks_moving_steadily_far_are_a_flight():
    assert steady_flight(((100.0, 50.0, 0.9), (115.0, 52.0, 0.9), (130.0, 55.0, 0.95)), DIAMETER_PX, SETTINGS)


@pytest.mark.parametrize(
    ("peaks", "why"),
    [
        (((100.0, 50.0, 0.9), (101.0, 50.0, 0.9), (101.5, 50.5, 0.9)), "still: a card, a marker"),
        (((100.0, 50.0, 0.9), (115.0, 50.0, 0.9), (100.0, 50.0, 0.9)), "back and forth: a hand"),
        (((100.0, 50.0, 0.9), (115.0, 50.0, 0.9), (175.0, 50.0, 0.9)), "steps far apart in length"),
        (((100.0, 50.0, 0.9), (115.0, 50.0, 0.6), (130.0, 50.0, 0.9)), "one peak unlikely"),
    ],
)
def test_peaks_that_do_not_move_as_a_flight_are_none(peaks, why):
    assert not steady_flight(peaks, DIAMETER_PX, SETTINGS), why


def test_the_flight_is_the_likeliest_steady_chain_among_other_peaks():
    peaks = FlyingPeaks(SETTINGS)
    still_card = (300.0, 400.0, 0.97)  # the best peak of every frame, never moving
    _feed(peaks, [[still_card, (100.0 + 14 * k, 50.0 + 3 * k, 0.9)] for k in range(4)])
    x, y, vx, vy = peaks.flight(DIAMETER_PX)
    assert (x, y) == (142.0, 59.0)
    assert (vx, vy) == (14.0, 3.0)


def test_no_flight_before_enough_frames_or_across_a_frame_not_searched():
    peaks = FlyingPeaks(SETTINGS)
    steps = [[(100.0 + 14 * k, 50.0, 0.9)] for k in range(SETTINGS.frames_in_a_row)]
    _feed(peaks, steps[:-1])
    assert peaks.flight(DIAMETER_PX) is None  # one frame short
    peaks.add(10 + SETTINGS.frames_in_a_row, steps[-1][0:1])  # a frame skipped before the last
    assert peaks.flight(DIAMETER_PX) is None
    peaks.clear()
    _feed(peaks, steps)
    assert peaks.flight(DIAMETER_PX) is not None
