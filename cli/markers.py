"""`meteors-judge markers`: a printable sheet of the rig's table and box markers at true size."""

from __future__ import annotations

import argparse

from cli.errors import UserError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, help="the sheet to write: FILE.pdf, or FILE.png (several pages "
                        "become FILE-1.png, FILE-2.png ...)")
    parser.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    parser.add_argument("--rig", default=None, help="rig file (JSON or TOML); default: the standard layout")


def run(args: argparse.Namespace) -> int:
    from calibration.markers import write_marker_sheet
    from calibration.rig import RigError, default_rig_path, load_rig

    try:
        rig = load_rig(args.rig or default_rig_path())
        written = write_marker_sheet(rig, args.out, dpi=args.dpi)
    except (RigError, ValueError) as error:
        raise UserError(str(error)) from None
    except OSError as error:
        raise UserError(f"cannot write {args.out}: {error.strerror}") from None
    count = len(rig.table_markers) + len(rig.box.markers)
    for path in written:
        print(f"wrote {path}")
    print(f"{count} markers ({rig.aruco_dictionary}) at {args.dpi} dpi: print at 100% scale and check the 100 mm bar")
    return 0
