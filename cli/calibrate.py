"""`meteors-judge calibrate` and `meteors-judge calibrate-lens` (one module, two commands).

`calibrate SOURCE --rig RIG --out CAL.json [--lens LENS.json] [--overlay OUT.png]`: SOURCE is an
image, a video (its first still frames are averaged) or a camera index.
`calibrate-lens VIDEO --out LENS.json --board charuco|chessboard`: K and distortion from a board video.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from cli.errors import UserError
from cli.options import positive_number, whole_number

STILL_FRAMES = 15  # frames averaged (median) from the start of a video or a camera
HERD_LINE_REACH_MM = 5000.0  # a herd line point farther from the table's origin is a typing mistake


def add_arguments(parser: argparse.ArgumentParser) -> None:
    if parser.prog.endswith("calibrate-lens"):
        _add_lens_arguments(parser)
        return
    parser.add_argument("source", metavar="SOURCE", help="an image, a video file or a camera index (0, 1 ...)")
    parser.add_argument("--rig", default=None, help="rig file (JSON or TOML); default: the standard layout")
    parser.add_argument("--out", required=True, help="calibration JSON to write")
    parser.add_argument("--lens", default=None, help="lens calibration JSON from `calibrate-lens` (optional)")
    parser.add_argument("--overlay", default=None, help="PNG to draw the calibration on, for a person to check")
    parser.add_argument("--herd-line", default=None, metavar="X1,Y1,X2,Y2",
                        help="the herd line in table millimetres (overrides the rig and the cards)")
    parser.add_argument("--meteor-pixel", default=None, metavar="X,Y",
                        help="a pixel on the meteor in the still frame, to learn its colour")
    parser.add_argument("--start", type=whole_number(0, what="a frame number"), default=0,
                        help="first video frame to use (default 0)")


def _add_lens_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("video", metavar="VIDEO", help="a video (or camera index) showing the board from many angles")
    parser.add_argument("--out", required=True, help="lens calibration JSON to write")
    parser.add_argument("--board", choices=["charuco", "chessboard"], default="charuco")
    parser.add_argument("--squares", default="7x5", help="board squares, COLUMNSxROWS (default 7x5)")
    parser.add_argument("--square-mm", type=positive_number("a length"), default=30.0,
                        help="side of one square (default 30)")
    parser.add_argument("--marker-mm", type=positive_number("a length"), default=22.0,
                        help="ChArUco marker side, smaller than a square (default 22)")
    parser.add_argument("--dictionary", default="DICT_4X4_50", help="ChArUco dictionary (default DICT_4X4_50)")
    parser.add_argument("--step", type=whole_number(1, what="a step"), default=5,
                        help="use every STEP-th frame (default 5)")
    parser.add_argument("--max-views", type=whole_number(4, 1000, what="a number of views"), default=40,
                        help="views used at most (default 40)")


def run(args: argparse.Namespace) -> int:
    if getattr(args, "command", None) == "calibrate-lens" or hasattr(args, "board"):
        return _run_lens(args)
    return _run_calibrate(args)


# ---------------------------------------------------------------- reading sources


def _open_capture(source: str):
    import cv2

    if source.isdigit() and not Path(source).exists():
        capture = cv2.VideoCapture(int(source))
        if not capture.isOpened():
            raise UserError(f"cannot open camera {source}")
        return capture
    path = Path(source)
    if not path.exists():
        raise UserError(f"no such file: {source}")
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise UserError(f"cannot read {source}: not an image or a video that OpenCV can decode")
    return capture


def read_still_frame(source: str, start: int = 0, count: int = STILL_FRAMES):
    """(still frame, frames read): an image as it is; a video's or camera's first frames, median-combined."""
    import cv2

    path = Path(source)
    if path.is_file() and path.suffix.lower() in {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise UserError(f"cannot read image {source}")
        return image, [image]
    capture = _open_capture(source)
    try:
        is_camera = source.isdigit() and not path.exists()
        if start and not is_camera:
            capture.set(cv2.CAP_PROP_POS_FRAMES, start)
        frames = []
        for _ in range(count + (5 if is_camera else 0)):
            ok, frame = capture.read()
            if not ok:
                break
            frames.append(frame)
        if is_camera:
            frames = frames[5:]  # let the camera settle its exposure
    finally:
        capture.release()
    if not frames:
        raise UserError(f"cannot read a frame from {source}")
    from calibration.solve import still_scene

    return still_scene(frames), frames


def _read_frames(source: str, step: int, limit: int = 2000):
    capture = _open_capture(source)
    try:
        index = 0
        while index < limit:
            ok, frame = capture.read()
            if not ok:
                break
            if index % step == 0:
                yield frame
            index += 1
    finally:
        capture.release()


def _floats(text: str, count: int, option: str, limit: float) -> list[float]:
    """`count` comma-separated finite numbers, each within ±`limit`."""
    try:
        values = [float(v) for v in text.replace(";", ",").split(",")]
    except ValueError:
        values = []
    if len(values) != count or not all(math.isfinite(v) for v in values):
        raise UserError(f"{option} needs {count} comma-separated numbers, got {text!r}")
    if any(abs(v) > limit for v in values):
        raise UserError(f"{option} {text}: each number must be within ±{limit:g}")
    return values


# ---------------------------------------------------------------- calibrate


def _run_calibrate(args: argparse.Namespace) -> int:
    import cv2

    from calibration.lens import LensCalibration, LensError
    from calibration.markers import detect_markers
    from calibration.meteor_colour import MeteorColourError, learn_from_click, learn_from_motion
    from calibration.overlay import draw_overlay
    from calibration.rig import RigError, default_rig_path, load_rig
    from calibration.solve import CalibrationError, calibrate_frame

    try:
        rig = load_rig(args.rig or default_rig_path())
        lens = LensCalibration.load(args.lens) if args.lens else None
    except (RigError, LensError) as error:
        raise UserError(str(error)) from None
    meteor_pixel = _floats(args.meteor_pixel, 2, "--meteor-pixel", 100_000) if args.meteor_pixel else None
    herd_line = _floats(args.herd_line, 4, "--herd-line", HERD_LINE_REACH_MM) if args.herd_line else None
    frame, frames = read_still_frame(args.source, args.start)
    height, width = frame.shape[:2]
    if meteor_pixel is not None and not (0 <= meteor_pixel[0] < width and 0 <= meteor_pixel[1] < height):
        raise UserError(f"--meteor-pixel {args.meteor_pixel} is outside the {width}x{height} frame")
    try:
        detections = detect_markers(frame, rig.aruco_dictionary)
        calibration = calibrate_frame(frame, rig, lens, detections=detections)
    except (CalibrationError, LensError) as error:
        raise UserError(str(error)) from None

    if herd_line is not None:
        x1, y1, x2, y2 = herd_line
        if abs(x2 - x1) + abs(y2 - y1) < 1:
            raise UserError("--herd-line needs two distinct points")
        calibration = calibration.model_copy(update={"herd_line_mm": ((x1, y1), (x2, y2)), "herd_line_source": "user"})
    if calibration.meteor_rgb is None:
        try:
            if meteor_pixel is not None:
                rgb = learn_from_click(frame, (meteor_pixel[0], meteor_pixel[1]), calibration, rig)
            elif len(frames) >= 3:
                more = list(_read_frames(args.source, 2, 240)) if Path(args.source).is_file() else frames
                rgb = learn_from_motion(more)
            else:
                rgb = None
        except MeteorColourError as error:
            print(f"note: meteor colour not learned: {error}")
            rgb = None
        if rgb is not None:
            calibration = calibration.model_copy(update={"meteor_rgb": rgb})

    try:
        calibration.save(args.out)
        if args.overlay:
            overlay = draw_overlay(frame, calibration, rig, detections)
            if not cv2.imwrite(str(args.overlay), overlay):
                raise UserError(f"cannot write overlay {args.overlay}")
    except OSError as error:
        raise UserError(f"cannot write {args.out}: {error.strerror}") from None

    q, pose = calibration.quality, calibration.box_pose
    print(f"wrote {args.out}" + (f" and {args.overlay}" if args.overlay else ""))
    print(f"markers seen {calibration.markers_seen}; missing {calibration.markers_missing or 'none'}")
    how = "lens file" if not q.focal_estimated else (
        f"estimated ±{q.focal_sd_pct:.1f}%" if q.focal_sd_pct is not None else "estimated")
    print(f"camera: focal {calibration.camera.focal_px:.1f} px ({how}),"
          f" k1 {calibration.camera.dist[0]:.4f}, height above table {calibration.camera.center_mm[2]:.0f} mm")
    print(f"box pose: yaw {pose.yaw_deg:.2f} deg, translation ({pose.translation_mm[0]:.1f}, "
          f"{pose.translation_mm[1]:.1f}) mm")
    print(f"reprojection: median {q.reprojection_median_px:.2f} px, max {q.reprojection_max_px:.2f} px; "
          f"table error median {q.table_error_median_mm:.2f} mm")
    if calibration.herd_line_mm is not None:
        (ax, ay), (bx, by) = calibration.herd_line_mm
        print(f"herd line ({calibration.herd_line_source}): ({ax:.1f}, {ay:.1f}) -> ({bx:.1f}, {by:.1f}) mm")
    else:
        print("herd line: not found (no six cards in a line?); give it with --herd-line or in the rig")
    print(f"meteor colour: {calibration.meteor_rgb if calibration.meteor_rgb else 'unknown'}")
    return 0


# ---------------------------------------------------------------- calibrate-lens


def _run_lens(args: argparse.Namespace) -> int:
    from calibration.lens import LensError, calibrate_lens

    try:
        columns, rows = (int(v) for v in args.squares.lower().split("x"))
    except ValueError:
        raise UserError(f"--squares must look like 7x5, got {args.squares!r}") from None
    if min(columns, rows) < 2 or max(columns, rows) > 100:
        raise UserError(f"--squares needs 2 to 100 columns and rows, got {args.squares!r}")
    if args.board == "charuco" and args.marker_mm >= args.square_mm:
        raise UserError(f"--marker-mm ({args.marker_mm:g}) must be smaller than --square-mm ({args.square_mm:g})")
    try:
        lens = calibrate_lens(_read_frames(args.video, args.step), args.board, (columns, rows), args.square_mm,
                              args.marker_mm, args.dictionary, args.max_views)
        lens.save(args.out)
    except (LensError, ValueError) as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot write {args.out}: {error.strerror}") from None
    print(f"wrote {args.out}: {lens.frames_used} views, rms {lens.rms_px:.3f} px, "
          f"focal {lens.K[0][0]:.1f} px, dist {[round(v, 4) for v in lens.dist]}")
    return 0
