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

Per frame the pipeline does not search the whole small frame while it tracks the meteor: it
searches a window around the prediction (`candidates_near`), and while nothing is tracked it
first asks a very cheap change test (`changed`: a strided grey sample against the one of the last
full search) whether anything moved at all. Backgrounds are updated in place, without full-size
masks, and the refinement's alpha sums run only over the blob's fringe.
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
        # the last candidate search: its small image, mask and where it sits in the small frame
        self._last_small: np.ndarray | None = None
        self._last_mask: np.ndarray | None = None
        self._last_origin = (0, 0)
        # change test: the strided sample step (full-res px) and the sample of the last full search
        self.change_step = 8
        self.change_level = 30  # a sample changed when one of its channels moved this much
        self._change_reference: np.ndarray | None = None
        # integer halvings take OpenCV's fast 2×2 INTER_AREA path (a direct /4 does not)
        self._halvings = 0
        if self.width % self.scale == 0 and self.height % self.scale == 0:
            while (1 << (self._halvings + 1)) <= self.scale and self.scale % (1 << (self._halvings + 1)) == 0:
                self._halvings += 1

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
            _blend_except_disc(
                frame_bgr, self.full_background, rate, int(exclude[0]), int(exclude[1]), int(exclude[2]) + 4
            )

    def reduce(self, frame_bgr: np.ndarray) -> np.ndarray:
        """The frame `scale` times smaller (the mean of each scale×scale block)."""
        return self._reduce(frame_bgr, self.small_size)

    def _reduce(self, image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        if self.scale == 1:
            return image
        if self._halvings == 0:
            return cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        for _ in range(self._halvings):
            image = cv2.resize(image, (image.shape[1] // 2, image.shape[0] // 2), interpolation=cv2.INTER_AREA)
        if image.shape[1] != size[0] or image.shape[0] != size[1]:
            image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
        return image

    def changed(self, frame_bgr: np.ndarray) -> bool:
        """Whether anything moved since the last `remember_scene` (a strided sample; tens of µs)."""
        if self._change_reference is None:
            return True
        diff = cv2.absdiff(self._sample(frame_bgr), self._change_reference)
        return bool(cv2.countNonZero(cv2.compare(diff.reshape(diff.shape[0], -1), self.change_level, cv2.CMP_GT)))

    def remember_scene(self, frame_bgr: np.ndarray) -> None:
        self._change_reference = self._sample(frame_bgr)

    def _sample(self, frame_bgr: np.ndarray) -> np.ndarray:
        # every change_step-th pixel: INTER_NEAREST is a strided copy in C, far cheaper than numpy's
        size = (max(1, self.width // self.change_step), max(1, self.height // self.change_step))
        return cv2.resize(frame_bgr, size, interpolation=cv2.INTER_NEAREST)

    def forget_scene(self) -> None:
        self._change_reference = None

    def update_background(self, small: np.ndarray, exclude: tuple[float, float, float] | None, rate: float) -> None:
        """Blend `small` into the background, except in a disc (x, y, radius; full-res px) around the meteor."""
        if self.background is None:
            self.background = small.astype(np.float32)
            return
        if exclude is None:
            cv2.accumulateWeighted(small, self.background, rate)
        else:
            s = self.scale
            _blend_except_disc(
                small, self.background, rate, int(exclude[0] / s), int(exclude[1] / s), int(exclude[2] / s) + 3
            )

    # -- detection -------------------------------------------------------------------------------

    def candidates(
        self, small: np.ndarray, origin: tuple[int, int] = (0, 0), with_motion: bool = True, crop: bool = False
    ) -> list[tuple[float, float, float, float, int]]:
        """Meteor-sized, meteor-coloured blobs in the small frame: (x, y, area, moving_fraction, label).

        `small` may be a window of the small frame whose top-left corner is `origin` (small px);
        with `crop`, blobs touching a window edge that is not a frame edge are left out (they may
        be cut). Without `with_motion` every moving fraction is 1.
        """
        ox, oy = origin
        h, w = small.shape[:2]
        background = None if self.background is None else self.background[oy : oy + h, ox : ox + w]
        mask = self.colour_mask(small, background)
        self._last_mask = mask
        self._last_small = small
        self._last_origin = origin
        if not cv2.countNonZero(mask):
            return []
        # connected components only over the mask's bounding box (their statistics cost per pixel)
        bx, by, bw, bh = cv2.boundingRect(mask)
        sub = mask[by : by + bh, bx : bx + bw]
        moving = None
        if with_motion and background is not None:
            box = (slice(by, by + bh), slice(bx, bx + bw))
            diff = cv2.absdiff(small[box], background[box].astype(np.uint8))
            moving = cv2.transform(diff, self._ones).reshape(diff.shape[:2]) > 40.0
        count, labels, stats, centroids = cv2.connectedComponentsWithStats(sub, connectivity=8)
        s = self.scale
        s2 = float(s * s)
        d_min, d_max = self.diameter_range_px
        area_min = max(1.0, 0.15 * np.pi * d_min * d_min / 4.0 / s2)
        area_max = 6.0 * np.pi * d_max * d_max / 4.0 / s2  # a blurred streak is longer
        # window edges inside the frame: a blob touching one may be cut
        cut_left = crop and ox > 0
        cut_top = crop and oy > 0
        cut_right = crop and ox + w < self.small_size[0]
        cut_bottom = crop and oy + h < self.small_size[1]
        found = []
        for label in range(1, count):
            area = float(stats[label, cv2.CC_STAT_AREA])
            if area < area_min or area > area_max:
                continue
            x0, y0, bw_, bh_ = (int(v) for v in stats[label, :4])
            if crop and (
                (cut_left and bx + x0 == 0)
                or (cut_top and by + y0 == 0)
                or (cut_right and bx + x0 + bw_ >= w)
                or (cut_bottom and by + y0 + bh_ >= h)
            ):
                continue
            if moving is not None:
                inside = labels[y0 : y0 + bh_, x0 : x0 + bw_] == label
                frac = float(np.count_nonzero(moving[y0 : y0 + bh_, x0 : x0 + bw_][inside])) / area
            else:
                frac = 1.0
            cx, cy = centroids[label]
            found.append(((float(cx) + bx + ox) * s, (float(cy) + by + oy) * s, area * s2, frac, label))
        return found

    def candidates_near(
        self, frame_bgr: np.ndarray, x: float, y: float, reach: float
    ) -> list[tuple[float, float, float, float, int]]:
        """Candidates in a window of half-size `reach` (full-res px) around (x, y), without motion."""
        s = self.scale
        sw, sh = self.small_size
        sx0 = min(max(0, int((x - reach) // s)), sw - 1)
        sy0 = min(max(0, int((y - reach) // s)), sh - 1)
        sx1 = max(min(sw, int(-(-(x + reach) // s)) + 1), sx0 + 1)
        sy1 = max(min(sh, int(-(-(y + reach) // s)) + 1), sy0 + 1)
        if sx1 - sx0 < 3 or sy1 - sy0 < 3:  # the prediction is (nearly) out of the frame
            return []
        window = frame_bgr[sy0 * s : sy1 * s, sx0 * s : sx1 * s]
        small = self._reduce(window, (sx1 - sx0, sy1 - sy0))
        return self.candidates(small, (sx0, sy0), with_motion=False, crop=True)

    def search_reach(self, gate_px: float) -> float:
        """Window half-size around a prediction that holds every blob a gated search could pick, whole."""
        d_max = self.diameter_range_px[1]
        area_max = 6.0 * np.pi * d_max * d_max / 4.0
        return gate_px + 0.5 * np.sqrt(area_max) + 2.0 * d_max + 2.0 * self.scale

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
        # the last search may have covered only a window of the small frame: stay inside it
        ox, oy = self._last_origin
        lh, lw = self._last_small.shape[:2]
        x0, y0, x1, y1 = max(x0, ox), max(y0, oy), min(x1, ox + lw), min(y1, oy + lh)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return 0.0
        patch = self._last_small[y0 - oy : y1 - oy, x0 - ox : x1 - ox].astype(np.float32)
        bg = self.background[y0:y1, x0:x1]
        diff = np.abs(patch - bg).sum(axis=2)
        pp = (patch * patch).sum(axis=2) + 1.0
        bb = (bg * bg).sum(axis=2) + 1.0
        pb = (patch * bg).sum(axis=2)
        shadow = (pb * pb > 0.985 * pp * bb) & (pp < bb)
        fg = (diff > 60.0) & ~shadow & (self._last_mask[y0 - oy : y1 - oy, x0 - ox : x1 - ox] == 0)
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
            # alpha is zero outside the fringe: work on its bounding box only
            fx, fy, fw, fh = cv2.boundingRect(fringe)
            fringe = fringe[fy : fy + fh, fx : fx + fw]
            bg = self.full_background[y0 + fy : y0 + fy + fh, x0 + fx : x0 + fx + fw]
            roi_f = roi[fy : fy + fh, fx : fx + fw].astype(np.float32)
            if elongation < 1.3 and not partial and area >= 20:
                core = cv2.erode(filled, np.ones((3, 3), np.uint8))[fy : fy + fh, fx : fx + fw]
                if np.count_nonzero(core) >= 6:
                    mean = roi_f[core > 0].mean(axis=0)
                    self._learned_bgr = mean if self._learned_bgr is None else 0.9 * self._learned_bgr + 0.1 * mean
            colour = self._learned_bgr if self._learned_bgr is not None else self._meteor_bgr
            ref = colour.astype(np.float32)[None, None, :] - bg
            delta = cv2.subtract(roi_f, bg)
            denom = cv2.transform(cv2.multiply(ref, ref), self._ones) + np.float32(1e-3)
            alpha = cv2.transform(cv2.multiply(delta, ref), self._ones)
            cv2.divide(alpha, denom, dst=alpha)
            np.clip(alpha, 0.0, 1.0, out=alpha)
            alpha[(fringe == 0) | (denom < 300.0)] = 0.0
            sums = cv2.moments(alpha)
            total = float(sums["m00"])
            if total > 0.5 * area:
                cx = float(sums["m10"] / total) + fx
                cy = float(sums["m01"] / total) + fy
                diameter = 2.0 * np.sqrt(total / np.pi)
        return Detection(float(cx + x0), float(cy + y0), float(diameter), elongation, float(area), bool(partial))


def _blend_except_disc(image: np.ndarray, accumulator: np.ndarray, rate: float, cx: int, cy: int, radius: int) -> None:
    """`accumulateWeighted` everywhere except in a disc, without a full-size mask.

    The whole image is blended, then the accumulator's old values are put back inside the disc
    (the same pixels `cv2.circle` would have masked out).
    """
    height, width = accumulator.shape[:2]
    x0, y0 = max(0, cx - radius - 1), max(0, cy - radius - 1)
    x1, y1 = min(width, cx + radius + 2), min(height, cy + radius + 2)
    if x1 <= x0 or y1 <= y0:
        cv2.accumulateWeighted(image, accumulator, rate)
        return
    saved = accumulator[y0:y1, x0:x1].copy()
    cv2.accumulateWeighted(image, accumulator, rate)
    disc = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.circle(disc, (cx - x0, cy - y0), radius, 255, -1)
    region = accumulator[y0:y1, x0:x1]
    np.copyto(region, saved, where=(disc > 0)[..., None])
