"""`meteors-judge eval DIR`: score the judge on every labelled clip of a folder.

A labelled clip is any `*.json` of DIR that validates as `meteors-launch-truth/1` with its
`video` beside it, from any source. The judge is given only the video, the rig of the label's
`scene` and the label's launch mode (what a user would tell it). Other JSON files, invalid
labels and unreadable videos are reported and skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cli.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="folder of labelled clips (video + meteors-launch-truth/1 JSON)")
    parser.add_argument("--json", action="store_true", help="print the metrics and per-clip rows as JSON")
    parser.add_argument("--limit", type=int, metavar="N", help="judge only the first N labelled clips (by name)")


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if not folder.exists():
        raise UserError(f"folder not found: {folder}")
    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be at least 1")

    from vision.evaluate import Skipped, discover, evaluate, format_report, summarize
    from vision.runner import progress_bar, run_judge
    from vision.video import VideoError, probe

    clips, skipped = discover(folder)
    readable = []
    for clip in clips:
        try:
            probe(clip.video_path)
        except VideoError as error:
            skipped.append(Skipped(clip.label_path, f"its video cannot be read: {error}"))
            continue
        readable.append(clip)
    clips = readable[: args.limit] if args.limit else readable
    if not clips:
        reasons = "".join(f"\n  {item.path.name}: {item.reason}" for item in skipped)
        raise UserError(f"no labelled clips (meteors-launch-truth/1 JSON with its video) in {folder}{reasons}")

    def judge_clip(video: Path, rig: object, launch_mode: str) -> list:
        return run_judge(video, rig, launch_mode=launch_mode, progress=False).verdicts

    bar = progress_bar(len(clips), "eval", enabled=None, unit="clip")

    def advance(score: object) -> None:
        bar.set_postfix_str(score.clip, refresh=False)  # type: ignore[attr-defined]
        bar.update(1)

    try:
        scores = evaluate(clips, judge_clip, on_clip=advance)
    finally:
        bar.close()

    metrics = summarize(scores, skipped)
    if args.json:
        payload = {
            "metrics": metrics,
            "clips": [score.to_json() for score in scores],
            "skipped": [{"path": str(item.path), "reason": item.reason} for item in skipped],
        }
        print(json.dumps(payload, indent=2))
    else:
        print(f"eval of {folder}")
        print(format_report(metrics, scores, skipped))
    if skipped and args.json:
        for item in skipped:
            print(f"skipped {item.path.name}: {item.reason}", file=sys.stderr)
    return 0
