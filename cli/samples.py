"""`meteors-judge samples`: generate labelled launch clips, and contact sheets to check them by eye."""

from __future__ import annotations

import argparse

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
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    sheet = sub.add_parser("sheet", help="draw a clip's true trajectory over a grid of its frames")
    sheet.add_argument("clip", help="clip_NNN.mp4 (its label clip_NNN.json beside it)")
    sheet.add_argument("--out", required=True, help="PNG to write")
    sheet.add_argument("--columns", type=whole_number(1, 12, what="a number of columns"), default=4,
                       help="tiles across (1 to 12, default 4)")
    sheet.add_argument("--rows", type=whole_number(1, 12, what="a number of rows"), default=4,
                       help="tiles down (1 to 12, default 4)")


def run(args: argparse.Namespace) -> int:
    if args.samples_command == "generate":
        if args.n < 1:
            raise UserError("--n must be at least 1")
        if args.workers < 1 or args.workers > 2:
            raise UserError("--workers must be 1 or 2")
        from footage.generate import generate

        results = generate(args.out, args.n, seed=args.seed, workers=args.workers, progress=not args.quiet,
                           start=args.start)
        print(f"wrote {len(results)} clips to {args.out}")
        return 0
    from pathlib import Path

    from footage.contact_sheet import make_sheet
    from vision.truth import LabelError

    clip = Path(args.clip)
    if not clip.exists():
        raise UserError(f"clip not found: {clip}")
    try:
        out = make_sheet(clip, args.out, columns=args.columns, rows=args.rows)
    except LabelError as error:
        raise UserError(str(error)) from None
    print(f"wrote {out}")
    return 0
