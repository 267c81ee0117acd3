"""`meteors-judge eval DIR`: score the judge on every labelled clip of a folder.

A labelled clip is any `*.json` of DIR that validates as `meteors-launch-truth/1` with its
`video` beside it, from any source. The judge is given only the video, the rig of the label's
`scene` and the label's launch mode (what a user would tell it). Other JSON files, invalid
labels and unreadable videos are reported and skipped.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
from pathlib import Path

from cli.errors import UserError
from cli.options import check_writable, whole_number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("dir", help="folder of labelled clips (video + meteors-launch-truth/1 JSON)")
    parser.add_argument("--json", action="store_true", help="print the metrics, per-clip rows and code hashes as JSON")
    parser.add_argument("--out", metavar="FILE.json",
                        help="also write the --json payload (metrics, per-clip rows, code hashes) to FILE.json")
    parser.add_argument("--plots", metavar="DIR",
                        help="write risk_coverage.png and reliability.png (the doubt's tables as pictures) to DIR")
    parser.add_argument("--limit", type=int, metavar="N", help="judge only the first N labelled clips (by name)")
    parser.add_argument("--workers", type=whole_number(1, 2, "a number of worker processes"), default=1,
                        metavar="N", help="judge clips in N processes, 1 or 2 (default 1); the results are the same")
    parser.add_argument("--tracks", metavar="DIR",
                        help="keep each clip's tracks in DIR; a clip whose tracks are kept there (same tracking code, "
                             "video, rig and launch mode) is decided again from them without its video, so a change "
                             "to the analysis is measured in a fraction of the time")
    parser.add_argument("--by-kind", action="store_true",
                        help="also break the figures down by kind of scene (meteor colour, resolution, frame rate, "
                             "early throw, box marker size), read from the labels, and whether the table has the "
                             "meteor's hue, from each clip's first frame")


def run(args: argparse.Namespace) -> int:
    folder = Path(args.dir)
    if not folder.exists():
        raise UserError(f"folder not found: {folder}")
    if not folder.is_dir():
        raise UserError(f"{folder} is not a folder")
    if args.limit is not None and args.limit < 1:
        raise UserError("--limit must be at least 1")
    out_file = Path(args.out) if args.out else None
    if out_file is not None:
        check_writable(out_file)
    plots = Path(args.plots) if args.plots else None
    if plots is not None:
        _make_folder(plots)
    tracks = Path(args.tracks) if args.tracks else None
    if tracks is not None:
        _make_folder(tracks)

    from vision.evaluate import Skipped, code_fingerprints, discover, evaluate, format_report, summarize
    from vision.reliability import doubt_summary, format_tables
    from vision.runner import judge_verdicts, progress_bar
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

    code = code_fingerprints()  # read before the clips: the code the workers import now
    judge = judge_verdicts
    kept = 0
    if tracks is not None:
        from vision.track_cache import is_kept, judge_verdicts_kept

        judge = functools.partial(judge_verdicts_kept, tracks)
        kept = sum(is_kept(tracks, clip.video_path, clip.truth.scene, clip.truth.launch_mode) for clip in clips)
    bar = progress_bar(len(clips), "eval", enabled=None, unit="clip")

    def advance(score: object) -> None:
        bar.set_postfix_str(score.clip, refresh=False)  # type: ignore[attr-defined]
        bar.update(1)

    try:
        scores = evaluate(clips, judge, on_clip=advance, workers=args.workers)
    finally:
        bar.close()

    metrics = summarize(scores, skipped)
    payload = {
        "metrics": metrics,
        "clips": [score.to_json() for score in scores],
        "skipped": [{"path": str(item.path), "reason": item.reason} for item in skipped],
        "doubt": doubt_summary(scores),
        "code": code,
    }
    if tracks is not None:
        payload["tracks"] = {"dir": str(tracks), "decided_from_kept": kept, "watched": len(clips) - kept}
    if out_file is not None:
        out_file.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    if args.json:
        print(json.dumps(payload, indent=2))
    else:
        print(f"eval of {folder}")
        print(format_report(metrics, scores, skipped))
        if args.by_kind:
            from vision.scene_kinds import kinds_table

            print()
            print(kinds_table([clip.truth for clip in clips], scores, [_table_hue(clip) for clip in clips]))
        print()
        print(format_tables(scores))
        if tracks is not None:
            print(f"tracks: {kept} of {len(clips)} clips decided again from those kept in {tracks}, "
                  f"{len(clips) - kept} watched and kept there")
        print(f"code: watching {code['tracking'][:12]}, deciding {code['deciding'][:12]}")
    if plots is not None:
        _draw(plots, scores)
    if skipped and args.json:
        for item in skipped:
            print(f"skipped {item.path.name}: {item.reason}", file=sys.stderr)
    return 0


def _table_hue(clip) -> float | None:
    """The angle between the clip's meteor and its table under the release (`table_hue_angle_deg`), from
    the clip's first frame."""
    from vision.scene_kinds import table_hue_angle_deg
    from vision.video import VideoError, read_frames

    frames = read_frames(clip.video_path)
    try:
        _index, first = next(frames)
    except (StopIteration, VideoError):
        return None
    finally:
        frames.close()
    return table_hue_angle_deg(clip.truth, first)


def _make_folder(path: Path) -> None:
    if path.exists() and not path.is_dir():
        raise UserError(f"--plots {path} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"--plots {path} cannot be made: {error.strerror or error}") from None


def _draw(folder: Path, scores: list) -> None:
    """The risk–coverage and reliability pictures; each file written is named on standard error."""
    from vision.reliability import draw_reliability, draw_risk_coverage, reliability

    draw_risk_coverage(scores, folder / "risk_coverage.png")
    print(f"wrote {folder / 'risk_coverage.png'}", file=sys.stderr)
    table = reliability(scores)
    if table is None:
        print("reliability.png not written: no ruling probabilities (no doubt model fitted)", file=sys.stderr)
        return
    draw_reliability(table, folder / "reliability.png")
    print(f"wrote {folder / 'reliability.png'}", file=sys.stderr)
