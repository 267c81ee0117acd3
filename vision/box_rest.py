"""A meteor lying in the box where the tracker cannot see it: a new, meteor-sized blob on the box floor.

The detector picks the meteor out by its colour; a white, grey or box-coloured meteor that it loses
in flight, or never sees at all, is still plain to see once it lies in the box, as a change from the
box as it was before the launch. This search needs no colour: the frame against that picture of the box, over the box
floor, and the changed blobs of the meteor's size and shape there (its size through the calibrated
camera at the floor, not the blob's own).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class BoxRestSettings:
    """What counts as a meteor newly lying on the box floor."""

    change_level: float = 30.0  # a pixel changed when one of its channels moved this much from before the launch
    min_size: float = 0.6  # the blob's area-equivalent diameter, as a share of the meteor's, at least ...
    max_size: float = 1.5  # ... and at most (its shadow may join it)
    max_extent: float = 1.8  # its bounding box's longer side, in meteor diameters, at most
    min_fill: float = 0.45  # share of its bounding box it fills, at least (a disc fills 0.79)
    shadow_min_brightness: float = 0.4  # a blob darker than before but keeping this share of its brightness ...
    shadow_min_correlation: float = 0.8  # ... whose pattern correlates this well with the floor's is a shadow ...
    pattern_min_std: float = 4.0  # ... when the floor there has a pattern (grey levels' spread) to tell by
    shift_share: float = 0.35  # the picture before, shifted by up to this share of the meteor's diameter, ...
    min_unexplained: float = 0.5  # ... must leave this share of the blob's change: a box or camera nudged a
    # few pixels changes the edges of what is there, a meteor newly lying there stays whatever the shift
    disturbance_min_size: float = 3.0  # a changed region this many diameters across is a hand or an arm ...
    disturbance_seconds: float = 1.0  # ... and a blob first seen where one was this recently was uncovered by it


@dataclass(frozen=True)
class FloorBlob:
    """A changed blob on the box floor, in full-resolution px."""

    x: float
    y: float
    diameter_px: float  # area-equivalent diameter


@dataclass(frozen=True)
class FloorChanges:
    """What changed on the box floor: meteor-sized new blobs, largest first, and the bounding boxes
    (x0, y0, x1, y1 px) of changes the size of a hand or an arm (`disturbance_min_size`)."""

    blobs: list[FloorBlob]
    disturbances: list[tuple[int, int, int, int]]


def new_blobs_on_floor(
    frame_bgr: np.ndarray,
    before_bgr: np.ndarray,
    floor_px: np.ndarray,
    diameter_px: float,
    settings: BoxRestSettings,
) -> list[FloorBlob]:
    """Meteor-sized blobs of `frame_bgr` changed from `before_bgr` (the same scene before the launch, any
    dtype) with their centre inside the polygon `floor_px` (N×2, where a meteor's centre lies on the box
    floor), largest first."""
    return floor_changes(frame_bgr, before_bgr, floor_px, diameter_px, settings).blobs


def floor_changes(
    frame_bgr: np.ndarray,
    before_bgr: np.ndarray,
    floor_px: np.ndarray,
    diameter_px: float,
    settings: BoxRestSettings,
) -> FloorChanges:
    """The changes of `frame_bgr` from `before_bgr` over the box floor (see `FloorChanges`)."""
    height, width = frame_bgr.shape[:2]
    margin = int(np.ceil(diameter_px))
    x0, y0 = np.maximum(np.floor(floor_px.min(axis=0)).astype(int) - margin, 0)
    x1, y1 = np.minimum(np.ceil(floor_px.max(axis=0)).astype(int) + margin + 1, [width, height])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return FloorChanges([], [])
    now = frame_bgr[y0:y1, x0:x1].astype(np.float32)
    then = np.asarray(before_bgr[y0:y1, x0:x1], dtype=np.float32)
    change = largest_channel(cv2.absdiff(now, then))  # each pixel's largest channel change
    changed = (change > settings.change_level).astype(np.uint8)
    # outer outlines only: a meteor like the floor in places changes as a ring, whose hole is filled
    contours, _ = cv2.findContours(changed, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    floor = floor_px.astype(np.float32).reshape(-1, 1, 2)
    shift_px = max(1, int(round(settings.shift_share * diameter_px)))
    blobs, disturbances = [], []
    for contour in contours:
        area = float(cv2.contourArea(contour)) + 0.5 * len(contour)  # the outline's own pixels count
        left, top, w, h = cv2.boundingRect(contour)
        size = float(np.sqrt(4.0 * area / np.pi))
        if size >= settings.disturbance_min_size * diameter_px:
            disturbances.append((left + x0, top + y0, left + w + x0, top + h + y0))
        if not settings.min_size * diameter_px <= size <= settings.max_size * diameter_px:
            continue
        if max(w, h) > settings.max_extent * diameter_px or area < settings.min_fill * w * h:
            continue
        moments = cv2.moments(contour)
        if moments["m00"] <= 0:
            continue
        cx, cy = moments["m10"] / moments["m00"] + x0, moments["m01"] / moments["m00"] + y0
        if cv2.pointPolygonTest(floor, (cx, cy), False) < 0:
            continue
        mask = np.zeros((h, w), np.uint8)
        cv2.drawContours(mask, [contour - [left, top]], -1, 1, thickness=-1)
        if _explained_by_shift(now, then, changed, (left, top, w, h), mask, shift_px, settings):
            continue
        if _a_shadow(now[top : top + h, left : left + w], then[top : top + h, left : left + w], mask, settings):
            continue
        if _a_hole(now, then, (left, top, w, h), mask, settings):
            continue
        cx, cy = _disc_centre(change, (left, top, w, h), diameter_px)
        blobs.append(FloorBlob(cx + x0, cy + y0, size))
    return FloorChanges(sorted(blobs, key=lambda blob: -blob.diameter_px), disturbances)


def new_against_all(
    frame_bgr: np.ndarray,
    pictures: tuple[np.ndarray, ...],
    floor_px: np.ndarray,
    diameter_px: float,
    settings: BoxRestSettings,
) -> FloorChanges:
    """The changes against the first of `pictures` (`floor_changes`), keeping the blobs that each of the
    others shows new too, within a quarter diameter: a background that learned an arm's ghost over the
    box makes the floor under it look changed once the ghost fades, while a frame of that time shows it
    unchanged."""
    changes = floor_changes(frame_bgr, pictures[0], floor_px, diameter_px, settings)
    blobs = changes.blobs
    for picture in pictures[1:]:
        if not blobs:
            break
        others = new_blobs_on_floor(frame_bgr, picture, floor_px, diameter_px, settings)
        blobs = [blob for blob in blobs
                 if any(math.hypot(blob.x - other.x, blob.y - other.y) <= 0.25 * diameter_px for other in others)]
    return FloorChanges(blobs, changes.disturbances)


def largest_channel(image: np.ndarray) -> np.ndarray:
    """Each pixel's largest channel of an H×W×3 image, as `image.max(axis=2)` but ten times faster
    (numpy reduces across the innermost axis of three one pixel at a time)."""
    blue, green, red = cv2.split(image)
    return cv2.max(cv2.max(blue, green), red)


def _disc_centre(change: np.ndarray, rect: tuple[int, int, int, int], diameter_px: float) -> tuple[float, float]:
    """Where a disc of the meteor's diameter covers the most change (`change`: each pixel's largest channel
    change), within the blob's bounding box: the meteor, whose change is strong, rather than its shadow
    joined to it, whose change is weak."""
    left, top, w, h = rect
    height, width = change.shape[:2]
    margin = int(np.ceil(diameter_px / 2))
    x0, y0 = max(0, left - margin), max(0, top - margin)
    x1, y1 = min(width, left + w + margin), min(height, top + h + margin)
    change = change[y0:y1, x0:x1]
    size = 2 * int(diameter_px / 2) + 1
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size)).astype(np.float32)
    covered = cv2.filter2D(change, -1, disc / disc.sum(), borderType=cv2.BORDER_CONSTANT)
    box = (slice(top - y0, top - y0 + h), slice(left - x0, left - x0 + w))
    inside = np.zeros_like(covered)
    inside[box] = covered[box]
    _, _, _, (cx, cy) = cv2.minMaxLoc(inside)
    return float(cx + x0), float(cy + y0)


def _a_shadow(now: np.ndarray, then: np.ndarray, mask: np.ndarray, settings: BoxRestSettings) -> bool:
    """Whether the blob is the floor as before, only darker by a shadow's depth with its pattern kept (the
    shadow of a meteor or a hand above it), not a thing lying there. A plain floor shows no pattern: its
    darker blobs are kept."""
    inside = mask > 0
    grey_now = cv2.cvtColor(now, cv2.COLOR_BGR2GRAY)[inside]
    grey_then = cv2.cvtColor(then, cv2.COLOR_BGR2GRAY)[inside]
    brightness = float(grey_now.mean()) / max(float(grey_then.mean()), 1.0)
    if not settings.shadow_min_brightness <= brightness < 1.0 or grey_then.std() < settings.pattern_min_std:
        return False
    return float(np.corrcoef(grey_now, grey_then)[0, 1]) >= settings.shadow_min_correlation


def _a_hole(now: np.ndarray, then: np.ndarray, rect: tuple[int, int, int, int], mask: np.ndarray,
            settings: BoxRestSettings) -> bool:
    """Whether the blob stood out from its surroundings more before than it does now: something that lay
    there when the picture before was taken and is gone (the meteor itself, caught there), not something
    new. A blob pixel stands out when it is more than `change_level` from the median colour of a ring
    round the blob in some channel."""
    left, top, w, h = rect
    height, width = now.shape[:2]
    pad = max(2, (w + h) // 8)
    x0, y0, x1, y1 = max(0, left - pad), max(0, top - pad), min(width, left + w + pad), min(height, top + h + pad)
    inside = np.zeros((y1 - y0, x1 - x0), np.uint8)
    inside[top - y0 : top - y0 + h, left - x0 : left - x0 + w] = mask
    ring = cv2.dilate(inside, np.ones((2 * pad + 1, 2 * pad + 1), np.uint8)) & ~inside
    if not ring.any():
        return False

    def standing_out(image: np.ndarray) -> float:
        window = image[y0:y1, x0:x1]
        surroundings = np.median(window[ring > 0], axis=0)
        return float(np.mean(np.abs(window[inside > 0] - surroundings).max(axis=1) > settings.change_level))

    return standing_out(then) > standing_out(now)


def _explained_by_shift(
    now: np.ndarray, then: np.ndarray, changed: np.ndarray, rect: tuple[int, int, int, int], mask: np.ndarray,
    shift_px: int, settings: BoxRestSettings,
) -> bool:
    """Whether the picture before, shifted by up to `shift_px` (the best match of the blob's patch), leaves
    less than `min_unexplained` of the blob's change (`changed`, unshifted): the edge of something nudged,
    not a new thing."""
    left, top, w, h = rect
    height, width = then.shape[:2]
    if left < shift_px or top < shift_px or left + w + shift_px > width or top + h + shift_px > height:
        return False  # at the window's edge: no room to shift, nothing ruled out
    patch = now[top : top + h, left : left + w]
    around = then[top - shift_px : top + h + shift_px, left - shift_px : left + w + shift_px]
    scores = cv2.matchTemplate(around, patch, cv2.TM_SQDIFF)
    _, _, (dx, dy), _ = cv2.minMaxLoc(scores)
    shifted = around[dy : dy + h, dx : dx + w]
    after = largest_channel(cv2.absdiff(patch, shifted)) > settings.change_level
    changed_before = int(np.count_nonzero((changed[top : top + h, left : left + w] > 0) & (mask > 0)))
    return changed_before > 0 and np.count_nonzero(after & (mask > 0)) < settings.min_unexplained * changed_before
