"""`meteors-judge train-doubt ROWS.json... --out MODEL.json`: fit the doubt model on eval rows.

The rows are `meteors-judge eval --out` files of a judge that writes its evidence; part of the clips
(by a hash of their names) is held out, and the model's calibration and risk on them are printed
and kept in the model file's `about`. The judge's dispute rule does not use the model (yet).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cli.errors import UserError
from cli.options import check_writable, fraction


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rows", nargs="+", metavar="ROWS.json", help="`meteors-judge eval --out` files")
    parser.add_argument("--out", required=True, metavar="MODEL.json", help="where to write the fitted model")
    parser.add_argument("--held-out", type=fraction, default=0.3, metavar="FRACTION",
                        help="share of the clips held out of the fit to check it (default 0.3)")


def run(args: argparse.Namespace) -> int:
    for path in map(Path, args.rows):
        if not path.is_file():
            raise UserError(f"rows file not found: {path}")
    out = Path(args.out)
    check_writable(out)

    from vision.doubt_fit import RowsError, held_out_check, read_rows, train
    from vision.reliability import format_tables

    try:
        model, rated = train(read_rows(args.rows), held_out_fraction=args.held_out)
    except RowsError as error:
        raise UserError(str(error)) from None
    check = held_out_check(rated)
    model.about.update(check)
    model.save(out)
    print(f"fitted on {model.about['fitting_rows']} launches ({model.about['fitting_right']} right rulings), "
          f"L2 {model.about['l2']:g}; wrote {out}")
    print(f"held out: {check['held_out_rows']} clips, {check['held_out_found']} launches found, "
          f"{check['held_out_right']} right rulings")
    print(json.dumps({key: value for key, value in check.items() if not key.startswith("held_out_")}, indent=1))
    print(format_tables(rated))
    return 0
