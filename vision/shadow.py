"""The meteor's shadow: a second view of its height.

An overhead lamp throws the meteor's shadow onto the table along one direction. The camera ray
through the meteor and the light ray through its shadow meet at the meteor, so the shadow fixes
the height the apparent size only guesses at (a few pixels of size are a hundred millimetres of
height). The light's direction is not calibrated: it is fitted from the flight itself, as the one
direction for which the heights so found fall freely under gravity between the release and the
first bounce, reaching the table there.

`find_shadow` works on one frame window (numpy in, a pixel out); `fit_light` and
`shadow_heights` are pure geometry on arrays of sightings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from vision.detector import kept_as_it_is_now

G_MM_S2 = 9810.0
SAME_HUE_COS2 = 0.995  # a shadow darkens the table without changing its hue (a pixel's test: noise)
BLOB_HUE_COS2 = 0.999  # ... and a blob's mean colour (true shadows ≥ 0.9995; skin on wood 0.997–0.9987)
BLOB_TRIES = 3  # dark blobs of another hue (a hand) skipped before giving up
MIN_DEPTH = 0.05  # a shadow darkens the table by at least this fraction
MIN_BACKGROUND = 40.0  # background pixels darker than this (per channel) cannot show a shadow
MASK_DIAMETERS = 0.9  # the meteor's own disc (this many diameters, + MASK_MARGIN_PX) is not its shadow
MASK_MARGIN_PX = 6.0
MIN_SEPARATION_DIAMETERS = 1.5  # a shadow nearer the meteor than this is not used (it may be the meteor's edge)
TILT_RANGE_DEG = (5.0, 55.0)  # the light's angle from the vertical, searched
TILT_STEP_DEG = 2.0  # the coarse search's grid ...
AZIMUTH_STEP_DEG = 5.0
REFINE_HALF_WIDTHS = (0.12, 0.03, 0.008)  # ... then finer grids round the best (slope units)
MIN_LIGHT_SIGHTINGS = 5
FOLLOW_FRAMES = 3  # a shadow found this few frames ago is looked for where it should be now ...
FOLLOW_DIAMETERS = 2.0  # ... within this many meteor diameters (+ margin) of that
FOLLOW_MARGIN_PX = 24.0
REFINE_DIAMETERS = 2.0  # the full-resolution refinement looks this many meteor diameters (+ margin) round the find
REFINE_MARGIN_PX = 8.0
REFINE_SMOOTH_PX = 1.5
REACH_PX = 350.0  # how far from the meteor its shadow is looked for (400 mm up under a 40° light: 340 mm)
OUTLIER_MM = 10.0  # a sighting this far from the free-fall arc is not the meteor's shadow
INLIER_ROUNDS = 3
LANDING_WEIGHT = 3.0  # the first impact's term counts as this many sightings' worth (per mm)


@dataclass(frozen=True)
class ShadowSighting:
    x_px: float
    y_px: float
    depth: float  # the fraction by which it darkens the table at its darkest


def find_shadow(
    frame_bgr: np.ndarray,
    background_bgr: np.ndarray,
    meteor_px: tuple[float, float],
    diameter_px: float,
    reach_px: float,
    scale: int = 1,
    centre_px: tuple[float, float] | None = None,
) -> ShadowSighting | None:
    """The darkest meteor-sized shadow within `reach_px` of `centre_px` (the meteor), or None.

    `frame_bgr` and `background_bgr` are the same window of the frame and of its background,
    `scale` times smaller than full resolution; `meteor_px`, `diameter_px`, `reach_px`, `centre_px`
    and the answer are in that window's pixels times `scale` (full-resolution pixels relative to
    the window).
    """
    image = np.asarray(frame_bgr, dtype=np.float32)
    background = np.asarray(background_bgr, dtype=np.float32)
    darkness = _shadow_darkness(image, background)
    h, w = darkness.shape
    ys, xs = np.ogrid[0:h, 0:w]
    ys, xs = ys.astype(np.float32), xs.astype(np.float32)
    mx, my = meteor_px[0] / scale, meteor_px[1] / scale
    own = (MASK_DIAMETERS * diameter_px + MASK_MARGIN_PX) / scale
    darkness[(xs - mx) ** 2 + (ys - my) ** 2 < own * own] = 0.0
    size = max(1, int(round(diameter_px / scale))) | 1
    smooth = cv2.blur(darkness, (size, size))
    cx, cy = (mx, my) if centre_px is None else (centre_px[0] / scale, centre_px[1] / scale)
    smooth[(xs - cx) ** 2 + (ys - cy) ** 2 > (reach_px / scale) ** 2] = 0.0
    for _ in range(BLOB_TRIES):
        y0, x0 = np.unravel_index(int(np.argmax(smooth)), smooth.shape)
        depth = float(smooth[y0, x0])
        if depth < MIN_DEPTH:
            return None
        win = slice(max(0, y0 - size), y0 + size + 1), slice(max(0, x0 - size), x0 + size + 1)
        weights = np.clip(smooth[win] - 0.5 * depth, 0.0, None)
        if _same_hue(image[win], background[win], weights):
            total = float(weights.sum())
            cx = float((weights * xs[:, win[1]]).sum() / total)
            cy = float((weights * ys[win[0], :]).sum() / total)
            # pixel i of a `scale`-reduced image spans full-resolution pixels [i·s, (i+1)·s)
            return ShadowSighting((cx + 0.5) * scale - 0.5, (cy + 0.5) * scale - 0.5, depth)
        smooth[(xs - x0) ** 2 + (ys - y0) ** 2 < (2 * size) ** 2] = 0.0
    return None


def refine_shadow(
    frame_bgr: np.ndarray,
    background_bgr: np.ndarray,
    coarse: ShadowSighting,
    meteor_px: tuple[float, float],
    diameter_px: float,
) -> ShadowSighting | None:
    """The shadow's centre at full resolution: the centroid of its darker half round the coarse find.

    The search runs on a frame four times smaller, where a soft shadow's centroid drifts by a pixel
    or two with its size; the half-depth region of a round shadow is centred on it at any size.
    """
    half = int(REFINE_DIAMETERS * diameter_px + REFINE_MARGIN_PX)
    height, width = frame_bgr.shape[:2]
    x0, y0 = max(0, int(coarse.x_px) - half), max(0, int(coarse.y_px) - half)
    x1, y1 = min(width, int(coarse.x_px) + half + 1), min(height, int(coarse.y_px) + half + 1)
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    image = frame_bgr[y0:y1, x0:x1].astype(np.float32)
    background = background_bgr[y0:y1, x0:x1].astype(np.float32)
    darkness = _shadow_darkness(image, background)
    ys, xs = np.ogrid[y0:y1, x0:x1]
    ys, xs = ys.astype(np.float32), xs.astype(np.float32)
    own = MASK_DIAMETERS * diameter_px + MASK_MARGIN_PX
    darkness[(xs - meteor_px[0]) ** 2 + (ys - meteor_px[1]) ** 2 < own * own] = 0.0
    smooth = cv2.GaussianBlur(darkness, (0, 0), REFINE_SMOOTH_PX)
    near = (xs - coarse.x_px) ** 2 + (ys - coarse.y_px) ** 2 < (0.5 * diameter_px + REFINE_MARGIN_PX) ** 2
    if not near.any():
        return None
    peak = float(smooth[near].max())
    if peak < MIN_DEPTH:
        return None
    weights = np.clip(smooth - 0.5 * peak, 0.0, None)
    total = float(weights.sum())
    if total <= 0:
        return None
    return ShadowSighting(float((weights * xs).sum() / total), float((weights * ys).sum() / total), peak)


def _shadow_darkness(image: np.ndarray, background: np.ndarray) -> np.ndarray:
    """Per pixel, by how much of its brightness the image is darker than the background in its hue."""
    pp = cv2.transform(cv2.multiply(image, image), _ONES)  # |p|², |b|², p·b per pixel
    bb = cv2.transform(cv2.multiply(background, background), _ONES)
    pb = cv2.transform(cv2.multiply(image, background), _ONES)
    darkness = 1.0 - cv2.sqrt(pp / np.maximum(bb, 1.0))
    usable = (pb * pb >= SAME_HUE_COS2 * pp * bb) & (bb >= 3 * MIN_BACKGROUND**2) & (darkness > 0)
    darkness[~usable] = 0.0
    return darkness.reshape(image.shape[:2])


_ONES = np.ones((1, 3), np.float32)


def _same_hue(image: np.ndarray, background: np.ndarray, weights: np.ndarray) -> bool:
    """Whether a blob's mean colour is the table's, only darker: a shadow, not a dark object."""
    total = float(weights.sum())
    if total <= 0:
        return False
    p = np.einsum("ij,ijk->k", weights, image) / total
    b = np.einsum("ij,ijk->k", weights, background) / total
    return float(p @ b) ** 2 >= BLOB_HUE_COS2 * float(p @ p) * float(b @ b)


class ShadowWatch:
    """The streaming half: each moving sighting's shadow, against the table as it was before the launch.

    The detector's background slowly learns whatever stays put, and the hand holds the meteor still
    for a second before the throw: afterwards the table where they were looks darker than that
    background, a ghost shadow. So the background is copied once, at the launch's first sighting,
    when the hand has only just come into view.
    """

    def __init__(self, reach_px: float = REACH_PX) -> None:
        self.reach_px = reach_px
        self.reset()

    def reset(self) -> None:
        self._background: np.ndarray | None = None
        self._full_background: np.ndarray | None = None
        self._last: tuple[int, float, float, float, float] | None = None  # frame, meteor x, y, shadow x, y
        self._apart = 0  # shadows found clear of the meteor so far
        self._landed = False  # ... and then one met it (the first impact): the rest of the launch is not needed

    def start(self, background_small: np.ndarray | None, background_full: np.ndarray | None = None) -> None:
        """Keep the backgrounds as they are now: the small one to search, the full one to refine (kept
        itself when read-only: a frozen copy, see `MeteorDetector.frozen_full_background`)."""
        self._background = kept_as_it_is_now(background_small)
        self._full_background = kept_as_it_is_now(background_full)

    def measure(
        self, frame_bgr: np.ndarray, frame_index: int, scale: int, x_px: float, y_px: float, diameter_px: float
    ) -> ShadowSighting | None:
        """The shadow of the meteor seen at (x_px, y_px) in this full-resolution frame, or None.

        A shadow found a frame or two ago is looked for only where it should be now (it moved with
        the meteor): a small window instead of the whole reach. Once the shadow, seen clear of the
        meteor often enough to fit the light, meets it (the first impact), the launch's later
        sightings are not measured: only the arc before the first impact is used.
        """
        if self._background is None or self._landed or not np.isfinite(diameter_px):
            return None
        centre, reach = (x_px, y_px), self.reach_px
        last = self._last
        if last is not None and 0 < frame_index - last[0] <= FOLLOW_FRAMES:
            centre = (last[3] + x_px - last[1], last[4] + y_px - last[2])
            reach = FOLLOW_DIAMETERS * diameter_px + FOLLOW_MARGIN_PX
        found = self._search(frame_bgr, scale, (x_px, y_px), diameter_px, centre, reach)
        if found is None and reach < self.reach_px:
            found = self._search(frame_bgr, scale, (x_px, y_px), diameter_px, (x_px, y_px), self.reach_px)
        if found is not None and self._full_background is not None:
            found = refine_shadow(frame_bgr, self._full_background, found, (x_px, y_px), diameter_px) or found
        self._last = None if found is None else (frame_index, x_px, y_px, found.x_px, found.y_px)
        apart = found is not None and math.hypot(found.x_px - x_px, found.y_px - y_px) >= (
            MIN_SEPARATION_DIAMETERS * diameter_px
        )
        self._apart += apart
        self._landed = not apart and self._apart >= MIN_LIGHT_SIGHTINGS
        return found

    def _search(self, frame_bgr, scale: int, meteor_px, diameter_px: float, centre_px, reach_px: float):
        background = self._background
        assert background is not None
        height, width = background.shape[:2]
        x0 = int(max(0, (centre_px[0] - reach_px) // scale))
        y0 = int(max(0, (centre_px[1] - reach_px) // scale))
        x1 = int(min(width, (centre_px[0] + reach_px) // scale + 1))
        y1 = int(min(height, (centre_px[1] + reach_px) // scale + 1))
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        crop = frame_bgr[y0 * scale : y1 * scale, x0 * scale : x1 * scale]
        small = crop if scale == 1 else cv2.resize(crop, (x1 - x0, y1 - y0), interpolation=cv2.INTER_AREA)
        ox, oy = x0 * scale, y0 * scale
        found = find_shadow(
            small,
            background[y0:y1, x0:x1],
            (meteor_px[0] - ox, meteor_px[1] - oy),
            diameter_px,
            reach_px,
            scale,
            (centre_px[0] - ox, centre_px[1] - oy),
        )
        return None if found is None else ShadowSighting(found.x_px + ox, found.y_px + oy, found.depth)


def _rays_and_shadow_points(camera: CameraModel, meteor_px: np.ndarray, shadow_px: np.ndarray):
    rays = camera.rays(meteor_px)
    shadow_mm = camera.pixel_to_plane(shadow_px, 0.0)[:, :2]
    return rays, shadow_mm


def _positions(
    camera_mm: np.ndarray, rays: np.ndarray, shadow_mm: np.ndarray, slopes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Positions (L×N×3) of the meteor for light slopes (L×2: the shadow's offset per mm of height),
    and by how much (L×N×2, table mm) the light ray through the shadow misses the camera ray.

    The meteor is at C + μ·d on its camera ray and its shadow at (P_xy − k·P_z): solving the two
    table coordinates for μ in the least-squares sense gives the point nearest both rays.
    """
    a = rays[None, :, :2] - slopes[:, None, :] * rays[None, :, 2:3]  # L×N×2
    b = shadow_mm[None, :, :] - camera_mm[None, None, :2] + slopes[:, None, :] * camera_mm[2]
    mu = np.einsum("lnk,lnk->ln", a, b) / np.maximum(np.einsum("lnk,lnk->ln", a, a), 1e-12)
    return camera_mm[None, None, :] + mu[:, :, None] * rays[None, :, :], b - mu[:, :, None] * a


def shadow_heights(
    camera: CameraModel, slope: np.ndarray, meteor_px: np.ndarray, shadow_px: np.ndarray
) -> np.ndarray:
    """The meteor's centre height (mm) at each sighting, from its shadow and the light's slope."""
    rays, shadow_mm = _rays_and_shadow_points(camera, np.asarray(meteor_px), np.asarray(shadow_px))
    return _positions(camera.center_mm, rays, shadow_mm, np.asarray(slope, float).reshape(1, 2))[0][0, :, 2]


@dataclass(frozen=True)
class LightFit:
    slope: np.ndarray  # the shadow's offset on the table per mm of height (tan(tilt) along the azimuth)
    rms_mm: float  # how far the heights stray from a free fall
    heights_mm: np.ndarray  # the sightings' heights with this light
    sightings: int  # how many fell freely (the inliers)
    inliers: np.ndarray  # which did


def _slope_grid() -> np.ndarray:
    tilts = np.radians(np.arange(TILT_RANGE_DEG[0], TILT_RANGE_DEG[1] + 1e-9, TILT_STEP_DEG))
    azimuths = np.radians(np.arange(0.0, 360.0, AZIMUTH_STEP_DEG))
    t, a = np.meshgrid(np.tan(tilts), azimuths, indexing="ij")
    return np.column_stack([(t * np.cos(a)).ravel(), (t * np.sin(a)).ravel()])


_SLOPES = _slope_grid()


def _free_fall_errors(
    positions: np.ndarray,
    miss_mm: np.ndarray,
    times_s: np.ndarray,
    weights: np.ndarray | None = None,
    landing: tuple[float, float, float] | None = None,
) -> np.ndarray:
    """Each sighting's distance (L×N, mm) from the best ballistic arc through its row of L×N×3
    positions (weighted per sighting, L×N, when given), with the rays' miss: zero for a free
    flight under the right light.

    With `landing` (t_a, t_b, z: the arc reaches height z between t_a and t_b, the first impact)
    a last column says how far each row's arc misses that: the free fall alone cannot tell a
    light a little too steep from one whose heights are all a few centimetres too high.
    """
    lifted = positions.copy()
    lifted[:, :, 2] += 0.5 * G_MM_S2 * times_s[None, :] ** 2
    w = np.ones(positions.shape[:2]) if weights is None else np.broadcast_to(weights, positions.shape[:2])
    # each coordinate's weighted straight line in t, for all rows at once (2×2 normal equations)
    s0, s1, s2 = w.sum(axis=1), w @ times_s, w @ times_s**2
    y0 = np.einsum("ln,lnk->lk", w, lifted)
    y1 = np.einsum("ln,n,lnk->lk", w, times_s, lifted)
    det = np.maximum(s0 * s2 - s1 * s1, 1e-12)[:, None]
    intercept = (s2[:, None] * y0 - s1[:, None] * y1) / det
    rate = (s0[:, None] * y1 - s1[:, None] * y0) / det
    residual = lifted - intercept[:, None, :] - times_s[None, :, None] * rate[:, None, :]
    errors = np.sqrt(np.sum(residual**2, axis=2) + np.sum(miss_mm**2, axis=2))
    if landing is None:
        return errors
    t_a, t_b, z_land = landing
    z_a = intercept[:, 2] + rate[:, 2] * t_a - 0.5 * G_MM_S2 * t_a**2
    z_b = intercept[:, 2] + rate[:, 2] * t_b - 0.5 * G_MM_S2 * t_b**2
    missed = np.maximum(z_b - z_land, 0.0) + np.maximum(z_land - z_a, 0.0)
    return np.column_stack([errors, LANDING_WEIGHT * missed])


def _robust_errors(positions, miss_mm, times_s, landing=None) -> np.ndarray:
    """`_free_fall_errors` with each row's arc refitted to the sightings within `OUTLIER_MM` of it."""
    n = positions.shape[1]
    errors = _free_fall_errors(positions, miss_mm, times_s, landing=landing)
    for _ in range(INLIER_ROUNDS - 1):
        near = (errors[:, :n] < OUTLIER_MM).astype(np.float64)
        enough = near.sum(axis=1) >= 3
        near[~enough] = 1.0
        errors = _free_fall_errors(positions, miss_mm, times_s, near, landing)
    return errors


def _local_slopes(center: np.ndarray, half_width: float) -> np.ndarray:
    offsets = np.linspace(-half_width, half_width, 9)
    return center[None, :] + np.stack(np.meshgrid(offsets, offsets), -1).reshape(-1, 2)


def fit_light(
    camera: CameraModel,
    meteor_px: np.ndarray,
    shadow_px: np.ndarray,
    times_s: np.ndarray,
    landing: tuple[float, float, float] | None = None,
) -> LightFit | None:
    """The light slope whose shadow heights fall freely through these sightings of one free arc
    (and reach `landing`'s height in its time window, when given), or None.

    A shadow mistaken for another dark patch (the meteor near its bounce hides its own shadow) is
    an outlier: each candidate's arc is refitted to the sightings within `OUTLIER_MM` of it, the
    coarse search caps each sighting's cost there, and the fine ones use only those sightings.
    """
    meteor_px = np.asarray(meteor_px, float).reshape(-1, 2)
    shadow_px = np.asarray(shadow_px, float).reshape(-1, 2)
    if len(times_s) < MIN_LIGHT_SIGHTINGS:
        return None
    t_mean = float(np.mean(times_s))
    times_s = np.asarray(times_s, float) - t_mean
    if landing is not None:
        landing = (landing[0] - t_mean, landing[1] - t_mean, landing[2])
    n = len(times_s)
    rays, shadow_mm = _rays_and_shadow_points(camera, meteor_px, shadow_px)
    center = camera.center_mm
    errors = _robust_errors(*_positions(center, rays, shadow_mm, _SLOPES), times_s, landing)
    capped = np.minimum(errors[:, :n], OUTLIER_MM) ** 2
    slope = _SLOPES[int(np.argmin(capped.sum(axis=1) + np.sum(errors[:, n:] ** 2, axis=1)))]
    inliers = np.ones(n, dtype=bool)
    for half_width in REFINE_HALF_WIDTHS:
        errors = _robust_errors(*_positions(center, rays, shadow_mm, slope[None, :]), times_s, landing)[0]
        inliers = errors[:n] < OUTLIER_MM
        if inliers.sum() < MIN_LIGHT_SIGHTINGS:
            return None
        local = _local_slopes(slope, half_width)
        positions, miss = _positions(center, rays[inliers], shadow_mm[inliers], local)
        local_errors = _free_fall_errors(positions, miss, times_s[inliers], landing=landing)
        cost = np.sqrt(np.sum(local_errors**2, axis=1) / inliers.sum())
        slope = local[int(np.argmin(cost))]
    heights = _positions(center, rays, shadow_mm, slope[None, :])[0][0, :, 2]
    return LightFit(slope, float(cost.min()), heights, int(inliers.sum()), inliers)

