"""The bundled sample_videos/: labels validate, and truth agrees with the pixels."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.geometry import BoxPose
from footage.labels import rest_center
from vision.truth import LaunchTruth, load_label

SAMPLES = Path(__file__).resolve().parents[2] / "sample_videos"
LABELS = sorted(SAMPLES.glob("clip_*.json"))

pytestmark = pytest.mark.skipif(not LABELS, reason="no bundled sample clips")


def test_the_set_is_large_and_small_enough():
    assert len(LABELS) >= 24
    total = sum(p.stat().st_size for p in SAMPLES.iterdir() if p.is_file())
    assert total <= 30 * 1024 * 1024
    index = json.loads((SAMPLES / "index.json").read_text())
    assert [c["label"] for c in index["clips"]] == [p.name for p in LABELS]


def test_the_mix_covers_every_outcome_and_foul():
    labels = [load_label(p) for p in LABELS]
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


@pytest.mark.parametrize("path", LABELS, ids=lambda p: p.stem)
def test_label_validates_and_is_consistent(path: Path):
    label = LaunchTruth.model_validate(json.loads(path.read_text()))
    assert label.video == path.with_suffix(".mp4").name
    assert (path.parent / label.video).exists()
    assert label.herd_line_ok == (label.release.herd_line_signed_mm >= 0)
    assert label.bounces_before_box == sum(1 for b in label.bounces if b.surface == "table" and b.before_box)
    if label.rest is not None:
        assert label.rest.frame <= label.frame_count - 1 - round(0.2 * label.fps)


@pytest.mark.parametrize("path", LABELS, ids=lambda p: p.stem)
def test_truth_agrees_with_pixels(path: Path):
    label = load_label(path)
    video = path.with_suffix(".mp4")
    cap = cv2.VideoCapture(str(video))
    n = 0
    first = last = None
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        if n == 0:
            first = frame
        last = frame
        n += 1
    cap.release()
    assert n == label.frame_count
    camera = label.camera
    assert camera is not None
    # every labelled marker is detected in frame 0 at its labelled corners (within 2 px)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    corners, ids, _ = detector.detectMarkers(cv2.cvtColor(first, cv2.COLOR_BGR2GRAY))
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.reshape(-1), corners, strict=True)} if ids is not None else {}
    pose = BoxPose.model_validate(label.box_pose.model_dump())
    expected = {m.id: camera.project(np.array(m.corners_mm)) for m in label.scene.table_markers}
    for m in label.scene.box.markers:
        xy = pose.box_to_table(np.array(m.corners_mm))
        expected[m.id] = camera.project(np.column_stack([xy, np.full(4, m.z_mm)]))
    for marker_id, want in expected.items():
        assert marker_id in found, f"marker {marker_id} not detected"
        err = np.linalg.norm(found[marker_id] - want, axis=1).max()
        assert err < 2.0, f"marker {marker_id} corners off by {err:.2f} px"
    # the rest point falls on the meteor in the last frame
    if label.rest is not None:
        u, v = camera.project(rest_center(label)[None, :])[0]
        rho = camera.apparent_diameter_px(rest_center(label)[None, :], label.scene.meteor.diameter_mm)[0] / 2
        k = max(1, int(rho * 0.35))
        ui, vi = int(round(u)), int(round(v))
        now = last[vi - k:vi + k + 1, ui - k:ui + k + 1].reshape(-1, 3).mean(axis=0)[::-1]
        before = first[vi - k:vi + k + 1, ui - k:ui + k + 1].reshape(-1, 3).mean(axis=0)[::-1]
        rgb = np.array(label.scene.meteor.rgb, float)

        def chroma_distance(a: np.ndarray, b: np.ndarray) -> float:
            return float(np.linalg.norm(a / (a.sum() + 1) - b / (b.sum() + 1)))

        assert chroma_distance(now, rgb) < chroma_distance(before, rgb), (now, before, rgb)
        assert np.abs(now - before).sum() > 40
