"""Markers: sub-pixel corners in ArUco order, and printable sheets at true size."""

from __future__ import annotations

import re

import cv2
import numpy as np
import pytest

from calibration.markers import detect_markers, png_dpi, render_marker_sheets, write_marker_sheet


def test_corners_are_subpixel_accurate_in_aruco_order(oblique, rig):
    scene, frame = oblique
    found = detect_markers(frame, rig.aruco_dictionary)
    errors = []
    for marker in rig.table_markers:
        errors.append(np.linalg.norm(found[marker.id] - scene.camera.project(np.asarray(marker.corners_mm)), axis=1))
    errors = np.concatenate(errors)
    assert np.median(errors) < 0.2 and errors.max() < 0.6


def test_nothing_found_in_a_blank_frame(rig):
    assert detect_markers(np.zeros((100, 100, 3), np.uint8), rig.aruco_dictionary) == {}


@pytest.mark.parametrize("dpi", [150, 300])
def test_sheet_markers_are_printed_at_true_size(rig, dpi):
    pages = render_marker_sheets(rig, dpi)
    sizes = {m.id: m.size_mm for m in rig.table_markers} | {m.id: m.size_mm for m in rig.box.markers}
    seen = {}
    for page in pages:
        seen |= detect_markers(page, rig.aruco_dictionary)
    assert set(seen) == set(sizes)
    for marker_id, corners in seen.items():
        side_px = np.mean(np.linalg.norm(corners - np.roll(corners, -1, axis=0), axis=1))
        assert side_px == pytest.approx(sizes[marker_id] * dpi / 25.4, abs=1.5)


def test_png_sheet_states_its_dpi_and_pdf_has_true_page_size(rig, tmp_path):
    written = write_marker_sheet(rig, tmp_path / "sheet.png", dpi=200)
    for path in written:
        assert png_dpi(path.read_bytes()) == pytest.approx(200, abs=0.1)
        assert cv2.imread(str(path)) is not None
    pdf = write_marker_sheet(rig, tmp_path / "sheet.pdf", dpi=200)[0].read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    width_pt, height_pt = (float(v) for v in re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", pdf).groups())
    assert width_pt == pytest.approx(595.3, abs=0.5) and height_pt == pytest.approx(841.9, abs=0.5)  # A4


def test_sheet_refuses_other_formats(rig, tmp_path):
    with pytest.raises(ValueError, match=".pdf or .png"):
        write_marker_sheet(rig, tmp_path / "sheet.jpg")
