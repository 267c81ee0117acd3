"""The learned meteor detector (`vision.heatmap`): the shipped model on real video it was not fitted on,
its input, its peaks, its errors, and `train-heatmap` writing a model OpenCV runs."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from calibration.truth import load_label
from calibration.truth_path import centres_px
from cli.main import main
from cli.options import tracked_clips
from footage.generate import generate_clip
from footage.world import WIDE
from vision.doubt_fit import is_held_out
from vision.heatmap import (
    CHANNELS,
    FRAMES,
    SHIPPED_MODEL,
    HeatmapModelError,
    heatmap,
    input_planes,
    peak_in_window,
    peaks,
    reduction_for,
)
from vision.heatmap_fit import HARD_PER_FRAME, clip_windows, collect_clip, held_out_reports, window_sighting
from vision.track_check import PHASES, PLACES, check_clip, phase_of
from vision.video import read_frames

CLIPS = Path(__file__).resolve().parent / "clips"
# seed 9104 (the shipped model was fitted on seed 9101): the meteor followed out of the hand by the judge
FOLLOWED = CLIPS / "followed_out_of_hand_9104_070.json"


@pytest.fixture(scope="module")
def tracked(tmp_path_factory) -> Path:
    """A generated clip (wide world, seed 5) whose label has the meteor's centre in every frame."""
    folder = tmp_path_factory.mktemp("heatmap")
    generate_clip(folder, 3, seed=5, world=WIDE, track_meteor=True)
    return folder / "clip_003.json"


def _best_peak_places(label_path: Path) -> dict[str, list[str]]:
    """Per phase of the meteor, where the shipped detector's best peak lies in the frames (track-check's
    counts: on the meteor, elsewhere, unseen)."""
    counts = check_clip(label_path, heatmap=True)
    return {phase: [place for place in PLACES for _ in range(counts[phase, f"heatmap_{place}"])]
            for phase in PHASES}


@pytest.mark.parametrize("label_path", [FOLLOWED], ids=["seed 9104 clip 70"])
def test_the_shipped_model_finds_the_flying_and_resting_meteor_in_video_it_was_not_fitted_on(label_path):
    places = _best_peak_places(label_path)
    flight, after = places["flight"], places["after"]
    assert len(flight) >= 10
    assert flight.count("on_meteor") >= 0.8 * len(flight), flight
    assert after.count("on_meteor") >= 0.8 * len(after), after


def test_the_shipped_model_finds_the_meteor_where_it_is_and_nowhere_else(tracked, tmp_path):
    """The same video, its label's meteor moved 150 mm along the table: the peaks that were on the meteor
    are now elsewhere (they follow the picture, not the label)."""
    places = _best_peak_places(tracked)
    assert places["flight"].count("on_meteor") >= 0.6 * len(places["flight"]), places["flight"]
    label = load_label(tracked)
    moved = [point.model_copy(update={"centre_mm": (point.centre_mm[0], point.centre_mm[1] + 150.0,
                                                    point.centre_mm[2])}) for point in label.meteor_track]
    (tmp_path / tracked.name).write_text(label.model_copy(update={"meteor_track": moved}).to_json(), encoding="utf-8")
    (tmp_path / label.video).symlink_to(tracked.parent / label.video)
    assert _best_peak_places(tmp_path / tracked.name)["flight"].count("on_meteor") == 0


def test_the_input_is_three_frames_and_the_meteors_colour():
    frames = [np.full((8, 10, 3), value, np.uint8) for value in (0, 51, 255)]
    planes = input_planes(frames, (255, 0, 51))
    assert planes.shape == (CHANNELS, 8, 10) and planes.dtype == np.float32
    assert planes[0:3].max() == 0.0 and planes[3:6].min() == pytest.approx(0.2) and planes[6:9].min() == 1.0
    assert planes[9:12, 0, 0].tolist() == pytest.approx([0.2, 0.0, 1.0])  # BGR of the meteor's RGB
    with pytest.raises(ValueError, match="needs 3 frames"):
        input_planes(frames[:2], (255, 0, 51))


def test_the_reduction_keeps_the_meteor_three_pixels_across():
    assert reduction_for(5.0) == 1 and reduction_for(6.0) == 2 and reduction_for(12.0) == 4 and reduction_for(40.0) == 4


def test_peaks_are_local_maxima_apart_highest_first():
    heat = np.zeros((40, 40), np.float32)
    heat[10, 10], heat[11, 11], heat[30, 5], heat[20, 35] = 0.9, 0.8, 0.5, 0.7
    assert peaks(heat, 5) == [(10.0, 10.0, pytest.approx(0.9)), (35.0, 20.0, pytest.approx(0.7)),
                              (5.0, 30.0, pytest.approx(0.5))]
    assert peaks(heat, 1) == [(10.0, 10.0, pytest.approx(0.9))]
    assert peaks(np.zeros((5, 5), np.float32), 3) == []


def test_a_missing_or_unreadable_model_is_a_clear_error(tmp_path):
    planes = input_planes([np.zeros((16, 16, 3), np.uint8)] * FRAMES, (200, 80, 40))
    with pytest.raises(HeatmapModelError, match="heat-map model not found"):
        heatmap(planes, tmp_path / "missing.onnx")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a network")
    with pytest.raises(HeatmapModelError, match="not a heat-map model OpenCV can read"):
        heatmap(planes, broken)


def test_track_check_places_the_learned_detectors_peak_beside_the_judges_track(tracked, tmp_path, capsys):
    out = tmp_path / "figures.json"
    assert main(["track-check", str(tracked.parent), "--heatmap", "--out", str(out)]) == 0
    assert "the learned detector's best peak" in capsys.readouterr().out
    flight = json.loads(out.read_text())["phases"]["flight"]
    assert flight["heatmap"]["on_meteor"] >= 0.6
    assert flight["heatmap"]["frames"] == flight["frames"]  # the meteor flies well after the clip's first frames


def test_train_heatmap_writes_a_model_and_weighs_it_against_the_shipped_one_on_held_out_clips(
    tracked, tmp_path, capsys
):
    pytest.importorskip("torch", reason="the optional train extra (PyTorch, ONNX) is not installed")
    pytest.importorskip("onnx", reason="the optional train extra (PyTorch, ONNX) is not installed")
    model = tmp_path / "model.onnx"
    # a hash of the names holds the two seed-9104 clips out at 0.4 (0.28, 0.29) and fits on clip_003 (0.46)
    assert main(["train-heatmap", str(tracked.parent), str(CLIPS), "--out", str(model), "--epochs", "2",
                 "--held-out", "0.4"]) == 0
    report = json.loads(capsys.readouterr().out.split("\n", 1)[1])
    assert (report["fitted_clips"], report["held_out_clips"]) == (1, 2)
    assert 0 < report["hard_windows"] <= HARD_PER_FRAME * report["windows"] / 2  # the second epoch's extra windows
    assert set(report["held_out"]) == {"held", "flight", "after"} and report["held_out"]["flight"]["frames"] > 10
    # beside it, the shipped model's figures on the same held-out frames: the ones a new model has to beat
    held_out_clips = [path for path in tracked_clips([str(CLIPS)], None) if is_held_out(path.stem, 0.4)]
    assert report["held_out_shipped_model"] == held_out_reports(held_out_clips, {"shipped": SHIPPED_MODEL})["shipped"]
    label = load_label(tracked)
    frames = [frame for index, frame in read_frames(tracked.parent / label.video) if index < FRAMES]
    heat = heatmap(input_planes([frame[::2, ::2] for frame in frames], label.scene.meteor.rgb), model)
    assert heat.shape == (label.frame_size[1] // 2, label.frame_size[0] // 2)
    assert np.isfinite(heat).all() and 0.0 <= heat.min() <= heat.max() <= 1.0


def test_train_heatmap_needs_tracked_labels(tmp_path, capsys):
    plain = Path(__file__).resolve().parents[1] / "narrow_clips"
    assert main(["train-heatmap", str(plain), "--out", str(tmp_path / "model.onnx")]) == 2
    assert "--track-meteor" in capsys.readouterr().err


def test_a_window_round_a_rough_prediction_finds_the_flying_meteor():
    """In the flight of a clip the model was not fitted on, a window centred 30 px off the meteor (a
    tracker's prediction gone astray) has its peak within half a diameter of the meteor's centre in
    every frame, as close as a window centred on the meteor gets."""
    label = load_label(FOLLOWED)
    truths = centres_px(label, {point.frame: point.centre_mm for point in label.meteor_track})
    phases = phase_of(label)
    scale = reduction_for(float(np.median([truth[2] for truth in truths.values()])))
    recent: list[np.ndarray] = []
    off, centred = [], []
    for index, frame in read_frames(FOLLOWED.parent / label.video):
        recent = [*recent[-(FRAMES - 1):], frame]
        if phases.get(index) != "flight" or len(recent) < FRAMES:
            continue
        x, y, diameter = truths[index]
        for centre, errors in (((x + 30.0, y - 30.0), off), ((x, y), centred)):
            peak = peak_in_window(recent, centre, label.scene.meteor.rgb, scale)
            errors.append(np.inf if peak is None else float(np.hypot(peak[0] - x, peak[1] - y)) / diameter)
    assert len(off) >= 10
    assert max(off) < 0.5, off
    assert np.median(off) <= np.median(centred) + 0.05


def test_a_window_at_the_frames_edge_stays_inside_the_picture():
    frames = [np.zeros((200, 300, 3), np.uint8) for _ in range(FRAMES)]
    for frame in frames:
        frame[4:10, 280:286] = (40, 80, 200)
    peak = peak_in_window(frames, (299.0, 0.0), (200, 80, 40), 1)
    assert peak is not None and 0.0 <= peak[0] < 300.0 and 0.0 <= peak[1] < 200.0


def test_hard_windows_hold_what_the_network_takes_for_the_meteor_elsewhere(tracked):
    clip = collect_clip(tracked)
    hard = clip_windows(clip, np.random.default_rng(0), SHIPPED_MODEL)
    assert 0 < len(hard.planes) <= HARD_PER_FRAME * len(clip.centres)
    # run on its window alone, the network's highest peak is off the meteor in nearly all of them, and
    # strong: in random windows it is off in half (those without the meteor) and faint (median 0.07)
    off_meteor_peaks = []
    for planes, (x, y) in zip(hard.planes, hard.centres, strict=True):
        best_x, best_y, probability = peaks(heatmap(planes.astype(np.float32) / 255.0, SHIPPED_MODEL), 1)[0]
        if not math.hypot(best_x - x, best_y - y) <= 3.0:  # NaN: the meteor is out of the picture
            off_meteor_peaks.append(probability)
    assert len(off_meteor_peaks) >= 0.8 * len(hard.planes)
    assert np.median(off_meteor_peaks) >= 0.2


def test_the_held_out_check_asks_the_network_what_the_judge_asks_of_it():
    # the seed-9104 clips (not fitted on): in a window round a prediction near the meteor, as the
    # judge runs it, the shipped model gives a sighting on the flying meteor in most frames, and
    # hardly ever one elsewhere
    clips = sorted(CLIPS.glob("*_9104_*.json"))
    flight = held_out_reports(clips, {"shipped": SHIPPED_MODEL})["shipped"]["flight"]
    assert flight["window_sighting_on_meteor"] >= 0.6
    assert flight["window_sighting_elsewhere"] <= 0.05


def test_a_window_sighting_lies_within_reach_of_the_prediction(tracked):
    clip = collect_clip(tracked)
    frame, (x, y, diameter) = next((frame, centre) for frame, centre in clip.centres.items()
                                   if clip.phases[frame] == "flight")
    planes = clip.planes(frame)
    assert math.dist(window_sighting(planes, (x + diameter, y), diameter, SHIPPED_MODEL), (x, y)) <= diameter
    # the same meteor five diameters from the prediction is beyond the judge's reach: no sighting
    assert window_sighting(planes, (x + 5 * diameter, y), diameter, SHIPPED_MODEL) is None
