"""The box's pose from its outline, when none of its markers can be read (too small, or hidden).

The camera is already solved from the table markers; only the box's place on the table
(x, y, yaw) is unknown. The rig gives the box's outline and rim height, so a trial pose
predicts where the rim's outer edge (at rim height) and the foot of each wall that faces
the camera (on the table) appear in the picture. The pose is found in two stages:

1. coarse: the picture is rectified onto the rim's plane (lens distortion included, through
   the camera model), where the rim outline is a polygon of known size; its edges, weighted
   by how well their direction agrees with the picture's edge directions, are correlated
   with it at every yaw (`cv2.matchTemplate`);
2. fine: the best few candidates are refined in the picture itself by oriented chamfer
   matching (distance to the nearest edge of the same direction, per direction bin) and a
   shrinking pattern search.

`support` is the fraction of the predicted edge points with a picture edge of the same
direction within `support_px`: how sure the pose is. A box whose outline looks the same
turned (a rectangle, turned half a turn) is told from its turned twin by the unreadable
markers' patterns, rendered where each twin puts them and compared with the picture
(normalised cross-correlation); `pattern_margin` says by how much the chosen twin won.
"""

from __future__ import annotations

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from calibration.camera import CameraModel
from calibration.geometry import BoxPose, box_to_table_mm, yaw_rotation
from calibration.markers import marker_image
from calibration.rig import Rig


class BoxOutlineConfig(BaseModel):
    """Tuning of the outline search; the defaults suit 640×480 to 1920×1080."""

    model_config = ConfigDict(frozen=True)

    coarse_cells_across: int = Field(default=44, description="rectified pixels across the box's longer side")
    yaw_step_deg: float = Field(default=2.0, description="yaw step of the coarse search")
    candidates: int = Field(default=8, description="coarse candidates refined in the picture")
    support_px: float = Field(default=1.5, description="an edge this close to a predicted edge point supports it")
    robust_px: float = Field(default=4.0, description="chamfer distances are cut at this when refining")
    min_support: float = Field(default=0.6, description="below this the box pose is unknown")
    sure_support: float = Field(default=0.75, description="at or above this (and no twin in doubt) it is trusted")
    min_pattern_margin: float = Field(default=0.08, description="NCC lead the chosen twin needs to be trusted")
    min_visible: float = Field(default=0.5, description="share of the predicted edge points that must be in view")
    rim_colour_spread: float = Field(default=30.0, description="BGR distance from the rim's median colour still "
                                     "counted as the rim's colour")
    min_uniformity: float = Field(default=0.6, description="share of the rim's band of one colour needed")
    settle_reach_mm: float = Field(default=8.0, description="how far a searched pose may be settled by its merit")
    settle_first_step_mm: float = Field(default=4.0, description="first step of the settling grid (halved to 1 mm)")
    settle_first_step_deg: float = Field(default=1.0, description="first yaw step of the settling grid (halved too)")
    widen_reach_mm: float = Field(default=60.0, description="how far round each coarse candidate its merit is "
                                  "scanned: on a patterned table the coarse search's place can be this far off")
    widen_first_step_mm: float = Field(default=6.0, description="first step of that scan (halved to 1 mm)")
    widen_first_step_deg: float = Field(default=2.0, description="first yaw step of that scan (the coarse yaw step)")


class BoxOutlineFit(BaseModel):
    """A box pose found from the outline, and how sure it is."""

    model_config = ConfigDict(frozen=True)

    pose: BoxPose
    support: float = Field(description="share of predicted edge points with an aligned picture edge nearby")
    rim_support: float = Field(description="the same, over the rim's outer edge alone")
    rim_uniformity: float = Field(description="share of the rim's band, just inside the outline, of one colour")
    pattern_margin: float | None = Field(
        default=None, description="NCC lead of the markers' patterns over the outline's turned twin (None: no twin)"
    )
    sure: bool = Field(description="support and pattern margin both good enough to call on without doubt")


class BoxOutlineError(ValueError):
    """No box outline of the rig's size is supported well enough by the picture's edges."""


# ---------------------------------------------------------------------- the model's edges


class _EdgeModel:
    """Points sampled along the rim's outer edge (z = rim) and the walls' feet (z = 0), in the box frame."""

    def __init__(self, rig: Rig, spacing_mm: float) -> None:
        box = rig.box
        outline = np.asarray(box.outline_mm, dtype=np.float64)
        if np.allclose(outline[0], outline[-1]):
            outline = outline[:-1]
        self.outline = outline
        signed_area = 0.5 * float(np.sum(outline[:, 0] * np.roll(outline[:, 1], -1)
                                         - outline[:, 1] * np.roll(outline[:, 0], -1)))
        points, directions, normals, edge_of = [], [], [], []
        for i, (a, b) in enumerate(zip(outline, np.roll(outline, -1, axis=0), strict=True)):
            length = float(np.linalg.norm(b - a))
            count = max(2, int(length / spacing_mm))
            t = (np.arange(count) + 0.5) / count
            direction = (b - a) / length
            outward = np.array([direction[1], -direction[0]]) * (1.0 if signed_area > 0 else -1.0)
            points.append(a + t[:, None] * (b - a))
            directions.append(np.repeat(direction[None], count, axis=0))
            normals.append(np.repeat(outward[None], count, axis=0))
            edge_of.append(np.full(count, i))
        self.xy = np.vstack(points)
        self.direction = np.vstack(directions)
        self.outward = np.vstack(normals)
        self.edge_of = np.concatenate(edge_of)
        self.rim_mm = box.rim_height_mm
        self.centroid = outline.mean(axis=0)
        self.band = self.xy - rim_band_inset_mm(rig) * self.outward  # on the rim, just inside its outer edge

        # neighbours along the same edge, for the edge's direction in the picture
        index = np.arange(len(self.edge_of))
        same_before = np.r_[False, self.edge_of[1:] == self.edge_of[:-1]]
        same_after = np.r_[self.edge_of[:-1] == self.edge_of[1:], False]
        self.before = np.where(same_before, index - 1, index)
        self.after = np.where(same_after, index + 1, index)
        self.edge_points = [np.flatnonzero(self.edge_of == i) for i in range(len(outline))]
        self.edge_middle = np.array([self.xy[points].mean(axis=0) for points in self.edge_points])
        self.edge_outward = np.array([self.outward[points[0]] for points in self.edge_points])

    def world(self, pose: tuple[float, float, float], camera_center: np.ndarray):
        """Table-frame points (N×3), the indices of each point's neighbours along its edge, and how many
        lead the list as rim points, for a pose (yaw_deg, x_mm, y_mm): the whole rim, then the feet of the
        walls that face the camera."""
        yaw, x, y = pose
        rotation = yaw_rotation(yaw)
        xy = self.xy @ rotation.T + [x, y]
        middle = self.edge_middle @ rotation.T + [x, y]
        faces_camera = np.sum((self.edge_outward @ rotation.T) * (camera_center[:2] - middle), axis=1) > 0
        count = len(xy)
        facing = [self.edge_points[i] for i in np.flatnonzero(faces_camera)]
        foot = np.concatenate(facing) if facing else np.zeros(0, np.int64)
        points = np.empty((count + len(foot), 3))
        points[:count, :2], points[:count, 2] = xy, self.rim_mm
        points[count:, :2], points[count:, 2] = xy[foot], 0.0
        # whole edges are taken, so a foot point's neighbours are the foot points of its rim neighbours
        offsets = np.concatenate([np.full(len(e), count + start - e[0]) for e, start in
                                  zip(facing, np.cumsum([0] + [len(e) for e in facing[:-1]]), strict=True)]) \
            if facing else np.zeros(0, np.int64)
        before = np.concatenate([self.before, self.before[foot] + offsets])
        after = np.concatenate([self.after, self.after[foot] + offsets])
        return points, before, after, count


def rim_band_inset_mm(rig: Rig) -> float:
    """How far inside the outline the rim's band is sampled: half way to the nearest marker on the rim
    (the rim reaches at least that far), 5 mm when no marker lies on the rim."""
    outline = np.asarray(rig.box.outline_mm, dtype=np.float32).reshape(-1, 1, 2)
    depths = [cv2.pointPolygonTest(outline, (float(x), float(y)), True)
              for marker in rig.box.markers if marker.z_mm >= rig.box.rim_height_mm - 1.0
              for x, y in marker.corners_mm]
    return float(np.clip(0.5 * min(depths), 2.0, 10.0)) if depths else 5.0


def outline_twins(rig: Rig, tolerance_mm: float = 1.0) -> list[float]:
    """Turns (degrees, 0 first) about the outline's centroid that map the outline onto itself."""
    outline = np.asarray(rig.box.outline_mm, dtype=np.float64)
    centre = outline.mean(axis=0)
    twins = [0.0]
    for turn in (90.0, 180.0, 270.0):
        turned = (outline - centre) @ yaw_rotation(turn).T + centre
        distances = np.linalg.norm(turned[:, None, :] - outline[None, :, :], axis=2).min(axis=1)
        if float(distances.max()) < tolerance_mm:
            twins.append(turn)
    return twins


def twin_pose(pose: tuple[float, float, float], turn_deg: float, centre_mm: np.ndarray) -> tuple[float, float, float]:
    """The pose whose box, turned by `turn_deg` about `centre_mm` (box frame), covers the same outline."""
    yaw, x, y = pose
    shift = yaw_rotation(yaw) @ (centre_mm - yaw_rotation(turn_deg) @ centre_mm)
    return ((yaw + turn_deg) % 360.0, x + float(shift[0]), y + float(shift[1]))


# ---------------------------------------------------------------------- the picture's edges


class _OrientedEdges:
    """Canny edges of the picture split into direction bins, with a distance transform per bin."""

    BINS = 8

    def __init__(self, gray: np.ndarray) -> None:
        smooth = cv2.GaussianBlur(gray, (0, 0), 1.0)
        gx = cv2.Sobel(smooth, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(smooth, cv2.CV_32F, 0, 1, ksize=3)
        edges = _auto_canny(smooth)
        angle = np.mod(np.arctan2(gy, gx), np.pi)  # the edge normal's direction, modulo a half turn
        bins = np.floor(angle / np.pi * self.BINS).astype(np.int32) % self.BINS
        self.height, self.width = gray.shape[:2]
        self.distance = np.empty((self.BINS, self.height, self.width), np.float32)
        for b in range(self.BINS):
            near = (edges > 0) & ((bins == b) | (bins == (b + 1) % self.BINS) | (bins == (b - 1) % self.BINS))
            source = np.where(near, 0, 255).astype(np.uint8)
            self.distance[b] = cv2.distanceTransform(source, cv2.DIST_L2, 3)

    def distances(self, pixels: np.ndarray, normal_angle: np.ndarray) -> np.ndarray:
        """Distance (px) from each pixel to the nearest edge whose normal lies near `normal_angle`; NaN out of view."""
        result = np.full(len(pixels), np.nan)
        columns = np.round(pixels[:, 0]).astype(np.int64)
        rows = np.round(pixels[:, 1]).astype(np.int64)
        inside = (columns >= 0) & (rows >= 0) & (columns < self.width) & (rows < self.height)
        bins = np.floor(np.mod(normal_angle, np.pi) / np.pi * self.BINS).astype(np.int64) % self.BINS
        result[inside] = self.distance[bins[inside], rows[inside], columns[inside]]
        return result


def _auto_canny(gray: np.ndarray) -> np.ndarray:
    """Canny with thresholds from the gradient's own spread (any contrast, any exposure)."""
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = cv2.magnitude(gx, gy)
    high = max(20.0, float(np.percentile(magnitude, 90)))
    return cv2.Canny(gray, 0.4 * high, high, L2gradient=True)


# ---------------------------------------------------------------------- the search


class _Scorer:
    """Oriented chamfer figures of trial poses in the picture."""

    def __init__(self, model: _EdgeModel, camera: CameraModel, edges: _OrientedEdges, config: BoxOutlineConfig):
        self.model, self.camera, self.edges, self.config = model, camera, edges, config
        self.center = camera.center_mm
        self.rotation = camera.rotation

    def distances(self, pose: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
        points, before, after, rim_count = self.model.world(pose, self.center)
        pixels = self.camera.project(points)
        along = pixels[after] - pixels[before]  # the edge's direction in the picture
        is_rim = np.arange(len(points)) < rim_count
        normal_angle = np.arctan2(along[:, 0], -along[:, 1])  # the normal of the edge's picture direction
        in_front = (points @ self.rotation[2] + self.camera.tvec[2]) > 0
        distances = self.edges.distances(pixels, normal_angle)
        distances[~in_front] = np.nan
        return distances, is_rim

    def cost(self, pose: tuple[float, float, float]) -> float:
        distances, _ = self.distances(pose)
        seen = np.isfinite(distances)
        if seen.mean() < self.config.min_visible:
            return float(self.config.robust_px)
        return float(np.mean(np.minimum(distances[seen], self.config.robust_px)))

    def uniformity(self, pose: tuple[float, float, float], colour: np.ndarray) -> float:
        """Share of the rim's band (just inside the outline) whose colour is near its median: a box's rim is
        one colour, a box-sized rectangle of a patterned table's lines is not."""
        yaw, x, y = pose
        band = box_to_table_mm(self.model.band, yaw, (x, y))
        pixels = np.round(self.camera.project(np.column_stack([band, np.full(len(band), self.model.rim_mm)])))
        height, width = colour.shape[:2]
        inside = (pixels[:, 0] >= 0) & (pixels[:, 1] >= 0) & (pixels[:, 0] < width) & (pixels[:, 1] < height)
        if inside.mean() < self.config.min_visible:
            return 0.0
        samples = colour[pixels[inside, 1].astype(int), pixels[inside, 0].astype(int)].astype(np.float32)
        distance = np.linalg.norm(samples - np.median(samples, axis=0), axis=1)
        return float(np.mean(distance <= self.config.rim_colour_spread))

    def support(self, pose: tuple[float, float, float]) -> tuple[float, float]:
        distances, is_rim = self.distances(pose)
        seen = np.isfinite(distances)
        if seen.mean() < self.config.min_visible:
            return 0.0, 0.0
        close = seen & (distances <= self.config.support_px)
        # points out of view count as unsupported only up to the share allowed out of view
        total = float(close.sum()) / max(1, int(seen.sum()))
        rim_seen = seen & is_rim
        rim = float((close & is_rim).sum()) / max(1, int(rim_seen.sum()))
        return total, rim

    def refine(self, pose: tuple[float, float, float], step_mm: float, step_deg: float,
               last_step_mm: float = 0.1) -> tuple[float, float, float]:
        """Pattern search: try ± each step, move to the best, halve the steps when nothing improves."""
        best = tuple(float(v) for v in pose)
        best_cost = self.cost(best)
        steps = np.array([step_deg, step_mm, step_mm])
        while steps[1] > last_step_mm:
            improved = False
            for axis in range(3):
                for sign in (-1.0, 1.0):
                    trial = list(best)
                    trial[axis] += sign * steps[axis]
                    trial_cost = self.cost(tuple(trial))
                    if trial_cost < best_cost - 1e-9:
                        best, best_cost, improved = tuple(trial), trial_cost, True
            if not improved:
                steps /= 2.0
        return best  # type: ignore[return-value]


def _search_region(rig: Rig, camera: CameraModel, frame_size: tuple[int, int],
                   plane_z_mm: float) -> tuple[float, float, float, float]:
    """Table x/y bounds (mm) the box's centre may lie in: in view at `plane_z_mm`, near the table markers."""
    width, height = frame_size
    u, v = np.meshgrid(np.linspace(0, width - 1, 25), np.linspace(0, height - 1, 19))
    pixels = np.column_stack([u.ravel(), v.ravel()])
    rays = camera.rays(pixels)
    down = rays[:, 2] < -1e-3
    points = camera.pixel_to_plane(pixels[down], plane_z_mm)[:, :2]
    markers = np.vstack([np.asarray(m.corners_mm, float) for m in rig.table_markers])
    reach = float(np.max(np.linalg.norm(np.asarray(rig.box.outline_mm, float), axis=1)))
    low = markers.min(axis=0) - 2 * reach
    high = markers.max(axis=0) + 2 * reach
    if len(points):
        low = np.maximum(low, points.min(axis=0))
        high = np.minimum(high, points.max(axis=0))
    return float(low[0]), float(high[0]), float(low[1]), float(high[1])


def _coarse_candidates(gray: np.ndarray, rig: Rig, camera: CameraModel, model: _EdgeModel,
                       config: BoxOutlineConfig, twins: list[float],
                       plane_z_mm: float) -> list[tuple[float, float, float]]:
    """The best poses of the rim outline matched to the picture rectified onto the plane at `plane_z_mm`
    (the rim's, or the table's when the camera's focal length is unsure: the table markers fix the
    table's plane in the picture whatever it is), by aligned
    edges along the outline), no more than two within any `DIVERSE_YAW_DEG`: a patterned table's lines
    may match a box-sized rectangle at their own angles in many places."""
    height, width = gray.shape[:2]
    x0, x1, y0, y1 = _search_region(rig, camera, (width, height), plane_z_mm)
    outline = model.outline
    span = float(np.max(np.ptp(outline, axis=0)))
    mm_per_cell = span / config.coarse_cells_across
    columns = int(np.ceil((x1 - x0) / mm_per_cell)) + 1
    rows = int(np.ceil((y1 - y0) / mm_per_cell)) + 1
    if columns < 8 or rows < 8 or columns * rows > 4_000_000:
        return []
    xs = x0 + np.arange(columns) * mm_per_cell
    ys = y0 + np.arange(rows) * mm_per_cell
    grid_x, grid_y = np.meshgrid(xs, ys)
    table = np.column_stack([grid_x.ravel(), grid_y.ravel(), np.full(grid_x.size, plane_z_mm)])
    pixels = camera.project(table).reshape(rows, columns, 2).astype(np.float32)
    in_view = camera.depth_mm(table).reshape(rows, columns) > 0
    # blur the picture to the rectified cells' size first, so that the remap does not alias
    cell_px = float(np.median(np.linalg.norm(np.diff(pixels, axis=1), axis=2)))
    smooth = cv2.GaussianBlur(gray, (0, 0), max(0.5, 0.5 * cell_px)) if cell_px > 1.5 else gray
    rectified = cv2.remap(smooth, pixels[..., 0], pixels[..., 1], cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    valid = cv2.remap(np.full_like(gray, 255), pixels[..., 0], pixels[..., 1], cv2.INTER_NEAREST,
                      borderMode=cv2.BORDER_CONSTANT, borderValue=0) > 0
    valid &= in_view
    valid = cv2.erode(valid.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    gx = cv2.Sobel(rectified, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(rectified, cv2.CV_32F, 0, 1, ksize=3)
    edges = (_auto_canny(rectified) > 0) & valid
    angle = np.arctan2(gy, gx)
    # orientation energies: an edge point of normal n scores (n · g/|g|)², a sum of three linear terms
    images = [cv2.GaussianBlur((edges * f).astype(np.float32), (0, 0), 0.7)
              for f in (np.cos(angle) ** 2, np.sin(angle) * np.cos(angle), np.sin(angle) ** 2)]
    turn_range = 360.0 / len(twins) if twins else 360.0
    yaws = np.arange(0.0, turn_range, config.yaw_step_deg)
    found: list[tuple[float, float, float, float]] = []  # (score, yaw, x, y)
    for yaw in yaws:
        corners = (outline - model.centroid) @ yaw_rotation(float(yaw)).T / mm_per_cell
        margin = 3
        origin = -corners.min(axis=0) + margin
        size = np.ceil(corners.max(axis=0) - corners.min(axis=0) + 2 * margin).astype(int) + 1
        if size[0] >= columns or size[1] >= rows:
            continue
        templates = [np.zeros((size[1], size[0]), np.float32) for _ in range(3)]
        total = 0.0
        for a, b in zip(corners, np.roll(corners, -1, axis=0), strict=True):
            direction = (b - a) / (np.linalg.norm(b - a) + 1e-12)
            nx, ny = -direction[1], direction[0]
            ends = [tuple(np.round((p + origin) * 8).astype(int)) for p in (a, b)]
            for template, value in zip(templates, (nx * nx, 2 * nx * ny, ny * ny), strict=True):
                cv2.line(template, ends[0], ends[1], float(value), 1, cv2.LINE_AA, shift=3)
            total += float(np.linalg.norm(b - a))
        edge_score = sum(cv2.matchTemplate(image, template, cv2.TM_CCORR) for image, template in
                         zip(images, templates, strict=True)) / max(total, 1.0)
        score = edge_score
        # keep this yaw's best few places (local maxima)
        peaks = score == cv2.dilate(score, np.ones((5, 5), np.uint8))
        flat = np.flatnonzero(peaks)
        order = flat[np.argsort(score.ravel()[flat])[::-1][: config.candidates]]
        for index in order:
            row, column = divmod(int(index), score.shape[1])
            centre_cells = np.array([column, row]) + origin
            centre_mm = np.array([x0, y0]) + centre_cells * mm_per_cell
            # the template was centred on the outline's centroid: back to the box origin
            origin_mm = centre_mm - yaw_rotation(float(yaw)) @ model.centroid
            found.append((float(score.ravel()[index]), float(yaw), float(origin_mm[0]), float(origin_mm[1])))
    found.sort(key=lambda item: -item[0])
    chosen: list[tuple[float, float, float]] = []
    for _, yaw, x, y in found:
        alike = [(cyaw, cx, cy) for cyaw, cx, cy in chosen if _angle_gap(yaw, cyaw, turn_range) <= DIVERSE_YAW_DEG]
        if len(alike) < 2 and all(np.hypot(x - cx, y - cy) > span / 4 for _, cx, cy in alike):
            chosen.append((yaw, x, y))
        if len(chosen) >= config.candidates:
            break
    return chosen


#: coarse candidates closer in yaw than this are alike (see `_coarse_candidates`)
DIVERSE_YAW_DEG = 10.0


def _angle_gap(a: float, b: float, period: float) -> float:
    gap = (a - b) % period
    return min(gap, period - gap)


# ---------------------------------------------------------------------- the markers' patterns


def marker_pattern_score(gray: np.ndarray, rig: Rig, camera: CameraModel, pose: BoxPose) -> float | None:
    """Mean normalised cross-correlation of the box markers' patterns, drawn where `pose` puts them, with the
    picture (None when none is in view)."""
    scores = []
    height, width = gray.shape[:2]
    cells = 6
    for marker in rig.box.markers:
        corners_xy = box_to_table_mm(np.asarray(marker.corners_mm, float), pose.yaw_deg, pose.translation_mm)
        points = np.column_stack([corners_xy, np.full(4, marker.z_mm)])
        if np.any(camera.depth_mm(points) <= 0):
            continue
        quad = camera.project(points)
        side_px = float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))
        if side_px < 3:
            continue
        cell_template = 8
        side = cells * cell_template
        pattern = np.full((side + 2 * cell_template, side + 2 * cell_template), 255, np.uint8)
        pattern[cell_template:-cell_template, cell_template:-cell_template] = marker_image(
            rig.aruco_dictionary, marker.id, side)
        source = np.float32([[cell_template, cell_template], [cell_template + side, cell_template],
                             [cell_template + side, cell_template + side], [cell_template, cell_template + side]])
        homography = cv2.getPerspectiveTransform(source, quad.astype(np.float32))
        outer = cv2.perspectiveTransform(
            np.float32([[0, 0], [pattern.shape[1], 0], [pattern.shape[1], pattern.shape[0]],
                        [0, pattern.shape[0]]]).reshape(-1, 1, 2), homography).reshape(-1, 2)
        x_low, y_low = np.floor(outer.min(axis=0)).astype(int) - 1
        x_high, y_high = np.ceil(outer.max(axis=0)).astype(int) + 2
        if x_low < 0 or y_low < 0 or x_high > width or y_high > height:
            continue
        shift = np.array([[1, 0, -x_low], [0, 1, -y_low], [0, 0, 1]], float)
        size = (int(x_high - x_low), int(y_high - y_low))
        # blur the drawing to the picture's sharpness (about 0.7 px) before it is shrunk onto it
        template_per_px = pattern.shape[1] / max(1.0, float(np.ptp(outer[:, 0])))
        drawn = cv2.warpPerspective(cv2.GaussianBlur(pattern, (0, 0), 0.7 * template_per_px), shift @ homography,
                                    size, flags=cv2.INTER_LINEAR).astype(np.float32)
        inner = np.zeros_like(pattern)
        inner[cell_template:-cell_template, cell_template:-cell_template] = 255  # the marker, not its margin
        mask = cv2.warpPerspective(inner, shift @ homography, size, flags=cv2.INTER_NEAREST) > 0
        seen = gray[y_low:y_high, x_low:x_high].astype(np.float32)
        a, b = drawn[mask], seen[mask]
        if len(a) < 9 or a.std() < 1e-3 or b.std() < 1e-3:
            continue
        scores.append(float(np.corrcoef(a, b)[0, 1]))
    return float(np.mean(scores)) if scores else None


# ---------------------------------------------------------------------- the whole


class BoxOutlineMatcher:
    """One picture's edges and the rig's box, matched through any camera model (so that a caller may try
    several, e.g. focal lengths the table markers alone cannot tell apart)."""

    def __init__(self, frame_bgr: np.ndarray, rig: Rig, config: BoxOutlineConfig | None = None) -> None:
        self.config = config or BoxOutlineConfig()
        self.rig = rig
        self.gray = frame_bgr if frame_bgr.ndim == 2 else cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
        self.colour = cv2.GaussianBlur(frame_bgr if frame_bgr.ndim == 3 else self.gray[..., None], (0, 0), 0.8)
        if self.colour.ndim == 2:
            self.colour = self.colour[..., None]
        self.edges = _OrientedEdges(self.gray)
        self.twins = outline_twins(rig)
        self.span_mm = float(np.max(np.ptp(np.asarray(rig.box.outline_mm, float), axis=0)))
        self._model: _EdgeModel | None = None

    def _scorer(self, camera: CameraModel, near: tuple[float, float, float] | None = None) -> _Scorer:
        if self._model is None:  # edge points about 1.5 px apart where the box is
            centre = [near[1], near[2], 0.0] if near is not None else [0.0, 0.0, 0.0]
            probe = camera.project(np.array([centre, np.add(centre, [self.span_mm, 0.0, 0.0])]))
            px_per_mm = max(0.2, float(np.linalg.norm(probe[1] - probe[0])) / self.span_mm)
            self._model = _EdgeModel(self.rig, spacing_mm=float(np.clip(2.0 / px_per_mm, 1.0, self.span_mm / 40)))
        return _Scorer(self._model, camera, self.edges, self.config)

    def chamfer(self, camera: CameraModel, pose: tuple[float, float, float]) -> float:
        """The mean robust chamfer distance (px) of `pose` seen through `camera`."""
        return self._scorer(camera, pose).cost(pose)

    def candidates(self, camera: CameraModel, count: int = 2, loose: bool = False) -> list[tuple[float, float, float]]:
        """The `count` best poses (yaw_deg, x_mm, y_mm) over the whole table in view, best first: every
        coarse candidate roughly refined, ranked by `merit`. Through a `loose` camera (its focal length
        unsure, so the rim's height is not seen right) the search is made on the table's plane and the
        `2 × count` best coarse candidates are given as they are, for the caller to choose the focal length."""
        scorer = self._scorer(camera)
        starts = _coarse_candidates(self.gray, self.rig, camera, scorer.model, self.config, self.twins,
                                    0.0 if loose else self.rig.box.rim_height_mm)
        if not starts:
            raise BoxOutlineError("the box's outline cannot be searched for: the table is hardly in view")
        if loose:
            return starts[: 2 * count]
        config = self.config
        step_mm = self.span_mm / config.coarse_cells_across
        rough = [scorer.refine(start, step_mm, config.yaw_step_deg, last_step_mm=1.5) for start in starts]
        # the edges' local fit can hold on to a table pattern's edges some centimetres off: each candidate
        # goes where its neighbourhood's merit is highest before they are ranked
        widened = [self.settle(camera, pose, config.widen_reach_mm, config.widen_first_step_mm,
                               config.widen_first_step_deg) for pose in rough]
        return sorted(widened, key=lambda pose: -self.merit(camera, pose))[:count]

    def search(self, camera: CameraModel) -> tuple[float, float, float]:
        """The best pose over the whole table in view: the best two candidates refined finely."""
        fine = [self.refine(camera, pose, 1.0, 0.25)[0] for pose in self.candidates(camera)]
        return max(fine, key=lambda pose: self.merit(camera, pose))

    def merit(self, camera: CameraModel, pose: tuple[float, float, float]) -> float:
        """Edge support times the rim's uniformity: aligned edges round a rim of one colour."""
        scorer = self._scorer(camera, pose)
        return scorer.support(pose)[0] * scorer.uniformity(pose, self.colour)

    def settle(self, camera: CameraModel, pose: tuple[float, float, float], reach_mm: float | None = None,
               first_step_mm: float | None = None, first_step_deg: float | None = None) -> tuple[float, float, float]:
        """`pose` moved (within `reach_mm`, by default `settle_reach_mm`) to where `merit` is highest: through
        a camera a little off (a focal length the table markers leave loose) the edges' best fit can slip a
        few millimetres, enough to take the rim's band off the rim, while the true place fits the edges as
        well. A grid over the reach, then ever finer grids round the best."""
        config = self.config
        best, best_merit = pose, self.merit(camera, pose)
        step_mm = config.settle_first_step_mm if first_step_mm is None else first_step_mm
        step_deg = config.settle_first_step_deg if first_step_deg is None else first_step_deg
        reach = int(round((config.settle_reach_mm if reach_mm is None else reach_mm) / step_mm))
        while step_mm >= 1.0:
            centre = best
            for d_yaw in (-step_deg, 0.0, step_deg):
                for dx in range(-reach, reach + 1):
                    for dy in range(-reach, reach + 1):
                        trial = (centre[0] + d_yaw, centre[1] + dx * step_mm, centre[2] + dy * step_mm)
                        merit = self.merit(camera, trial)
                        if merit > best_merit:
                            best, best_merit = trial, merit
            step_mm, step_deg, reach = step_mm / 2.0, step_deg / 2.0, 1
        return best

    def refine(self, camera: CameraModel, pose: tuple[float, float, float], step_mm: float = 4.0,
               step_deg: float = 1.0, last_step_mm: float = 0.1) -> tuple[tuple[float, float, float], float]:
        """The pose refined near `pose`, and its cost (mean robust chamfer distance, px)."""
        scorer = self._scorer(camera, pose)
        best = scorer.refine(pose, step_mm, step_deg, last_step_mm)
        return best, scorer.cost(best)

    def fit(self, camera: CameraModel, pose: tuple[float, float, float], twin_known: bool = False) -> BoxOutlineFit:
        """How well `pose` is supported, its turned twin told apart by the markers' patterns (unless
        `twin_known`: the pose came from a known one nearby, and is taken as it is; a searched pose is first
        settled). Raises `BoxOutlineError` when too weak."""
        config = self.config
        if not twin_known:
            pose = self.settle(camera, pose)
        scorer = self._scorer(camera, pose)
        support, rim_support = scorer.support(pose)
        uniformity = scorer.uniformity(pose, self.colour)
        if uniformity < config.min_uniformity:
            raise BoxOutlineError(
                f"no box rim of one colour along the best outline found ({uniformity:.0%} of it, need "
                f"{config.min_uniformity:.0%})"
            )
        if support < config.min_support:
            raise BoxOutlineError(
                f"the box's outline is not clear enough in the picture (edge support {support:.0%}, "
                f"need {config.min_support:.0%})"
            )
        pattern_margin = None
        if len(self.twins) > 1 and not twin_known:
            centroid = self._scorer(camera, pose).model.centroid
            poses = [twin_pose(pose, turn, centroid) for turn in self.twins]
            scores = [marker_pattern_score(self.gray, self.rig, camera, _pose(p)) for p in poses]
            if all(s is not None for s in scores):
                order = np.argsort(scores)[::-1]
                pose = poses[int(order[0])]
                pattern_margin = float(scores[int(order[0])] - scores[int(order[1])])  # type: ignore[operator]
        twin_sure = twin_known or len(self.twins) == 1 or (
            pattern_margin is not None and pattern_margin >= config.min_pattern_margin)
        return BoxOutlineFit(pose=_pose(pose), support=support, rim_support=rim_support, rim_uniformity=uniformity,
                             pattern_margin=pattern_margin, sure=support >= config.sure_support and twin_sure)


def find_box_from_outline(frame_bgr: np.ndarray, rig: Rig, camera: CameraModel, *,
                          near: BoxPose | None = None, config: BoxOutlineConfig | None = None) -> BoxOutlineFit:
    """The box pose that best explains the picture's edges, with its support; see the module docstring.

    `near` limits the search to the neighbourhood of a known pose (the box moved a little).
    Raises `BoxOutlineError` when no pose has enough support.
    """
    matcher = BoxOutlineMatcher(frame_bgr, rig, config)
    if near is None:
        return matcher.fit(camera, matcher.search(camera))
    pose, _ = matcher.refine(camera, (near.yaw_deg % 360.0, *near.translation_mm), step_mm=8.0, step_deg=2.0)
    return matcher.fit(camera, pose, twin_known=True)


def _pose(pose: tuple[float, float, float]) -> BoxPose:
    yaw, x, y = pose
    return BoxPose(yaw_deg=float(yaw % 360.0), translation_mm=(float(x), float(y)))
