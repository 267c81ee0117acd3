"""The herd line from the six face-up cards: card-sized rectangles on the rectified table, a line through their centres.

The table plane is rectified to a top-down image at a fixed scale (`PX_PER_MM` pixels per
millimetre) over all the camera sees of it (up to `SEARCH_MARGIN_MM` beyond the markers); the box
(its footprint and everything it hides), the markers and the image border are masked out. Whatever
differs from the local table colour, or is card-white, is segmented and its holes are filled, so a
card the colour of the table still shows through its white border. Each blob must be one standard
card (63 x 88 mm) wide; a blob several cards long is a row of touching cards, cut halfway between
their faces (or by the card's length). The largest set of nearly collinear centres gives the line
(exhaustive RANSAC over pairs, then total least squares with outliers left out), its ends at the
outermost cards. A rig's or a user's line overrides this (see `calibrate_frame`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import cv2
import numpy as np

from calibration.rig import Point2, Rig

if TYPE_CHECKING:
    from calibration.solve import Calibration

PX_PER_MM = 1.5
#: the standard card (mm): the herd's cards are assumed to share its 63:88 shape
CARD_MM = (63.0, 88.0)
#: how much larger or smaller than the standard card a card may look (print, blur, shadow, threshold)
CARD_SCALE = (0.8, 1.25)
#: a card centre farther than this from the line is not part of the herd
COLLINEAR_MM = 30.0
#: the refined line keeps centres within three robust deviations of it, or at least this close (mm)
REFIT_MM = 10.0
#: how many face-up cards the herd shows
HERD_CARDS = 6
#: how far beyond the table markers cards are looked for (mm), within the camera's view
SEARCH_MARGIN_MM = 400.0


class HerdError(ValueError):
    """The herd line cannot be found; the message says why."""


@dataclass(frozen=True)
class Card:
    centre_mm: tuple[float, float]
    size_mm: tuple[float, float]  # (short side, long side)
    angle_deg: float


def rectify_table(frame_bgr: np.ndarray, calibration: Calibration, extent_mm: tuple[float, float, float, float],
                  px_per_mm: float = PX_PER_MM) -> tuple[np.ndarray, np.ndarray]:
    """Top-down view of the table plane over `extent_mm` (xmin, xmax, ymin, ymax); +y is up in the image.

    Returns the image and a mask of the pixels that come from inside the frame.
    """
    xmin, xmax, ymin, ymax = extent_mm
    width, height = int(round((xmax - xmin) * px_per_mm)), int(round((ymax - ymin) * px_per_mm))
    # project a coarse grid (every `step` pixels) and interpolate: the mapping is smooth
    step = 8
    coarse_w, coarse_h = width // step + 2, height // step + 2
    xs = xmin + (np.arange(coarse_w) * step + 0.5) / px_per_mm
    ys = ymax - (np.arange(coarse_h) * step + 0.5) / px_per_mm
    grid_x, grid_y = np.meshgrid(xs, ys)
    pixels = calibration.camera.project(np.column_stack([grid_x.ravel(), grid_y.ravel()]))
    coarse = pixels.reshape(coarse_h, coarse_w, 2).astype(np.float32)
    fine_x, fine_y = np.meshgrid(np.arange(width, dtype=np.float32) / step, np.arange(height, dtype=np.float32) / step)
    map_x, map_y = cv2.split(cv2.remap(coarse, fine_x, fine_y, cv2.INTER_LINEAR))
    image = cv2.remap(frame_bgr, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    frame_h, frame_w = frame_bgr.shape[:2]
    inside = (map_x >= 1) & (map_y >= 1) & (map_x < frame_w - 2) & (map_y < frame_h - 2)
    return image, inside


def _to_rect(points_mm: np.ndarray, extent_mm, px_per_mm: float) -> np.ndarray:
    xmin, _, _, ymax = extent_mm
    points = np.asarray(points_mm, float).reshape(-1, 2)
    return np.column_stack([(points[:, 0] - xmin) * px_per_mm, (ymax - points[:, 1]) * px_per_mm])


def _from_rect(points_px: np.ndarray, extent_mm, px_per_mm: float) -> np.ndarray:
    xmin, _, _, ymax = extent_mm
    points = np.asarray(points_px, float).reshape(-1, 2)
    return np.column_stack([xmin + points[:, 0] / px_per_mm, ymax - points[:, 1] / px_per_mm])


def table_extent(rig: Rig, margin_mm: float = 60.0) -> tuple[float, float, float, float]:
    corners = np.vstack([np.asarray(m.corners_mm, float) for m in rig.table_markers])
    return (
        float(corners[:, 0].min() - margin_mm),
        float(corners[:, 0].max() + margin_mm),
        float(corners[:, 1].min() - margin_mm),
        float(corners[:, 1].max() + margin_mm),
    )


def _occluded_by_box(calibration: Calibration, rig: Rig, extent_mm, px_per_mm: float, shape) -> np.ndarray:
    """Table pixels hidden by (or part of) the box: its footprint and its top's shadow along the rays."""
    mask = np.zeros(shape, np.uint8)
    outline = np.asarray(rig.box.outline_mm, float)
    table_outline = calibration.box_pose.box_to_table(outline)
    top_px = calibration.camera.project(np.column_stack([table_outline, np.full(len(outline), rig.box.rim_height_mm)]))
    top_on_table = calibration.camera.pixel_to_plane(top_px, 0.0)[:, :2]
    hull = cv2.convexHull(np.vstack([table_outline, top_on_table]).astype(np.float32))
    polygon = _to_rect(hull.reshape(-1, 2), extent_mm, px_per_mm)
    cv2.fillPoly(mask, [np.round(polygon).astype(np.int32)], 255)
    return cv2.dilate(mask, np.ones((int(20 * px_per_mm),) * 2, np.uint8)) > 0


def search_extent(frame_shape: tuple[int, ...], calibration: Calibration, rig: Rig,
                  margin_mm: float = SEARCH_MARGIN_MM) -> tuple[float, float, float, float]:
    """The table area searched for cards: what the camera sees, at most `margin_mm` beyond the table markers."""
    bound = table_extent(rig, margin_mm)
    height, width = frame_shape[:2]
    t = np.linspace(0.0, 1.0, 33)
    border = np.vstack([
        np.column_stack([t * (width - 1), np.zeros_like(t)]),
        np.column_stack([t * (width - 1), np.full_like(t, height - 1)]),
        np.column_stack([np.zeros_like(t), t * (height - 1)]),
        np.column_stack([np.full_like(t, width - 1), t * (height - 1)]),
    ])
    camera = calibration.camera
    if camera.center_mm[2] <= 0 or np.any(camera.rays(border)[:, 2] >= -1e-6):
        return bound  # the view reaches the horizon: the bound alone limits the search
    seen = camera.pixel_to_plane(border)[:, :2]
    extent = (max(bound[0], float(seen[:, 0].min())), min(bound[1], float(seen[:, 0].max())),
              max(bound[2], float(seen[:, 1].min())), min(bound[3], float(seen[:, 1].max())))
    if extent[0] >= extent[1] or extent[2] >= extent[3]:
        return bound
    return extent


def _search_mask(image_shape, inside: np.ndarray, calibration: Calibration, rig: Rig, extent_mm,
                 px_per_mm: float) -> np.ndarray:
    """Table pixels worth looking at: inside the frame, off the box and away from the markers."""
    valid = inside & ~_occluded_by_box(calibration, rig, extent_mm, px_per_mm, image_shape)
    marker_mask = np.zeros(image_shape, np.uint8)
    for marker in rig.table_markers:
        corners = np.asarray(marker.corners_mm, float)
        centre = corners.mean(axis=0)
        grown = centre + (corners - centre) * 1.6
        cv2.fillConvexPoly(marker_mask, np.round(_to_rect(grown, extent_mm, px_per_mm)).astype(np.int32), 255)
    valid &= marker_mask == 0
    return cv2.erode(valid.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0


def _table_background(lab: np.ndarray, valid: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The table's own colour around every pixel: a median over ~30 cm, blind to cards, box and markers."""
    scale = 0.2 / px_per_mm  # 5 mm per pixel
    small = cv2.resize(lab, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small_valid = cv2.resize(valid.astype(np.uint8) * 255, (small.shape[1], small.shape[0]),
                             interpolation=cv2.INTER_AREA) > 250
    if small_valid.any():
        small[~small_valid] = np.median(small[small_valid], axis=0).astype(np.uint8)
    small = cv2.medianBlur(small, 61)
    return cv2.resize(small, (lab.shape[1], lab.shape[0]), interpolation=cv2.INTER_LINEAR)


#: per channel of a Lab difference, its weighted square (lightness weighted down: shading is not a card)
_WEIGHTED_SQUARES = (np.arange(256, dtype=np.float32)[:, None, None] ** 2 * [[[0.49, 1.0, 1.0]]]).astype(
    np.float32).reshape(1, 256, 3)


def _segment(image: np.ndarray, valid: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, np.ndarray] | None:
    """(filled, white): card-like blobs (whatever stands out from the table, holes filled) and card-white pixels."""
    if not valid.any():
        return None
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    background = _table_background(lab, valid, px_per_mm)
    valid_u8 = valid.astype(np.uint8) * 255
    # colour distance from the table
    distance_sq = cv2.transform(cv2.LUT(cv2.absdiff(lab, background), _WEIGHTED_SQUARES), np.ones((1, 3), np.float32))
    values = np.sqrt(distance_sq[valid][:: max(1, int(valid.sum()) // 200_000)])
    median = float(np.median(values))
    spread = float(np.median(np.abs(values - median))) + 1e-6
    threshold = max(18.0, median + 6.0 * 1.4826 * spread)
    different = cv2.compare(distance_sq, threshold**2, cv2.CMP_GT)
    # a card's white border: much lighter than the table, and nearly colourless
    lightness, green_red, blue_yellow = cv2.split(lab)
    white = cv2.compare(lightness, cv2.add(cv2.split(background)[0], 40), cv2.CMP_GT)
    white &= cv2.compare(lightness, 150, cv2.CMP_GT)
    white &= cv2.compare(cv2.absdiff(green_red, 128), 25, cv2.CMP_LT)
    white &= cv2.compare(cv2.absdiff(blue_yellow, 128), 25, cv2.CMP_LT)
    white &= valid_u8
    foreground = (different | white) & valid_u8
    # no closing: cards laid a few millimetres apart should stay apart (touching ones are split later)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(3, int(2 * px_per_mm)),) * 2)
    foreground = cv2.morphologyEx(foreground, cv2.MORPH_OPEN, kernel)
    # a card whose face matches the table is still ringed by its border: fill the holes
    contours, _ = cv2.findContours(foreground, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(foreground)
    cv2.drawContours(filled, contours, -1, 255, cv2.FILLED)
    return filled, white > 0


def _card_along_mm(width_mm: float) -> float | None:
    """A card's length along a row of cards `width_mm` wide, or None when no card is that wide.

    The cards lie across the row (it is as wide as their long side) or along it (as wide as their short side).
    """
    short, long = CARD_MM
    ratio_short, ratio_long = width_mm / short, width_mm / long
    if abs(np.log(ratio_long)) < abs(np.log(ratio_short)):
        return short * ratio_long if CARD_SCALE[0] <= ratio_long <= CARD_SCALE[1] else None
    return long * ratio_short if CARD_SCALE[0] <= ratio_short <= CARD_SCALE[1] else None


def _split_row(u: np.ndarray, v: np.ndarray, face: np.ndarray, width_px: float, along_px: float) -> list[tuple]:
    """Cut a row of cards along its axis: (start, end) in u per card.

    `u`, `v` are the row's pixels in its own frame (u along, v across, centred), `face` says which of
    them are a card's face inside its white border. Faces show as runs of a profile along the row;
    the cuts are halfway between runs, and a piece longer than a card is cut by the card's length.
    """
    u0, u1 = float(u.min()), float(u.max()) + 1.0
    bins = np.arange(np.floor(u0), np.ceil(u1) + 1.0)
    band = np.abs(v) < 0.3 * width_px
    total, _ = np.histogram(u[band], bins)
    faces, _ = np.histogram(u[band & face], bins)
    profile = faces / max(float(np.percentile(total, 90)), 1.0)
    window = max(1, int(round(0.05 * along_px)))
    profile = np.convolve(profile, np.ones(window) / window, mode="same")
    above = np.concatenate([[False], profile > 0.5, [False]])
    changes = np.flatnonzero(np.diff(above.astype(np.int8)))
    runs = [(bins[a], bins[b]) for a, b in zip(changes[::2], changes[1::2], strict=True) if b - a >= 0.25 * along_px]
    cuts = [u0]
    for (_, end), (start, _) in zip(runs, runs[1:], strict=False):
        cut = (end + start) / 2.0
        if cut - cuts[-1] >= 0.7 * along_px and u1 - cut >= 0.7 * along_px:
            cuts.append(cut)
    cuts.append(u1)
    pieces = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        count = max(1, int(round((b - a) / along_px)))  # no visible border between these cards
        edges = np.linspace(a, b, count + 1)
        pieces.extend(zip(edges[:-1], edges[1:], strict=True))
    return pieces


def _blob_cards(contour: np.ndarray, filled: np.ndarray, white: np.ndarray, extent_mm,
                px_per_mm: float) -> list[Card]:
    """The cards of one blob: a single card, or a row of touching cards one card wide."""
    area_mm2 = cv2.contourArea(contour) / px_per_mm**2
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    width_mm, length_mm = sorted((w / px_per_mm, h / px_per_mm))
    along_mm = _card_along_mm(width_mm)
    if along_mm is None or length_mm < 0.7 * along_mm or area_mm2 < 0.75 * width_mm * length_mm:
        return []
    x, y, bw, bh = cv2.boundingRect(contour)
    mask = np.zeros((bh, bw), np.uint8)
    cv2.drawContours(mask, [contour], -1, 255, cv2.FILLED, offset=(-x, -y))
    rows, cols = np.nonzero(mask & filled[y:y + bh, x:x + bw])
    points = np.column_stack([cols + x, rows + y]).astype(np.float64)
    face = ~white[y:y + bh, x:x + bw][rows, cols]
    mean = points.mean(axis=0)
    _, _, axes = np.linalg.svd(points - mean, full_matrices=False)
    u, v = (points - mean) @ axes[0], (points - mean) @ axes[1]
    angle = float(np.degrees(np.arctan2(-axes[0][1], axes[0][0])))  # of the row's axis, table frame
    pieces = _split_row(u, v, face, width_mm * px_per_mm, along_mm * px_per_mm)
    if len(pieces) > HERD_CARDS:
        return []  # a strip longer than the whole herd (a ruler, a table edge) is no row of cards
    cards = []
    for start, end in pieces:
        piece = (u >= start) & (u < end)
        piece_length = (end - start) / px_per_mm
        if not 0.7 * along_mm <= piece_length <= 1.4 * along_mm:
            continue
        if piece.sum() < 0.85 * width_mm * piece_length * px_per_mm**2:
            continue  # not a filled rectangle
        centre = _from_rect(points[piece].mean(axis=0)[None], extent_mm, px_per_mm)[0]
        cards.append(Card(centre_mm=(float(centre[0]), float(centre[1])),
                          size_mm=(min(width_mm, piece_length), max(width_mm, piece_length)), angle_deg=angle))
    return cards


def find_cards(frame_bgr: np.ndarray, calibration: Calibration, rig: Rig,
               px_per_mm: float = PX_PER_MM) -> list[Card]:
    """Card-like rectangles lying on the table, outside the box and away from the markers.

    Cards are segmented in a top-down view at a fixed scale: whatever stands out from the local table
    colour, or is card-white, with holes filled (a card the colour of the table is still ringed by its
    white border). Each blob must be a card wide; one several cards long is a row of touching cards,
    cut at the borders between their faces (or by the card's length).
    """
    extent = search_extent(frame_bgr.shape, calibration, rig)
    image, inside = rectify_table(frame_bgr, calibration, extent, px_per_mm)
    valid = _search_mask(inside.shape, inside, calibration, rig, extent, px_per_mm)
    segmented = _segment(image, valid, px_per_mm)
    if segmented is None:
        return []
    filled, white = segmented
    contours, _ = cv2.findContours(filled, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    min_area = (0.5 * CARD_SCALE[0] * CARD_MM[0] * px_per_mm) ** 2
    cards: list[Card] = []
    for contour in contours:
        if cv2.contourArea(contour) >= min_area:
            cards.extend(_blob_cards(contour, filled, white, extent, px_per_mm))
    return cards


def fit_herd_line(centres_mm: np.ndarray, min_cards: int = 3) -> tuple[tuple[Point2, Point2], np.ndarray] | None:
    """The line through the largest nearly collinear subset of card centres; its ends at the outermost ones.

    Every pair of centres proposes a line (an exhaustive RANSAC: there are few cards); the one with the
    most centres within `COLLINEAR_MM` wins, then a total least squares fit is refined, leaving out
    centres farther than three robust deviations (at least `REFIT_MM`) from it.
    """
    centres = np.asarray(centres_mm, float).reshape(-1, 2)
    if len(centres) < min_cards:
        return None
    best_inliers: np.ndarray | None = None
    best_score = (-1, 0.0)
    for i in range(len(centres)):
        for j in range(i + 1, len(centres)):
            direction = centres[j] - centres[i]
            if np.linalg.norm(direction) < 1e-6:
                continue
            normal = np.array([-direction[1], direction[0]]) / np.linalg.norm(direction)
            distances = np.abs((centres - centres[i]) @ normal)
            inliers = distances < COLLINEAR_MM
            score = (int(inliers.sum()), -float(distances[inliers].sum()))
            if score > best_score:
                best_score, best_inliers = score, inliers
    if best_inliers is None or best_inliers.sum() < min_cards:
        return None
    inliers = best_inliers
    for _ in range(5):
        mean, direction = _total_least_squares(centres[inliers])
        distances = np.abs((centres - mean) @ np.array([-direction[1], direction[0]]))
        spread = 1.4826 * float(np.median(distances[inliers]))
        refined = (distances < min(COLLINEAR_MM, max(REFIT_MM, 3.0 * spread))) & best_inliers
        if refined.sum() < min_cards or np.array_equal(refined, inliers):
            break
        inliers = refined
    points = centres[inliers]
    mean, direction = _total_least_squares(points)
    along = (points - mean) @ direction
    start, end = mean + along.min() * direction, mean + along.max() * direction
    if start[0] > end[0] or (start[0] == end[0] and start[1] > end[1]):
        start, end = end, start
    return ((float(start[0]), float(start[1])), (float(end[0]), float(end[1]))), inliers


def _total_least_squares(points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A point on and the unit direction of the line closest (perpendicularly) to `points`."""
    mean = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - mean)
    return mean, vt[0]


def find_herd_line(frame_bgr: np.ndarray, calibration: Calibration, rig: Rig, min_cards: int = 3,
                   cards: list[Card] | None = None) -> tuple[Point2, Point2] | None:
    """The herd line (two table points) from the face-up cards, or None when fewer than `min_cards` line up."""
    cards = find_cards(frame_bgr, calibration, rig) if cards is None else cards
    fitted = fit_herd_line(np.array([c.centre_mm for c in cards]).reshape(-1, 2), min_cards)
    return None if fitted is None else fitted[0]


def herd_line_errors_mm(found: tuple[Point2, Point2], truth: tuple[Point2, Point2]) -> float:
    """The largest distance, at the ends, between two lines: each end of one from the other line."""

    def distance(points: np.ndarray, line: np.ndarray) -> np.ndarray:
        start, end = line
        direction = (end - start) / np.linalg.norm(end - start)
        normal = np.array([-direction[1], direction[0]])
        return np.abs((points - start) @ normal)

    a, b = np.asarray(found, float), np.asarray(truth, float)
    return float(max(distance(b, a).max(), distance(a, b).max()))
