"""Where the judge's track is, frame by frame, against a label's `meteor_track`: `meteors-judge track-check`.

Outcome figures move by whole launches and mix every stage of the judge; this looks at the tracker
alone. In each frame where the meteor's centre is inside the picture, the judge's sighting is
`on_meteor` when it lies within `NEAR_DIAMETERS` apparent diameters of the true centre, `elsewhere`
when it is farther (on a hand, a sleeve, a card, the table's grain), or there is none (`unseen`).
Frames are split by the meteor's phase: `held` in the hand, `flight` free before it enters the box
(the flight that decides the herd line and the bounces), `after` (in the box, at rest). Beside
each, the judge's state in those frames tells how late it saw the release.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from calibration.truth import LaunchTruth, load_label
from calibration.truth_path import centres_px
from vision.likeness_fit import NEAR_DIAMETERS  # the same nearness makes a blob the meteor in training

MIN_DIAMETER_PX = 4.0  # a sighting within NEAR_DIAMETERS of this many pixels is on a meteor a few pixels across
PHASES = ("held", "flight", "after")
PLACES = ("on_meteor", "elsewhere", "unseen")


class NoMeteorTrack(ValueError):
    """A label without `meteor_track` (`samples generate --track-meteor` writes it)."""


def phase_of(label: LaunchTruth) -> dict[int, str]:
    """Frame → the meteor's phase, by the label's `meteor_track`."""
    entered = label.entered_box_frame
    if entered is None:
        entered = label.rest.frame if label.rest is not None else label.frame_count
    return {point.frame: "held" if point.held else ("flight" if point.frame < entered else "after")
            for point in label.meteor_track}


def place_of(sighting: tuple[float, float] | None, truth_px: tuple[float, float, float]) -> str:
    """`on_meteor`, `elsewhere` or `unseen`: the judge's sighting against the true (x, y, diameter)."""
    if sighting is None:
        return "unseen"
    x, y, diameter = truth_px
    reach = NEAR_DIAMETERS * max(diameter, MIN_DIAMETER_PX)
    return "on_meteor" if math.hypot(sighting[0] - x, sighting[1] - y) <= reach else "elsewhere"


def check_clip(label_path: str | Path) -> Counter:
    """Counts of (phase, place) and (phase, judge's state) over the frames of one clip with the meteor in view."""
    from vision.pipeline import JudgeConfig, LaunchJudge
    from vision.video import read_frames

    label_path = Path(label_path)
    label = load_label(label_path)
    if not label.meteor_track:
        raise NoMeteorTrack(f"{label_path.name} has no meteor_track (generate with --track-meteor)")
    phases = phase_of(label)
    truths = centres_px(label, {point.frame: point.centre_mm for point in label.meteor_track})
    width, height = label.frame_size
    judge = LaunchJudge(label.scene, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    counts: Counter = Counter()
    for index, frame in read_frames(label_path.parent / label.video):
        judge.process(frame, index)
        truth = truths.get(index)
        if truth is None or not (0 <= truth[0] < width and 0 <= truth[1] < height):
            continue
        phase = phases[index]
        counts[phase, place_of(judge.sighting(index), truth)] += 1
        counts[phase, judge.state] += 1
    judge.finish()
    return counts


def check(label_paths: Sequence[Path], workers: int = 1, on_clip: Callable[[], None] | None = None) -> Counter:
    """The counts of every clip added up, the clips judged in `workers` processes."""
    from vision.evaluate import map_clips

    total: Counter = Counter()
    for counts in map_clips(check_clip, label_paths, workers):
        total.update(counts)
        if on_clip is not None:
            on_clip()
    return total


def summarize(counts: Counter) -> dict[str, Any]:
    """Per phase: frames with the meteor in view, and the share of them by place and by the judge's state."""
    summary: dict[str, Any] = {}
    for phase in PHASES:
        frames = sum(counts[phase, place] for place in PLACES)
        if not frames:
            continue
        states = {key[1]: value / frames for key, value in counts.items() if key[0] == phase and key[1] not in PLACES}
        summary[phase] = {"frames": frames, **{place: counts[phase, place] / frames for place in PLACES},
                          "judge_state": dict(sorted(states.items(), key=lambda item: -item[1]))}
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    lines = [f"{'phase':8s} {'frames':>7s} {'on meteor':>10s} {'elsewhere':>10s} {'unseen':>8s}   judge's state"]
    for phase, row in summary.items():
        states = ", ".join(f"{state} {100 * share:.0f} %" for state, share in row["judge_state"].items()
                           if share >= 0.005)
        lines.append(f"{phase:8s} {row['frames']:7d} {100 * row['on_meteor']:9.1f} % {100 * row['elsewhere']:9.1f} % "
                     f"{100 * row['unseen']:6.1f} %   {states}")
    return "\n".join(lines)
