"""`meteors-judge demo`: the dashboard on a bundled clip looped as a live camera, with a demo game running.

It prints the address and opens nothing that needs a screen. Its data (database, snapshots, clips)
goes to a new temporary folder, printed at start, unless `--data` names one.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from cli.errors import UserError
from cli.serve import add_common_arguments, check_video, load_inputs, serve_app

SAMPLES = Path(__file__).resolve().parent.parent / "sample_videos"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--video", type=Path, default=SAMPLES / "clip_000.mp4",
                        help="the clip looped as a live camera (default sample_videos/clip_000.mp4)")
    add_common_arguments(parser, default_data=None, default_rig="the scene of the clip's label, clip_NNN.json")


def demo_rig(video: Path) -> Path | None:
    """A labelled clip's `scene` is its rig: use it when no --rig is given."""
    label = video.with_suffix(".json")
    return label if label.exists() else None


def run(args: argparse.Namespace) -> int:
    if not args.video.exists():
        raise UserError(f"the demo clip {args.video} is missing: the sample videos are not generated yet "
                        f"(see the README), or pass --video FILE")
    check_video(args.video)
    if args.rig is None and demo_rig(args.video) is not None:
        args.rig = demo_rig(args.video)
    rig, _ = load_inputs(args)
    data = args.data or Path(tempfile.mkdtemp(prefix="meteors-demo-"))
    config = {"DATA_DIR": data, "RIG": rig, "CALIBRATION": args.cal, "SOURCE": str(args.video), "LOOP": True,
              "LOOP_PAUSE": 2.0, "DEMO_GAME": True}
    return serve_app(config, args, banner=f"demo: {args.video.name} looped as a live camera, "
                                                           "with a demo game (random choices but the launches)")
