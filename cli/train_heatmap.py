"""`meteors-judge train-heatmap DIR... --out MODEL.onnx`: fit the learned meteor detector on labelled clips.

Needs labels with `meteor_track` (`samples generate --track-meteor`) and the optional `train` extra
(`pip install -e '.[train]'`: PyTorch and ONNX). Half the epochs are fitted on random windows and
windows holding the meteor, the rest with windows holding the half-fitted network's mistakes added.
Part of the clips (by a hash of their names) is held out; on them it prints, held, flying and after,
for the new model and the shipped one: how often the best peak of a whole frame lies on the meteor,
and how often a window round a prediction near the meteor, as the judge runs it, gives a sighting on
the meteor or elsewhere (the figures a new model has to beat). The model shipped in the package,
`vision/heatmap_model.onnx`, was made with this command before the hard windows were added (see
docs/judge.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cli.errors import UserError
from cli.options import add_fit_arguments, check_folders, check_writable, tracked_clips, whole_number


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_fit_arguments(parser, "clips labelled with --track-meteor", "MODEL.onnx")
    parser.add_argument("--epochs", type=whole_number(1, None, "a number of epochs"), default=8, metavar="N",
                        help="passes over the training windows (default 8)")


def run(args: argparse.Namespace) -> int:
    check_folders(args.dirs)
    out = Path(args.out)
    check_writable(out)

    from vision.heatmap_fit import TrainingUnavailable, train
    from vision.runner import progress_bar

    paths = tracked_clips(args.dirs, args.limit)

    def on_epoch(epoch: int, loss: float) -> None:
        print(f"epoch {epoch + 1}/{args.epochs}: loss {loss:.4f}", file=sys.stderr)

    try:
        with progress_bar(None, "reading clips", unit="clip") as bar:
            stages = ["reading clips"]

            def on_clip(stage: str) -> None:
                if stage != stages[-1]:
                    stages.append(stage)
                    bar.set_description(stage)
                    bar.reset()
                bar.update(1)

            report = train(paths, out, args.epochs, args.held_out, on_clip=on_clip, on_epoch=on_epoch)
    except (TrainingUnavailable, ValueError) as error:
        raise UserError(str(error)) from None
    hard = f", then {report['hard_windows']} more round its mistakes" if "hard_windows" in report else ""
    print(f"fitted on {report['windows']} windows of {report['fitted_clips']} clips{hard}; wrote {out}")
    print(json.dumps(report, indent=1))
    return 0
