"""`meteors-judge analyze CLIP --rig RIG`: the verdict of every launch in a recorded clip.

Prints a summary for a person, or with `--json` one object `{"launches": [verdict, ...], "warnings": [...]}`.
A file whose frames end before the count it declares, or with a damaged stretch, gets a warning line
on standard error (and in `warnings`); the verdicts of the frames that could be read are still given.
`--annotate OUT.mp4` writes the clip with the judge's overlay on every frame, `--snapshot
OUT.png` a picture of the verdict moment (the frame where the meteor came to rest, with its
whole track, bounces, herd line, box regions and the verdict).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from cli.errors import UserError

LAUNCH_MODES = ("standard", "hard_velociraptor")
VERDICT_SHOWN_SECONDS = 2.0  # how long the annotated video keeps showing a verdict


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("clip", help="video file to judge (e.g. sample_videos/clip_000.mp4)")
    parser.add_argument("--rig", required=True, help="rig file (JSON or TOML) describing the table, box and herd, "
                        "or a labelled clip's JSON (its scene)")
    parser.add_argument("--cal", help="calibration file saved by `meteors-judge calibrate` (else found from markers)")
    parser.add_argument(
        "--launch-mode", choices=LAUNCH_MODES, default="standard", help="standard: 1 table bounce; hard: 2"
    )
    parser.add_argument("--json", action="store_true",
                        help='print {"launches": [verdict, ...], "warnings": [...]} as JSON')
    parser.add_argument("--annotate", metavar="OUT.mp4", help="write the annotated video here")
    parser.add_argument("--snapshot", metavar="OUT.png", help="write a picture of the verdict moment here")


# -- helpers shared with `eval` and `bench` ------------------------------------------------------


def load_rig_or_exit(path: str | Path) -> Any:
    from calibration.rig import RigError, load_rig

    try:
        return load_rig(path)
    except RigError as error:
        raise UserError(f"bad rig: {error}") from None


def load_calibration_or_exit(path: str | Path | None) -> Any:
    if path is None:
        return None
    from calibration.solve import Calibration, CalibrationError

    try:
        return Calibration.load(path)
    except CalibrationError as error:
        raise UserError(f"bad calibration: {error}") from None


def check_video_or_exit(path: str | Path) -> Any:
    """The clip's `VideoInfo`; a missing or unreadable file is a `UserError`."""
    from vision.video import VideoError, probe

    try:
        info = probe(str(path))
    except VideoError as error:
        raise UserError(str(error)) from None
    if info.frame_size[0] <= 0 or info.frame_size[1] <= 0:
        raise UserError(f"cannot read video {path}: it has no picture")
    return info


def check_output_or_exit(path: str | None, suffixes: tuple[str, ...], what: str) -> Path | None:
    if path is None:
        return None
    out = Path(path)
    if out.suffix.lower() not in suffixes:
        raise UserError(f"{what} {out} should end in {' or '.join(suffixes)}")
    if not out.parent.is_dir():
        raise UserError(f"cannot write {what} {out}: folder {out.parent} does not exist")
    return out


# -- the command ---------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    rig = load_rig_or_exit(args.rig)
    calibration = load_calibration_or_exit(args.cal)
    info = check_video_or_exit(args.clip)
    annotate = check_output_or_exit(args.annotate, (".mp4", ".avi", ".mkv"), "annotated video")
    snapshot = check_output_or_exit(args.snapshot, (".png", ".jpg", ".jpeg"), "snapshot")

    from vision.runner import run_judge
    from vision.video import VideoError

    recorder = _Recorder(rig, annotate, info.fps, want_tracks=snapshot is not None)
    try:
        result = run_judge(
            args.clip,
            rig,
            calibration=calibration,
            launch_mode=args.launch_mode,
            progress=None,  # a bar on standard error when it is a terminal
            on_frame=recorder.on_frame,
        )
    except VideoError as error:
        raise UserError(str(error)) from None
    finally:
        recorder.close()

    if snapshot is not None:
        written = write_snapshots(args.clip, snapshot, rig, result, recorder)
        for path in written:
            print(f"snapshot written to {path}", file=sys.stderr)
    if annotate is not None:
        print(f"annotated video written to {annotate}", file=sys.stderr)

    for problem in result.decode_problems:  # the verdicts below are of the frames that could be read
        print(f"meteors-judge analyze: warning: {Path(args.clip).name}: {problem}", file=sys.stderr)
    if args.json:
        launches = [verdict.model_dump(mode="json") for verdict in result.verdicts]
        print(json.dumps({"launches": launches, "warnings": result.warning_lines()}, indent=2))
        if result.calibration is None:  # standard output stays one JSON object: the why goes to standard error
            print(NEVER_CALIBRATED + "\n" + format_warnings(result), file=sys.stderr)
    else:
        print(format_summary(Path(args.clip).name, result))
    return 0


class _Recorder:
    """Sees every judged frame: writes the annotated video and keeps what a snapshot needs."""

    def __init__(self, rig: Any, annotate: Path | None, fps: float, want_tracks: bool) -> None:
        self.rig = rig
        self.annotate = annotate
        self.fps = fps
        self.want_tracks = want_tracks
        self.writer: Any = None
        self.shown: tuple[int, Any] | None = None  # (frame emitted, verdict) on screen in the video
        self.tracks: list[tuple[Any, Any]] = []  # per verdict: (track, calibration) when the verdict came
        self.last_frame: Any = None

    def on_frame(self, index: int, frame: Any, judge: Any, events: list[Any]) -> None:
        for event in events:
            if event.kind == "verdict" and event.verdict is not None:
                self.shown = (index, event.verdict)
                if self.want_tracks:
                    self.tracks.append((_track_of(judge, event), judge.calibration))
        if self.want_tracks:
            self.last_frame = (index, frame, judge)
        if self.annotate is None:
            return
        import cv2

        from vision.overlay import draw_overlay

        verdict = None
        if self.shown is not None and index - self.shown[0] <= VERDICT_SHOWN_SECONDS * self.fps:
            verdict = self.shown[1]
        picture = draw_overlay(frame, judge, self.rig, judge.calibration, verdict=verdict)
        if self.writer is None:
            height, width = picture.shape[:2]
            self.writer = cv2.VideoWriter(
                str(self.annotate), cv2.VideoWriter.fourcc(*"mp4v"), self.fps, (width, height)
            )
            if not self.writer.isOpened():
                raise UserError(f"cannot write annotated video {self.annotate}: OpenCV has no encoder for it")
        self.writer.write(picture)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.release()


def _track_of(judge: Any, event: Any) -> Any:
    """The launch's whole track when its verdict came out (a copy: the judge moves on)."""
    import copy

    track = getattr(event, "track", None)
    if track is None and hasattr(judge, "current_track"):
        track = judge.current_track()
    return copy.deepcopy(track) if track is not None else judge


def write_snapshots(clip: str, out: Path, rig: Any, result: Any, recorder: _Recorder) -> list[Path]:
    """A picture per launch at its rest frame (OUT.png, OUT-2.png, ...); with no launch, the last frame."""

    from vision.overlay import draw_overlay
    from vision.video import read_frames

    if not result.verdicts:
        if recorder.last_frame is None:
            return []
        _, frame, judge = recorder.last_frame
        picture = draw_overlay(frame, judge, rig, result.calibration)
        _imwrite(out, picture)
        print("no launch found: the snapshot shows the last frame", file=sys.stderr)
        return [out]

    wanted: dict[int, list[int]] = {}  # frame -> launches drawn on it
    for number, verdict in enumerate(result.verdicts):
        frame_index = verdict.rest.frame if verdict.rest is not None else verdict.verdict_frame
        wanted.setdefault(min(frame_index, result.frames - 1), []).append(number)
    written = []
    for index, frame in read_frames(clip):
        for number in wanted.get(index, []):
            verdict = result.verdicts[number]
            track, calibration = (
                recorder.tracks[number] if number < len(recorder.tracks) else (None, result.calibration)
            )
            picture = draw_overlay(frame, track, rig, calibration, verdict=verdict)
            path = out if number == 0 else out.with_name(f"{out.stem}-{number + 1}{out.suffix}")
            _imwrite(path, picture)
            written.append(path)
        if index >= max(wanted):
            break
    return written


def _imwrite(path: Path, picture: Any) -> None:
    import cv2

    if not cv2.imwrite(str(path), picture):
        raise UserError(f"cannot write snapshot {path}")


# -- the summary for a person ---------------------------------------------------------------


def _xy(point: Any) -> str:
    return "?" if point is None else f"({point[0]:.0f}, {point[1]:.0f}) mm"


def format_verdict(number: int, verdict: Any) -> str:
    if verdict.valid:
        call = verdict.outcome.upper() + (f" {verdict.dinosaur}" if verdict.outcome == "dinosaur" else "")
        call += " — valid launch"
    else:
        call = "VOID — " + ("; ".join(verdict.reasons) or "invalid launch")
    lines = [f"Launch {number} (frames {verdict.start_frame}–{verdict.verdict_frame}): {call}"]
    if verdict.disputed:
        lines.append("  DISPUTED, a person should review: " + "; ".join(verdict.dispute_reasons))
    release = verdict.release
    if release is not None:
        herd = "no herd line known"
        if release.herd_line_signed_mm is not None:
            side = "behind the line" if verdict.herd_line_ok else "OVER THE LINE"
            herd = f"herd line {release.herd_line_signed_mm:+.1f} mm ({side})"
        lines.append(
            f"  release   frame {release.frame} at {_xy(release.table_mm)} on the table,"
            f" {release.height_mm:.0f} mm high; {herd}"
        )
    else:
        lines.append("  release   not seen")
    needed = 2 if verdict.launch_mode == "hard_velociraptor" else 1
    lines.append(
        f"  bounces   {verdict.bounces_before_box} on the table before the box"
        f" (needs {needed}, {verdict.launch_mode}); {len(verdict.bounces)} impact(s) in all"
    )
    for bounce in verdict.bounces:
        lines.append(f"            frame {bounce.frame:4d}  {bounce.surface:<9} at {_xy(bounce.table_mm)}")
    entered = "never" if verdict.entered_box_frame is None else f"frame {verdict.entered_box_frame}"
    lines.append(f"  box       entered {entered}")
    if verdict.rest is not None:
        lines.append(
            f"  rest      frame {verdict.rest.frame} at {_xy(verdict.rest.box_mm)} in the box frame:"
            f" {verdict.region} ({verdict.landing})"
        )
    else:
        lines.append(f"  rest      not seen ({verdict.region})")
    if verdict.margins:
        margins = ", ".join(_margin_text(name, m) for name, m in verdict.margins.items())
        lines.append(f"  margins   {margins}")
    for index, note in enumerate(verdict.notes):
        lines.append(("  notes     " if index == 0 else "            ") + note)
    return "\n".join(lines)


def _margin_text(name: str, margin: Any) -> str:
    """A decision's margin and uncertainty in its own unit: bounces are counted, the rest in mm."""
    if name == "bounces":
        return f"bounces {margin.margin_mm:.0f} ± {margin.uncertainty_mm:.0f} bounce(s)"
    return f"{name} {margin.margin_mm:.1f} ± {margin.uncertainty_mm:.1f} mm"


NEVER_CALIBRATED = (
    "No launch judged: no frame gave a calibration from the markers (see the warnings). "
    "Check that --rig describes this table and box, or give --cal."
)


def format_summary(name: str, result: Any) -> str:
    """The verdicts for a person, then the judge's warnings (kept when no launch was found: they say why)."""
    count = len(result.verdicts)
    head = f"{name}: {count} launch{'es' if count != 1 else ''} in {result.frames} frames ({result.fps:g} fps)"
    if count == 0:
        parts = [head + "\n" + (NEVER_CALIBRATED if result.calibration is None else "No launch found.")]
    else:
        parts = [head] + [format_verdict(n + 1, v) for n, v in enumerate(result.verdicts)]
    warnings = format_warnings(result)
    if warnings:
        parts.append(warnings)
    return "\n\n".join(parts)


def format_warnings(result: Any) -> str:
    warnings = result.warning_lines()
    if not warnings:
        return ""
    return "warnings:\n" + "\n".join(f"  {line}" for line in warnings)
