"""`meteors-judge track-check`: the judge's sightings, frame by frame, against a label's `meteor_track`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from calibration.truth import load_label
from cli.main import main
from footage.generate import generate_clip
from footage.world import WIDE
from vision.likeness_fit import clip_examples
from vision.track_check import NoMeteorTrack, check_clip, phase_of, place_of, summarize

CLIP = "clip_003"  # wide world, seed 5: 640×480 at 30 fps, a meteor the judge follows through most of its flight


@pytest.fixture(scope="module")
def tracked(tmp_path_factory) -> Path:
    """A generated clip whose label has the meteor's centre in every frame."""
    folder = tmp_path_factory.mktemp("tracked")
    generate_clip(folder, 3, seed=5, world=WIDE, track_meteor=True)
    return folder / f"{CLIP}.json"


def test_a_sighting_is_on_the_meteor_within_one_and_a_half_diameters():
    assert place_of((103.0, 100.0), (100.0, 100.0, 10.0)) == "on_meteor"
    assert place_of((116.0, 100.0), (100.0, 100.0, 10.0)) == "elsewhere"
    assert place_of((105.0, 100.0), (100.0, 100.0, 1.0)) == "on_meteor"  # a tiny meteor: at least 6 px
    assert place_of(None, (100.0, 100.0, 10.0)) == "unseen"


def test_phases_follow_the_hold_the_flight_and_the_box(tracked):
    label = load_label(tracked)
    phases = phase_of(label)
    assert {phases[f] for f in range(label.release.frame)} == {"held"}
    assert {phases[f] for f in range(label.release.frame, label.entered_box_frame)} == {"flight"}
    assert {phases[f] for f in range(label.entered_box_frame, label.frame_count)} == {"after"}


def test_on_real_video_the_judge_is_counted_on_the_meteor_and_a_moved_track_is_not(tracked, tmp_path):
    counts = check_clip(tracked)
    flight = summarize(counts)["flight"]
    assert flight["on_meteor"] >= 0.5 and flight["frames"] > 20
    assert flight["judge_state"]["in_flight"] >= 0.5

    # the same video, the label's meteor moved 150 mm along the table: every sighting is now elsewhere
    label = load_label(tracked)
    moved = [point.model_copy(update={"centre_mm": (point.centre_mm[0], point.centre_mm[1] + 150.0,
                                                    point.centre_mm[2])}) for point in label.meteor_track]
    (tmp_path / tracked.name).write_text(label.model_copy(update={"meteor_track": moved}).to_json(), encoding="utf-8")
    (tmp_path / label.video).symlink_to(tracked.parent / label.video)
    moved_counts = check_clip(tmp_path / tracked.name)
    assert moved_counts["flight", "on_meteor"] == 0
    assert moved_counts["flight", "elsewhere"] >= counts["flight", "on_meteor"]


def test_a_tracked_label_teaches_the_likeness_model_the_held_meteor(tracked):
    examples = clip_examples(tracked)
    assert examples.held.any() and (examples.held & examples.is_meteor).any()
    assert (~examples.held & examples.is_meteor).any()


def test_track_check_prints_the_phases_and_says_what_it_needs(tracked, tmp_path, capsys):
    out = tmp_path / "figures.json"
    assert main(["track-check", str(tracked.parent), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 clips" in printed and "flight" in printed and "on meteor" in printed
    figures = json.loads(out.read_text())
    assert figures["clips"] == 1 and figures["phases"]["flight"]["on_meteor"] >= 0.5

    plain = Path(__file__).resolve().parents[1] / "narrow_clips"
    assert main(["track-check", str(plain), "--limit", "1"]) == 2
    assert "--track-meteor" in capsys.readouterr().err
    with pytest.raises(NoMeteorTrack):
        check_clip(plain / "clip_000.json")


def test_a_clip_whose_video_cannot_be_read_is_left_out_with_a_warning(tracked, tmp_path, capsys):
    label = load_label(tracked)
    (tmp_path / tracked.name).write_text(label.to_json(), encoding="utf-8")
    (tmp_path / label.video).symlink_to(tracked.parent / label.video)
    broken = label.model_copy(update={"video": "broken.mp4"})
    (tmp_path / "broken.json").write_text(broken.to_json(), encoding="utf-8")
    (tmp_path / "broken.mp4").write_bytes(b"\x00" * 4096)  # an interrupted copy
    out = tmp_path / "figures.json"
    assert main(["track-check", str(tmp_path), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "1 clips" in captured.out
    assert "warning" in captured.err and "broken.mp4" in captured.err and "clip left out" in captured.err
    figures = json.loads(out.read_text())
    assert figures["clips"] == 1 and len(figures["unreadable"]) == 1 and figures["phases"]["flight"]["frames"] > 20
