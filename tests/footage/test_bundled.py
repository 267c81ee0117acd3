"""The bundled clips: sample_videos/ (the wide world) and tests/narrow_clips/ (the original narrow world).

Labels validate, the sets cover every case, the wide set shows the wide world's variety, and the
truth agrees with the pixels: markers where the scene says, the meteor where the label says.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.truth import LaunchTruth, load_label
from calibration.truth_path import rest_centre_mm
from footage.variety import variety_checks

ROOT = Path(__file__).resolve().parents[2]
WIDE = ROOT / "sample_videos"
NARROW = ROOT / "tests" / "narrow_clips"
LABELS = sorted(WIDE.glob("clip_*.json")) + sorted(NARROW.glob("clip_*.json"))


def _id(path: Path) -> str:
    return f"{'wide' if path.parent == WIDE else 'narrow'}-{path.stem}"


@pytest.mark.parametrize("folder", [WIDE, NARROW], ids=["wide", "narrow"])
def test_the_set_is_large_and_small_enough(folder: Path):
    labels = sorted(folder.glob("clip_*.json"))
    assert len(labels) >= 30
    total = sum(p.stat().st_size for p in folder.iterdir() if p.is_file())
    assert total <= 30 * 1024 * 1024
    index = json.loads((folder / "index.json").read_text())
    assert [c["label"] for c in index["clips"]] == [p.name for p in labels]


@pytest.mark.parametrize("folder", [WIDE, NARROW], ids=["wide", "narrow"])
def test_the_mix_covers_every_outcome_and_foul(folder: Path):
    labels = [load_label(p) for p in sorted(folder.glob("clip_*.json"))]
    hit = {lab.dinosaur for lab in labels if lab.outcome == "dinosaur"}
    assert hit == {"brontosaurus", "pterodactyl", "trex", "stegosaurus", "triceratops", "velociraptor"}
    assert any(lab.outcome == "water" for lab in labels)
    assert any(lab.region == "outside" and lab.rest is not None for lab in labels)
    assert any(lab.region == "rim" for lab in labels)
    assert any(lab.bounces_before_box == 0 and lab.entered_box_frame is not None for lab in labels)
    assert any(lab.bounces_before_box == 2 and lab.valid for lab in labels)
    assert any(not lab.herd_line_ok for lab in labels)
    assert any(abs(lab.release.herd_line_signed_mm) < 20 and lab.herd_line_ok for lab in labels)
    assert any(abs(lab.release.herd_line_signed_mm) < 20 and not lab.herd_line_ok for lab in labels)
    assert any(lab.entered_box_frame is not None and lab.region == "outside" for lab in labels)
    assert any(lab.rest is None for lab in labels)
    assert {lab.launch_mode for lab in labels} == {"standard", "hard_velociraptor"}
    first = labels[0]
    assert first.frame_size == (1280, 720) and first.fps == 60 and first.valid and first.outcome == "dinosaur"


def test_the_bundled_set_shows_the_wide_worlds_variety():
    labels = [load_label(p) for p in sorted(WIDE.glob("clip_*.json"))]
    failed = [f"{c.name}: {c.measured}" for c in variety_checks(labels) if not c.ok]
    assert not failed
    index = json.loads((WIDE / "index.json").read_text())
    assert index["world"] == "wide"
    shown = {key: {clip[key] for clip in index["clips"]} for key in ("start", "motion", "table", "meteor_kind")}
    assert {"empty", "in_hand", "quick", "pickup"} <= shown["start"]
    assert len(shown["motion"]) >= 5 and len(shown["table"]) >= 4 and len(shown["meteor_kind"]) >= 6


@pytest.mark.parametrize("path", LABELS, ids=_id)
def test_label_validates_and_is_consistent(path: Path):
    label = LaunchTruth.model_validate(json.loads(path.read_text()))
    assert label.video == path.with_suffix(".mp4").name
    assert (path.parent / label.video).exists()
    assert label.herd_line_ok == (label.release.herd_line_signed_mm >= 0)
    assert label.bounces_before_box == sum(1 for b in label.bounces if b.surface == "table" and b.before_box)
    if label.rest is not None:
        assert label.rest.frame <= label.frame_count - 1 - round(0.2 * label.fps)


def _frames(video: Path, wanted: set[int]) -> tuple[dict[int, np.ndarray], int]:
    """The wanted frames (index -1: the last one) and how many frames OpenCV decodes."""
    cap = cv2.VideoCapture(str(video))
    out: dict[int, np.ndarray] = {}
    n = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        if n in wanted:
            out[n] = frame
        out[-1] = frame
        n += 1
    cap.release()
    return out, n


def _markers_found(frame: np.ndarray) -> dict[int, np.ndarray]:
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2) for i, c in zip(ids.reshape(-1), corners, strict=True)}


def _patch(frame: np.ndarray, uv: np.ndarray, half: int) -> np.ndarray:
    u, v = int(round(uv[0])), int(round(uv[1]))
    return frame[v - half:v + half + 1, u - half:u + half + 1].astype(float)


def meteor_drawn_at(label: LaunchTruth, frame: np.ndarray, reference: np.ndarray, centre: np.ndarray) -> bool:
    """A meteor-sized core at `centre` (table mm, 3D) in `frame` differs from the same pixels in `reference`,
    a frame of the clip where the meteor is elsewhere: in brightness or in texture, whatever its colour."""
    camera = label.camera
    uv = camera.project(centre[None, :])[0]
    rho = camera.apparent_diameter_px(centre[None, :], label.scene.meteor.diameter_mm)[0] / 2
    half = max(1, int(rho * 0.5))
    now, before = _patch(frame, uv, half), _patch(reference, uv, half)
    if now.size == 0 or now.shape != before.shape:
        return False
    mean_change = np.abs(now.mean(axis=(0, 1)) - before.mean(axis=(0, 1))).sum()
    texture_change = abs(now.std() - before.std())
    return bool(mean_change > 12 or texture_change > 6)


def _reference_frame(label: LaunchTruth) -> int:
    """A frame with the meteor far from its rest: the release frame."""
    return label.release.frame


@pytest.mark.parametrize("path", LABELS, ids=_id)
def test_truth_agrees_with_pixels(path: Path):
    label = load_label(path)
    frames, n = _frames(path.with_suffix(".mp4"), {0, _reference_frame(label)})
    assert n == label.frame_count
    camera = label.camera
    assert camera is not None
    table = {m.id: camera.project(np.array(m.corners_mm)) for m in label.scene.table_markers}

    def expected_in(frame_index: int) -> dict[int, np.ndarray]:
        """Every marker's corners where the label puts them in a frame (a moving box by its box track)."""
        pose = label.box_pose_at(frame_index)
        box = {m.id: camera.project(np.column_stack([pose.box_to_table(np.array(m.corners_mm)),
                                                     np.full(4, m.z_mm)]))
               for m in label.scene.box.markers}
        return {**table, **box}

    narrow = path.parent == NARROW
    # the narrow world shows every marker in frame 0; the wide world each table marker in the first or
    # last frame (a hand may cover one at first), and any box marker ArUco reads where the scene says
    views = [(_markers_found(frames[0]), expected_in(0))]
    if not narrow:
        views.append((_markers_found(frames[-1]), expected_in(label.frame_count - 1)))
    for marker_id in expected_in(0):
        errors = [np.linalg.norm(found[marker_id] - want[marker_id], axis=1).max() for found, want in views
                  if marker_id in found]
        if not errors:
            assert not narrow and marker_id not in table, f"marker {marker_id} not detected"
            continue
        err = min(errors)
        assert err < 2.0, f"marker {marker_id} corners off by {err:.2f} px"
    if label.rest is not None:
        release_xyz = np.array([*label.release.table_mm, label.release.height_mm])
        if np.linalg.norm(rest_centre_mm(label)[:2] - release_xyz[:2]) > 4 * label.scene.meteor.diameter_mm:
            assert meteor_drawn_at(label, frames[-1], frames[_reference_frame(label)], rest_centre_mm(label))
            assert meteor_drawn_at(label, frames[_reference_frame(label)], frames[-1], release_xyz)


def test_the_pixel_check_fails_on_a_rest_labelled_beside_the_meteor():
    """The check above can fail: a rest moved by three diameters is found empty."""
    path = next(p for p in sorted(WIDE.glob("clip_*.json")) if load_label(p).region == "outside"
                and load_label(p).rest is not None)
    label = load_label(path)
    frames, _ = _frames(path.with_suffix(".mp4"), {_reference_frame(label)})
    right = rest_centre_mm(label)
    moved = right + np.array([3 * label.scene.meteor.diameter_mm, 0.0, 0.0])
    assert meteor_drawn_at(label, frames[-1], frames[_reference_frame(label)], right)
    assert not meteor_drawn_at(label, frames[-1], frames[_reference_frame(label)], moved)
