"""The buffered pixel track of one launch, as the streaming judge hands it to the analysis.

Each sighting carries a flag saying how far its centroid can be trusted; the release fit, the
flight arcs and the herd-line bracket all weigh sightings by it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# sighting flags
SEEN = 0  # the whole meteor, clear of any hand
PARTIAL = 1  # part of it (at the picture's edge, a faint streak): its centroid is rougher
COASTED = 2  # not seen: the tracker's prediction, with no size
HAND = 3  # touching a hand (or another foreground object): occluded, carried


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
