"""`meteors-judge train-likeness DIR... --out MODEL.json`: fit the candidate likeness model on labelled clips.

Every labelled clip of the folders is judged, and the candidates of the whole-frame search in the
frames where its label fixes the meteor are collected (`vision.likeness_fit`). Part of the clips (by
a hash of their names) is held out; the model's ranking on them is printed beside the rule it
replaces, and kept in the model file's `about`. The model shipped in the package,
`vision/likeness_model.json`, was made with this command (see docs/judge.md).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from cli.errors import UserError
from cli.options import add_fit_arguments, check_folders, check_writable, whole_number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_fit_arguments(parser, "labelled clips (as for `eval`)", "MODEL.json")
    parser.add_argument("--workers", type=whole_number(1, 2, "a number of worker processes"), default=1,
                        metavar="N", help="judge clips in N processes, 1 or 2 (default 1); the results are the same")


def run(args: argparse.Namespace) -> int:
    check_folders(args.dirs)
    out = Path(args.out)
    check_writable(out)

    from vision.likeness_fit import collect, label_paths, train
    from vision.runner import progress_bar

    paths = label_paths(args.dirs, args.limit)
    if not paths:
        raise UserError(f"no labelled clip in {', '.join(args.dirs)}")
    with progress_bar(len(paths), "collecting candidates", unit="clip") as bar:
        examples = collect(paths, args.workers, on_clip=lambda: bar.update(1))
    try:
        model, report = train(examples, args.held_out)
    except ValueError as error:
        raise UserError(str(error)) from None
    model.about["clips"] = len(paths)
    model.save(out)
    print(f"fitted on {model.about['candidates']} candidates ({model.about['meteor_candidates']} of them the "
          f"meteor) from {len(paths)} clips, L2 {model.about['l2']:g}; wrote {out}")
    print(json.dumps(report, indent=1))
    return 0
