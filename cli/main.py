"""Entry point of `meteors-judge`: builds the argument parser from the subcommand modules.

Each subcommand lives in its own module of this package and exposes
`add_arguments(parser)` and `run(args) -> int`. Those modules keep heavy imports
(OpenCV, Flask) inside `run`, so `meteors-judge --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from cli.errors import UserError

# name -> (module, one-line help). Order is the order shown in --help.
COMMANDS: dict[str, tuple[str, str]] = {
    "simulate": ("cli.simulate", "play one whole seeded game with random legal choices"),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
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


def main(argv: list[str] | None = None) -> int:
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


if __name__ == "__main__":
    sys.exit(main())
