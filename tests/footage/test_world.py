"""The wide world: what it draws, that it is reproducible, H.264 output, and the gallery and variety commands."""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.truth import load_label
from cli.errors import UserError
from cli.samples import add_arguments, run
from footage.generate import generate_clip
from footage.video_writer import ClipWriter
from footage.world import METEOR_KINDS, MOTIONS, START_KINDS, WIDE, choose_meteor, draw_look, saturation
from vision.video import read_frames

ROOT = Path(__file__).resolve().parents[2]
NARROW_SET = ROOT / "tests" / "narrow_clips"
VGA_30 = 7  # index 7 of the case mix: a 640×480 clip at 30 fps (quick to render)


def _looks(n: int = 400):
    return [draw_look(np.random.default_rng([11, i])) for i in range(n)]


def test_the_wide_world_draws_every_kind_of_meteor_start_and_motion():
    looks = _looks()
    assert {look.meteor_kind for look in looks} == set(METEOR_KINDS)
    assert {look.start for look in looks} == set(START_KINDS)
    assert {look.motion.name for look in looks} == set(MOTIONS)
    assert {look.table.style for look in looks} == {"wood", "cloth", "mat", "felt", "pattern", "laminate"}
    assert {len(look.light.lamps) for look in looks} == {1, 2, 3}
    assert {look.arm.handed for look in looks} == {1, -1}
    assert any(look.arm.two_handed for look in looks) and any(look.arm.fingers == 3 for look in looks)
    assert any(look.small_box_markers for look in looks) and not all(look.small_box_markers for look in looks)
    lamps = [lamp for look in looks for lamp in look.light.lamps]
    assert all(abs(np.linalg.norm(lamp.direction) - 1) < 1e-9 and lamp.direction[2] > 0 for lamp in lamps)


@pytest.mark.parametrize("kind", ["white", "light_grey", "dark_grey", "near_black", "beige"])
def test_low_colour_meteors_have_low_saturation(kind: str):
    looks = [look for look in _looks() if look.meteor_kind == kind]
    rgbs = [choose_meteor(np.random.default_rng(i), look, False).rgb for i, look in enumerate(looks)]
    assert rgbs and all(saturation(rgb) < 0.35 for rgb in rgbs)
    if kind == "white":
        assert all(min(rgb) > 200 for rgb in rgbs)
    if kind == "near_black":
        assert all(max(rgb) < 60 for rgb in rgbs)


def test_a_meteor_like_the_table_takes_the_tables_colour():
    look = next(look for look in _looks() if look.meteor_kind == "like_table")
    rgb = choose_meteor(np.random.default_rng(0), look, False).rgb
    table_rgb = look.table.base_bgr[::-1]
    assert np.abs(np.array(rgb) - np.array(table_rgb)).max() <= 0.1 * 255 + 1


def test_h264_clips_decode_frame_for_frame_and_quality_sets_their_size(tmp_path: Path):
    rng = np.random.default_rng(0)
    frames = [cv2.GaussianBlur(rng.integers(0, 255, (240, 320, 3), dtype=np.uint8), (0, 0), 2) for _ in range(12)]
    sizes = {}
    for crf in (18, 32):
        path = tmp_path / f"q{crf}.mp4"
        writer = ClipWriter(path, 30.0, (320, 240), crf=crf)
        for frame in frames:
            writer.write(frame)
        writer.close()
        cap = cv2.VideoCapture(str(path))
        fourcc = int(cap.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little").decode().lower()
        cap.release()
        decoded = [frame for _, frame in read_frames(path)]
        assert fourcc in ("avc1", "h264") and len(decoded) == len(frames)
        assert np.abs(decoded[5].astype(int) - frames[5]).mean() < 12
        sizes[crf] = path.stat().st_size
    assert sizes[18] > sizes[32]


def test_a_wide_world_clip_is_reproducible_and_says_what_it_drew(tmp_path: Path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    info = generate_clip(a, VGA_30, seed=21, world=WIDE)
    generate_clip(b, VGA_30, seed=21, world=WIDE)
    name = f"clip_{VGA_30:03d}.json"
    assert (a / name).read_text() == (b / name).read_text()
    label = load_label(a / name)
    assert label.frame_size == (640, 480) and label.fps == 30
    assert info["world"] == "wide" and info["start"] in START_KINDS and info["motion"] in MOTIONS
    assert info["meteor_kind"] in METEOR_KINDS
    cap = cv2.VideoCapture(str(a / info["video"]))
    assert int(cap.get(cv2.CAP_PROP_FOURCC)).to_bytes(4, "little").decode().lower() in ("avc1", "h264")
    cap.release()


def _samples(*argv: str) -> int:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return run(parser.parse_args(list(argv)))


def test_the_gallery_tiles_one_frame_of_every_clip(tmp_path: Path):
    out = tmp_path / "gallery.png"
    assert _samples("gallery", str(NARROW_SET), "--out", str(out), "--columns", "6", "--limit", "12") == 0
    image = cv2.imread(str(out))
    assert image.shape[1] == 6 * 260 and image.shape[0] == 2 * (146 + 34)
    tiles = [image[:146, i * 260:(i + 1) * 260] for i in range(6)]
    assert all(tile.std() > 10 for tile in tiles)  # a frame in every tile, not a blank


def test_the_variety_check_reads_labels_and_fails_the_narrow_world(capsys):
    assert _samples("variety", str(NARROW_SET)) == 1
    out = capsys.readouterr().out
    assert "MISS  low-colour meteors" in out and "ok    640x480" in out


@pytest.mark.parametrize("action", ["gallery", "variety"])
def test_a_missing_folder_is_a_users_error(tmp_path: Path, action: str):
    extra = ["--out", str(tmp_path / "x.png")] if action == "gallery" else []
    with pytest.raises(UserError, match="not a folder"):
        _samples(action, str(tmp_path / "nowhere"), *extra)


def test_an_index_counts_each_start_of_the_bundled_wide_set():
    index = json.loads((ROOT / "sample_videos" / "index.json").read_text())
    starts = Counter(clip["start"] for clip in index["clips"])
    assert starts["empty"] < len(index["clips"]) / 2  # most clips do not begin on an empty table
