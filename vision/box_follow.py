"""The box followed in the picture while it moves: bumped before a launch, tapped during a hard-mode T-Rex launch.

The detector's background holds the box where it stood. A box that moves shows its walls, markers and
regions as change against that background, and a bright marker border or a partition's edge can be
taken for the meteor. The follower measures the box's motion in the reduced frame (a rigid warp found
by ECC over the box's silhouette, the tracked meteor left out) and moves the background's picture of
the box with it, so that what still differs from the background is what is not the box.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.geometry import BoxPose
from calibration.rig import Rig


@dataclass
class BoxFollowSettings:
    change_level: float = 25.0  # grey difference (0–255) of a pixel that changed against the background
    change_share: float = 0.04  # share of the box's pixels that must change before its motion is measured
    min_step_px: float = 0.05  # a warp moving the region's corners less than this (reduced px) is no new motion
    max_shift_mm: float = 60.0  # a box is bumped or tapped, not carried: farther is not the box moving
    max_turn_deg: float = 8.0
    explained_share: float = 0.5  # the warped background must leave at most this share of the change
    edge_mm: float = 12.0  # the motion is measured this far round the box's silhouette (its edges show it)


def box_silhouette_px(rig: Rig, pose: BoxPose, camera) -> np.ndarray:
    """The convex hull (N×2 full-resolution px) of the box from the table to its rim."""
    corners = pose.box_to_table(np.asarray(rig.box.outline_mm, dtype=np.float64))
    points = np.vstack([np.column_stack([corners, np.full(len(corners), height)])
                        for height in (0.0, rig.box.rim_height_mm)])
    return cv2.convexHull(np.float32(camera.project(points))).reshape(-1, 2)


class BoxFollower:
    """Measures the box's motion since it was placed and keeps the backgrounds' picture of it where it is.

    The box's picture in both backgrounds is kept as it was when the follower was placed (the reference);
    each frame the box region differs, the warp from the reference to the frame is found (starting from
    the last one) and the reference, warped once, is written back: no blur builds up over many taps.
    """

    def __init__(self, rig: Rig, pose: BoxPose, camera, detector, settings: BoxFollowSettings | None = None) -> None:
        self.settings = settings or BoxFollowSettings()
        self.scale = detector.scale
        self.width, self.height = detector.width, detector.height
        centre = np.column_stack([pose.box_to_table(np.zeros((1, 2))), [rig.box.rim_height_mm]])
        self._px_per_mm = float(camera.apparent_diameter_px(centre, 1.0)[0])
        silhouette = np.zeros((self.height, self.width), np.uint8)
        cv2.fillConvexPoly(silhouette, np.int32(np.round(box_silhouette_px(rig, pose, camera))), 255)
        self._roi = self._region(silhouette)
        # the backgrounds' box region (reduced, reduced grey, full), the silhouette in it, the measured mask
        self._reference: tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray, np.ndarray] | None = None
        self._silhouette = silhouette
        self.warp = np.eye(2, 3, dtype=np.float32)  # reference → now, reduced ROI px
        self._measured_on: np.ndarray | None = None  # the box region (grey, reduced) last measured
        self.moves = 0  # frames on which the box was found to have moved

    def _region(self, silhouette: np.ndarray) -> tuple[int, int, int, int] | None:
        """(x0, y0, x1, y1) in reduced px: the box's silhouette and room round it for the measure and a bump."""
        x, y, w, h = cv2.boundingRect(silhouette)
        if w < 2 * self.scale or h < 2 * self.scale:
            return None
        s = self.scale
        room = int(round((self.settings.edge_mm + self.settings.max_shift_mm) * self._px_per_mm))
        x0, y0 = max(0, x - room) // s, max(0, y - room) // s
        x1, y1 = min(self.width, x + w + room) // s, min(self.height, y + h + room) // s
        return (x0, y0, x1, y1) if x1 - x0 >= 4 and y1 - y0 >= 4 else None

    def _take_reference(self, detector) -> None:
        """The box region of both backgrounds, and where the box's silhouette and its edges lie in it."""
        x0, y0, x1, y1 = self._roi
        s = self.scale
        small = detector.background[y0:y1, x0:x1].copy()
        full = None
        if detector.full_background is not None:
            full = detector.full_background[y0 * s : y1 * s, x0 * s : x1 * s].copy()
        silhouette = self._silhouette[y0 * s : y1 * s, x0 * s : x1 * s].copy()
        edge = max(1, int(round(self.settings.edge_mm * self._px_per_mm / s)))
        measured = cv2.dilate(cv2.resize(silhouette, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST),
                              np.ones((2 * edge + 1, 2 * edge + 1), np.uint8))
        self._reference = (small, _grey(small), full, silhouette, measured)

    def follow(self, frame_bgr: np.ndarray, detector, meteor: tuple[float, float, float] | None) -> bool:
        """Measure the box's motion in this frame and, when it moved, move the detector's backgrounds with it.

        `meteor` is (x, y, radius) in full-resolution px of the tracked meteor, left out of the measure.
        Returns whether the box was found to have moved.
        """
        if detector.background is None or self._roi is None:
            return False
        if self._reference is None:
            self._take_reference(detector)
        x0, y0, x1, y1 = self._roi
        s, size = self.scale, (x1 - x0, y1 - y0)
        _, reference, _, _, measured = self._reference
        now = _grey(cv2.resize(frame_bgr[y0 * s : y1 * s, x0 * s : x1 * s], size, interpolation=cv2.INTER_AREA))
        mask = measured.copy()
        if meteor is not None:
            cv2.circle(mask, (int(meteor[0] / s) - x0, int(meteor[1] / s) - y0), int(meteor[2] / s) + 3, 0, -1)
        inside = mask > 0
        count = int(np.count_nonzero(inside))
        current = _grey(detector.background[y0:y1, x0:x1])
        level = self.settings.change_level
        changed = int(np.count_nonzero((np.abs(now - current) > level) & inside))
        if count < 16 or changed < self.settings.change_share * count:
            return False
        if self._measured_on is not None:  # measured before, and nothing has moved since: no new motion
            moved_since = int(np.count_nonzero((np.abs(now - self._measured_on) > level) & inside))
            if moved_since < self.settings.change_share * count:
                return False
        self._measured_on = now
        warp = _rigid_warp(now, reference, mask, self.warp)
        if warp is None or not self._plausible(warp, *size) or \
                _corner_shift_px(warp - self.warp, *size) < self.settings.min_step_px:
            return False
        moved = cv2.warpAffine(reference, warp, size, flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)
        left = int(np.count_nonzero((np.abs(now - moved) > level) & inside))
        if left > self.settings.explained_share * changed:
            return False  # not a rigid motion of the box: a hand over it, its shadow
        self.warp = warp
        self._write(detector)
        self.moves += 1
        return True

    def moved_since(self, image_bgr: np.ndarray, then_warp: np.ndarray) -> np.ndarray:
        """`image_bgr` (full resolution, seen when this follower's warp was `then_warp`) with its box region
        moved to where the box is now; the image itself when the box has not moved since."""
        if self._roi is None or np.array_equal(then_warp, self.warp):
            return image_bgr
        x0, y0, x1, y1 = (v * self.scale for v in self._roi)
        # now(x) = reference(W·x) and then(x) = reference(W₀·x), so now(x) = then(W₀⁻¹·W·x)
        then_to_reference = np.vstack([_full_resolution(then_warp, self.scale), [0.0, 0.0, 1.0]])
        now_to_reference = np.vstack([_full_resolution(self.warp, self.scale), [0.0, 0.0, 1.0]])
        step = (np.linalg.inv(then_to_reference) @ now_to_reference)[:2].astype(np.float32)
        moved = image_bgr.copy()
        moved[y0:y1, x0:x1] = cv2.warpAffine(image_bgr[y0:y1, x0:x1], step, (x1 - x0, y1 - y0),
                                             flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
                                             borderMode=cv2.BORDER_REPLICATE)
        return moved

    def _plausible(self, warp: np.ndarray, width: int, height: int) -> bool:
        """A small rigid motion from where the box was placed: no larger than a bump."""
        turn_deg = float(np.degrees(np.arctan2(warp[1, 0], warp[0, 0])))
        limit_px = self.settings.max_shift_mm * self._px_per_mm / self.scale
        return _corner_shift_px(warp - np.eye(2, 3), width, height) <= limit_px and \
            abs(turn_deg) <= self.settings.max_turn_deg

    def _write(self, detector) -> None:
        """Both backgrounds' box region: the reference warped to where the box is now, over the ground the
        box covered then or covers now."""
        small, _, full, silhouette, _ = self._reference
        x0, y0, x1, y1 = self._roi
        s = self.scale
        full_warp = _full_resolution(self.warp, s)
        width, height = (x1 - x0) * s, (y1 - y0) * s
        now = cv2.warpAffine(silhouette, full_warp, (width, height), flags=cv2.INTER_NEAREST + cv2.WARP_INVERSE_MAP)
        covered = cv2.dilate(cv2.bitwise_or(silhouette, now), np.ones((2 * s + 1, 2 * s + 1), np.uint8))
        self._silhouette[y0 * s : y1 * s, x0 * s : x1 * s] = now
        _write_warped(detector.background[y0:y1, x0:x1], small, self.warp,
                      cv2.resize(covered, (x1 - x0, y1 - y0), interpolation=cv2.INTER_NEAREST))
        if full is not None and detector.full_background is not None:
            _write_warped(detector.full_background[y0 * s : y1 * s, x0 * s : x1 * s], full, full_warp, covered)
            detector.forget_frozen_background()


def _corner_shift_px(difference: np.ndarray, width: int, height: int) -> float:
    """The largest displacement a warp difference gives at the corners of a width × height region."""
    corners = np.array([[0, 0, 1], [width, 0, 1], [0, height, 1], [width, height, 1]], float)
    return float(np.max(np.linalg.norm(corners @ np.asarray(difference, float).T, axis=1)))


def _full_resolution(warp: np.ndarray, scale: int) -> np.ndarray:
    """A warp of reduced px as a warp of full-resolution px (a reduced pixel is the mean of a scale² block)."""
    centre = (scale - 1) / 2.0
    full = warp.astype(np.float64).copy()
    full[:, 2] = scale * warp[:, 2] + centre * (1.0 - warp[:, :2].sum(axis=1))
    return full.astype(np.float32)


def _grey(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(np.asarray(image, np.float32), cv2.COLOR_BGR2GRAY)


def _rigid_warp(now: np.ndarray, reference: np.ndarray, mask: np.ndarray, start: np.ndarray) -> np.ndarray | None:
    """The Euclidean warp W with reference(W·x) ≈ now(x) over `mask`, by ECC from `start`; None if it fails."""
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 40, 1e-4)
    try:
        _, warp = cv2.findTransformECC(now, reference, start.copy(), cv2.MOTION_EUCLIDEAN, criteria, mask, 3)
    except cv2.error:
        return None
    return warp


def _write_warped(target: np.ndarray, reference: np.ndarray, warp: np.ndarray, where: np.ndarray) -> None:
    """In place: `target` takes `reference` warped by `warp` wherever `where` is non-zero."""
    height, width = target.shape[:2]
    warped = cv2.warpAffine(reference, warp, (width, height), flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE)
    target[where > 0] = warped[where > 0]
