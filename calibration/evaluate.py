"""Calibration figures on labelled clips (`meteors-launch-truth/1`): `python -m calibration.evaluate DIR`.

For each clip: the label's `scene` is the rig, with its herd line removed so the cards must give
it; the first still frames are calibrated; the result is compared with the label's truth:

- reprojection: median corner error (px) of the solved model against the detected corners;
- table points: a grid over the table markers' extent, seen through the true camera and mapped
  back through the solved one (mm, largest);
- box pose: yaw (deg) and translation (mm) errors, and where it came from (the box markers or the box's
  outline; a last line sums up the clips whose box came from its outline: `outline_summary`);
- herd line: the largest distance at the ends between the found and the true line (mm).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.herd import herd_line_errors_mm, table_extent
from calibration.solve import BoxNotFoundError, Calibration, CalibrationError, calibrate_frame, still_scene
from calibration.truth import LaunchTruth, load_label


@dataclass
class ClipFigures:
    clip: str
    reprojection_median_px: float
    table_error_max_mm: float
    table_error_median_mm: float
    box_yaw_error_deg: float
    box_translation_error_mm: float
    herd_line_error_mm: float | None
    focal_error_pct: float | None
    markers_missing: list[int]
    box_pose_source: str | None = None  # "markers" or "outline" (None: calibration failed)
    error: str | None = None
    box_not_found: bool = False  # failed because no box marker was read and the outline gave no box


def still_frame(video: Path, count: int = 12) -> np.ndarray:
    capture = cv2.VideoCapture(str(video))
    frames = []
    try:
        while len(frames) < count:
            ok, frame = capture.read()
            if not ok:
                break
            frames.append(frame)
    finally:
        capture.release()
    if not frames:
        raise CalibrationError(f"cannot read a frame from {video}")
    return still_scene(frames)


def figures_for(label: LaunchTruth, calibration: Calibration, clip: str) -> ClipFigures:
    truth_camera = label.camera
    rig = label.scene
    xmin, xmax, ymin, ymax = table_extent(rig, margin_mm=0.0)
    grid = np.array([[x, y] for x in np.linspace(xmin, xmax, 7) for y in np.linspace(ymin, ymax, 5)])
    if truth_camera is not None:
        seen = truth_camera.project(grid)
        inside = (seen[:, 0] >= 0) & (seen[:, 1] >= 0) & (seen[:, 0] < label.frame_size[0]) & (
            seen[:, 1] < label.frame_size[1])
        errors = np.linalg.norm(calibration.ground_point(seen[inside]) - grid[inside], axis=1)
        focal_error = 100.0 * (calibration.camera.focal_px / truth_camera.focal_px - 1.0)
    else:
        errors, focal_error = np.array([np.nan]), None
    first_pose = label.box_pose_at(0)  # calibrated from the first frames: a moving box was there then
    yaw_error = (calibration.box_pose.yaw_deg - first_pose.yaw_deg + 180.0) % 360.0 - 180.0
    shift = float(np.hypot(*np.subtract(calibration.box_pose.translation_mm, first_pose.translation_mm)))
    herd = None
    if label.scene.herd_line_mm is not None and calibration.herd_line_mm is not None:
        herd = herd_line_errors_mm(calibration.herd_line_mm, label.scene.herd_line_mm)
    return ClipFigures(
        clip=clip,
        reprojection_median_px=calibration.quality.reprojection_median_px,
        table_error_max_mm=float(np.max(errors)),
        table_error_median_mm=float(np.median(errors)),
        box_yaw_error_deg=float(abs(yaw_error)),
        box_translation_error_mm=shift,
        herd_line_error_mm=herd,
        focal_error_pct=focal_error,
        markers_missing=calibration.markers_missing,
        box_pose_source=calibration.box_pose_source,
    )


def evaluate_clip(label_path: Path) -> ClipFigures:
    label = load_label(label_path)
    rig = label.scene.model_copy(update={"herd_line_mm": None})  # the cards must give it
    video = label_path.with_name(label.video)
    try:
        calibration = calibrate_frame(still_frame(video), rig)
    except CalibrationError as error:
        nan = float("nan")
        return ClipFigures(label_path.stem, nan, nan, nan, nan, nan, None, None, [], error=str(error),
                           box_not_found=isinstance(error, BoxNotFoundError))
    return figures_for(label, calibration, label_path.stem)


def evaluate_folder(folder: str | Path, limit: int | None = None) -> list[ClipFigures]:
    labels = sorted(Path(folder).glob("clip_*.json"))[:limit]
    return [evaluate_clip(path) for path in labels]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m calibration.evaluate", description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="folder of clip_NNN.mp4 + clip_NNN.json")
    parser.add_argument("--limit", type=int, default=None)
    args = parser.parse_args(argv)
    results = evaluate_folder(args.folder, args.limit)
    if not results:
        print(f"no labelled clips in {args.folder}", file=sys.stderr)
        return 2
    print(f"{'clip':10} {'reproj px':>9} {'table max':>9} {'box deg':>8} {'box mm':>7} {'herd mm':>8} {'focal %':>8}"
          f" {'box from':>8}")
    for r in results:
        if r.error:
            print(f"{r.clip:10} FAILED: {r.error}")
            continue
        herd = f"{r.herd_line_error_mm:8.2f}" if r.herd_line_error_mm is not None else "    none"
        focal = f"{r.focal_error_pct:8.2f}" if r.focal_error_pct is not None else "       -"
        print(f"{r.clip:10} {r.reprojection_median_px:9.3f} {r.table_error_max_mm:9.2f} {r.box_yaw_error_deg:8.3f} "
              f"{r.box_translation_error_mm:7.2f} {herd} {focal} {r.box_pose_source:>8}")
    ok = [r for r in results if not r.error]
    if ok:
        def worst(key: str) -> float:
            values = [asdict(r)[key] for r in ok if asdict(r)[key] is not None]
            return float(np.max(values)) if values else float("nan")

        print(f"worst: reprojection {worst('reprojection_median_px'):.3f} px,"
              f" table {worst('table_error_max_mm'):.2f} mm,"
              f" box {worst('box_yaw_error_deg'):.3f} deg / {worst('box_translation_error_mm'):.2f} mm,"
              f" herd {worst('herd_line_error_mm'):.2f} mm; {len(results) - len(ok)} failed of {len(results)}")
    print(outline_summary(results))
    return 0


def outline_summary(results: list[ClipFigures], off_mm: float = 15.0, off_deg: float = 2.0) -> str:
    """How the box found from its outline fared: the clips where no box marker was read, how many of
    them found no box, and how many poses found lie more than `off_mm` or `off_deg` from the label's
    (a box turned half a turn among them)."""
    found = [r for r in results if r.box_pose_source == "outline"]
    failed = [r for r in results if r.box_not_found]
    off = [r for r in found if r.box_translation_error_mm > off_mm or r.box_yaw_error_deg > off_deg]
    return (f"box from its outline: {len(found) + len(failed)} clips, {len(failed)} not found,"
            f" {len(off)} off by more than {off_mm:.0f} mm or {off_deg:.0f}° ({' '.join(r.clip for r in off)})")


if __name__ == "__main__":
    sys.exit(main())
