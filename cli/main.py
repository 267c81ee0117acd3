"""Entry point of `meteors-judge`: builds the argument parser from the subcommand modules.

Each subcommand lives in its own module of this package and exposes
`add_arguments(parser)` and `run(args) -> int`. Those modules keep heavy imports
(OpenCV, Flask) inside `run`, so `meteors-judge --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

from cli.errors import UserError
from cli.options import OneLineParser

# name -> (module, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("cli.simulate", "play one whole seeded game with random legal choices"),
    "serve": ("cli.serve", "serve the table dashboard: live judging, the game, replays and overrides"),
    "demo": ("cli.demo", "the dashboard on a bundled clip looped as a live camera, with a demo game"),
    "samples": ("cli.samples", "generate labelled launch clips and contact sheets"),
    "analyze": ("cli.analyze", "judge every launch in a recorded clip"),
    "eval": ("cli.eval", "score the judge on a folder of labelled clips"),
    "train-doubt": ("cli.train_doubt", "fit the doubt model (P(ruling right) from the judge's evidence) on eval rows"),
    "train-likeness": ("cli.train_likeness", "fit the likeness model (which blob is the meteor) on labelled clips"),
    "train-heatmap": ("cli.train_heatmap", "fit the learned meteor detector (a heat map of three frames)"),
    "track-check": ("cli.track_check", "how often the judge's track is on the meteor, held and in flight"),
    "bench": ("cli.bench", "time decode alone versus decode + judge on one core"),
    "markers": ("cli.markers", "write a printable sheet of the rig's markers at true size"),
    "calibrate": ("cli.calibrate", "calibrate the camera, table, box and herd line from an image, video or camera"),
    "calibrate-lens": ("cli.calibrate", "lens intrinsics and distortion from a ChArUco or chessboard video"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="meteors-judge",
        description="Camera-assisted referee for the board game Meteors.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in COMMANDS.items():
        module = importlib.import_module(module_name)
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def quiet_libraries() -> None:
    """No numpy, OpenCV or FFmpeg warning lines before our own: the command's messages say what went wrong.

    OpenCV reads OPENCV_LOG_LEVEL when it loads and OPENCV_FFMPEG_LOGLEVEL at its first open, so this
    runs before either (an OpenCV loaded already, as in tests, is told directly).
    """
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
    if "cv2" in sys.modules:
        cv2 = sys.modules["cv2"]
        cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)  # numpy's "invalid value", "empty slice"...


def main(argv: list[str] | None = None) -> int:
    quiet_libraries()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "run", None):
        parser.print_help()
        return 2
    try:
        return int(args.run(args) or 0)
    except UserError as error:
        print(f"meteors-judge {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
