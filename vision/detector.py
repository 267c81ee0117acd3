"""Find the meteor in a frame: colour and size on a downscaled frame, then a full-resolution refinement.

Cheap by design (the judge must run several times faster than real time on one core):

- The frame is reduced `scale` times with `INTER_AREA`; on that small frame a pixel is
  *meteor-coloured* when its colour points the same way as the meteor's (the angle between the two
  RGB vectors is small) and its brightness is within a broad band of the meteor's. The angle test
  ignores shading across the sphere and lighting drift, and rejects shadows, which are the table's
  hue made darker. Against the background a pixel must also be nearer in hue to the meteor than to
  the table under it; where the table's hue is the meteor's own, it must instead have changed from
  the table as the meteor would change it, and not as a shadow does (`TableHue`).
- Connected components of that mask, of a plausible size for the meteor, are the candidates; the one
  nearest the tracker's prediction (inside its gate) wins, else the most meteor-like.
- The winner is refined in a small full-resolution window: its centroid (for a motion-blurred streak,
  the middle of the exposure) and its apparent diameter (from the area of a round blob, from the
  width of a streak).
- A background model (running average of the small frame, updated slowly and never under the
  meteor) tells moving meteor-coloured blobs from static ones of the same colour (a painted
  compartment, a card), which are ignored unless the meteor is known to be there.
- A fast meteor is a streak whose pixels mix its colour with the table's, too washed out for the
  colour test. Where the tracked meteor was lost, `faint_candidates_near` looks for pixels that are
  the background plus a fraction (alpha) of the meteor's colour; `refine_faint` sums alpha over the
  blob for its centroid and size (blur spreads the disc's area, it does not change it).

Per frame the pipeline does not search the whole small frame while it tracks the meteor: it
searches a window around the prediction (`candidates_near`), and while nothing is tracked it
first asks a very cheap change test (`changed`: a strided grey sample against the one of the last
full search) whether anything moved at all. Backgrounds are updated in place, without full-size
masks, and the refinement's alpha sums run only over the blob's fringe.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import cv2
import numpy as np

from vision.likeness import blob_features

# A fast streak mixes the meteor's colour with the table's: at 30 fps a flick leaves pixels that hold
# only 30–45 % of the meteor, too washed out for the colour test (measured on generated clips). Such a
# pixel is background + alpha·(meteor − background): at least this alpha, and the change from the
# background pointing within this angle of the meteor's colour.
FAINT_MIN_ALPHA = 0.2
FAINT_MAX_ANGLE_DEG = 25.0
FAINT_MIN_SWEEP = 0.5  # meteor diameters a frame from which a tracked meteor may blur into a faint streak
MIN_CONTRAST = 300.0  # |meteor − background|² below this: the meteor cannot be told from the table there
# A hand near the meteor (`MeteorDetector.hand_nearby`): pixels of the ring 2–4 meteor diameters out whose
# colour differs from the table's by more than this (summed over B, G, R, after the lighting's drift)
HAND_RING_DIAMETERS = (2.0, 4.0)
HAND_LEVEL = 25.0


def streak_area_max_px(diameter_px: float, speed_px: float) -> float:
    """The largest faint streak a meteor of `diameter_px` makes at `speed_px` a frame: a whole frame's
    sweep, with a blur fringe."""
    return 2.0 * (diameter_px + 4.0) * (diameter_px + speed_px + 4.0)


class TableHue(NamedTuple):
    """A meteor of about the table's hue fails the hue test against the background, which rejects
    shadows and a table of a similar colour. On a table whose hue is within `table_deg` of the
    meteor's (the first background's median), over a background of about the meteor's hue a pixel is
    kept as well when it is the background plus at least `min_alpha` of (meteor − background), unless
    it is a shadow (the background darkened with its hue kept to within `shadow_cos2`). The
    refinement keeps to the hue test's sharper outline wherever that still holds the blob."""

    table_deg: float = 12.0
    like_cos2: float = math.cos(math.radians(15.0)) ** 2  # the background's hue this near the meteor's
    # a deep shadow on a pale table is most of the way from the table to a near-black meteor: only a
    # change nearly all the meteor's is taken for it
    min_alpha: float = 0.8
    shadow_cos2: float = math.cos(math.radians(3.0)) ** 2
    refine_share: float = 0.3


TABLE_HUE = TableHue()


@dataclass(slots=True)
class Detection:
    """One meteor sighting, in full-resolution pixels."""

    x: float
    y: float
    diameter_px: float
    elongation: float  # major/minor axis ratio (1 for a round blob; a streak is longer)
    area_px: float
    partial: bool = False  # touching something (hand, frame edge): centroid and size are doubtful
    faint: bool = False  # a streak too blurred for the colour test, found by `faint_candidates_near`
    axis_rad: float | None = None  # direction of the blob's major axis (image radians; faint streaks only)


def colour_angle_deg(first: np.ndarray, second: np.ndarray) -> float | None:
    """The angle (degrees) between two colours as vectors (same channel order); None for black."""
    norms = float(np.linalg.norm(first) * np.linalg.norm(second))
    if norms < 1e-6:
        return None
    return math.degrees(math.acos(float(np.clip(np.dot(first, second) / norms, -1.0, 1.0))))


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
        self.table_hue_is_the_meteors = False  # the table's hue (the first background's median) near the meteor's
        self.full_background: np.ndarray | None = None  # float32 full frame, refreshed every few frames
        self._full_background_frozen: np.ndarray | None = None  # its read-only copy, until it next changes
        self._learned_bgr: np.ndarray | None = None  # the meteor's mean colour as this camera sees it
        self._frames_seen = 0
        # the last candidate search: its small image, mask and where it sits in the small frame
        self._last_small: np.ndarray | None = None
        self._last_mask: np.ndarray | None = None
        self._last_components = None
        self._last_origin = (0, 0)
        self._last_cut = False  # the last windowed search cut a blob at a window edge
        self.last_boxes: dict[int, tuple[int, int, int, int]] = {}  # label → full-res box of the last candidates
        # change test: the strided sample step (full-res px) and the sample of the last full search
        self.change_step = 8
        self.change_level = 30  # a sample changed when one of its channels moved this much
        self._change_reference: np.ndarray | None = None
        self._buffers: tuple[np.ndarray, ...] | None = None  # float buffers of a whole-frame colour test
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
        self.meteor_rgb = (int(meteor_rgb[0]), int(meteor_rgb[1]), int(meteor_rgb[2]))  # the colour looked for
        self.direction = direction
        self.brightness = norm
        self.cos_limit = float(np.cos(np.radians(max_angle_deg)))
        self.brightness_range = brightness_range
        # p·d (brightness along the meteor's colour) and |p|² + 1 from one transform each
        self._along = direction.reshape(1, 3).astype(np.float32)
        self._ones = np.ones((1, 3), np.float32)
        self._ones_plus = np.array([[1.0, 1.0, 1.0, 1.0]], np.float32)  # Σ + 1 (the last column is an offset)
        self._ones_eps = np.array([[1.0, 1.0, 1.0, 1e-3]], np.float32)  # Σ + 1e-3
        self._inv_cos2 = float(1.0 / self.cos_limit**2)
        low, high = brightness_range
        self._along_low, self._along_high = float(norm * low), float(norm * high)
        self._meteor_bgr = np.asarray(meteor_rgb, np.float32)[::-1].copy()

    # -- masks ---------------------------------------------------------------------------------

    def colour_mask(self, image_bgr: np.ndarray, background: np.ndarray | None = None) -> np.ndarray:
        """uint8 mask (255 = meteor-coloured) of a BGR image of any size.

        With a background (float32, same size) a pixel must also be nearer in hue to the meteor
        than to the background under it: that rejects shadows and a table of a similar colour.
        That second test only runs over the bounding box of the pixels that pass the first.
        """
        mask, pixels, along2 = self._colour_test(image_bgr)
        if background is not None:
            bx, by, bw, bh = cv2.boundingRect(mask)
            if bw:
                box = (slice(by, by + bh), slice(bx, bx + bw))
                self._background_test(mask[box], pixels[box], along2[box], background[box])
        return mask

    def _colour_test(self, image_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The colour-only mask, the float pixels and (p·d)²/cos² (for `_background_test`)."""
        h, w = image_bgr.shape[:2]
        if (w, h) == self.small_size and self.scale > 1 or (w, h) == (self.width, self.height):
            # the whole (small) frame: reuse float buffers (fresh multi-MB arrays cost page faults)
            buffers = self._buffers
            if buffers is None or buffers[0].shape[:2] != (h, w):
                buffers = self._buffers = (
                    np.empty((h, w, 3), np.float32),
                    np.empty((h, w, 3), np.float32),
                    np.empty((h, w), np.float32),
                    np.empty((h, w), np.float32),
                    np.empty((h, w), np.float32),
                )
            pixels, products, along, squared, along2 = buffers
            np.copyto(pixels, image_bgr)
            cv2.transform(pixels, self._along, dst=along)
            cv2.multiply(pixels, pixels, dst=products)
            cv2.transform(products, self._ones_plus, dst=squared)
        else:
            pixels = image_bgr.astype(np.float32)
            along = cv2.transform(pixels, self._along)  # p·d
            squared = cv2.transform(cv2.multiply(pixels, pixels), self._ones_plus)  # |p|² + 1
            along2 = None
        # the brightness band: p·d outside (low, high] becomes 0, which fails the angle test below
        cv2.threshold(along, self._along_low, 0.0, cv2.THRESH_TOZERO, dst=along)
        cv2.threshold(along, self._along_high, 0.0, cv2.THRESH_TOZERO_INV, dst=along)
        # angle test without a square root: (p·d)² / cos² ≥ |p|², with p·d > 0
        along2 = cv2.multiply(along, along, dst=along2, scale=self._inv_cos2)
        return cv2.compare(along2, squared, cv2.CMP_GE), pixels, along2

    def _background_test(self, mask: np.ndarray, pixels: np.ndarray, along2: np.ndarray, background: np.ndarray):
        """Clear, in place, the pixels of `mask` nearer in hue to the background than to the meteor (on a
        table of the meteor's hue, unless they changed the background as the meteor would)."""
        keep, changed = self._background_keeps(pixels, along2, background)
        if changed is not None:
            cv2.bitwise_or(keep, changed, dst=keep)
        cv2.bitwise_and(mask, keep, dst=mask)

    def _refinement_background_test(
        self, mask: np.ndarray, pixels: np.ndarray, along2: np.ndarray, background: np.ndarray
    ) -> None:
        """`_background_test` for the full-resolution refinement: the hue test alone where it keeps the
        blob (at least `TableHue.refine_share` of what the table-hue test would keep), else with it."""
        keep, changed = self._background_keeps(pixels, along2, background)
        if changed is None:
            cv2.bitwise_and(mask, keep, dst=mask)
            return
        with_table_hue = cv2.bitwise_and(mask, cv2.bitwise_or(keep, changed))
        cv2.bitwise_and(mask, keep, dst=mask)
        if cv2.countNonZero(mask) < TABLE_HUE.refine_share * cv2.countNonZero(with_table_hue):
            np.copyto(mask, with_table_hue)

    def _background_keeps(
        self, pixels: np.ndarray, along2: np.ndarray, background: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """The pixels nearer in hue to the meteor than to the background, and (on a table of the
        meteor's hue, else None) those that changed the background as the meteor would."""
        cross = cv2.transform(cv2.multiply(pixels, background), self._ones)  # p·b
        bb = cv2.transform(cv2.multiply(background, background), self._ones_plus)  # |b|² + 1
        # cos²(p, meteor) > cos²(p, background):  (p·d)²·|b|² > 1.02·(p·b)²
        keep = cv2.compare(
            cv2.multiply(along2, bb), cv2.multiply(cross, cross, scale=1.02 * self._inv_cos2), cv2.CMP_GT
        )
        if not self.table_hue_is_the_meteors:
            return keep, None
        return keep, self._changed_as_by_the_meteor(pixels, background, cross, bb)

    def _changed_as_by_the_meteor(
        self, pixels: np.ndarray, background: np.ndarray, cross: np.ndarray, bb: np.ndarray
    ) -> np.ndarray:
        """uint8 mask of the pixels where a background of about the meteor's hue changed as the meteor
        would change it (see `TABLE_HUE`), and not as a shadow does. `cross` is p·b, `bb` |b|² + 1."""
        changed, _alpha = self.alpha_mask(pixels, background, TABLE_HUE.min_alpha)
        b_along = cv2.transform(background, self._along)  # b·d
        meteor_hue = cv2.compare(cv2.multiply(b_along, b_along), bb * np.float32(TABLE_HUE.like_cos2), cv2.CMP_GE)
        cv2.bitwise_and(changed, meteor_hue, dst=changed)
        pp = cv2.transform(cv2.multiply(pixels, pixels), self._ones_plus)  # |p|² + 1
        shadow = cv2.compare(cv2.multiply(cross, cross), cv2.multiply(pp, bb, scale=TABLE_HUE.shadow_cos2), cv2.CMP_GE)
        cv2.bitwise_and(shadow, cv2.compare(pp, bb, cv2.CMP_LT), dst=shadow)
        return cv2.bitwise_and(changed, cv2.bitwise_not(shadow), dst=changed)

    def frozen_full_background(self) -> np.ndarray | None:
        """A read-only copy of the full-resolution background as it is now, shared by all who ask before
        it next changes: the hand's and the shadow's watchers each keep the table as it was when a launch
        began, and one copy serves both (an 11 MB float copy at 1280×720, about 20 ms of page faults)."""
        if self.full_background is None:
            return None
        if self._full_background_frozen is None:
            frozen = self.full_background.copy()
            frozen.flags.writeable = False
            self._full_background_frozen = frozen
        return self._full_background_frozen

    def forget_frozen_background(self) -> None:
        """The full-resolution background was changed in place: its frozen copy is out of date."""
        self._full_background_frozen = None

    def update_full_background(self, frame_bgr: np.ndarray, exclude: tuple[float, float, float] | None, rate: float):
        self._full_background_frozen = None
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
            angle = colour_angle_deg(np.median(small, axis=(0, 1)), self.direction)
            self.table_hue_is_the_meteors = angle is not None and angle < TABLE_HUE.table_deg
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
        count, labels, stats, centroids = _components(sub)
        self._last_components = (labels, stats, bx, by, background)
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
        self._last_cut = False
        self.last_boxes = {}
        for label in range(1, count):
            area = float(stats[label, cv2.CC_STAT_AREA])
            if area > area_max:
                continue
            x0, y0, bw_, bh_ = (int(v) for v in stats[label, :4])
            if crop and (
                (cut_left and bx + x0 == 0)
                or (cut_top and by + y0 == 0)
                or (cut_right and bx + x0 + bw_ >= w)
                or (cut_bottom and by + y0 + bh_ >= h)
            ):
                self._last_cut = self._last_cut or area >= 2.0  # more of it may lie outside the window
                continue
            if area < area_min:
                continue
            if moving is not None:
                inside = labels[y0 : y0 + bh_, x0 : x0 + bw_] == label
                frac = float(np.count_nonzero(moving[y0 : y0 + bh_, x0 : x0 + bw_][inside])) / area
            else:
                frac = 1.0
            cx, cy = centroids[label]
            found.append(((float(cx) + bx + ox) * s, (float(cy) + by + oy) * s, area * s2, frac, label))
            # the blob's box in full-res px, for `refine`
            x0, y0 = (x0 + bx + ox) * s, (y0 + by + oy) * s
            self.last_boxes[label] = (x0, y0, x0 + bw_ * s, y0 + bh_ * s)
        return found

    def likeness_features(self, found: list, disc_area_px: float) -> np.ndarray:
        """`vision.likeness` features of the blobs `found` by the last `candidates` call (the meteor's disc
        on the table is `disc_area_px`, full-res px)."""
        labels, stats, bx, by, background = self._last_components
        h, w = labels.shape
        small = self._last_small[by : by + h, bx : bx + w].reshape(-1, 3).astype(np.float64)
        flat = labels.ravel()
        count = len(stats)
        ids = np.array([label for *_rest, label in found], int)
        means = np.column_stack([np.bincount(flat, small[:, c], count)[ids] for c in range(3)])
        if background is not None:
            under = background[by : by + h, bx : bx + w].reshape(-1, 3).astype(np.float64)
            under_means = np.column_stack([np.bincount(flat, under[:, c], count)[ids] for c in range(3)])
        else:
            under_means = means.copy()
        areas = stats[ids, cv2.CC_STAT_AREA].astype(np.float64)
        means /= areas[:, None]
        under_means /= areas[:, None]
        s2 = float(self.scale * self.scale)
        colour = self._learned_bgr if self._learned_bgr is not None else self._meteor_bgr
        return blob_features(
            means, under_means, colour, areas * s2, stats[ids][:, [cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT]] * self.scale,
            np.array([frac for _x, _y, _a, frac, _l in found]), disc_area_px,
        )

    def candidates_near(
        self, frame_bgr: np.ndarray, x: float, y: float, reach: float, full_reach: float | None = None,
        with_motion: bool = False,
    ) -> list[tuple[float, float, float, float, int]]:
        """Candidates in a window of half-size `reach` (full-res px) around (x, y), their moving fractions
        measured only `with_motion` (else 1: only the likeness reads them).

        With a larger `full_reach`, the search is repeated in that window when a blob touches an
        edge of the first one (it may be larger than the window; a search in the large window
        would have seen it whole).
        """
        found = self._candidates_in_window(frame_bgr, x, y, reach, with_motion)
        if full_reach is not None and full_reach > reach and self._last_cut:
            found = self._candidates_in_window(frame_bgr, x, y, full_reach, with_motion)
        return found

    def _small_window(self, x: float, y: float, reach: float) -> tuple[int, int, int, int] | None:
        """The small-frame window (x0, y0, x1, y1) of half-size `reach` (full-res px) round (x, y);
        None when the point is (nearly) out of the frame."""
        s = self.scale
        sw, sh = self.small_size
        sx0 = min(max(0, int((x - reach) // s)), sw - 1)
        sy0 = min(max(0, int((y - reach) // s)), sh - 1)
        sx1 = max(min(sw, int(-(-(x + reach) // s)) + 1), sx0 + 1)
        sy1 = max(min(sh, int(-(-(y + reach) // s)) + 1), sy0 + 1)
        if sx1 - sx0 < 3 or sy1 - sy0 < 3:
            return None
        return sx0, sy0, sx1, sy1

    def _candidates_in_window(self, frame_bgr: np.ndarray, x: float, y: float, reach: float, with_motion: bool):
        s = self.scale
        self._last_cut = False
        window = self._small_window(x, y, reach)
        if window is None:
            return []
        sx0, sy0, sx1, sy1 = window
        window = frame_bgr[sy0 * s : sy1 * s, sx0 * s : sx1 * s]
        small = self._reduce(window, (sx1 - sx0, sy1 - sy0))
        return self.candidates(small, (sx0, sy0), with_motion, crop=True)

    def search_reach(self, gate_px: float, size_px: float | None = None) -> float:
        """Window half-size around a prediction that holds every blob a gated search could pick, whole.

        With `size_px` (the tracked meteor's apparent length, full-res px), a window that holds a
        blob of that size whose centre is in the gate: for `candidates_near` with the first as its
        `full_reach`, which it falls back on when a blob is cut by the small window.
        """
        d_max = self.diameter_range_px[1]
        if size_px is not None and math.isfinite(size_px):
            size = min(d_max, max(self.diameter_range_px[0], size_px))
            return gate_px + size + 2.0 * self.scale + 2.0
        area_max = 6.0 * np.pi * d_max * d_max / 4.0
        return gate_px + 0.5 * np.sqrt(area_max) + 2.0 * d_max + 2.0 * self.scale

    def faint_candidates_near(
        self, frame_bgr: np.ndarray, x: float, y: float, reach: float, max_area_px: float
    ) -> list[tuple[float, float, float, float, int]]:
        """Faint streaks (see `FAINT_MIN_ALPHA`) in a window of half-size `reach` round (x, y).

        For a tracked meteor the colour test lost: the same tuples as `candidates`, none larger
        than `max_area_px` (full-res px; the streak the tracked meteor's speed can make).
        """
        if self.background is None:
            return []
        s = self.scale
        window = self._small_window(x, y, reach)
        if window is None:
            return []
        sx0, sy0, sx1, sy1 = window
        small = self._reduce(frame_bgr[sy0 * s : sy1 * s, sx0 * s : sx1 * s], (sx1 - sx0, sy1 - sy0))
        mask, _alpha = self.alpha_mask(small, self.background[sy0:sy1, sx0:sx1])
        # (the last colour search's mask stays: `touching` must see a hand whose colour passes this test)
        self.last_boxes = {}
        count, labels, stats, centroids = _components(mask)
        s2 = float(s * s)
        d_min = self.diameter_range_px[0]
        area_min = max(1.0, 0.15 * np.pi * d_min * d_min / 4.0 / s2)
        h, w = mask.shape
        found = []
        for label in range(1, count):
            x0, y0, bw, bh, area = (int(v) for v in stats[label])
            cut = (x0 == 0 and sx0 > 0) or (y0 == 0 and sy0 > 0)
            cut = cut or (x0 + bw >= w and sx1 < self.small_size[0]) or (y0 + bh >= h and sy1 < self.small_size[1])
            if cut or not area_min <= area <= max_area_px / s2:
                continue
            cx, cy = centroids[label]
            found.append(((float(cx) + sx0) * s, (float(cy) + sy0) * s, area * s2, 1.0, label))
            self.last_boxes[label] = ((x0 + sx0) * s, (y0 + sy0) * s, (x0 + sx0 + bw) * s, (y0 + sy0 + bh) * s)
        return found

    def nearest_faint_streak(
        self, frame_bgr: np.ndarray, x: float, y: float, reach: float, max_area_px: float, gate_px: float
    ) -> Detection | None:
        """The faint streak (`faint_candidates_near` in a window of half-size `reach`) nearest (x, y),
        refined at full resolution (`refine_faint`); None when none lies within `gate_px` of it."""
        streaks = self.faint_candidates_near(frame_bgr, x, y, reach, max_area_px)
        nearest = min(streaks, key=lambda c: math.hypot(c[0] - x, c[1] - y), default=None)
        if nearest is None or math.hypot(nearest[0] - x, nearest[1] - y) > gate_px:
            return None
        return self.refine_faint(frame_bgr, nearest[0], nearest[1], self.last_boxes[nearest[4]])

    def alpha_mask(
        self, image_bgr: np.ndarray, background: np.ndarray, min_alpha: float = FAINT_MIN_ALPHA
    ) -> tuple[np.ndarray, np.ndarray]:
        """uint8 mask of the pixels that are background + alpha·(meteor − background), alpha at least
        `min_alpha` (see `FAINT_MIN_ALPHA`), and alpha itself (float32, unclipped)."""
        colour = self._learned_bgr if self._learned_bgr is not None else self._meteor_bgr
        ref = cv2.subtract((float(colour[0]), float(colour[1]), float(colour[2]), 0.0), background)
        delta = cv2.subtract(image_bgr.astype(np.float32), background)
        rr = cv2.transform(cv2.multiply(ref, ref), self._ones_eps)  # |m − b|² + 1e-3
        dr = cv2.transform(cv2.multiply(delta, ref), self._ones)  # (p − b)·(m − b)
        dd = cv2.transform(cv2.multiply(delta, delta), self._ones)  # |p − b|²
        alpha = cv2.divide(dr, rr)
        cos2 = math.cos(math.radians(FAINT_MAX_ANGLE_DEG)) ** 2
        mask = _at_least(alpha, min_alpha)
        cv2.bitwise_and(mask, cv2.compare(cv2.multiply(dr, dr), cv2.multiply(dd, rr, scale=cos2), cv2.CMP_GE), dst=mask)
        cv2.bitwise_and(mask, _at_least(rr, MIN_CONTRAST), dst=mask)
        return mask, alpha

    def refine_faint(
        self, frame_bgr: np.ndarray, x: float, y: float, box: tuple[int, int, int, int]
    ) -> Detection | None:
        """Centroid and size of a faint streak found by `faint_candidates_near`, at full resolution.

        The blob is the alpha mask's component nearest (x, y); its centroid and its area are the sums
        of alpha over the blob and its fringe (motion blur spreads the disc's area, it does not lose it).
        """
        s = self.scale
        margin = 3 * s
        x0, y0 = max(0, box[0] - margin), max(0, box[1] - margin)
        x1, y1 = min(self.width, box[2] + margin), min(self.height, box[3] + margin)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        if self.full_background is not None:
            background = self.full_background[y0:y1, x0:x1]
        else:
            background = cv2.resize(self.background, (self.width, self.height))[y0:y1, x0:x1]
        mask, alpha = self.alpha_mask(frame_bgr[y0:y1, x0:x1], background)
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, _OPEN_KERNEL)
        count, labels, stats, centroids = _components(mask)
        if count <= 1:
            return None
        distances = [
            math.hypot(centroids[k][0] + x0 - x, centroids[k][1] + y0 - y) - 0.05 * math.sqrt(stats[k, 4])
            for k in range(1, count)
        ]
        best = 1 + int(np.argmin(distances))
        blob = (labels == best).astype(np.uint8)
        area = float(stats[best, cv2.CC_STAT_AREA])
        if area < 3:
            return None
        lam_max, lam_min, axis_rad = _principal_axes(cv2.moments(blob, binaryImage=True))
        fringe = cv2.dilate(blob, _square(max(3, int(math.sqrt(lam_min)) | 1)))
        weights = cv2.multiply(np.clip(alpha, 0.0, 1.0), fringe, dtype=cv2.CV_32F)
        sums = cv2.moments(weights)
        total = float(sums["m00"])
        if total < 1.0:
            return None
        bx, by, bw, bh = (int(v) for v in stats[best, :4])
        partial = bx <= 0 or by <= 0 or bx + bw >= x1 - x0 or by + bh >= y1 - y0
        return Detection(
            float(sums["m10"] / total + x0),
            float(sums["m01"] / total + y0),
            2.0 * math.sqrt(total / math.pi),
            float(math.sqrt(lam_max / lam_min)),
            area,
            bool(partial),
            faint=True,
            axis_rad=axis_rad,
        )

    def blob_by_colour_near(self, frame_bgr: np.ndarray, x: float, y: float, reach_px: float) -> Detection | None:
        """The largest meteor-coloured blob whose centroid lies within `reach_px` of (x, y) (full-res px), by
        the colour test alone: no background test, so a meteor the background has taken in (held still
        since the footage began) is found too. Its centroid and the diameter of its filled area; partial
        when it touches the window's edge. None when there is none."""
        half = int(reach_px + self.diameter_range_px[1]) + 2
        x0, y0 = max(0, int(x) - half), max(0, int(y) - half)
        x1, y1 = min(self.width, int(x) + half + 1), min(self.height, int(y) + half + 1)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        mask, _pixels, _along2 = self._colour_test(frame_bgr[y0:y1, x0:x1])
        count, labels, stats, centroids = _components(mask)
        within = [label for label in range(1, count) if math.dist(centroids[label], (x - x0, y - y0)) <= reach_px]
        if not within:
            return None
        largest = max(within, key=lambda label: stats[label, cv2.CC_STAT_AREA])  # not a speck of noise beside it
        blob = (labels == largest).astype(np.uint8)
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        filled = np.zeros_like(blob)
        cv2.fillPoly(filled, contours, 1)  # specular highlights and dark crescents inside the blob
        moments = cv2.moments(filled, binaryImage=True)
        area = float(moments["m00"])
        if area < 3:
            return None
        bx, by, bw, bh = (int(v) for v in stats[largest, :4])
        partial = bx <= 0 or by <= 0 or bx + bw >= x1 - x0 or by + bh >= y1 - y0
        lam_max, lam_min, _axis = _principal_axes(moments)
        return Detection(
            float(moments["m10"] / area + x0), float(moments["m01"] / area + y0), 2.0 * math.sqrt(area / math.pi),
            float(math.sqrt(lam_max / lam_min)), area, bool(partial),
        )

    def hand_nearby(self, frame_bgr: np.ndarray, x: float, y: float, diameter_px: float) -> float:
        """Fraction of the ring HAND_RING_DIAMETERS round the meteor that differs from the background.

        A hand gripping the meteor has its palm there (the fingers reach forward to the meteor); a
        meteor lying on its own has only the table round it. The difference is taken after the
        window's overall brightness change (the room's lighting drifts): skin on wood differs from
        the table by less than `touching`'s level, but far more than the table from itself.
        """
        if self.background is None:
            return 0.0
        s = self.scale
        radius = diameter_px / 2 / s
        inner, outer = (d * radius * 2 for d in HAND_RING_DIAMETERS)
        window = self._small_window(x, y, (outer + 2) * s)
        if window is None:
            return 0.0
        sx0, sy0, sx1, sy1 = window
        small = self._reduce(frame_bgr[sy0 * s : sy1 * s, sx0 * s : sx1 * s], (sx1 - sx0, sy1 - sy0))
        patch = small.astype(np.float32)
        bg = self.background[sy0:sy1, sx0:sx1]
        gain = np.median((patch + 1.0) / (bg + 1.0), axis=(0, 1))
        diff = np.abs(patch - bg * gain).sum(axis=2)
        dy = np.arange(sy0, sy1, dtype=np.float64)[:, None] + (0.5 - y / s)
        dx = np.arange(sx0, sx1, dtype=np.float64)[None, :] + (0.5 - x / s)
        dist = np.hypot(dx, dy)
        ring = (dist >= inner) & (dist <= outer)
        if not ring.any():
            return 0.0
        return float(np.mean(diff[ring] > HAND_LEVEL))

    def touching(self, x: float, y: float, diameter_px: float, sweep_px: tuple[float, float] = (0.0, 0.0)) -> float:
        """Fraction of a ring around the meteor covered by other foreground (a hand), shadows excluded.

        `sweep_px` is the meteor's motion in one frame (full-res px): a moving meteor is a streak along
        it, and the ring then runs round that streak (its washed-out ends are not a hand).
        """
        if self.background is None:
            return 0.0
        s = self.scale
        radius = diameter_px / 2 / s
        ring_in, ring_out = radius + 0.6, radius + 0.6 + max(1.5, 6.0 / s)
        hx, hy = 0.5 * sweep_px[0] / s, 0.5 * sweep_px[1] / s  # half the streak's axis
        half = int(ring_out + max(abs(hx), abs(hy)) + 2)
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
        # foreground: far from the background (Σ|p − b| > 60) and not meteor-coloured; most frames
        # have none round the meteor, and then neither the ring nor the shadow test is needed
        patch = self._last_small[y0 - oy : y1 - oy, x0 - ox : x1 - ox]
        bg = self.background[y0:y1, x0:x1]
        diff = cv2.transform(cv2.absdiff(patch.astype(np.float32), bg), self._ones)
        fg = diff.reshape(diff.shape[:2]) > 60.0
        fg &= self._last_mask[y0 - oy : y1 - oy, x0 - ox : x1 - ox] == 0
        if not fg.any():
            return 0.0
        dy = np.arange(y0, y1, dtype=np.float64)[:, None] + (0.5 - cy)
        dx = np.arange(x0, x1, dtype=np.float64)[None, :] + (0.5 - cx)
        # distance to the streak's axis, the segment from −(hx, hy) to +(hx, hy)
        length2 = hx * hx + hy * hy
        along = np.clip((dx * hx + dy * hy) / length2, -1.0, 1.0) if length2 > 1e-9 else 0.0
        dist = np.hypot(dx - along * hx, dy - along * hy)
        ring = (dist >= ring_in) & (dist <= ring_out)
        n = int(np.count_nonzero(ring))
        if not n:
            return 0.0
        fg &= ring
        p = patch[fg].astype(np.float32)
        b = bg[fg]
        pp = (p * p).sum(axis=1) + 1.0
        bb = (b * b).sum(axis=1) + 1.0
        pb = (p * b).sum(axis=1)
        shadow = (pb * pb > 0.985 * pp * bb) & (pp < bb)
        return float(np.count_nonzero(~shadow)) / n

    def refine(
        self,
        frame_bgr: np.ndarray,
        x: float,
        y: float,
        area_px: float,
        box: tuple[int, int, int, int] | None = None,
    ) -> Detection | None:
        """Centroid and apparent diameter of the meteor-coloured blob nearest (x, y), at full resolution.

        The window round (x, y) holds a meteor of the largest plausible size. With `box` (the
        candidate's box from `last_boxes`), a window round that box is tried first, and kept when
        it holds the blob and its blur fringe whole (as the large window would have).
        """
        if box is not None:
            s = self.scale
            x0, y0, x1, y1 = box
            # the full-resolution blob may pass where its small-frame border cells did not
            margin = 2 * s + (min(x1 - x0, y1 - y0) + 2 * s) // 2 + 6
            found = self._refine(frame_bgr, x, y, (x0 - margin, y0 - margin, x1 + margin, y1 + margin), True)
            if found is not False:
                return found
        half = int(np.sqrt(max(area_px, 4.0)) * 1.6 + self.diameter_range_px[1] * 0.75 + 6)
        return self._refine(frame_bgr, x, y, (int(x) - half, int(y) - half, int(x) + half + 1, int(y) + half + 1))

    def _refine(
        self, frame_bgr: np.ndarray, x: float, y: float, window: tuple[int, int, int, int], tight: bool = False
    ) -> Detection | None | bool:
        """`refine` in one window (x0, y0, x1, y1); with `tight`, False when the blob or its fringe
        reaches an edge of the window inside the frame (a larger window is needed)."""
        x0, y0 = max(0, window[0]), max(0, window[1])
        x1, y1 = min(self.width, window[2]), min(self.height, window[3])
        if x1 - x0 < 3 or y1 - y0 < 3:
            return False if tight else None
        rw, rh = x1 - x0, y1 - y0
        roi = frame_bgr[y0:y1, x0:x1]
        mask, pixels, along2 = self._colour_test(roi)
        mx, my, mw, mh = cv2.boundingRect(mask)
        if not mw:
            return False if tight else None
        if self.background is not None:
            # the small background, upsampled under the mask's bounding box only
            s = self.scale
            bx0, by0, bx1, by1 = x0 + mx, y0 + my, x0 + mx + mw, y0 + my + mh
            sx0, sy0 = max(0, bx0 // s - 1), max(0, by0 // s - 1)
            sx1, sy1 = min(self.small_size[0], -(-bx1 // s) + 1), min(self.small_size[1], -(-by1 // s) + 1)
            patch = self.background[sy0:sy1, sx0:sx1]
            if patch.size:
                big = cv2.resize(patch, ((sx1 - sx0) * s, (sy1 - sy0) * s), interpolation=cv2.INTER_LINEAR)
                big = big[by0 - sy0 * s : by1 - sy0 * s, bx0 - sx0 * s : bx1 - sx0 * s]
                if big.shape[:2] == (mh, mw):
                    box = (slice(my, my + mh), slice(mx, mx + mw))
                    self._refinement_background_test(mask[box], pixels[box], along2[box], big)
        # opening and components over the mask's bounding box (a 2 px margin: the same result as
        # on the whole window)
        mx0, my0 = max(0, mx - 2), max(0, my - 2)
        mx1, my1 = min(rw, mx + mw + 2), min(rh, my + mh + 2)
        sub = cv2.morphologyEx(mask[my0:my1, mx0:mx1], cv2.MORPH_OPEN, _OPEN_KERNEL)
        count, labels, stats, centroids = _components(sub)
        if count <= 1:
            return False if tight else None
        best, best_d = -1, math.inf
        ex, ey = x - x0 - mx0, y - y0 - my0  # (x, y) in the sub-window
        for label in range(1, count):
            blob_area = int(stats[label, cv2.CC_STAT_AREA])
            if blob_area < 3:
                continue
            d = math.hypot(centroids[label][0] - ex, centroids[label][1] - ey)
            d -= 0.05 * math.sqrt(blob_area)  # prefer the larger blob when near-equal
            if d < best_d:
                best, best_d = label, d
        if best < 0:
            return False if tight else None
        lx, ly, lw, lh = (int(v) for v in stats[best, :4])
        # the blob alone, with a 1 px empty border for the contour tracer
        blob = np.zeros((lh + 2, lw + 2), np.uint8)
        np.equal(labels[ly : ly + lh, lx : lx + lw], best, out=blob[1:-1, 1:-1].view(bool))
        lx, ly = lx - 1 + mx0, ly - 1 + my0  # the blob array's corner in the window
        # fill specular highlights / dark crescents inside the blob
        contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not contours:
            return False if tight else None
        contour = max(contours, key=cv2.contourArea) if len(contours) > 1 else contours[0]
        bx, by, bw, bh = cv2.boundingRect(contour)
        bx, by = bx + lx, by + ly  # in the window
        partial = bx <= 0 or by <= 0 or bx + bw >= rw or by + bh >= rh
        # the filled blob, in a region of the window that also holds its motion-blur fringe below:
        # the fringe's half-width is at most half the blob's narrower side plus one
        pad = min(bw, bh) // 2 + 3
        gx0, gy0 = bx - pad, by - pad
        gx1, gy1 = bx + bw + pad, by + bh + pad
        if tight and (
            (gx0 < 0 and x0 > 0)
            or (gy0 < 0 and y0 > 0)
            or (gx1 > rw and x1 < self.width)
            or (gy1 > rh and y1 < self.height)
        ):
            return False
        gx0, gy0, gx1, gy1 = max(0, gx0), max(0, gy0), min(rw, gx1), min(rh, gy1)
        filled = np.zeros((gy1 - gy0, gx1 - gx0), np.uint8)
        cv2.fillPoly(filled, [contour], 1, offset=(lx - gx0, ly - gy0))
        moments = cv2.moments(filled, binaryImage=True)  # pixel counts: no half-pixel loss at the border
        area = moments["m00"]
        if area < 3:
            return None
        cx, cy = moments["m10"] / area + gx0, moments["m01"] / area + gy0
        lam_max, lam_min, _axis = _principal_axes(moments)
        elongation = float(math.sqrt(lam_max / lam_min))
        if elongation < 1.25:
            diameter = 2.0 * math.sqrt(area / math.pi)
        else:
            # a disc swept along a segment: the minor axis of a stadium of width d has variance
            # between d²/16 (disc) and d²/12 (long strip); interpolate on the elongation
            weight = min(1.0, (elongation - 1.0) / 3.0)
            diameter = math.sqrt(lam_min * (16.0 * (1 - weight) + 12.0 * weight))
        if self.full_background is not None:
            # blur-proof size and centroid: how much of the meteor's colour each pixel holds (alpha),
            # summed over the blob and its faint motion-blur fringe, is the disc's area
            width = int(2 * math.sqrt(lam_min) + 1)  # the blur's fringe is about half a diameter wide
            size = max(5, width | 1)
            # the region holds the whole dilation: √lam_min ≤ min(bw, bh) / 2, so size // 2 < pad
            fringe = cv2.dilate(filled, _square(size))
            # alpha is zero outside the fringe: work on its bounding box only
            fx, fy, fw, fh = cv2.boundingRect(fringe)
            fringe = fringe[fy : fy + fh, fx : fx + fw]
            fx, fy = fx + gx0, fy + gy0  # in the window
            bg = self.full_background[y0 + fy : y0 + fy + fh, x0 + fx : x0 + fx + fw]
            roi_f = pixels[fy : fy + fh, fx : fx + fw]
            if elongation < 1.3 and not partial and area >= 20:
                core = cv2.erode(filled, _square(3))[fy - gy0 : fy - gy0 + fh, fx - gx0 : fx - gx0 + fw]
                if cv2.countNonZero(core) >= 6:
                    mean = np.asarray(cv2.mean(roi_f, mask=core)[:3], np.float32)
                    self._learned_bgr = mean if self._learned_bgr is None else 0.9 * self._learned_bgr + 0.1 * mean
            colour = self._learned_bgr if self._learned_bgr is not None else self._meteor_bgr
            ref = cv2.subtract((float(colour[0]), float(colour[1]), float(colour[2]), 0.0), bg)
            delta = cv2.subtract(roi_f, bg)
            denom = cv2.transform(cv2.multiply(ref, ref), self._ones_eps)  # |ref|² + 1e-3
            alpha = cv2.transform(cv2.multiply(delta, ref), self._ones)
            cv2.divide(alpha, denom, dst=alpha)
            # clip to [0, 1]; zero outside the fringe and where the colour is too near the background
            cv2.threshold(alpha, 0.0, 0.0, cv2.THRESH_TOZERO, dst=alpha)
            cv2.threshold(alpha, 1.0, 0.0, cv2.THRESH_TRUNC, dst=alpha)
            keep = cv2.compare(denom, 300.0, cv2.CMP_GE)
            cv2.bitwise_and(keep, fringe, dst=keep)  # fringe is 0/1: keep is 0/1
            alpha = cv2.multiply(alpha, keep, dtype=cv2.CV_32F)
            sums = cv2.moments(alpha)
            total = float(sums["m00"])
            if total > 0.5 * area:
                cx = float(sums["m10"] / total) + fx
                cy = float(sums["m01"] / total) + fy
                diameter = 2.0 * math.sqrt(total / math.pi)
        return Detection(float(cx + x0), float(cy + y0), float(diameter), elongation, float(area), bool(partial))


def kept_as_it_is_now(image: np.ndarray | None) -> np.ndarray | None:
    """`image` as it is now, for later: the array itself when read-only (frozen, it will not change;
    `MeteorDetector.frozen_full_background`), else a copy of it."""
    if image is None:
        return None
    return image if not image.flags.writeable else image.copy()


def _at_least(values: np.ndarray, level: float) -> np.ndarray:
    """uint8 mask (255) of `values` ≥ `level`. With numpy: OpenCV takes an array of up to four
    values in one column for a scalar when the other operand is a number, and answers 4×1."""
    return np.where(values >= level, np.uint8(255), np.uint8(0))


def _principal_axes(moments: dict) -> tuple[float, float, float]:
    """A blob's variances along its major and minor axes (px²) and the major axis's direction
    (radians), from its `cv2.moments`."""
    area = moments["m00"]
    mu20, mu02, mu11 = moments["mu20"] / area, moments["mu02"] / area, moments["mu11"] / area
    common = math.sqrt(max(0.0, ((mu20 - mu02) / 2) ** 2 + mu11**2))
    lam_max = (mu20 + mu02) / 2 + common
    lam_min = max(1e-6, (mu20 + mu02) / 2 - common)
    return lam_max, lam_min, 0.5 * math.atan2(2.0 * mu11, mu20 - mu02)


_OPEN_KERNEL = np.ones((2, 2), np.uint8)
_SQUARES: dict[int, np.ndarray] = {}


def _square(size: int) -> np.ndarray:
    kernel = _SQUARES.get(size)
    if kernel is None:
        kernel = _SQUARES[size] = np.ones((size, size), np.uint8)
    return kernel


def _components(mask: np.ndarray):
    """`connectedComponentsWithStats`, 8-connected, with 16-bit labels whenever they suffice (far faster)."""
    h, w = mask.shape[:2]
    # at most one 8-connected component per 2×2 block
    ltype = cv2.CV_16U if ((w + 1) // 2) * ((h + 1) // 2) < 65535 else cv2.CV_32S
    return cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=ltype)


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
