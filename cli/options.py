"""Argument types that check an option's range as it is parsed, and a parser whose errors are one line.

A bad option is then `meteors-judge CMD: error: argument --port: 70000 is not a port (0 to 65535)`
and exit 2, like every other mistake of the user's (see `cli.errors`), never a traceback later on.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from cli.errors import UserError


class OneLineParser(argparse.ArgumentParser):
    """argparse, but an error is one line naming the command and the problem (the usage is in --help)."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def whole_number(low: int, high: int | None = None, what: str = "") -> Callable[[str], int]:
    """An int from `low` to `high` (no upper bound when None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < low or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"{value} is not {what or 'a value'}: it must be {span}")
        return value

    parse.__name__ = what or "whole number"  # argparse names the type in some messages
    return parse


def positive_number(what: str = "a length") -> Callable[[str], float]:
    """A finite float above 0."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{text} is not {what} (a number above 0)")
        return value

    parse.__name__ = what
    return parse


def fraction(text: str) -> float:
    """A number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a fraction between 0 and 1")
    return value


def check_writable(path: Path) -> None:
    """Fail before a long run, not after it, when `--out` cannot be written."""
    if path.is_dir():
        raise UserError(f"--out {path} is a folder; give a file name such as {path / 'out.json'}")
    if not path.parent.is_dir():
        raise UserError(f"--out {path}: its folder {path.parent} does not exist")
    if not os.access(path if path.exists() else path.parent, os.W_OK):
        raise UserError(f"--out {path} cannot be written (no permission)")


def check_folders(folders: list[str]) -> None:
    """Each of the folders of clips a command was given exists."""
    for folder in map(Path, folders):
        if not folder.is_dir():
            raise UserError(f"folder not found: {folder}")


def tracked_clips(folders: list[str], limit: int | None) -> list[Path]:
    """The labels with a `meteor_track` in the folders (the first `limit` clips of each); a `UserError`
    saying how to make them when there is none."""
    from vision.likeness_fit import label_paths

    paths = label_paths(folders, limit, keep=lambda truth: bool(truth.meteor_track))
    if not paths:
        raise UserError(f"no clip in {', '.join(folders)} has a meteor_track: generate them with "
                        "`meteors-judge samples generate --track-meteor`")
    return paths


def add_fit_arguments(parser: argparse.ArgumentParser, clips: str, model: str) -> None:
    """What every `train-*` command fitting a model on folders of clips takes: the folders (`clips` says
    which), where the `model` file goes, a limit of clips a folder, and the share held out to check it."""
    parser.add_argument("dirs", nargs="+", metavar="DIR", help=f"folders of {clips}")
    parser.add_argument("--out", required=True, metavar=model, help="where to write the fitted model")
    parser.add_argument("--limit", type=whole_number(1, None, "a number of clips"), metavar="N",
                        help="use only the first N clips of each folder")
    parser.add_argument("--held-out", type=fraction, default=0.3, metavar="FRACTION",
                        help="share of the clips held out of the fit to check it (default 0.3)")


port = whole_number(0, 65535, "a port")
