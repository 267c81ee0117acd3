"""Solving one frame: the camera (intrinsics and pose), the box pose, the herd line, the figures.

Unknowns, solved jointly by a small Levenberg–Marquardt (numpy + cv2 only):

- the camera's table-to-camera pose (6),
- its focal length (square pixels, principal point at the image centre) and, when the
  data asks for it, the radial term k1, unless a lens calibration gives K and distortion,
- the box pose on the table (yaw, tx, ty): the box markers lie at known heights `z_mm`
  in the box frame; their height above the table is what pins the focal length down when
  the camera looks nearly straight down (a flat table alone cannot tell focal length from
  distance then).

Residuals are the pixel distances between the detected sub-pixel marker corners and the
projections of the rig's corners.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from calibration.box_outline import BoxOutlineError, BoxOutlineFit, BoxOutlineMatcher
from calibration.camera import CameraModel
from calibration.geometry import BoxPose, box_to_table_mm, yaw_rotation
from calibration.jsonfile import load_json_model
from calibration.lens import LensCalibration
from calibration.markers import detect_rig_markers
from calibration.rig import Point2, Rig

SCHEMA = "meteors-calibration/1"

#: a marker whose measured size is off by more than this fraction was printed at the wrong scale ...
SCALE_TOLERANCE = 0.06
#: ... plus this many pixels of its side: a small blurred marker's corners are found up to half a pixel
#: inside its edges (9 px box markers read 6–11 % small on generated 1280×720 clips)
SCALE_SLACK_PX = 1.0
#: reprojection error (median, px) above which the rig and the frame disagree
MAX_MEDIAN_REPROJECTION_PX = 3.0
#: the radial term k1 is kept when it cuts the squared residuals to below this fraction
K1_GAIN = 0.8
#: a marker whose mean corner error exceeds both of these (px, × the median) is left out and the frame re-solved
OUTLIER_PX = 1.5
OUTLIER_FACTOR = 5.0


class CalibrationError(ValueError):
    """A frame (or rig) from which no trustworthy calibration can be made; the message says why."""


class BoxNotFoundError(CalibrationError):
    """No box marker was read and the box was not found from its outline either: its pose is unknown."""


class CalibrationQuality(BaseModel):
    """How well the solved model explains what the camera saw, per marker and overall."""

    model_config = ConfigDict(frozen=True)

    reprojection_px: dict[int, float] = Field(description="mean corner reprojection error per marker id, px")
    reprojection_median_px: float = Field(description="median over all corners, px")
    reprojection_max_px: float
    table_error_mm: dict[int, float] = Field(
        description="mean distance between back-projected corners and the rig's, per marker id, mm"
    )
    table_error_median_mm: float
    scale_ratio: dict[int, float] = Field(description="measured marker size / rig size, per marker id")
    focal_estimated: bool = Field(description="True when the intrinsics came from the markers, not a lens file")
    k1_estimated: bool = False
    markers_rejected: list[int] = Field(default_factory=list, description="seen but left out as badly detected")
    focal_sd_pct: float | None = Field(
        default=None,
        description="1-sigma uncertainty of the estimated focal length, % (large when the camera looks straight "
        "down and the box markers are low: heights then map less surely; a lens calibration removes it)",
    )
    box_outline: BoxOutlineFit | None = Field(
        default=None, description="how the box pose was found from the box's outline, when no box marker was read"
    )


class Calibration(BaseModel):
    """Everything the judge needs to turn pixels into table and box millimetres."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: Literal["meteors-calibration/1"] = Field(alias="schema", default=SCHEMA)
    camera: CameraModel
    box_pose: BoxPose
    box_pose_source: Literal["markers", "previous", "outline"] = Field(
        default="markers", description="the box pose came from its markers, an earlier calibration, or its outline"
    )
    herd_line_mm: tuple[Point2, Point2] | None = None
    herd_line_source: Literal["rig", "cards", "user"] | None = None
    meteor_rgb: tuple[int, int, int] | None = None
    frame_size: tuple[int, int]
    markers_seen: list[int]
    markers_missing: list[int]
    quality: CalibrationQuality

    # ------------------------------------------------------------ files
    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json() + "\n", encoding="utf-8")

    def to_json(self) -> str:
        return self.model_dump_json(by_alias=True, indent=2)

    @classmethod
    def load(cls, path: str | Path) -> Calibration:
        return load_json_model(path, cls, CalibrationError, "calibration")

    # ------------------------------------------------------------ conveniences for the judge
    def table_to_pixels(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixels of table-frame points (N×3, or N×2 on the table)."""
        return self.camera.project(points_mm)

    def box_to_pixels(self, box_xy_mm: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Pixels of box-frame points at height `z_mm` above the table."""
        xy = self.box_pose.box_to_table(box_xy_mm)
        z = np.broadcast_to(np.asarray(z_mm, dtype=np.float64), (len(xy),))
        return self.camera.project(np.column_stack([xy, z]))

    def ground_point(self, pixels: np.ndarray, z_mm: float | np.ndarray = 0.0) -> np.ndarray:
        """Table xy (N×2) under points seen at `pixels` that are `z_mm` above the table (camera rays)."""
        return self.camera.pixel_to_plane(pixels, z_mm)[:, :2]

    def with_box_pose(self, box_pose: BoxPose) -> Calibration:
        return self.model_copy(update={"box_pose": box_pose, "box_pose_source": "markers"})


# ---------------------------------------------------------------------- the solver


def still_scene(frames: list[np.ndarray]) -> np.ndarray:
    """The median of the frames that agree with the first (a still scene): less noise for the markers."""
    first = frames[0].astype(np.int16)
    still = [f for f in frames if float(np.mean(np.abs(f.astype(np.int16) - first))) < 4.0]
    return np.median(np.stack(still), axis=0).astype(np.uint8) if len(still) >= 3 else frames[0]


def _require_frame(frame_bgr: np.ndarray | None) -> None:
    if frame_bgr is None or np.asarray(frame_bgr).ndim < 2 or np.asarray(frame_bgr).size == 0:
        raise CalibrationError("the frame is empty")


def find_rig_markers(frame_bgr: np.ndarray, rig: Rig) -> dict[int, np.ndarray]:
    """The markers `calibrate_frame` solves from: id -> 4×2 corners, searched again magnified when some
    of the rig's table or box markers were not found."""
    _require_frame(frame_bgr)
    wanted = {m.id for m in rig.table_markers} | {m.id for m in rig.box.markers}
    return detect_rig_markers(frame_bgr, rig.aruco_dictionary, wanted)


def calibrate_frame(
    frame_bgr: np.ndarray,
    rig: Rig,
    lens: LensCalibration | None = None,
    previous: Calibration | None = None,
    *,
    detections: dict[int, np.ndarray] | None = None,
    fix_intrinsics: bool = False,
    find_herd: bool = True,
) -> Calibration:
    """Calibrate from one still frame showing the table markers and the box.

    `lens` fixes K and distortion; else they are estimated from the markers (or, with
    `fix_intrinsics`, taken from `previous`). `previous` is a warm start, and supplies the
    box pose when no box marker is visible. `detections` skips the marker search.
    """
    _require_frame(frame_bgr)
    height, width = frame_bgr.shape[:2]
    table_ids = [m.id for m in rig.table_markers]
    box_ids = [m.id for m in rig.box.markers]
    found = find_rig_markers(frame_bgr, rig) if detections is None else detections
    known = set(table_ids) | set(box_ids)
    seen = sorted(i for i in found if i in known)
    missing = sorted(known - set(seen))
    if not found:
        raise CalibrationError(
            f"no {rig.aruco_dictionary} markers found in the frame (expected table ids {table_ids}, box ids {box_ids})"
        )
    if not seen:
        raise CalibrationError(
            f"markers {sorted(found)} were found but none is in the rig (table ids {table_ids}, box ids {box_ids}): "
            "wrong rig or wrong dictionary?"
        )
    table_seen = [m for m in rig.table_markers if m.id in found]
    box_seen = [m for m in rig.box.markers if m.id in found]
    intrinsics_given = lens is not None or (fix_intrinsics and previous is not None)
    if len(table_seen) < (1 if intrinsics_given else 2):
        raise CalibrationError(
            f"too few table markers visible: saw {[m.id for m in table_seen]}, missing "
            f"{[i for i in table_ids if i not in found]} (need at least {1 if intrinsics_given else 2})"
        )
    foreign = sorted(i for i in found if i not in known)

    focal_estimated = lens is None and not (fix_intrinsics and previous is not None)
    min_table = 1 if intrinsics_given else 2
    rejected: list[int] = []
    while True:
        problem = _Problem.build(rig, found, table_seen, box_seen, (width, height))
        if lens is not None:
            K, dist = lens.for_size((width, height))
            solution = problem.solve_fixed_intrinsics(K, dist, previous)
        elif not focal_estimated:
            solution = problem.solve_fixed_intrinsics(
                previous.camera.camera_matrix, previous.camera.dist_coeffs, previous  # type: ignore[union-attr]
            )
        else:
            solution = problem.solve_estimating_intrinsics(previous)
        camera = solution.camera
        box_pose = solution.box_pose if box_seen else previous.box_pose if previous is not None else None
        quality = problem.quality(camera, box_pose, focal_estimated, solution.k1_estimated)
        # one badly detected marker (half hidden, blurred, too small) must not spoil the others
        worst_id, worst = max(quality.reprojection_px.items(), key=lambda kv: kv[1])
        if worst <= max(OUTLIER_PX, OUTLIER_FACTOR * quality.reprojection_median_px):
            break
        is_table = any(m.id == worst_id for m in table_seen)
        if (is_table and len(table_seen) <= min_table) or (not is_table and len(box_seen) <= 1):
            break
        rejected.append(worst_id)
        table_seen = [m for m in table_seen if m.id != worst_id]
        box_seen = [m for m in box_seen if m.id != worst_id]

    if camera.center_mm[2] <= 0:
        raise CalibrationError(
            "the solved camera is below the table: are the rig's table corners mirrored (x and y swapped)?"
        )
    quality = quality.model_copy(update={"markers_rejected": sorted(rejected), "focal_sd_pct": solution.focal_sd_pct})
    if box_pose is not None:
        _check_scale(quality, rig, found)
    if quality.reprojection_median_px > MAX_MEDIAN_REPROJECTION_PX:
        worst = sorted(quality.reprojection_px.items(), key=lambda kv: -kv[1])[:3]
        raise CalibrationError(
            f"the markers do not fit the rig (median reprojection error {quality.reprojection_median_px:.1f} px; "
            f"worst ids {[(i, round(e, 1)) for i, e in worst]}): check their corners_mm and that nothing moved"
        )
    box_source: Literal["markers", "previous", "outline"] = "markers" if box_seen else "previous"
    if not box_seen and previous is not None and previous.box_pose_source == "outline":
        # the pose an earlier outline gave, as sure as it was then
        box_source = "outline"
        quality = quality.model_copy(update={"box_outline": previous.quality.box_outline})
    if box_pose is None:
        # the table markers alone may leave the focal length loose (a camera looking straight down)
        refine_focal = focal_estimated and not solution.k1_estimated and (
            solution.focal_sd_pct is None or solution.focal_sd_pct > FOCAL_SD_PCT_FOR_OUTLINE)
        camera, outline = _box_from_outline(frame_bgr, rig, problem, camera, found, foreign, refine_focal)
        box_pose, box_source = outline.pose, "outline"
        if refine_focal:
            quality = problem.quality(camera, None, True, False).model_copy(
                update={"markers_rejected": sorted(rejected)})
        quality = quality.model_copy(update={"box_outline": outline})
        _check_scale(quality, rig, found)  # after the outline chose the focal length: the scale depends on it

    calibration = Calibration(
        camera=camera,
        box_pose=box_pose,
        box_pose_source=box_source,
        frame_size=(width, height),
        markers_seen=seen,
        markers_missing=missing,
        quality=quality,
        meteor_rgb=rig.meteor.rgb if rig.meteor.rgb is not None else (previous.meteor_rgb if previous else None),
    )
    return _with_herd_line(calibration, frame_bgr, rig, previous, find_herd)


def _box_from_outline(frame_bgr: np.ndarray, rig: Rig, problem: _Problem, camera: CameraModel,
                      found: dict[int, np.ndarray], foreign: list[int],
                      refine_focal: bool) -> tuple[CameraModel, BoxOutlineFit]:
    """The box pose from the box's outline, when none of its markers was read; the clear error when the
    outline is not supported either, or when markers of other ids lie on the box found (a wrong rig).

    With `refine_focal` the focal length is chosen again with the outline: the table markers alone
    hardly tell it from the camera's distance when the camera looks straight down, and the rim's
    height (the parallax between rim and foot) then pins it.
    """
    box_ids = [m.id for m in rig.box.markers]
    unknown = f"no box marker visible (box ids {box_ids} missing): the box pose cannot be found"
    sizes = [m.size_mm for m in rig.box.markers]
    alike = [i for i in foreign if any(abs(_size_on_plane(camera, found[i], rig.box.rim_height_mm) / size - 1) < 0.15
                                       for size in sizes)]
    if alike:  # markers of the box markers' size, but other ids: most likely a rig for another box
        # (no ids named: the message stays the same while a hand hides one of them, and is warned of once)
        raise CalibrationError(f"{unknown}: markers of the box markers' size with other ids are in view (wrong rig?)")
    matcher = BoxOutlineMatcher(frame_bgr, rig)
    try:
        if refine_focal:  # each of the best candidates with its own focal length
            # four coarse ones on the table's plane, and the best two at the rim's height through the markers'
            # camera (its focal length is seldom far off; the rim's parallax can hide the box on the table's plane)
            starts = matcher.candidates(camera, 2, loose=True) + matcher.candidates(camera, 2)
            fits = [_focal_from_outline(problem, matcher, camera, pose) for pose in starts]
            camera, pose = max(fits, key=lambda fit: matcher.merit(*fit))
        else:
            pose = matcher.search(camera)
        fit = matcher.fit(camera, pose)
    except BoxOutlineError as error:
        raise BoxNotFoundError(f"{unknown}, nor from its outline ({error})") from None
    outline = np.asarray(rig.box.outline_mm, dtype=np.float32)
    on_box = []
    for marker_id in foreign:
        # the marker's centre, back on the rim's plane, in the box frame of the pose found
        centre = camera.pixel_to_plane(found[marker_id].mean(axis=0, keepdims=True), rig.box.rim_height_mm)[:, :2]
        inside = cv2.pointPolygonTest(outline.reshape(-1, 1, 2), tuple(map(float, fit.pose.table_to_box(centre)[0])),
                                      False)
        if inside >= 0:
            on_box.append(marker_id)
    if on_box:
        raise CalibrationError(
            f"{unknown}: markers {on_box} on the box are not the rig's box markers {box_ids} (wrong rig?)"
        )
    return camera, fit


def _size_on_plane(camera: CameraModel, quad_px: np.ndarray, z_mm: float) -> float:
    """The mean side (mm) of a marker seen at `quad_px`, were it lying at height `z_mm`."""
    return _side_length(camera.pixel_to_plane(quad_px, z_mm)[:, :2])


#: the focal length is chosen again with the box's outline when the table markers leave it this uncertain (1 sigma)
FOCAL_SD_PCT_FOR_OUTLINE = 1.0
#: the focal lengths scanned with the outline: the frame's width times 2^(k/4) for k in this range
FOCAL_SCAN_QUARTER_OCTAVES = (-4, 17)
#: the first step of the focal length's local search with the outline, in octaves
FOCAL_FIRST_STEP_OCTAVES = 0.125


def _focal_from_outline(problem: _Problem, matcher: BoxOutlineMatcher, camera: CameraModel,
                        pose: tuple[float, float, float]) -> tuple[CameraModel, tuple[float, float, float]]:
    """The focal length (with the camera pose it implies from the table markers) and the box pose that
    together fit the box's outline and the table markers best: a pattern search over (log2 focal, yaw, x,
    y) of the mean chamfer distance plus the table markers' reprojection RMS (px)."""
    dist = camera.dist_coeffs
    cameras: dict[float, tuple[CameraModel, float] | None] = {}

    def camera_at(log2_factor: float) -> tuple[CameraModel, float] | None:
        if log2_factor not in cameras:
            f = camera.focal_px * 2.0**log2_factor
            K = camera.camera_matrix.copy()
            K[0, 0] = K[1, 1] = f
            try:
                solved = problem.solve_fixed_intrinsics(K, dist, None).camera
            except CalibrationError:
                solved = None
            if solved is None or solved.center_mm[2] <= 0:
                cameras[log2_factor] = None
            else:
                residual = problem.residuals(problem._pack(f, dist[0], solved.rvec, solved.tvec,
                                                           BoxPose(yaw_deg=0.0, translation_mm=(0.0, 0.0))), K, dist)
                cameras[log2_factor] = (solved, float(np.sqrt(np.mean(residual**2))))
        return cameras[log2_factor]

    def cost(state: np.ndarray) -> float:
        solved = camera_at(float(state[0]))
        if solved is None:
            return np.inf
        return matcher.chamfer(solved[0], (float(state[1]), float(state[2]), float(state[3]))) + solved[1]

    # a wide scan first (the table alone may leave the focal length anywhere), the pose roughly refined at
    # each from two starts: moved onto the rim's plane under the same pixel, and as found
    width = problem.frame_size[0]
    state, best_cost = np.array([0.0, *pose]), np.inf
    for k in range(*FOCAL_SCAN_QUARTER_OCTAVES):
        log2_factor = float(np.log2(width / camera.focal_px) + k / 4.0)
        solved = camera_at(log2_factor)
        if solved is None:
            continue
        for start in (_table_pose_onto_rim(pose, camera, solved[0], matcher.rig), pose):
            rough, chamfer = matcher.refine(solved[0], start, step_mm=4.0, step_deg=1.0, last_step_mm=1.5)
            if chamfer + solved[1] < best_cost:
                state, best_cost = np.array([log2_factor, *rough]), chamfer + solved[1]
    best_cost = cost(state)
    steps = np.array([FOCAL_FIRST_STEP_OCTAVES, 1.0, 3.0, 3.0])
    while steps[2] > 0.1:
        improved = False
        for axis in range(4):
            for sign in (-1.0, 1.0):
                trial = state.copy()
                trial[axis] += sign * steps[axis]
                trial_cost = cost(trial)
                if trial_cost < best_cost - 1e-9:
                    state, best_cost, improved = trial, trial_cost, True
        if not improved:
            steps /= 2.0
    solved = camera_at(float(state[0]))
    assert solved is not None
    return solved[0], (float(state[1]), float(state[2]), float(state[3]))


def _table_pose_onto_rim(pose: tuple[float, float, float], found_with: CameraModel, camera: CameraModel,
                         rig: Rig) -> tuple[float, float, float]:
    """A box pose found on the table's plane through `found_with`, moved so that its outline's centre lies
    at rim height under the same pixel through `camera`: where the picture showed the rim."""
    yaw, x, y = pose
    centroid = yaw_rotation(yaw) @ np.asarray(rig.box.outline_mm, float).mean(axis=0)  # from the box origin
    pixel = found_with.project(np.array([[x + centroid[0], y + centroid[1], 0.0]]))
    origin = camera.pixel_to_plane(pixel, rig.box.rim_height_mm)[0, :2] - centroid
    return (yaw, float(origin[0]), float(origin[1]))


def _with_herd_line(
    calibration: Calibration, frame_bgr: np.ndarray, rig: Rig, previous: Calibration | None, find_herd: bool
) -> Calibration:
    if rig.herd_line_mm is not None:
        return calibration.model_copy(update={"herd_line_mm": rig.herd_line_mm, "herd_line_source": "rig"})
    if previous is not None and previous.herd_line_source == "user":
        return calibration.model_copy(update={"herd_line_mm": previous.herd_line_mm, "herd_line_source": "user"})
    if find_herd:
        from calibration.herd import HerdError, find_herd_line

        try:
            line = find_herd_line(frame_bgr, calibration, rig)
        except HerdError:
            line = None
        if line is not None:
            return calibration.model_copy(update={"herd_line_mm": line, "herd_line_source": "cards"})
    if previous is not None and previous.herd_line_mm is not None:
        return calibration.model_copy(
            update={"herd_line_mm": previous.herd_line_mm, "herd_line_source": previous.herd_line_source}
        )
    return calibration


def _check_scale(quality: CalibrationQuality, rig: Rig, found: dict[int, np.ndarray]) -> None:
    """A sheet printed at the wrong scale makes a whole group of markers (table or box) look too big or
    small: by more than `SCALE_TOLERANCE`, and more than `SCALE_SLACK_PX` of their sides in the picture."""
    for group, markers in (("table", rig.table_markers), ("box", rig.box.markers)):
        ratios = {m.id: quality.scale_ratio[m.id] for m in markers if m.id in quality.scale_ratio}
        if not ratios:
            continue
        ratio = float(np.median(list(ratios.values())))
        side_px = float(np.median([_side_length(np.asarray(found[i], dtype=np.float64)) for i in ratios]))
        if abs(ratio - 1.0) > SCALE_TOLERANCE + SCALE_SLACK_PX / max(side_px, 1.0):
            sizes = {m.id: m.size_mm for m in markers}
            described = ", ".join(
                f"id {i} looks {sizes[i] * r:.1f} mm wide, the rig says {sizes[i]:g} mm"
                for i, r in sorted(ratios.items())
            )
            raise CalibrationError(
                f"the {group} markers' sizes disagree with the rig ({described}): was the sheet printed at the wrong "
                f"scale ({ratio * 100:.0f}% — print at 100% and check the 100 mm bar), or is size_mm wrong?"
            )


class _Solution:
    def __init__(self, camera: CameraModel, box_pose: BoxPose, cost: float, k1_estimated: bool = False) -> None:
        self.camera, self.box_pose, self.cost, self.k1_estimated = camera, box_pose, cost, k1_estimated
        self.focal_sd_pct: float | None = None


class _Problem:
    """The observations of one frame: rig points (table or box frame) and their pixels."""

    def __init__(self) -> None:
        self.table_points = np.zeros((0, 3))
        self.table_pixels = np.zeros((0, 2))
        self.table_ids: list[int] = []
        self.box_points = np.zeros((0, 3))  # box-frame x, y and the height z above the table
        self.box_pixels = np.zeros((0, 2))
        self.box_ids: list[int] = []
        self.frame_size = (0, 0)
        self._pixels: np.ndarray | None = None
        self._points: np.ndarray | None = None  # every rig point in the table frame, refilled per trial pose

    @classmethod
    def build(cls, rig: Rig, found: dict[int, np.ndarray], table_seen: list, box_seen: list,
              frame_size: tuple[int, int]) -> _Problem:
        problem = cls()
        problem.frame_size = frame_size
        if table_seen:
            problem.table_points = np.vstack(
                [np.column_stack([np.asarray(m.corners_mm, float), np.zeros(4)]) for m in table_seen]
            )
            problem.table_pixels = np.vstack([found[m.id] for m in table_seen])
            problem.table_ids = [m.id for m in table_seen for _ in range(4)]
        if box_seen:
            problem.box_points = np.vstack(
                [np.column_stack([np.asarray(m.corners_mm, float), np.full(4, m.z_mm)]) for m in box_seen]
            )
            problem.box_pixels = np.vstack([found[m.id] for m in box_seen])
            problem.box_ids = [m.id for m in box_seen for _ in range(4)]
        return problem

    # -------------------------------------------------------- parameter vector
    # p = [f, k1, rx, ry, rz, tx, ty, tz, yaw_rad, bx, by]
    def _unpack(self, p: np.ndarray, K_fixed: np.ndarray | None, dist_fixed: np.ndarray | None):
        K, dist = self._intrinsics(p, K_fixed, dist_fixed)
        return K, dist, p[2:5], p[5:8], BoxPose(yaw_deg=float(np.degrees(p[8])), translation_mm=(p[9], p[10]))

    def _intrinsics(self, p: np.ndarray, K_fixed: np.ndarray | None, dist_fixed: np.ndarray | None):
        """K and the distortion of `_unpack`, without its box pose."""
        if K_fixed is not None:
            return K_fixed, dist_fixed
        width, height = self.frame_size
        K = np.array([[p[0], 0.0, (width - 1) / 2.0], [0.0, p[0], (height - 1) / 2.0], [0.0, 0.0, 1.0]])
        return K, np.array([p[1], 0.0, 0.0, 0.0, 0.0])

    def _all_points(self, box_pose: BoxPose | None) -> np.ndarray:
        if len(self.box_points) == 0 or box_pose is None:
            return self.table_points
        box_xy = box_pose.box_to_table(self.box_points[:, :2])
        return np.vstack([self.table_points, np.column_stack([box_xy, self.box_points[:, 2]])])

    def _points_at(self, p: np.ndarray) -> np.ndarray:
        """`_all_points` of the box pose in `p`, the same figures, in a buffer reused from trial to trial
        (the solver calls `residuals` hundreds of times per frame)."""
        if len(self.box_points) == 0:
            return self.table_points
        if self._points is None:
            self._points = np.vstack([self.table_points, self.box_points])
        # as `_unpack`'s BoxPose holds it: the yaw in degrees, the translation as floats
        box_xy = box_to_table_mm(self.box_points[:, :2], float(np.degrees(p[8])), (float(p[9]), float(p[10])))
        self._points[len(self.table_points) :, :2] = box_xy
        return self._points

    @property
    def pixels(self) -> np.ndarray:
        if self._pixels is None:
            self._pixels = np.vstack([self.table_pixels, self.box_pixels])
        return self._pixels

    def residuals(self, p: np.ndarray, K_fixed=None, dist_fixed=None) -> np.ndarray:
        K, dist = self._intrinsics(p, K_fixed, dist_fixed)
        projected, _ = cv2.projectPoints(self._points_at(p), p[2:5], p[5:8], K, dist)
        return (projected.reshape(-1, 2) - self.pixels).ravel()

    # -------------------------------------------------------- initial guesses
    def _table_pose(self, K: np.ndarray, dist: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        object_points = self.table_points.astype(np.float64)
        image_points = self.table_pixels.astype(np.float64)
        best = None
        ok, rvecs, tvecs, errors = cv2.solvePnPGeneric(object_points, image_points, K, dist,
                                                        flags=cv2.SOLVEPNP_IPPE)
        if not ok:
            return None
        for rvec, tvec, error in zip(rvecs, tvecs, np.ravel(errors), strict=False):
            rotation = cv2.Rodrigues(rvec)[0]
            center = -rotation.T @ tvec.ravel()
            if center[2] <= 0:
                continue
            if best is None or error < best[2]:
                best = (rvec.ravel(), tvec.ravel(), float(error))
        return None if best is None else (best[0], best[1])

    def _box_guess(self, camera: CameraModel) -> BoxPose:
        """Box pose from the box corners' rays cut at their heights, fitted rigidly in 2D."""
        if len(self.box_points) == 0:
            return BoxPose(yaw_deg=0.0, translation_mm=(0.0, 0.0))
        table_xy = camera.pixel_to_plane(self.box_pixels, self.box_points[:, 2])[:, :2]
        return rigid_fit_2d(self.box_points[:, :2], table_xy)

    def _pack(self, f: float, k1: float, rvec, tvec, box: BoxPose) -> np.ndarray:
        return np.concatenate([[f, k1], np.ravel(rvec), np.ravel(tvec),
                               [np.radians(box.yaw_deg)], np.asarray(box.translation_mm, float)])

    def _start(self, K: np.ndarray, dist: np.ndarray) -> np.ndarray | None:
        pose = self._table_pose(K, dist)
        if pose is None:
            return None
        rvec, tvec = pose
        camera = _camera(K, dist, rvec, tvec)
        return self._pack(K[0, 0], dist[0], rvec, tvec, self._box_guess(camera))

    # -------------------------------------------------------- solving
    def solve_fixed_intrinsics(self, K: np.ndarray, dist: np.ndarray, previous: Calibration | None) -> _Solution:
        start = self._start(K, dist)
        if start is None:
            raise CalibrationError("cannot find the camera pose from the table markers")
        if previous is not None and len(self.box_points) == 0:
            start[8] = np.radians(previous.box_pose.yaw_deg)
            start[9:11] = previous.box_pose.translation_mm
        free = [2, 3, 4, 5, 6, 7] + ([8, 9, 10] if len(self.box_points) else [])
        p, cost = levenberg_marquardt(lambda q: self.residuals(q, K, dist), start, free)
        _, _, rvec, tvec, box = self._unpack(p, K, dist)
        return _Solution(_camera(K, dist, rvec, tvec), box, cost)

    def solve_estimating_intrinsics(self, previous: Calibration | None) -> _Solution:
        width, height = self.frame_size
        candidates = [width * 2.0 ** (k / 3.0) for k in range(-5, 10)]
        homography_f = self._focal_from_homography()
        if homography_f is not None:
            candidates.append(homography_f)
        if previous is not None:
            candidates.append(previous.camera.focal_px)
        starts = []
        for f in candidates:
            K = np.array([[f, 0, (width - 1) / 2.0], [0, f, (height - 1) / 2.0], [0, 0, 1.0]])
            start = self._start(K, np.zeros(5))
            if start is None:
                continue
            residual = self.residuals(start)
            starts.append((float(residual @ residual), start))
        if not starts:
            raise CalibrationError("cannot find the camera pose from the table markers")
        starts.sort(key=lambda item: item[0])
        free = [0, 2, 3, 4, 5, 6, 7] + ([8, 9, 10] if len(self.box_points) else [])
        best: tuple[float, np.ndarray] | None = None
        for _, start in starts[:3]:
            p, cost = levenberg_marquardt(self.residuals, start, free)
            if p[0] > 0 and (best is None or cost < best[0]):
                best = (cost, p)
        assert best is not None
        cost, p = best
        k1_estimated = False
        n_points = len(self.pixels)
        if n_points >= 24:  # enough corners to afford a radial term: keep it only if it clearly helps
            p_k1, cost_k1 = levenberg_marquardt(self.residuals, p, [1, *free])
            if cost_k1 < K1_GAIN * cost and abs(p_k1[1]) < 0.5:
                p, cost, k1_estimated = p_k1, cost_k1, True
        K, dist, rvec, tvec, box = self._unpack(p, None, None)
        solution = _Solution(_camera(K, dist, rvec, tvec), box, cost, k1_estimated)
        solution.focal_sd_pct = self._focal_sd_pct(p, [1, *free] if k1_estimated else free, cost)
        return solution

    def _focal_sd_pct(self, p: np.ndarray, free: list[int], cost: float) -> float | None:
        residual = self.residuals(p)
        dof = len(residual) - len(free)
        if dof <= 0:
            return None
        jacobian = np.empty((len(residual), len(free)))
        for column, index in enumerate(free):
            step = 1e-6 * max(1.0, abs(p[index]))
            probe = p.copy()
            probe[index] += step
            jacobian[:, column] = (self.residuals(probe) - residual) / step
        sigma2 = max(cost / dof, 0.05**2)  # corners are never better than ~0.05 px
        try:
            covariance = sigma2 * np.linalg.inv(jacobian.T @ jacobian)
        except np.linalg.LinAlgError:
            return None
        return float(100.0 * np.sqrt(max(covariance[free.index(0), free.index(0)], 0.0)) / p[0])

    def _focal_from_homography(self) -> float | None:
        """Zhang's constraints with a known principal point and square pixels: one homography, one focal."""
        if len(self.table_points) < 8:
            return None
        width, height = self.frame_size
        centred = self.table_pixels - [(width - 1) / 2.0, (height - 1) / 2.0]
        H, _ = cv2.findHomography(self.table_points[:, :2], centred)
        if H is None:
            return None
        h1, h2 = H[:, 0], H[:, 1]
        a = np.array([h1[0] * h2[0] + h1[1] * h2[1], h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
        b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
        denominator = float(a @ a)
        if denominator <= 0:
            return None
        w = -float(a @ b) / denominator  # w = 1 / f²
        if w <= 0:
            return None
        f = 1.0 / np.sqrt(w)
        return float(f) if 0.1 * width < f < 20 * width else None

    # -------------------------------------------------------- figures
    def quality(self, camera: CameraModel, box_pose: BoxPose | None, focal_estimated: bool,
                k1_estimated: bool) -> CalibrationQuality:
        projected = camera.project(self._all_points(box_pose))
        corner_errors = np.linalg.norm(projected - self.pixels, axis=1)
        ids = self.table_ids + self.box_ids
        reprojection = {i: float(np.mean(corner_errors[np.asarray(ids) == i])) for i in dict.fromkeys(ids)}
        table_error: dict[int, float] = {}
        scale: dict[int, float] = {}
        # table markers: rays cut at z = 0; box markers: cut at their height, compared via the box pose
        for label_ids, pixels, points, is_box in (
            (self.table_ids, self.table_pixels, self.table_points, False),
            (self.box_ids, self.box_pixels, self.box_points, True),
        ):
            for marker_id in dict.fromkeys(label_ids):
                rows = np.asarray(label_ids) == marker_id
                measured = camera.pixel_to_plane(pixels[rows], points[rows][:, 2])[:, :2]
                truth = box_pose.box_to_table(points[rows][:, :2]) if is_box and box_pose else points[rows][:, :2]
                table_error[marker_id] = float(np.mean(np.linalg.norm(measured - truth, axis=1)))
                scale[marker_id] = _side_length(measured) / _side_length(truth)
        all_errors = []
        for marker_id in table_error:
            all_errors.append(table_error[marker_id])
        return CalibrationQuality(
            reprojection_px=reprojection,
            reprojection_median_px=float(np.median(corner_errors)),
            reprojection_max_px=float(np.max(corner_errors)),
            table_error_mm=table_error,
            table_error_median_mm=float(np.median(all_errors)),
            scale_ratio=scale,
            focal_estimated=focal_estimated,
            k1_estimated=k1_estimated,
        )


def _side_length(quad: np.ndarray) -> float:
    return float(np.mean(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)))


def _camera(K: np.ndarray, dist: np.ndarray, rvec, tvec) -> CameraModel:
    return CameraModel(
        K=tuple(tuple(float(v) for v in row) for row in np.asarray(K)),
        dist=tuple(float(v) for v in np.ravel(dist)),
        rvec=tuple(float(v) for v in np.ravel(rvec)),
        tvec=tuple(float(v) for v in np.ravel(tvec)),
    )


def rigid_fit_2d(source: np.ndarray, target: np.ndarray) -> BoxPose:
    """The rotation and translation (no scale) that best map `source` (N×2) onto `target` (N×2)."""
    source = np.asarray(source, float).reshape(-1, 2)
    target = np.asarray(target, float).reshape(-1, 2)
    mean_s, mean_t = source.mean(axis=0), target.mean(axis=0)
    a, b = source - mean_s, target - mean_t
    cross = float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0]))
    dot = float(np.sum(a * b))
    yaw = np.arctan2(cross, dot)
    rotation = np.array([[np.cos(yaw), -np.sin(yaw)], [np.sin(yaw), np.cos(yaw)]])
    translation = mean_t - rotation @ mean_s
    return BoxPose(yaw_deg=float(np.degrees(yaw)), translation_mm=(float(translation[0]), float(translation[1])))


def levenberg_marquardt(
    fun: Callable[[np.ndarray], np.ndarray],
    start: np.ndarray,
    free: list[int],
    iterations: int = 60,
) -> tuple[np.ndarray, float]:
    """Minimise ‖fun(p)‖² over the `free` entries of p; forward-difference Jacobian. Returns (p, cost)."""
    p = np.asarray(start, dtype=np.float64).copy()
    residual = fun(p)
    cost = float(residual @ residual)
    damping = 1e-3
    free = list(free)
    for _ in range(iterations):
        jacobian = np.empty((len(residual), len(free)))
        for column, index in enumerate(free):
            step = 1e-6 * max(1.0, abs(p[index]))
            probe = p.copy()
            probe[index] += step
            jacobian[:, column] = (fun(probe) - residual) / step
        normal = jacobian.T @ jacobian
        gradient = jacobian.T @ residual
        diagonal = np.diag(normal).copy()
        diagonal[diagonal <= 0] = 1e-12
        improved = False
        while damping < 1e12:
            try:
                delta = np.linalg.solve(normal + damping * np.diag(diagonal), -gradient)
            except np.linalg.LinAlgError:
                damping *= 10
                continue
            trial = p.copy()
            trial[free] += delta
            trial_residual = fun(trial)
            trial_cost = float(trial_residual @ trial_residual)
            if np.isfinite(trial_cost) and trial_cost < cost:
                relative = (cost - trial_cost) / max(cost, 1e-30)
                p, residual, cost = trial, trial_residual, trial_cost
                damping = max(damping / 3.0, 1e-9)
                improved = True
                break
            damping *= 4.0
        if not improved or relative < 1e-10:
            break
    return p, cost
