"""`meteors-judge samples`: generate labelled launch clips, and pictures and figures to check them by eye."""

from __future__ import annotations

import argparse
from pathlib import Path

from cli.errors import UserError
from cli.options import whole_number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="samples_command", metavar="ACTION", required=True)
    gen = sub.add_parser("generate", help="write clip_NNN.mp4 + clip_NNN.json pairs and index.json")
    gen.add_argument("--out", required=True, help="output directory")
    gen.add_argument("--n", type=int, default=30, help="number of clips (default 30: the bundled case mix)")
    gen.add_argument("--seed", type=int, default=0, help="random seed (same seed, same clips)")
    gen.add_argument("--start", type=whole_number(0, what="a clip index"), default=0,
                     help="index of the first clip (default 0)")
    gen.add_argument("--workers", type=int, default=2, help="worker processes, at most 2 (default 2)")
    gen.add_argument("--world", choices=("wide", "narrow"), default="wide",
                     help="wide (default): every table, meteor, arm, light and camera; narrow: the original world")
    gen.add_argument("--track-meteor", action="store_true",
                     help="labels also hold the meteor's centre in every frame, held or free (for train-likeness)")
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    sheet = sub.add_parser("sheet", help="draw a clip's true trajectory over a grid of its frames")
    sheet.add_argument("clip", help="clip_NNN.mp4 (its label clip_NNN.json beside it)")
    sheet.add_argument("--out", required=True, help="PNG to write")
    sheet.add_argument("--columns", type=whole_number(1, 12, what="a number of columns"), default=4,
                       help="tiles across (1 to 12, default 4)")
    sheet.add_argument("--rows", type=whole_number(1, 12, what="a number of rows"), default=4,
                       help="tiles down (1 to 12, default 4)")
    gallery = sub.add_parser("gallery", help="one frame of every labelled clip in a folder, tiled in one PNG")
    gallery.add_argument("folder", help="a folder of clip_NNN.mp4 + clip_NNN.json")
    gallery.add_argument("--out", required=True, help="PNG to write")
    gallery.add_argument("--at", choices=("first", "release"), default="first", help="which frame of each clip")
    gallery.add_argument("--columns", type=whole_number(1, 24, what="a number of columns"), default=6,
                         help="tiles across (1 to 24, default 6)")
    gallery.add_argument("--limit", type=whole_number(1, what="a number of clips"), default=60,
                         help="at most this many clips (default 60)")
    variety = sub.add_parser("variety", help="how varied a labelled set is, from its labels alone")
    variety.add_argument("folder", help="a folder of clip_NNN.json labels")


def run(args: argparse.Namespace) -> int:
    from calibration.truth import LabelError

    try:
        if args.samples_command == "generate":
            return _generate(args)
        if args.samples_command == "gallery":
            return _gallery(args)
        if args.samples_command == "variety":
            return _variety(args)
        return _sheet(args)
    except LabelError as error:
        raise UserError(str(error)) from None


def _generate(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise UserError("--n must be at least 1")
    if args.workers < 1 or args.workers > 2:
        raise UserError("--workers must be 1 or 2")
    from footage.generate import generate
    from footage.world import WORLDS

    results = generate(args.out, args.n, seed=args.seed, workers=args.workers, progress=not args.quiet,
                       start=args.start, world=WORLDS[args.world], track_meteor=args.track_meteor)
    print(f"wrote {len(results)} clips to {args.out}")
    return 0


def _sheet(args: argparse.Namespace) -> int:
    from footage.contact_sheet import make_sheet

    clip = Path(args.clip)
    if not clip.exists():
        raise UserError(f"clip not found: {clip}")
    out = make_sheet(clip, args.out, columns=args.columns, rows=args.rows)
    print(f"wrote {out}")
    return 0


def _folder(path: str) -> Path:
    folder = Path(path)
    if not folder.is_dir():
        raise UserError(f"not a folder: {folder}")
    return folder


def _gallery(args: argparse.Namespace) -> int:
    from footage.gallery import make_gallery

    out = make_gallery(_folder(args.folder), args.out, columns=args.columns, at=args.at, limit=args.limit)
    print(f"wrote {out}")
    return 0


def _variety(args: argparse.Namespace) -> int:
    from calibration.truth import load_label
    from footage.variety import variety_checks

    folder = _folder(args.folder)
    paths = sorted(folder.glob("clip_*.json"))
    if not paths:
        raise UserError(f"no labelled clips (clip_*.json) in {folder}")
    checks = variety_checks([load_label(p) for p in paths])
    for check in checks:
        print(f"{'ok  ' if check.ok else 'MISS'}  {check.name}: {check.measured}")
    missed = sum(not c.ok for c in checks)
    print(f"{len(paths)} clips: {len(checks) - missed} of {len(checks)} checks pass")
    return 0 if missed == 0 else 1
