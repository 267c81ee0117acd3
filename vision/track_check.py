"""Where the judge's track is, frame by frame, against a label's `meteor_track`: `meteors-judge track-check`.

Outcome figures move by whole launches and mix every stage of the judge; this looks at the tracker
alone. In each frame where the meteor's centre is inside the picture, the judge's sighting is
`on_meteor` when it lies within `NEAR_DIAMETERS` apparent diameters of the true centre, `elsewhere`
when it is farther (on a hand, a sleeve, a card, the table's grain), or there is none (`unseen`).
Frames are split by the meteor's phase: `held` in the hand, `flight` free before it enters the box
(the flight that decides the herd line and the bounces), `after` (in the box, at rest). Beside
each, the judge's state in those frames tells how late it saw the release. With `heatmap`, the
learned detector's highest peak in each frame (`vision.heatmap`, the three frames up to it) is placed
the same way: what the judge could see had it that detector.
"""

from __future__ import annotations

import functools
import math
from collections import Counter, deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from calibration.truth import LaunchTruth, load_label
from calibration.truth_path import centres_px
from vision.likeness_fit import NEAR_DIAMETERS  # the same nearness makes a blob the meteor in training

MIN_DIAMETER_PX = 4.0  # a sighting within NEAR_DIAMETERS of this many pixels is on a meteor a few pixels across
PHASES = ("held", "flight", "after")
PLACES = ("on_meteor", "elsewhere", "unseen")
UNREADABLE = "unreadable"  # a clip whose video could not be read: (UNREADABLE, why) in the counts


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


def check_clip(label_path: str | Path, heatmap: bool = False) -> Counter:
    """Counts of (phase, place) and (phase, judge's state) over the frames of one clip with the meteor in
    view; with `heatmap`, also of (phase, "heatmap_" + place) for the learned detector's best peak. A video
    that cannot be read counts as (`UNREADABLE`, the reason)."""
    from vision.video import VideoError

    try:
        return _clip_counts(Path(label_path), heatmap)
    except VideoError as error:
        return Counter({(UNREADABLE, str(error)): 1})


def _clip_counts(label_path: Path, heatmap: bool) -> Counter:
    import numpy as np

    from vision.heatmap import FRAMES, best_peak_px, reduce_frame, reduction_for
    from vision.pipeline import JudgeConfig, LaunchJudge
    from vision.video import read_frames

    label = load_label(label_path)
    if not label.meteor_track:
        raise NoMeteorTrack(f"{label_path.name} has no meteor_track (generate with --track-meteor)")
    phases = phase_of(label)
    truths = centres_px(label, {point.frame: point.centre_mm for point in label.meteor_track})
    width, height = label.frame_size
    judge = LaunchJudge(label.scene, config=JudgeConfig(launch_mode=label.launch_mode), fps=label.fps)
    scale = reduction_for(float(np.median([truth[2] for truth in truths.values()])))  # the detector's reduction
    recent: deque = deque(maxlen=FRAMES)  # the last frames, reduced once each
    counts: Counter = Counter()
    for index, frame in read_frames(label_path.parent / label.video):
        judge.process(frame, index)
        if heatmap:
            recent.append(reduce_frame(frame, scale))
        truth = truths.get(index)
        if truth is None or not (0 <= truth[0] < width and 0 <= truth[1] < height):
            continue
        phase = phases[index]
        counts[phase, place_of(judge.sighting(index), truth)] += 1
        counts[phase, judge.state] += 1
        if heatmap and len(recent) == FRAMES:
            best = best_peak_px(recent, label.scene.meteor.rgb, scale)
            counts[phase, "heatmap_" + place_of(None if best is None else best[:2], truth)] += 1
    judge.finish()
    return counts


def check(label_paths: Sequence[Path], workers: int = 1, on_clip: Callable[[], None] | None = None,
          heatmap: bool = False) -> Counter:
    """The counts of every clip added up, the clips judged in `workers` processes."""
    from vision.evaluate import map_clips

    total: Counter = Counter()
    for counts in map_clips(functools.partial(check_clip, heatmap=heatmap), label_paths, workers):
        total.update(counts)
        if on_clip is not None:
            on_clip()
    return total


def unreadable(counts: Counter) -> list[str]:
    """Why each clip left out of the counts could not be read."""
    return [key[1] for key in counts if key[0] == UNREADABLE]


def summarize(counts: Counter) -> dict[str, Any]:
    """Per phase: frames with the meteor in view, and the share of them by place and by the judge's state."""
    summary: dict[str, Any] = {}
    for phase in PHASES:
        frames = sum(counts[phase, place] for place in PLACES)
        if not frames:
            continue
        learned = {f"heatmap_{place}" for place in PLACES}
        states = {key[1]: value / frames for key, value in counts.items()
                  if key[0] == phase and key[1] not in PLACES and key[1] not in learned}
        summary[phase] = {"frames": frames, **{place: counts[phase, place] / frames for place in PLACES},
                          "judge_state": dict(sorted(states.items(), key=lambda item: -item[1]))}
        seen_by_heatmap = sum(counts[phase, name] for name in learned)
        if seen_by_heatmap:
            summary[phase]["heatmap"] = {"frames": seen_by_heatmap, **{
                place: counts[phase, f"heatmap_{place}"] / seen_by_heatmap for place in PLACES}}
    return summary


def format_summary(summary: dict[str, Any]) -> str:
    lines = [f"{'phase':8s} {'frames':>7s} {'on meteor':>10s} {'elsewhere':>10s} {'unseen':>8s}   judge's state"]
    for phase, row in summary.items():
        states = ", ".join(f"{state} {100 * share:.0f} %" for state, share in row["judge_state"].items()
                           if share >= 0.005)
        lines.append(f"{_places(phase, row)}   {states}")
    learned = [(phase, row["heatmap"]) for phase, row in summary.items() if "heatmap" in row]
    if learned:
        lines.append("the learned detector's best peak (vision.heatmap), in the same frames but a clip's first two:")
        lines += [_places(phase, row) for phase, row in learned]
    return "\n".join(lines)


def _places(phase: str, row: dict[str, Any]) -> str:
    """A phase's frames and the share of them on the meteor, elsewhere and unseen, as one line."""
    return (f"{phase:8s} {row['frames']:7d} {100 * row['on_meteor']:9.1f} % {100 * row['elsewhere']:9.1f} % "
            f"{100 * row['unseen']:6.1f} %")
