"""Following the meteor backwards through the last frames: a flight the tracker picked up late, and the
hold before a track that began as the hand started to move the meteor.

The streaming tracker often finds the flying meteor some frames after it left the hand: it stayed on
the hand, lost the meteor in the first blurred frames, or only found it by a whole-frame search. The
frames it missed hold the release and often the first table bounce. The judge keeps the last few
frames (`BacktrackSettings.seconds`); when a flight is picked up after a gap, `walk_back` follows it
from its first two sightings backwards in time with the same detector (colour blobs, then faint
streaks) and a constant image velocity, until the meteor is lost, reaches the hand, or meets the
sightings before the gap.

A meteor held still from the footage's first frame is part of the background the detector learned:
the track starts only when the hand moves it, and the hold, which times the release, goes unseen.
`walk_into_hold` finds it in the frames kept before the track's first sighting by its colour alone.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.detector import FAINT_MIN_SWEEP, Detection, MeteorDetector, streak_area_max_px


@dataclass(frozen=True)
class BacktrackSettings:
    seconds: float = 1.0  # frames kept for the walk back ...
    max_kept_mb: float = 64.0  # ... as decoded, no more than this memory holds (at 1080p: 10 frames) ...
    reduced_mb: float = 16.0  # ... and older ones reduced to the detector's scale, in this much more
    max_misses: int = 2  # frames in a row without the meteor the walk looks past (one more ends it)
    # sightings in a row touching the hand that end the walk there (the hold); fewer are a hand following
    # the flying meteor through, walked past (the earliest touching run found is the hold's end either way)
    touches_to_stop: int = 3
    gate_diameters: float = 1.5  # a sighting lies within this many meteor diameters of the prediction ...
    gate_travel: float = 0.5  # ... or this share of the travel since the last sighting, whichever is larger
    min_moving: float = 0.5  # share of a colour blob's pixels changed from the background
    size_range: tuple[float, float] = (0.35, 1.8)  # a sighting's diameter against the meteor's
    # the walk into the hold (`walk_into_hold`); diameters are the meteor's on the table
    hold_first_gate_diameters: float = 1.0  # the hold's last sighting lies this near the track's first ...
    hold_tremble_diameters: float = 0.3  # ... and each earlier one this near the one after it ...
    hold_tremble_min_px: float = 2.0  # ... or this, if more (a hand trembles)
    hold_size_range: tuple[float, float] = (0.5, 2.5)  # held above the table, the meteor reads bigger
    hold_min_sightings: int = 3  # fewer found is no hold


# the learned detector's sighting in kept frame `index` within `reach_px` of (x, y) (full-res px), or None
HeatNear = Callable[[int, float, float, float], Detection | None]


def frames_to_keep(settings: BacktrackSettings, fps: float, frame_bytes: int, scale: int = 1) -> tuple[int, int]:
    """How many of the last frames the judge keeps for the walk back at `fps` and `frame_bytes` a frame: in
    all, and of those, the newest as decoded (the older ones reduced `scale` times, when `scale` > 1)."""
    wanted = max(0, round(settings.seconds * fps))
    decoded = min(wanted, int(settings.max_kept_mb * 1e6 // max(frame_bytes, 1)))
    if scale <= 1:
        return decoded, decoded
    reduced = int(settings.reduced_mb * 1e6 // max(frame_bytes // (scale * scale), 1))
    return min(wanted, decoded + reduced), decoded


class KeptFrames:
    """The last frames, oldest first, as (index, BGR) pairs: the newest `decoded` as decoded, older ones
    reduced `scale` times (a block's mean) and given back at full size, each reduced pixel a `scale`×`scale`
    block. The detector's colour search and the heat map reduce by the same blocks, so they see those
    frames as before; only the full-resolution refinement of a blob sees the blocks."""

    def __init__(self, count: int, decoded: int, scale: int) -> None:
        self._frames: deque[tuple[int, np.ndarray, tuple[int, int] | None]] = deque(maxlen=count)
        self._decoded = max(1, decoded)
        self._scale = max(1, int(scale))

    def append(self, index: int, frame_bgr: np.ndarray) -> None:
        self._frames.append((index, frame_bgr, None))
        older = len(self._frames) - self._decoded - 1
        if older >= 0 and self._scale > 1 and self._frames[older][2] is None:
            old_index, old, _ = self._frames[older]
            height, width = old.shape[:2]
            small = cv2.resize(old, (width // self._scale, height // self._scale), interpolation=cv2.INTER_AREA)
            self._frames[older] = (old_index, small, (width, height))

    def clear(self) -> None:
        self._frames.clear()

    def __len__(self) -> int:
        return len(self._frames)

    def before(self, frame_index: int) -> _FullSize:
        """The kept frames older than `frame_index`, oldest first, each brought to full size as it is read."""
        return _FullSize([item for item in self._frames if item[0] < frame_index])

    def run_to(self, last_index: int, count: int) -> list[np.ndarray] | None:
        """The frames `last_index` - `count` + 1 to `last_index`, oldest first, at full size, when all are kept
        (none skipped), else None."""
        if not self._frames:
            return None
        start = last_index - count + 1 - self._frames[0][0]  # where the run starts, were no frame skipped
        if start < 0 or start + count > len(self._frames):
            return None
        run = [self._frames[start + back] for back in range(count)]
        if run[0][0] != last_index - count + 1 or run[-1][0] != last_index:
            return None  # a frame was skipped
        return [self._pair(item)[1] for item in run]

    @staticmethod
    def _pair(item: tuple[int, np.ndarray, tuple[int, int] | None]) -> tuple[int, np.ndarray]:
        index, image, full_size = item
        if full_size is None:
            return index, image
        return index, cv2.resize(image, full_size, interpolation=cv2.INTER_NEAREST)


class _FullSize(Sequence):
    """Kept frames as (index, BGR) pairs, a reduced one brought to full size only when read: a walk reads
    a few of them, one at a time."""

    def __init__(self, items: list[tuple[int, np.ndarray, tuple[int, int] | None]]) -> None:
        self._items = items

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, position: int | slice):
        if isinstance(position, slice):
            return _FullSize(self._items[position])
        return KeptFrames._pair(self._items[position])


def walk_back(
    detector: MeteorDetector,
    frames: Sequence[tuple[int, np.ndarray]],
    first: tuple[int, float, float],
    second: tuple[int, float, float],
    diameter_px: float,
    reached_start: Callable[[int, np.ndarray, Detection], bool],
    settings: BacktrackSettings | None = None,
    heat_near: HeatNear | None = None,
) -> list[tuple[int, Detection]]:
    """The meteor's sightings (frame, detection), latest first, in the `frames` (index, BGR; in time
    order) before `first`, following the flight whose first two sightings are `first` and `second`
    (frame, x px, y px). The walk ends after the sighting for which `reached_start(frame, BGR,
    detection)` holds (the hand, the track met), when the meteor is missed `max_misses` + 1 times in a row, or at the
    oldest frame. `heat_near` looks where colour finds nothing (see `HeatNear`)."""
    settings = settings or BacktrackSettings()
    frame_now, x, y = first
    steps = second[0] - first[0]
    if steps <= 0:
        return []
    vx, vy = (second[1] - x) / steps, (second[2] - y) / steps
    found: list[tuple[int, Detection]] = []
    misses = 0
    for index, frame_bgr in reversed(frames):
        if index >= frame_now:
            continue
        gap = frame_now - index
        travel = math.hypot(vx, vy) * gap
        gate = max(settings.gate_diameters * diameter_px, settings.gate_travel * travel)
        detection = _sighting_near(detector, frame_bgr, x - vx * gap, y - vy * gap, gate, diameter_px,
                                   math.hypot(vx, vy), settings)
        if detection is None and heat_near is not None:
            detection = heat_near(index, x - vx * gap, y - vy * gap, gate)
        if detection is None:
            misses += 1
            if misses > settings.max_misses:
                break
            continue
        misses = 0
        # a free meteor's image velocity changes little over a frame: blend in the new step
        vx = 0.5 * vx + 0.5 * (x - detection.x) / gap
        vy = 0.5 * vy + 0.5 * (y - detection.y) / gap
        frame_now, x, y = index, detection.x, detection.y
        found.append((index, detection))
        if reached_start(index, frame_bgr, detection):
            break
    return found


def _sighting_near(
    detector: MeteorDetector,
    frame_bgr: np.ndarray,
    x: float,
    y: float,
    gate: float,
    diameter_px: float,
    speed_px: float,
    settings: BacktrackSettings,
) -> Detection | None:
    """The meteor within `gate` of (x, y): the nearest moving colour blob, else (when fast enough to
    blur) the nearest faint streak; None when neither is of the meteor's size."""
    reach = gate + 2.0 * diameter_px + speed_px / 2 + 2 * detector.scale
    blobs = [c for c in detector.candidates_near(frame_bgr, x, y, reach, with_motion=True)
             if c[3] >= settings.min_moving]
    detection = None
    nearest = min(blobs, key=lambda c: math.hypot(c[0] - x, c[1] - y), default=None)
    if nearest is not None and math.hypot(nearest[0] - x, nearest[1] - y) <= gate:
        detection = detector.refine(frame_bgr, nearest[0], nearest[1], nearest[2], detector.last_boxes.get(nearest[4]))
    if detection is None and speed_px >= FAINT_MIN_SWEEP * diameter_px:
        detection = detector.nearest_faint_streak(frame_bgr, x, y, reach, streak_area_max_px(diameter_px, speed_px),
                                                  gate)
    if detection is None or math.hypot(detection.x - x, detection.y - y) > gate:
        return None
    return detection if _of_size(detection, diameter_px, settings.size_range) else None


def _of_size(detection: Detection, diameter_px: float, size_range: tuple[float, float]) -> bool:
    """Whether a sighting's diameter lies within `size_range` of the meteor's `diameter_px`."""
    low, high = size_range
    return low * diameter_px <= detection.diameter_px <= high * diameter_px


def walk_into_hold(
    detector: MeteorDetector,
    frames: Sequence[tuple[int, np.ndarray]],
    first: tuple[int, float, float],
    diameter_px: float,
    settings: BacktrackSettings | None = None,
) -> list[tuple[int, Detection]]:
    """The meteor held before the track's first sighting `first` (frame, x px, y px), latest first: in the
    `frames` (index, BGR; in time order) before it, the meteor-coloured blob (`blob_by_colour_near`, no
    background test) within `hold_first_gate_diameters` of the first sighting, then each within
    `hold_tremble_diameters` of the one after it, of the meteor's size (`diameter_px` on the table,
    `hold_size_range`) and whole in its window. The walk ends when the meteor is missed `max_misses` + 1
    times in a row, or moves: a hand carrying it in leaves no hold. Fewer than `hold_min_sightings`
    found: none."""
    settings = settings or BacktrackSettings()
    frame_now, x, y = first
    gate = settings.hold_first_gate_diameters * diameter_px
    found: list[tuple[int, Detection]] = []
    misses = 0
    for index, frame_bgr in reversed(frames):
        if index >= frame_now:
            continue
        detection = detector.blob_by_colour_near(frame_bgr, x, y, gate)
        if detection is None or detection.partial or not _of_size(detection, diameter_px, settings.hold_size_range):
            misses += 1
            if misses > settings.max_misses:
                break
            continue
        misses = 0
        found.append((index, detection))
        x, y = detection.x, detection.y
        gate = max(settings.hold_tremble_min_px, settings.hold_tremble_diameters * diameter_px)
    return found if len(found) >= settings.hold_min_sightings else []
