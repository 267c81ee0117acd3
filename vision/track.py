"""The buffered pixel track of one launch, as the streaming judge hands it to the analysis.

Each sighting carries a flag saying how far its centroid can be trusted; the release fit, the
flight arcs and the herd-line bracket all weigh sightings by it.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

# sighting flags
SEEN = 0  # the whole meteor, clear of any hand
PARTIAL = 1  # part of it (at the picture's edge, a faint streak): its centroid is rougher
COASTED = 2  # not seen: the tracker's prediction, with no size
HAND = 3  # touching a hand (or another foreground object): occluded, carried
# a still meteor's whole sightings read within 3 % of their median size (886 rest sightings of the 30
# sample clips: 99.4 %); sizes split by a larger gap than this fraction of the median are two readings
SIZE_GAP = 0.05
SIZE_TURNS_MIN = 4  # ... taken by turns: the reading changes this often in the window


@dataclass
class LaunchTrack:
    frames: np.ndarray
    px: np.ndarray
    diameters: np.ndarray
    flags: np.ndarray  # SEEN, PARTIAL, COASTED or HAND per sighting
    fps: float
    frame_size: tuple[int, int]
    lost: bool = False
    ended_early: bool = False
    # the launcher's hand (vision.hand): each pair's later frame, shift (px) and peak response, and the
    # throw's image direction; empty when the hand was not measured
    hand_frames: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    hand_shifts: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    hand_responses: np.ndarray = field(default_factory=lambda: np.zeros(0))
    hand_direction: np.ndarray | None = None
    # the meteor was only found in the box, already landed (while the judge followed something else, or its
    # flight too faint to see): its launch unseen
    flight_unseen: bool = False
    # each time the tracker lost the meteor and the judge found it again: (frame, frames unseen before)
    regained: tuple[tuple[int, int], ...] = ()
    # each sighting's shadow (vision.shadow; px, NaN where none was measured); empty when not measured
    shadow_px: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))
    # each sighting's ground point lies over the box, where no hand holds the meteor for a launch (set by
    # the analysis from the calibration); empty when not known
    over_box: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def sizes_by_turns(indices: list[int], sizes: Sequence[float] | np.ndarray) -> list[list[int]]:
    """The sightings `indices` (in time order) as one group, or as two when their apparent `sizes` fall
    into two readings taken by turns: split by a gap wider than `SIZE_GAP` of the median size, each of
    two or more sightings, the reading changing at least `SIZE_TURNS_MIN` times. The smaller is a piece
    of the meteor (a highlight's edge, a part cut by a box partition's colour) whose centroid sits off
    the whole's, so each group's stillness is its own, and the larger (the last) places the meteor.

    A meteor at rest read at two sizes by turns (24 px and 21.6 px, say) can have centroids further
    apart than a rest allows: taken as one group it is judged still late, and placed less well.
    Readings that change only a few times stay one group, as motion would hide in two short ones: a
    meteor rolling into a shadow, a piece read for a few frames between two whole sightings, a meteor
    read smaller as it settles."""
    if len(indices) < 4:
        return [indices]
    order = sorted(indices, key=lambda i: sizes[i])
    gaps = [sizes[b] - sizes[a] for a, b in zip(order, order[1:], strict=False)]
    cut = max(range(len(gaps)), key=gaps.__getitem__)
    if gaps[cut] <= SIZE_GAP * statistics.median(sizes[i] for i in indices):
        return [indices]
    small = set(order[: cut + 1])
    groups = [[i for i in indices if i in small], [i for i in indices if i not in small]]
    turns = sum((a in small) != (b in small) for a, b in zip(indices, indices[1:], strict=False))
    by_turns = turns >= SIZE_TURNS_MIN and all(len(group) >= 2 for group in groups)
    return groups if by_turns else [indices]
