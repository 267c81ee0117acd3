"""A flight found again by the learned detector over the whole picture.

When the tracker loses a flying meteor (it blurred, crossed a card of its colour, or its colour is
the table's), it coasts on its prediction, then the judge searches the whole picture with the colour
test, which missed the meteor already and tends to start on something still (a marker's corner, a
card, a hand). The heat map (`vision.heatmap`) looks at what the meteor is, not its colour; over the
whole picture its best peak is on a lost flying meteor in about six frames of ten, and on something
else (a card, a hand) in most of the rest. A flying meteor moves steadily and far between frames,
which a card never does and a hand seldom does: peaks of four frames in a row, each a good share of
a meteor diameter from the last, with nearly the same step, are taken for the flight.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from dataclasses import dataclass


@dataclass(frozen=True)
class HeatFlightSettings:
    frames_in_a_row: int = 4  # a flight is this many frames in a row, ...
    peaks_per_frame: int = 3  # ... each with one of the highest peaks of its heat map, ...
    min_probability: float = 0.85  # ... each at least this likely the meteor's centre; ...
    min_step_diameters: float = 0.5  # ... each step between them at least this many meteor diameters ...
    step_change: float = 0.35  # ... and the second step differing from the first by at most this share
    step_change_diameters: float = 0.5  # of the longer step, plus this many meteor diameters


Peak = tuple[float, float, float]  # x px, y px, probability


def steady_flight(peaks: tuple[Peak, ...], diameter_px: float, settings: HeatFlightSettings) -> bool:
    """Whether three peaks of consecutive frames (oldest first) move like a flying meteor of `diameter_px`:
    each likely, each step long, and the two steps alike."""
    if any(peak[2] < settings.min_probability for peak in peaks):
        return False
    (x0, y0, _), (x1, y1, _), (x2, y2, _) = peaks
    first, second = (x1 - x0, y1 - y0), (x2 - x1, y2 - y1)
    shorter, longer = sorted((math.hypot(*first), math.hypot(*second)))
    if shorter < settings.min_step_diameters * diameter_px:
        return False
    change = math.hypot(second[0] - first[0], second[1] - first[1])
    return change <= settings.step_change * longer + settings.step_change_diameters * diameter_px


class FlyingPeaks:
    """The heat map's peaks in the last frames searched; `flight` tells when the last frames in a row hold a
    steady flight."""

    def __init__(self, settings: HeatFlightSettings | None = None) -> None:
        self.settings = settings or HeatFlightSettings()
        self._frames: deque[tuple[int, list[Peak]]] = deque(maxlen=self.settings.frames_in_a_row)

    def add(self, frame_index: int, peaks: list[Peak]) -> None:
        """This frame's peaks, after those of earlier frames."""
        self._frames.append((frame_index, peaks))

    def flight(self, diameter_px: float) -> tuple[float, float, float, float] | None:
        """(x, y, vx, vy) px and px per frame of the latest frame's peak on the likeliest steady flight through
        the kept frames' peaks (each three in a row `steady_flight`), when those frames follow one another;
        else None."""
        count = self.settings.frames_in_a_row
        frames = [index for index, _ in self._frames]
        if len(frames) != count or frames[-1] - frames[0] != count - 1:
            return None
        flights = [chain for chain in itertools.product(*(peaks for _, peaks in self._frames))
                   if all(steady_flight(chain[at : at + 3], diameter_px, self.settings) for at in range(count - 2))]
        if not flights:
            return None
        *_, (x1, y1, _), (x2, y2, _) = max(flights, key=lambda chain: min(peak[2] for peak in chain))
        return x2, y2, x2 - x1, y2 - y1

    def clear(self) -> None:
        self._frames.clear()
