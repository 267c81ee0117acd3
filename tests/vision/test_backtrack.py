"""A flight the tracker picked up late is walked back through the frames the judge kept (`vision.backtrack`).

The clip is generated seed 9104's clip_037 (`tests/vision/clips/`, 1280×720 at 30 fps, labelled with the
meteor's whole path). The tracker sees the meteor in the hand until frame 5 and picks its flight up
at frame 14, just after the first table bounce (frame 12); it misses frames 23 and 25 round the
second (frame 22). Without the walk back those gaps hide both bounces and the launch is ruled void
for want of one.
"""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
from launch_inputs import (
    judge_labelled,
    judge_launch_inputs,
    judge_stopping_at_the_first_touch,
    judge_without_walk_back,
    without_heatmap,
)

from calibration.truth import load_label
from calibration.truth_path import centres_px, known_centres_mm
from vision.analysis import judge_launch
from vision.backtrack import BacktrackSettings, KeptFrames, frames_to_keep, walk_back, walk_into_hold
from vision.detector import Detection, MeteorDetector
from vision.pipeline import JudgeConfig, LaunchJudge
from vision.track import COASTED

CLIP = Path(__file__).resolve().parent / "clips" / "walked_back_bounces_9104_037.mp4"


def _judge(label, judge=None):
    """The verdicts on the clip (by `judge`, else the default one), and the track held at the first."""
    tracks = []

    def keep_track(_index, _frame, judge, events) -> None:
        if not tracks and any(event.kind == "verdict" for event in events):
            tracks.append(judge.current_track())

    result = judge_labelled(CLIP, label, judge=judge, on_frame=keep_track)
    return result.verdicts, tracks[0]


def _seen(track) -> dict[int, tuple[float, float]]:
    return {int(f): (float(x), float(y)) for f, (x, y), flag in zip(track.frames, track.px, track.flags, strict=True)
            if flag != COASTED}


def test_the_walk_back_finds_the_meteor_in_the_frames_the_tracker_missed_and_its_bounces_count():
    label = load_label(CLIP.with_suffix(".json"))
    with without_heatmap():  # the heat map fills some of the gaps the walk back is shown on
        verdicts, walked = _judge(label)
        plain_verdicts, plain = _judge(label, judge_without_walk_back(label))

    # every sighting the walk added lies on the meteor (within 1.5 of its apparent diameters)
    frames = sorted(set(_seen(walked)) - set(_seen(plain)))
    assert len(frames) >= 3
    truth = centres_px(label, known_centres_mm(label))
    for frame in frames:
        x, y = _seen(walked)[frame]
        true_x, true_y, diameter = truth[frame]
        assert math.hypot(x - true_x, y - true_y) <= 1.5 * max(diameter, 4.0), frame

    assert len(verdicts) == len(plain_verdicts) == 1
    assert label.bounces_before_box == 2
    assert plain_verdicts[0].bounces_before_box == 0  # the gaps hide the bounces
    assert verdicts[0].bounces_before_box == 2
    assert verdicts[0].outcome == label.outcome and verdicts[0].valid == label.valid



FIT_AFTER_FREE = Path(__file__).resolve().parent / "clips" / "fit_after_free_sighting_9058_060.mp4"
PHANTOM_BOUNCE = Path(__file__).resolve().parent / "clips" / "phantom_table_bounce_9047_048.mp4"


def test_the_walk_back_finds_the_meteor_hidden_after_the_hand_and_the_herd_call_is_right():
    """Held-out 9058 clip_060 (30 fps): the tracker misses the meteor in the four frames after the hand's
    last sighting and picks it up at frame 50; it left the hand at 46, 112 mm behind the line. Without
    the walk back the release was fitted past the line (a foul, disputed); walked back, the first free
    sighting is the release frame and the call is right."""
    label = load_label(FIT_AFTER_FREE.with_suffix(".json"))
    track, rig, calibration, config, frame_index = judge_launch_inputs(FIT_AFTER_FREE, label)[0]
    verdict, analysis = judge_launch(track, rig, calibration, config, frame_index)
    assert analysis.free_start_frame == label.release.frame
    assert verdict.herd_line_ok == label.herd_line_ok is True
    plain = judge_launch(*judge_launch_inputs(FIT_AFTER_FREE, label, judge=judge_without_walk_back(label))[0])[0]
    assert not plain.herd_line_ok


def test_the_walk_back_removes_a_phantom_table_bounce_made_by_arcs_across_a_gap():
    """Held-out 9047 clip_048 (60 fps): a lob straight into the box. Across the frames the tracker lost,
    the arcs put a table bounce at frame 105 and the call was void only by doubt; walked back, the
    flight holds no table bounce, and the launch is ruled void without dispute, as labelled."""
    label = load_label(PHANTOM_BOUNCE.with_suffix(".json"))
    track, rig, calibration, config, frame_index = judge_launch_inputs(PHANTOM_BOUNCE, label)[0]
    verdict, analysis = judge_launch(track, rig, calibration, config, frame_index)
    assert label.bounces_before_box == 0 and label.valid is False
    assert all(impact.surface != "table" for impact in analysis.flight.impacts)
    assert verdict.valid is False and not verdict.disputed
    plain = judge_launch(*judge_launch_inputs(PHANTOM_BOUNCE, label, judge=judge_without_walk_back(label))[0])[1]
    assert plain.flight.impacts[0].surface == "table"


def test_where_colour_finds_nothing_the_walk_back_takes_the_heat_maps_sighting_inside_its_gate():
    """Blank frames (nothing meteor-coloured, nothing moving): each frame's sighting can only come from
    `heat_near`, which is asked at the walk's prediction with its gate; a peak beyond the gate is none."""
    blank = np.full((240, 320, 3), 120, np.uint8)
    detector = MeteorDetector((320, 240), (220, 60, 30), (6.0, 14.0), scale=1)
    detector.update_background(detector.reduce(blank), None, 1.0)
    detector.update_full_background(blank, None, 1.0)
    asked = []

    def heat_near(index, x, y, reach_px):
        asked.append((index, x, y))
        true_x = 300.0 - 20.0 * (16 - index) + 2.0  # the meteor, 2 px off the walk's constant velocity
        peak = Detection(true_x, 100.0, 10.0, 1.0, 78.5, partial=True)
        far = index == 11  # the peak lies beyond the gate in that frame: no sighting
        return None if far or math.hypot(peak.x - x, peak.y - y) > reach_px else peak

    frames = [(index, blank) for index in range(9, 16)]
    found = walk_back(detector, frames, (16, 300.0, 100.0), (17, 320.0, 100.0), 10.0,
                      lambda *_: False, heat_near=heat_near)
    assert [index for index, _ in found] == [15, 14, 13, 12, 10, 9]  # frame 11 missed, the walk goes on
    assert all(abs(d.x - (302.0 - 20.0 * (16 - index))) < 1e-9 for index, d in found)
    assert [index for index, *_ in asked] == [15, 14, 13, 12, 11, 10, 9]


# labelled with the meteor's whole path, kept apart from the clips the heat map's training test reads
WHOLE_PATH = Path(__file__).resolve().parent / "clips" / "whole_path"
HELD_FROM_THE_START = WHOLE_PATH / "held_from_the_first_frame_9101_000.mp4"


def test_a_meteor_held_from_the_first_frame_is_found_in_its_hold_and_the_release_is_fitted_from_it():
    """Generated seed 9101 clip_000 (1280×720, 60 fps): the meteor is held still in the hand from the first
    frame to frame 6, so the background takes it in and the tracker first finds it at frame 7, as the push
    moves it. Walked back into the hold, the track starts at frame 0 with sightings on the meteor, and
    the release fit starts from the hold: the push it fits starts within two frames of the label's (the
    first frame the meteor moves a millimetre). Without the walk no hold is seen and there is no fit."""
    label = load_label(HELD_FROM_THE_START.with_suffix(".json"))
    track, rig, calibration, config, frame_index = judge_launch_inputs(HELD_FROM_THE_START, label)[0]
    truth = centres_px(label, known_centres_mm(label))
    hold = [i for i, frame in enumerate(track.frames) if frame < 7]
    assert [int(track.frames[i]) for i in hold] == list(range(7))
    for i in hold:  # on the meteor: within a fifth of its diameter (fingers cover part of it)
        true_x, true_y, diameter = truth[int(track.frames[i])]
        assert math.hypot(track.px[i][0] - true_x, track.px[i][1] - true_y) <= 0.2 * diameter, int(track.frames[i])
    verdict, analysis = judge_launch(track, rig, calibration, config, frame_index)
    fit = analysis.release
    assert fit.reason_kinds != ("no_fit",) and fit.fit_start_index == 0
    centres = [np.array(point.centre_mm) for point in label.meteor_track]
    steps_mm = [np.linalg.norm(later - earlier) for earlier, later in zip(centres, centres[1:], strict=False)]
    push_start = next(frame + 1 for frame, step in enumerate(steps_mm) if step > 1.0)
    assert abs(fit.t_throw_s * label.fps - push_start) <= 2.0
    assert verdict.herd_line_ok == label.herd_line_ok

    plain_track = judge_launch_inputs(HELD_FROM_THE_START, label, judge=judge_without_walk_back(label))[0][0]
    assert plain_track.frames[0] == 7
    plain = judge_launch(plain_track, rig, calibration, config, frame_index)[1]
    assert plain.release.reason_kinds == ("no_fit",)


def test_the_walk_into_the_hold_finds_nothing_where_no_meteor_sat_still():
    """A meteor-coloured disc that moves 6 px a frame before the track's first sighting was carried, not
    held: the walk stops at once (beyond the tremble gate) and, finding fewer than three, returns none. The
    same disc sitting still is found in every frame."""
    detector = MeteorDetector((320, 240), (220, 60, 30), (6.0, 14.0), scale=1)
    table = np.full((240, 320, 3), 120, np.uint8)
    detector.update_background(detector.reduce(table), None, 1.0)
    detector.update_full_background(table, None, 1.0)

    def disc_at(x: float) -> np.ndarray:
        frame = table.copy()
        cv2.circle(frame, (round(x), 100), 5, (30, 60, 220), -1)  # BGR of the meteor's RGB
        return frame

    carried = [(index, disc_at(200.0 - 6.0 * (10 - index))) for index in range(4, 10)]
    assert walk_into_hold(detector, carried, (10, 200.0, 100.0), 10.0) == []
    still = [(index, disc_at(200.0)) for index in range(4, 10)]
    found = walk_into_hold(detector, still, (10, 203.0, 100.0), 10.0)
    assert [index for index, _ in found] == [9, 8, 7, 6, 5, 4]
    assert all(abs(d.x - 200.0) < 0.5 and abs(d.y - 100.0) < 0.5 for _, d in found)


TAKEN_UP_FROM_THE_BOX = Path(__file__).resolve().parent / "clips" / "taken_up_from_the_box_9101_427.mp4"


def test_a_meteor_held_in_the_box_before_the_track_is_no_hold_to_throw_from():
    """Generated seed 9101 clip_427 (1280×720, 60 fps): the hand takes the meteor up in the box, carries it
    over the table and throws it from there. The still grip in the box is no hold (nobody throws from over
    the box): walked into, it made the carry out of the box a launch of its own, and the clip held two."""
    label = load_label(TAKEN_UP_FROM_THE_BOX.with_suffix(".json"))
    verdicts = judge_labelled(TAKEN_UP_FROM_THE_BOX, label).verdicts
    assert len(verdicts) == 1


def test_the_frames_kept_reach_a_second_back_the_older_ones_reduced_where_memory_is_short():
    settings = BacktrackSettings()
    assert frames_to_keep(settings, 60.0, 640 * 480 * 3) == (60, 60)  # a second, all as decoded
    assert frames_to_keep(settings, 60.0, 1280 * 720 * 3, scale=4) == (60, 23)  # 64 MB decoded, the rest reduced
    assert frames_to_keep(settings, 60.0, 1920 * 1080 * 3, scale=4) == (51, 10)  # 64 + 16 MB: 0.85 s


def test_kept_frames_older_than_the_decoded_ones_read_back_as_their_blocks_means():
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (8, 12, 3), dtype=np.uint8) for _ in range(6)]
    kept = KeptFrames(count=5, decoded=2, scale=2)
    for index, frame in enumerate(frames):
        kept.append(index, frame)
    assert [index for index, _ in kept.before(6)] == [1, 2, 3, 4, 5]
    newest = dict(kept.before(6))
    assert newest[5] is frames[5] and newest[4] is frames[4]  # the decoded ones, untouched
    block_means = cv2.resize(frames[1], (6, 4), interpolation=cv2.INTER_AREA)
    assert newest[1].shape == frames[1].shape
    assert np.array_equal(newest[1][::2, ::2], block_means) and np.array_equal(newest[1][1::2, 1::2], block_means)
    assert [len(run) for run in (kept.run_to(5, 3), kept.run_to(3, 3))] == [3, 3]
    assert kept.run_to(6, 3) is None and kept.run_to(1, 3) is None  # not all kept


BOUNCE_A_SECOND_BACK = Path(__file__).resolve().parent / "clips" / "bounce_a_second_back_9101_969.mp4"


def test_the_walk_back_reaches_a_table_bounce_older_than_the_last_half_second():
    """Generated seed 9101 clip_969 (1280×720, 30 fps, a dark brown meteor): the meteor leaves the hand at
    frame 19, bounces on the table at frame 28 and enters the box at 38, while the tracker follows
    something else; it first holds the meteor at frame 42. Walked back over the frames of the last
    second, the flight is found through the table bounce: the launch is valid. Over the last 0.4 s (12
    frames) the bounce lay beyond the frames kept, and the count stayed a lower bound short of one (the
    whole-picture search for the flight by the heat map, which now finds it earlier, left out)."""
    label = load_label(BOUNCE_A_SECOND_BACK.with_suffix(".json"))
    [verdict] = judge_labelled(BOUNCE_A_SECOND_BACK, label).verdicts
    assert verdict.bounces_before_box == label.bounces_before_box == 1
    assert verdict.valid and verdict.region == label.region

    config = JudgeConfig(launch_mode=label.launch_mode, backtrack=BacktrackSettings(seconds=0.4), heat_flight=None)
    short_reach = LaunchJudge(label.scene, config=config, fps=label.fps)
    [short] = judge_labelled(BOUNCE_A_SECOND_BACK, label, judge=short_reach).verdicts
    assert short.bounces_before_box == 0 and not short.valid


HAND_FOLLOWING_THROUGH = Path(__file__).resolve().parent / "clips" / "hand_following_through_9101_141.mp4"


def test_the_walk_back_goes_past_a_hand_following_the_meteor_through():
    """Generated seed 9101 clip_141 (640×480, 30 fps): the meteor leaves the hand at frame 5, bounces on
    the table at frames 8 and 18 and enters the box at 24, while the tracker holds something else; it
    first holds the meteor in the box, where the touch ring sees a hand by it at frame 30. The walk back
    goes past that lone touch (a hold is `touches_to_stop` touches in a row) to the hand at the flight's
    start: the table bounce is seen and the launch is valid. Stopped at the first touch, as the walk did
    before, it finds no flight, and the launch is void for want of a bounce."""
    label = load_label(HAND_FOLLOWING_THROUGH.with_suffix(".json"))
    [verdict] = judge_labelled(HAND_FOLLOWING_THROUGH, label).verdicts
    assert verdict.bounces_before_box >= 1 and verdict.valid
    assert verdict.outcome == label.outcome and verdict.region == label.region
    assert abs(verdict.release.frame - label.release.frame) <= 4

    [stopped] = judge_labelled(HAND_FOLLOWING_THROUGH, label, judge=judge_stopping_at_the_first_touch(label)).verdicts
    assert stopped.bounces_before_box == 0 and not stopped.valid
