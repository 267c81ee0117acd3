"""The throw starts from the hand's hold, not from a later still spell (bundled clip_000's own track)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from launch_inputs import judge_launch_inputs

from vision.analysis import judge_launch
from vision.track import SEEN
from vision.truth import load_label

VIDEO = Path(__file__).resolve().parents[2] / "sample_videos" / "clip_000.mp4"


def test_a_still_spell_in_the_box_before_a_slide_is_not_the_throw():
    """Held-out 9019 clip_102: the meteor lay still in the box, then slid on to its rest. The analysis
    took that spell for the hold (a still run a big move follows), began the flight after it and
    counted none of the table bounces before it: 0 of 1, undisputed. The hold is the one the release
    fit uses, the last still run the touch ring saw the hand in."""
    label = load_label(VIDEO.with_suffix(".json"))
    track, rig, calibration, config, frame_index = judge_launch_inputs(VIDEO, label)[0]
    # from 8 frames after the box entry: still for 10 frames, a 90 px slide, then still to the end
    cut = int(np.searchsorted(track.frames, label.entered_box_frame + 8))
    spot = track.px[cut]
    tail = len(track.frames) - cut
    slide = np.clip(np.arange(tail) - 10, 0, 15)[:, None] * np.array([[6.0, 0.0]])
    px = np.concatenate([track.px[:cut], spot + slide])
    flags = np.concatenate([track.flags[:cut], np.full(tail, SEEN, dtype=track.flags.dtype)])
    diameters = np.concatenate([track.diameters[:cut], np.full(tail, np.nanmedian(track.diameters[cut:]))])
    slid = replace(track, px=px, flags=flags, diameters=diameters)
    verdict, analysis = judge_launch(slid, rig, calibration, config, frame_index)
    assert analysis.throw_start_frame < label.release.frame
    assert verdict.bounces_before_box == label.bounces_before_box == 1
