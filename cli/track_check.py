"""`meteors-judge track-check DIR...`: how often the judge's track is on the meteor, held and in flight.

Needs labels with `meteor_track` (`meteors-judge samples generate --track-meteor`). Each clip is judged
as `eval` judges it; in every frame with the meteor in the picture, the judge's sighting is counted
as on the meteor, elsewhere or missing, by phase (`vision.track_check`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cli.options import check_folders, check_writable, tracked_clips, whole_number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dirs", nargs="+", metavar="DIR", help="folders of clips labelled with --track-meteor")
    parser.add_argument("--limit", type=whole_number(1, None, "a number of clips"), metavar="N",
                        help="use only the first N clips of each folder")
    parser.add_argument("--workers", type=whole_number(1, 2, "a number of worker processes"), default=1,
                        metavar="N", help="judge clips in N processes, 1 or 2 (default 1); the results are the same")
    parser.add_argument("--out", metavar="FILE.json", help="also write the figures as JSON")
    parser.add_argument("--heatmap", action="store_true",
                        help="also place the learned detector's best peak in each frame (vision.heatmap), beside the "
                             "judge's track")


def run(args: argparse.Namespace) -> int:
    check_folders(args.dirs)
    if args.out:
        check_writable(Path(args.out))

    from vision.runner import progress_bar
    from vision.track_check import check, format_summary, summarize, unreadable

    paths = tracked_clips(args.dirs, args.limit)
    with progress_bar(len(paths), "judging", unit="clip") as bar:
        counts = check(paths, args.workers, on_clip=lambda: bar.update(1), heatmap=args.heatmap)
    skipped = unreadable(counts)
    for reason in skipped:
        print(f"meteors-judge track-check: warning: {reason}: clip left out", file=sys.stderr)
    summary = summarize(counts)
    print(f"{len(paths) - len(skipped)} clips; share of the frames with the meteor in the picture")
    print(format_summary(summary))
    if args.out:
        Path(args.out).write_text(json.dumps({"clips": len(paths) - len(skipped), "phases": summary,
                                              "unreadable": skipped}, indent=1) + "\n",
                                  encoding="utf-8")
    return 0
