"""Keeping the calibration right during play, cheaply enough for a ≥ 240 fps judge.

Every frame costs only a few small patch differences (`_PatchWatch`): grey patches round
the table markers and round the box markers are compared with references taken at the
last full check. A full ArUco search runs only every `every` frames, when most table
patches change at once (a bumped camera), or on demand (`request_check`, `refresh_box`).

- A bumped camera: when the table markers' detected corners drift from where the current
  calibration puts them, the camera pose is solved again (intrinsics kept).
- Too few table markers visible: `safe` is False and `reason` names the missing ids; the
  calibration is kept but the judge must not call on it.
- The box: its patches tell, frame by frame, whether it (or something over it) is moving;
  `refresh_box` re-solves its pose from its markers before a launch.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from calibration.box_outline import BoxOutlineConfig, BoxOutlineError, find_box_from_outline
from calibration.geometry import BoxPose
from calibration.markers import detect_markers
from calibration.rig import Rig
from calibration.solve import Calibration, CalibrationError, calibrate_frame, find_rig_markers

#: median drift (px) of the table markers from their predicted corners that means "the camera moved"
CAMERA_DRIFT_PX = 1.0
#: mean grey change in a patch that means "something changed there"
PATCH_CHANGE = 18.0
#: table markers a safe call needs (fewer, and the rig's count if it has fewer)
MIN_TABLE_MARKERS = 3


@dataclass(frozen=True)
class CalibrationStatus:
    """What the tracker knows at one frame."""

    frame_index: int
    calibration: Calibration
    safe: bool
    reason: str | None = None
    checked: bool = False  # a full marker search ran on this frame
    last_check_frame: int = -1
    table_markers_seen: list[int] = field(default_factory=list)
    markers_missing: list[int] = field(default_factory=list)
    camera_moved: bool = False  # the camera pose was solved again on this frame
    drift_px: float | None = None
    box_moving: bool = False  # on a frame not checked, only when the tracker watches the box
    box_markers_seen: list[int] = field(default_factory=list)


class _PatchWatch:
    """Cheap change detection: mean absolute difference of a few sampled pixels per patch against references.

    The sample positions (about `samples`² per patch, green channel) are gathered with one fancy index,
    so a frame costs a few tens of microseconds.
    """

    def __init__(self, samples: int = 12) -> None:
        self.samples = samples
        self.boxes: list[tuple[int, int, int, int]] = []
        self.index = np.zeros(0, np.intp)
        self.starts = np.zeros(0, np.intp)
        self.valid = np.zeros(0, bool)
        self.counts = np.zeros(0, np.intp)
        self.reference = np.zeros(0, np.float32)

    def reset(self, frame_bgr: np.ndarray, centres_px: np.ndarray, half_sizes: np.ndarray) -> None:
        height, width = frame_bgr.shape[:2]
        channels = 1 if frame_bgr.ndim == 2 else frame_bgr.shape[2]
        self.boxes, indices, starts, valid = [], [], [], []
        for (cx, cy), half in zip(np.asarray(centres_px).reshape(-1, 2), np.ravel(half_sizes), strict=True):
            half = int(np.clip(half, 6, 80))
            x0, y0, x1, y1 = int(cx) - half, int(cy) - half, int(cx) + half, int(cy) + half
            inside = x0 >= 0 and y0 >= 0 and x1 < width and y1 < height
            self.boxes.append((x0, y0, x1, y1) if inside else (0, 0, 0, 0))
            starts.append(sum(len(i) for i in indices))
            valid.append(inside)
            if not inside:
                indices.append(np.zeros(1, np.intp))
                continue
            xs = np.linspace(x0, x1, self.samples).astype(np.intp)
            ys = np.linspace(y0, y1, self.samples).astype(np.intp)
            grid_y, grid_x = np.meshgrid(ys, xs, indexing="ij")
            indices.append(((grid_y * width + grid_x) * channels + min(1, channels - 1)).ravel())
        self.index = np.concatenate(indices) if indices else np.zeros(0, np.intp)
        self.starts = np.asarray(starts, np.intp)
        self.valid = np.asarray(valid, bool)
        self.counts = np.diff(np.append(self.starts, len(self.index)))  # samples per patch
        self.reference = self._sample(frame_bgr)

    def _sample(self, frame_bgr: np.ndarray) -> np.ndarray:
        return np.ascontiguousarray(frame_bgr).reshape(-1).take(self.index).astype(np.float32)

    def changes(self, frame_bgr: np.ndarray) -> np.ndarray:
        if not len(self.index):
            return np.zeros(0)
        difference = np.abs(self._sample(frame_bgr) - self.reference)
        values = np.add.reduceat(difference, self.starts) / self.counts
        values[~self.valid] = 0.0
        return values


class CalibrationTracker:
    """Follows the calibration along a video stream; see the module's docstring."""

    def __init__(self, calibration: Calibration, rig: Rig, every: int = 60, min_table_markers: int | None = None,
                 camera_drift_px: float = CAMERA_DRIFT_PX, watch_box: bool = True) -> None:
        """`watch_box=False` leaves out the box's patch watch (`box_moving` between checks) for a caller
        that never reads it: it refreshes the box before each launch instead (the judge)."""
        self.rig = rig
        self.every = max(1, int(every))
        table_count = len(rig.table_markers)
        self.min_table_markers = min(MIN_TABLE_MARKERS, table_count) if min_table_markers is None else min_table_markers
        self.camera_drift_px = camera_drift_px
        self._calibration = calibration
        self._force = True
        self._table_watch = _PatchWatch()
        self._box_watch = _PatchWatch()
        self._watch_box = watch_box
        self._status = CalibrationStatus(frame_index=-1, calibration=calibration, safe=True)
        self._last_box_corners: dict[int, np.ndarray] = {}

    @property
    def calibration(self) -> Calibration:
        return self._calibration

    @property
    def status(self) -> CalibrationStatus:
        return self._status

    def request_check(self) -> None:
        """Run a full marker search on the next `update`."""
        self._force = True

    def start(self, frame_bgr: np.ndarray, frame_index: int, detections: dict[int, np.ndarray]) -> CalibrationStatus:
        """The first check, from the markers the calibration was just solved from (`detections`, found in
        this frame): searching them again would cost a second marker search on the same picture."""
        self._status = self._check(frame_bgr, frame_index, detections)
        self._force = False
        return self._status

    # ------------------------------------------------------------ per frame
    def update(self, frame_bgr: np.ndarray, frame_index: int) -> CalibrationStatus:
        due = self._force or frame_index - self._status.last_check_frame >= self.every or frame_index < 0
        if not due and self._table_watch.boxes:
            table_changes = self._table_watch.changes(frame_bgr)
            watched = int(np.count_nonzero(self._table_watch.valid))
            if watched and np.count_nonzero(table_changes > PATCH_CHANGE) * 2 > watched:
                due = True  # most table markers changed at once: the camera moved
        if due:
            self._status = self._check(frame_bgr, frame_index)
            self._force = False
            return self._status
        box_moving = bool(self._box_watch.boxes) and bool(np.any(self._box_watch.changes(frame_bgr) > PATCH_CHANGE))
        self._status = replace(self._status, frame_index=frame_index, checked=False, camera_moved=False,
                                box_moving=box_moving)
        return self._status

    def _check(self, frame_bgr: np.ndarray, frame_index: int,
               found: dict[int, np.ndarray] | None = None) -> CalibrationStatus:
        rig, calibration = self.rig, self._calibration
        if found is None:
            found = self._detect_near_expected(frame_bgr)
        table_ids = [m.id for m in rig.table_markers]
        box_ids = [m.id for m in rig.box.markers]
        table_seen = [i for i in table_ids if i in found]
        box_seen = [i for i in box_ids if i in found]
        missing = sorted(set(table_ids + box_ids) - set(found))
        common = dict(frame_index=frame_index, checked=True, last_check_frame=frame_index,
                      table_markers_seen=table_seen, box_markers_seen=box_seen, markers_missing=missing)
        box_moving = self._box_moved(found, box_seen)
        if len(table_seen) < self.min_table_markers:
            missing_table = [i for i in table_ids if i not in found]
            return CalibrationStatus(
                calibration=calibration, safe=False, box_moving=box_moving,
                reason=f"only {len(table_seen)} table markers visible (missing ids {missing_table}); "
                f"need {self.min_table_markers}: calls are unsafe",
                **common,
            )
        points = np.vstack([np.asarray(m.corners_mm, float) for m in rig.table_markers if m.id in found])
        detected = np.vstack([found[m.id] for m in rig.table_markers if m.id in found])
        drift = float(np.median(np.linalg.norm(calibration.camera.project(points) - detected, axis=1)))
        camera_moved = drift > self.camera_drift_px
        if camera_moved:
            try:
                calibration = calibrate_frame(frame_bgr, rig, previous=calibration, detections=found,
                                              fix_intrinsics=True, find_herd=False)
            except CalibrationError as error:
                return CalibrationStatus(calibration=self._calibration, safe=False, drift_px=drift,
                                         box_moving=box_moving,
                                         reason=f"the camera moved and cannot be followed: {error}", **common)
            self._calibration = calibration
        self._reset_watches(frame_bgr)
        return CalibrationStatus(calibration=calibration, safe=True, drift_px=drift, camera_moved=camera_moved,
                                 box_moving=box_moving, **common)

    def _detect_near_expected(self, frame_bgr: np.ndarray) -> dict[int, np.ndarray]:
        """Markers searched in windows round where the calibration expects them (cheap), else in the whole frame."""
        rig, calibration = self.rig, self._calibration
        height, width = frame_bgr.shape[:2]
        expected = {m.id: calibration.camera.project(np.asarray(m.corners_mm, float)) for m in rig.table_markers}
        for marker in rig.box.markers:
            xy = calibration.box_pose.box_to_table(np.asarray(marker.corners_mm, float))
            expected[marker.id] = calibration.camera.project(np.column_stack([xy, np.full(4, marker.z_mm)]))
        found: dict[int, np.ndarray] = {}
        for marker_id, quad in expected.items():
            side = float(np.ptp(quad, axis=0).max())
            margin = max(30.0, 0.8 * side)
            x0, y0 = (int(max(0, v)) for v in quad.min(axis=0) - margin)
            x1, y1 = int(min(width, quad[:, 0].max() + margin)), int(min(height, quad[:, 1].max() + margin))
            if x1 - x0 < 16 or y1 - y0 < 16:
                continue
            window = detect_markers(frame_bgr[y0:y1, x0:x1], rig.aruco_dictionary)
            if marker_id in window:
                found[marker_id] = window[marker_id] + [x0, y0]
        table_found = sum(1 for m in rig.table_markers if m.id in found)
        if table_found < min(len(rig.table_markers), self.min_table_markers + 1):
            found = detect_markers(frame_bgr, rig.aruco_dictionary)  # moved far, or hidden: search everywhere
        return found

    def _box_moved(self, found: dict[int, np.ndarray], box_seen: list[int]) -> bool:
        moved = False
        for marker_id in box_seen:
            before = self._last_box_corners.get(marker_id)
            if before is not None and float(np.max(np.linalg.norm(found[marker_id] - before, axis=1))) > 1.0:
                moved = True
        self._last_box_corners = {i: found[i] for i in box_seen}
        return moved

    def _reset_watches(self, frame_bgr: np.ndarray) -> None:
        camera = self._calibration.camera
        table = [np.asarray(m.corners_mm, float) for m in self.rig.table_markers]
        table_px = [camera.project(q) for q in table]
        self._table_watch.reset(frame_bgr, np.array([p.mean(axis=0) for p in table_px]),
                                np.array([0.75 * np.ptp(p, axis=0).max() for p in table_px]))
        if not self._watch_box:
            return
        box_px = []
        for marker in self.rig.box.markers:
            xy = self._calibration.box_pose.box_to_table(np.asarray(marker.corners_mm, float))
            box_px.append(camera.project(np.column_stack([xy, np.full(4, marker.z_mm)])))
        if box_px:
            self._box_watch.reset(frame_bgr, np.array([p.mean(axis=0) for p in box_px]),
                                  np.array([0.75 * np.ptp(p, axis=0).max() for p in box_px]))

    # ------------------------------------------------------------ before each launch
    def refresh_box(self, frame_bgr: np.ndarray, frame_index: int | None = None) -> BoxPose:
        """Solve the box pose again from its markers (the camera is checked too). Call it when the scene is still.

        Raises `CalibrationError` when no box marker is visible.
        """
        found = find_rig_markers(frame_bgr, self.rig)  # magnified where small, as at the first calibration
        box_ids = [m.id for m in self.rig.box.markers]
        if not any(i in found for i in box_ids):
            if self._calibration.box_pose_source != "outline":
                raise CalibrationError(
                    f"no box marker visible (box ids {box_ids} missing): the box pose cannot be found")
            calibration = self._box_from_outline_again(frame_bgr)
        else:
            calibration = calibrate_frame(frame_bgr, self.rig, previous=self._calibration, detections=found,
                                          fix_intrinsics=True, find_herd=False)
        self._calibration = calibration
        self._last_box_corners = {i: found[i] for i in box_ids if i in found}
        self._reset_watches(frame_bgr)
        index = self._status.frame_index if frame_index is None else frame_index
        table_seen = [m.id for m in self.rig.table_markers if m.id in found]
        safe = len(table_seen) >= self.min_table_markers
        self._status = CalibrationStatus(
            frame_index=index, calibration=calibration, safe=safe, checked=True, last_check_frame=index,
            table_markers_seen=table_seen, box_markers_seen=[i for i in box_ids if i in found],
            markers_missing=calibration.markers_missing,
            reason=None if safe else (
                f"only {len(table_seen)} table markers visible (missing ids "
                f"{[m.id for m in self.rig.table_markers if m.id not in found]}); "
                f"need {self.min_table_markers}: calls are unsafe"
            ),
        )
        return calibration.box_pose

    def _box_from_outline_again(self, frame_bgr: np.ndarray) -> Calibration:
        """The box found again from its outline near where it was (its markers were never readable).

        Only a clearly supported outline moves it (a hand over the box at the start of a throw must not);
        how sure the pose is about the box's turned twin is kept from the first search.
        """
        calibration = self._calibration
        before = calibration.quality.box_outline
        try:
            fit = find_box_from_outline(frame_bgr, self.rig, calibration.camera, near=calibration.box_pose)
        except BoxOutlineError as error:
            raise CalibrationError(f"the box's outline is not found again: {error}") from None
        config = BoxOutlineConfig()
        if fit.support < config.sure_support:
            raise CalibrationError(
                f"the box's outline is not clear enough now (edge support {fit.support:.0%}): its pose is kept")
        if before is not None:
            fit = fit.model_copy(update={"pattern_margin": before.pattern_margin, "sure": before.sure})
        quality = calibration.quality.model_copy(update={"box_outline": fit})
        return calibration.model_copy(update={"box_pose": fit.pose, "quality": quality})

    def refresh_herd(self, frame_bgr: np.ndarray) -> Calibration:
        """Find the herd line again from the cards (when the Herd changed); a rig or user line is kept."""
        from calibration.herd import find_herd_line

        calibration = self._calibration
        if calibration.herd_line_source in ("rig", "user"):
            return calibration
        line = find_herd_line(frame_bgr, calibration, self.rig)
        if line is not None:
            self._calibration = calibration.model_copy(update={"herd_line_mm": line, "herd_line_source": "cards"})
        return self._calibration

    def set_user_herd_line(self, line_mm: tuple[tuple[float, float], tuple[float, float]]) -> Calibration:
        self._calibration = self._calibration.model_copy(update={"herd_line_mm": line_mm, "herd_line_source": "user"})
        return self._calibration


def calibration_doubt(calibration: Calibration, rig: Rig) -> str | None:
    """Why calls made on `calibration` are unsafe, or None when its markers pin it down.

    A missing marker alone is no doubt: three table markers and a box marker, fitted to a
    fraction of a pixel, fix the camera and the box; so does a box found from its outline with
    good edge support (`BoxOutlineFit.sure`). Fewer table markers solved (seen and not rejected),
    a box pose taken from an earlier calibration, or an outline weakly supported, are.
    """
    used = set(calibration.markers_seen) - set(calibration.quality.markers_rejected)
    table_ids = [m.id for m in rig.table_markers]
    table_used = [i for i in table_ids if i in used]
    needed = min(MIN_TABLE_MARKERS, len(table_ids))
    if len(table_used) < needed:
        unsolved = sorted(set(table_ids) - used)
        return f"only {len(table_used)} table markers solved (missing ids {unsolved}); need {needed}"
    outline = calibration.quality.box_outline
    if calibration.box_pose_source == "outline":
        if outline is not None and outline.sure:
            return None
        twin = (
            f", its half-turned twin hardly told apart by the markers' patterns (margin {outline.pattern_margin:.2f})"
            if outline is not None and outline.pattern_margin is not None else ""
        )
        support = f" (edge support {outline.support:.0%}{twin})" if outline is not None else ""
        return f"no box marker readable: the box pose comes from its outline, not surely{support}"
    if calibration.box_pose_source != "markers":
        return "no box marker seen: the box pose is an earlier one"
    return None
