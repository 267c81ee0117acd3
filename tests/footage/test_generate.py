"""The generator: deterministic labels, valid output, a working contact sheet and command line."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from calibration.truth import load_label
from footage.generate import generate_clip

# index 3 of the case mix is a 640×480 clip (fast to render); 7 is 640×480 at 30 fps
FAST = 7


def test_same_seed_gives_byte_identical_labels(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    generate_clip(a, FAST, seed=5)
    generate_clip(b, FAST, seed=5)
    text_a = (a / f"clip_{FAST:03d}.json").read_text()
    assert text_a == (b / f"clip_{FAST:03d}.json").read_text()
    label = load_label(a / f"clip_{FAST:03d}.json")
    assert label.frame_size == (640, 480)
    assert label.outcome == "water" and label.valid


def test_contact_sheet_and_cli(tmp_path: Path):
    import argparse

    from cli.samples import add_arguments, run

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert run(parser.parse_args(["generate", "--out", str(tmp_path), "--n", "1", "--start", "3", "--seed", "2",
                                  "--workers", "1", "--quiet"])) == 0
    assert (tmp_path / "clip_003.mp4").exists() and (tmp_path / "index.json").exists()
    out = tmp_path / "sheet.png"
    assert run(parser.parse_args(["sheet", str(tmp_path / "clip_003.mp4"), "--out", str(out)])) == 0
    assert out.stat().st_size > 10_000


@pytest.mark.parametrize("seed", [1])
def test_a_different_seed_gives_a_different_scene(tmp_path: Path, seed: int):
    generate_clip(tmp_path, FAST, seed=seed)
    other = tmp_path / "o"
    other.mkdir()
    generate_clip(other, FAST, seed=seed + 1)
    assert (tmp_path / f"clip_{FAST:03d}.json").read_text() != (other / f"clip_{FAST:03d}.json").read_text()


def test_a_simulated_rest_that_still_creeps_is_redrawn_not_fatal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Seed 9007, clip 123: a candidate launch is "still" to the simulator but creeps at its end; the
    label's rest could not be labelled, and generation used to stop with an AssertionError. The
    launch is solved without rendering (the video is not what this checks)."""
    import footage.generate as generate

    written = {}

    def no_video(path, renderer, plan, timing, rng, r, look=None):
        written["frames"] = timing.frame_count

    monkeypatch.setattr(generate, "_write_video", no_video)
    monkeypatch.setattr(generate, "count_frames", lambda path: written["frames"])
    monkeypatch.setattr(generate, "markers_detected", lambda video, label, **options: True)
    info = generate.generate_clip(tmp_path, 123, seed=9007)
    label = load_label(tmp_path / info["label"])
    assert label.rest is not None and label.frame_count == written["frames"]


def _signed_from_herd_line(label, point_xy) -> float:
    """Signed distance from the label's herd line, oriented as the label's release distance."""
    import numpy as np

    start, end = np.asarray(label.scene.herd_line_mm, dtype=float)
    normal = np.array([start[1] - end[1], end[0] - start[0]]) / np.linalg.norm(end - start)
    release = np.asarray(label.release.table_mm)
    if (release - start) @ normal * label.release.herd_line_signed_mm < 0:
        normal = -normal
    return float((np.asarray(point_xy) - start) @ normal)


@pytest.mark.parametrize(("index", "seed"), [(FAST, 5), (138, 9011), (11, 0)])
def test_the_meteor_flies_from_the_launchers_side_of_the_herd_line(tmp_path: Path, index: int, seed: int):
    """A rim lob (seed 9011 clip 138; bundled clip 11) was thrown back along the box from its far end:
    released between the box and the herd line, its label called the box's side the launcher's (the
    judge, rightly, disagreed). The meteor now flies from the launcher's side, as in every other case:
    it rests beyond the line from its release."""
    generate_clip(tmp_path, index, seed=seed)
    label = load_label(tmp_path / f"clip_{index:03d}.json")
    assert label.rest is not None
    assert _signed_from_herd_line(label, label.rest.table_mm) < label.release.herd_line_signed_mm


def test_the_narrow_world_still_draws_the_narrow_clips_exactly(tmp_path: Path):
    """`--world narrow` keeps the original generator: a bundled narrow clip's label comes out byte for byte."""
    bundled = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips" / f"clip_{FAST:03d}.json"
    generate_clip(tmp_path, FAST, seed=0)
    assert (tmp_path / bundled.name).read_text() == bundled.read_text()


def test_a_tracked_label_holds_the_meteor_in_every_frame_and_the_same_video(tmp_path: Path):
    """`--track-meteor` adds where the meteor's centre was in each frame, held until the release frame,
    at the labelled release point and rest, and through each labelled table bounce; the clip and the
    rest of the label are unchanged."""
    from calibration.truth_path import held_frames, rest_centre_mm
    from footage.world import WIDE

    plain, tracked = tmp_path / "plain", tmp_path / "tracked"
    plain.mkdir()
    tracked.mkdir()
    generate_clip(plain, FAST, seed=3, world=WIDE)
    generate_clip(tracked, FAST, seed=3, world=WIDE, track_meteor=True)
    name = f"clip_{FAST:03d}"
    assert (plain / f"{name}.mp4").read_bytes() == (tracked / f"{name}.mp4").read_bytes()
    label, with_track = load_label(plain / f"{name}.json"), load_label(tracked / f"{name}.json")
    assert not label.meteor_track and "meteor_track" not in (plain / f"{name}.json").read_text()
    assert with_track.model_copy(update={"meteor_track": []}) == label

    track = with_track.meteor_track
    assert [point.frame for point in track] == list(range(label.frame_count))
    assert held_frames(with_track) == set(range(label.release.frame))
    centres = {point.frame: np.array(point.centre_mm) for point in track}
    release = label.release
    assert np.allclose(centres[release.frame], [*release.table_mm, release.height_mm], atol=0.01)
    for bounce in (b for b in label.bounces if b.surface == "table"):
        # the bounce falls within its frame: the track passes it within one frame's travel
        travel = np.linalg.norm(centres[bounce.frame + 1][:2] - centres[bounce.frame - 1][:2])
        assert np.linalg.norm(centres[bounce.frame][:2] - bounce.table_mm) <= travel
    assert label.rest is not None
    assert np.linalg.norm(centres[label.frame_count - 1] - rest_centre_mm(label)) < 1.0
