"""`meteors-judge bench CLIP`: decode alone versus decode + judge, on one core, and peak memory.

The rig is `--rig`, else the `scene` of a label beside the clip, else the standard rig.
With a label, the latency from the labelled rest frame to the verdict is reported too.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from cli.analyze import LAUNCH_MODES, check_video_or_exit, load_calibration_or_exit, load_rig_or_exit
from cli.errors import UserError

STANDARD_RIG = Path(__file__).resolve().parent.parent / "calibration" / "rigs" / "standard.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("clip", help="video file to benchmark (e.g. sample_videos/clip_000.mp4)")
    parser.add_argument("--rig", help="rig file (default: the scene of a label beside the clip, else the standard rig)")
    parser.add_argument("--cal", help="calibration file (else the judge finds it from the markers)")
    parser.add_argument("--launch-mode", choices=LAUNCH_MODES, help="default: the label's, else standard")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def find_label(clip: Path) -> Any:
    """The valid label beside `clip` whose `video` is this clip (same stem first), or None."""
    from calibration.truth import LabelError, load_label

    same_stem = clip.with_suffix(".json")
    candidates = [same_stem] + sorted(p for p in clip.parent.glob("*.json") if p != same_stem)
    for path in candidates:
        if not path.is_file():
            continue
        try:
            truth = load_label(path)
        except LabelError:
            continue
        if (path.parent / truth.video).resolve() == clip.resolve():
            return truth
    return None


def run(args: argparse.Namespace) -> int:
    clip = Path(args.clip)
    check_video_or_exit(clip)
    truth = find_label(clip)
    if args.rig:
        rig, rig_source = load_rig_or_exit(args.rig), args.rig
    elif truth is not None:
        rig, rig_source = truth.scene, "the label's scene"
    else:
        rig, rig_source = load_rig_or_exit(STANDARD_RIG), str(STANDARD_RIG)
    calibration = load_calibration_or_exit(args.cal)
    launch_mode = args.launch_mode or (truth.launch_mode if truth is not None else "standard")

    from vision.bench import format_bench, run_bench
    from vision.video import VideoError

    try:
        bench = run_bench(clip, rig, calibration=calibration, launch_mode=launch_mode, truth=truth)
    except VideoError as error:
        raise UserError(str(error)) from None
    if args.json:
        print(json.dumps({**bench.to_json(), "rig": rig_source, "launch_mode": launch_mode}, indent=2))
    else:
        print(format_bench(bench))
        print(f"rig                 {rig_source}; launch mode {launch_mode}")
    return 0
