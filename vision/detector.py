"""Find the meteor in a frame: colour and size on a downscaled frame, then a full-resolution refinement.

Cheap by design (the judge must run several times faster than real time on one core):

- The frame is reduced `scale` times with `INTER_AREA`; on that small frame a pixel is
  *meteor-coloured* when its colour points the same way as the meteor's (the angle between the two
  RGB vectors is small) and its brightness is within a broad band of the meteor's. The angle test
  ignores shading across the sphere and lighting drift, and rejects shadows, which are the table's
  hue made darker.
- Connected components of that mask, of a plausible size for the meteor, are the candidates; the one
  nearest the tracker's prediction (inside its gate) wins, else the most meteor-like.
- The winner is refined in a small full-resolution window: its centroid (for a motion-blurred streak,
  the middle of the exposure) and its apparent diameter (from the area of a round blob, from the
  width of a streak).
- A background model (running average of the small frame, updated slowly and never under the
  meteor) tells moving meteor-coloured blobs from static ones of the same colour (a painted
  compartment, a card), which are ignored unless the meteor is known to be there.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(slots=True)
class Detection:
    """One meteor sighting, in full-resolution pixels."""

    x: float
    y: float
    diameter_px: float
    elongation: float  # major/minor axis ratio (1 for a round blob; a streak is longer)
    area_px: float
    partial: bool = False  # touching something (hand, frame edge): centroid and size are doubtful


def colour_basis(rgb: tuple[int, int, int] | np.ndarray) -> tuple[np.ndarray, float]:
    """The unit BGR direction of the meteor's colour and its brightness along that direction."""
    bgr = np.asarray(rgb, dtype=np.float32)[::-1].copy()
    norm = float(np.linalg.norm(bgr))
    if norm < 1e-3:
        bgr = np.ones(3, np.float32)
        norm = float(np.sqrt(3.0))
    return bgr / norm, norm


class MeteorDetector:
    """Stateful detector: keeps a small background model; `detect` is called once per frame."""

    def __init__(
        self,
        frame_size: tuple[int, int],
        meteor_rgb: tuple[int, int, int],
        diameter_range_px: tuple[float, float],
        scale: int = 4,
        max_angle_deg: float = 12.0,
        brightness_range: tuple[float, float] = (0.35, 1.8),
    ) -> None:
        self.width, self.height = frame_size
        self.scale = max(1, int(scale))
        self.small_size = (max(1, self.width // self.scale), max(1, self.height // self.scale))
        self.diameter_range_px = (float(diameter_range_px[0]), float(diameter_range_px[1]))
        self.set_colour(meteor_rgb, max_angle_deg, brightness_range)
        self.background: np.ndarray | None = None  # float32 small frame
        self.full_background: np.ndarray | None = None  # float32 full frame, refreshed every few frames
        self._learned_bgr: np.ndarray | None = None  # the meteor's mean colour as this camera sees it
        self._frames_seen = 0

    def set_colour(
        self,
        meteor_rgb: tuple[int, int, int],
        max_angle_deg: float = 12.0,
        brightness_range: tuple[float, float] = (0.35, 1.8),
    ) -> None:
        direction, norm = colour_basis(meteor_rgb)
        self.direction = direction
        self.brightness = norm
        self.cos_limit = float(np.cos(np.radians(max_angle_deg)))
        self.brightness_range = brightness_range
        # p·d (brightness along the meteor's colour) and |p|² from one transform each
        self._along = direction.reshape(1, 3).astype(np.float32)
        self._ones = np.ones((1, 3), np.float32)
        self._meteor_bgr = np.asarray(meteor_rgb, np.float32)[::-1].copy()

    # -- masks ---------------------------------------------------------------------------------

    def colour_mask(self, image_bgr: np.ndarray, background: np.ndarray | None = None) -> np.ndarray:
        """uint8 mask (255 = meteor-coloured) of a BGR image of any size.

        With a background (float32, same size) a pixel must also be nearer in hue to the meteor
        than to the background under it: that rejects shadows and a table of a similar colour.
        """
        pixels = image_bgr.astype(np.float32)
        along = cv2.transform(pixels, self._along)  # p·d
        squared = cv2.transform(cv2.multiply(pixels, pixels), self._ones) + 1.0  # |p|²
        low, high = self.brightness_range
        along2 = cv2.multiply(along, along)
        # angle test without a square root: (p·d)² ≥ cos² · |p|², with p·d > 0
        mask = cv2.compare(along2, squared * (self.cos_limit**2), cv2.CMP_GE)
        mask &= cv2.inRange(along, self.brightness * low, self.brightness * high)
        if background is not None:
            cross = cv2.transform(cv2.multiply(pixels, background), self._ones)  # p·b
            bb = cv2.transform(cv2.multiply(background, background), self._ones) + 1.0  # |b|²
            # cos²(p, meteor) > cos²(p, background):  (p·d)²·|b|² > (p·b)²
            mask &= cv2.compare(cv2.multiply(along2, bb), cv2.multiply(cross, cross) * 1.02, cv2.CMP_GT)
        return mask

    def update_full_background(self, frame_bgr: np.ndarray, exclude: tuple[float, float, float] | None, rate: float):
        if self.full_background is None:
            self.full_background = frame_bgr.astype(np.float32)
            return
        if exclude is None:
            cv2.accumulateWeighted(frame_bgr, self.full_background, rate)
        else:
            keep = np.full(frame_bgr.shape[:2], 255, np.uint8)
            cv2.circle(keep, (int(exclude[0]), int(exclude[1])), int(exclude[2]) + 4, 0, -1)
            cv2.accumulateWeighted(frame_bgr, self.full_background, rate, mask=keep)

    def reduce(self, frame_bgr: np.ndarray) -> np.ndarray:
        return cv2.resize(frame_bgr, self.small_size, interpolation=cv2.INTER_AREA)

    def update_background(self, small: np.ndarray, exclude: tuple[float, float, float] | None, rate: float) -> None:
        """Blend `small` into the background, except in a disc (x, y, radius; full-res px) around the meteor."""
        if self.background is None:
            self.background = small.astype(np.float32)
            return
        if exclude is None:
            cv2.accumulateWeighted(small, self.background, rate)
        else:
            keep = np.full(small.shape[:2], 255, np.uint8)
            s = self.scale
            cv2.circle(keep, (int(exclude[0] / s), int(exclude[1] / s)), int(exclude[2] / s) + 3, 0, -1)
            cv2.accumulateWeighted(small, self.background, rate, mask=keep)

    # -- detection -------------------------------------------------------------------------------

    def candidates(self, small: np.ndarray) -> list[tuple[float, float, float, float, int]]:
        """Meteor-sized, meteor-coloured blobs in the small frame: (x, y, area, moving_fraction, label)."""
        mask = self.colour_mask(small, self.background)
        self._last_mask = mask
        self._last_small = small
        if self.background is not None:
            diff = cv2.absdiff(small, self.background.astype(np.uint8))
            moving = cv2.compare(cv2.transform(diff, self._ones), 40.0, cv2.CMP_GT)
        else:
            moving = None
        self._last_moving = moving
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
        s2 = float(self.scale * self.scale)
        d_min, d_max = self.diameter_range_px
        area_min = max(1.0, 0.15 * np.pi * d_min * d_min / 4.0 / s2)
        area_max = 6.0 * np.pi * d_max * d_max / 4.0 / s2  # a blurred streak is longer
        found = []
        for label in range(1, count):
            area = float(stats[label, cv2.CC_STAT_AREA])
            if area < area_min or area > area_max:
                continue
            x0, y0, w, h = (int(v) for v in stats[label, :4])
            if moving is not None:
                sub = labels[y0 : y0 + h, x0 : x0 + w] == label
                frac = float(np.count_nonzero(moving[y0 : y0 + h, x0 : x0 + w][sub])) / area
            else:
                frac = 1.0
            cx, cy = centroids[label]
            found.append((float(cx) * self.scale, float(cy) * self.scale, area * s2, frac, label))
        self._last_labels = (labels, stats)
        return found

    def touching(self, x: float, y: float, diameter_px: float) -> float:
        """Fraction of a ring around the meteor covered by other foreground (a hand), shadows excluded."""
        if self.background is None:
            return 0.0
        s = self.scale
        radius = diameter_px / 2 / s
        ring_in, ring_out = radius + 0.6, radius + 0.6 + max(1.5, 6.0 / s)
        half = int(ring_out + 2)
        cx, cy = x / s, y / s
        x0, y0 = max(0, int(cx) - half), max(0, int(cy) - half)
        x1, y1 = min(self.small_size[0], int(cx) + half + 2), min(self.small_size[1], int(cy) + half + 2)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return 0.0
        patch = self._last_small[y0:y1, x0:x1].astype(np.float32)
        bg = self.background[y0:y1, x0:x1]
        diff = np.abs(patch - bg).sum(axis=2)
        pp = (patch * patch).sum(axis=2) + 1.0
        bb = (bg * bg).sum(axis=2) + 1.0
        pb = (patch * bg).sum(axis=2)
        shadow = (pb * pb > 0.985 * pp * bb) & (pp < bb)
        fg = (diff > 60.0) & ~shadow & (self._last_mask[y0:y1, x0:x1] == 0)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        dist = np.hypot(xx + 0.5 - cx, yy + 0.5 - cy)
        ring = (dist >= ring_in) & (dist <= ring_out)
        n = int(np.count_nonzero(ring))
        return float(np.count_nonzero(fg & ring)) / n if n else 0.0

    def refine(self, frame_bgr: np.ndarray, x: float, y: float, area_px: float) -> Detection | None:
        """Centroid and apparent diameter of the meteor-coloured blob nearest (x, y), at full resolution."""
        half = int(np.sqrt(max(area_px, 4.0)) * 1.6 + self.diameter_range_px[1] * 0.75 + 6)
        x0, y0 = max(0, int(x) - half), max(0, int(y) - half)
        x1, y1 = min(self.width, int(x) + half + 1), min(self.height, int(y) + half + 1)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        roi = frame_bgr[y0:y1, x0:x1]
        background = None
        if self.background is not None:
            s = self.scale
            sx0, sy0 = x0 // s, y0 // s
            sx1, sy1 = min(self.small_size[0], -(-x1 // s)), min(self.small_size[1], -(-y1 // s))
            patch = self.background[sy0:sy1, sx0:sx1]
            if patch.size:
                big = cv2.resize(patch, ((sx1 - sx0) * s, (sy1 - sy0) * s), interpolation=cv2.INTER_LINEAR)
                ox, oy = x0 - sx0 * s, y0 - sy0 * s
                big = big[oy : oy + (y1 - y0), ox : ox + (x1 - x0)]
                if big.shape[:2] == roi.shape[:2]:
                    background = big
        mask = self.colour_mask(roi, background)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=8)
        if count <= 1:
            return None
        best, best_d = -1, np.inf
        for label in range(1, count):
            if stats[label, cv2.CC_STAT_AREA] < 3:
                continue
            d = np.hypot(centroids[label][0] + x0 - x, centroids[label][1] + y0 - y)
            d -= 0.05 * np.sqrt(stats[label, cv2.CC_STAT_AREA])  # prefer the larger blob when near-equal
            if d < best_d:
                best, best_d = label, d
        if best < 0:
            return None
        blob = (labels == best).astype(np.uint8)
        # fill specular highlights / dark crescents inside the blob
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not contours:
            return None
        contour = max(contours, key=cv2.contourArea)
        filled = np.zeros_like(blob)
        cv2.drawContours(filled, [contour], -1, 1, thickness=-1)
        moments = cv2.moments(filled, binaryImage=True)  # pixel counts: no half-pixel loss at the border
        area = moments["m00"]
        if area < 3:
            return None
        cx, cy = moments["m10"] / area, moments["m01"] / area
        mu20, mu02, mu11 = moments["mu20"] / area, moments["mu02"] / area, moments["mu11"] / area
        common = np.sqrt(max(0.0, ((mu20 - mu02) / 2) ** 2 + mu11**2))
        lam_max = (mu20 + mu02) / 2 + common
        lam_min = max(1e-6, (mu20 + mu02) / 2 - common)
        elongation = float(np.sqrt(lam_max / lam_min))
        if elongation < 1.25:
            diameter = 2.0 * np.sqrt(area / np.pi)
        else:
            # a disc swept along a segment: the minor axis of a stadium of width d has variance
            # between d²/16 (disc) and d²/12 (long strip); interpolate on the elongation
            weight = min(1.0, (elongation - 1.0) / 3.0)
            diameter = np.sqrt(lam_min * (16.0 * (1 - weight) + 12.0 * weight))
        bx, by, bw, bh = cv2.boundingRect(contour)
        partial = bx <= 0 or by <= 0 or bx + bw >= x1 - x0 or by + bh >= y1 - y0
        if self.full_background is not None:
            # blur-proof size and centroid: how much of the meteor's colour each pixel holds (alpha),
            # summed over the blob and its faint motion-blur fringe, is the disc's area
            width = int(2 * np.sqrt(lam_min) + 1)  # the blur's fringe is about half a diameter wide
            size = max(5, width | 1)
            fringe = cv2.dilate(filled, np.ones((size, size), np.uint8))
            bg = self.full_background[y0:y1, x0:x1]
            roi_f = roi.astype(np.float32)
            delta = roi_f - bg
            if elongation < 1.3 and not partial and area >= 20:
                core = cv2.erode(filled, np.ones((3, 3), np.uint8))
                if np.count_nonzero(core) >= 6:
                    mean = roi_f[core > 0].mean(axis=0)
                    self._learned_bgr = mean if self._learned_bgr is None else 0.9 * self._learned_bgr + 0.1 * mean
            colour = self._learned_bgr if self._learned_bgr is not None else self._meteor_bgr
            ref = colour[None, None, :] - bg
            denom = (ref * ref).sum(axis=2) + 1e-3
            alpha = np.clip((delta * ref).sum(axis=2) / denom, 0.0, 1.0)
            alpha[(fringe == 0) | (denom < 300.0)] = 0.0
            total = float(alpha.sum())
            if total > 0.5 * area:
                yy, xx = np.mgrid[0 : y1 - y0, 0 : x1 - x0]
                cx = float((alpha * xx).sum() / total)
                cy = float((alpha * yy).sum() / total)
                diameter = 2.0 * np.sqrt(total / np.pi)
        return Detection(float(cx + x0), float(cy + y0), float(diameter), elongation, float(area), bool(partial))
