"""Kinds of scene read from a label alone, and the judge's figures per kind.

A figure over a whole set hides which scenes break the judge. `scene_kinds` names, for one labelled
launch, the kinds it belongs to (meteor colour, how early the throw starts, resolution, frame rate,
how large the box markers are in the picture); `kinds_table` gives the main figures for every kind
seen, so `meteors-judge eval --by-kind` shows where the failures are. Everything comes from the
label (its scene, camera and events), so any labelled set can be broken down, from any simulator;
one kind also reads the clip's first frame: whether the table where the meteor leaves the hand has
the meteor's hue (`table_hue_angle_deg`), which a detector that tells the meteor by its colour
direction cannot see past.
"""

from __future__ import annotations

import colorsys
import statistics
from collections.abc import Sequence

import numpy as np

from calibration.truth import LaunchTruth
from vision.detector import TABLE_HUE, colour_angle_deg

LOW_COLOUR_SATURATION = 0.35  # HSV saturation under this: a white, grey, black or brown meteor
DARK_VALUE = 0.3  # HSV value under this: a near-black meteor
EARLY_RELEASE_S = 0.5  # released this soon after the clip's first frame: no empty table to learn first
READABLE_MARKER_PX = 14.0  # box markers whose sides are all shorter than this are hard to read


def box_marker_side_px(truth: LaunchTruth) -> float | None:
    """The longest mean side (pixels) of the box's markers as the label's camera sees them (None: no camera
    or no box marker)."""
    if truth.camera is None or not truth.scene.box.markers:
        return None
    sides = []
    for marker in truth.scene.box.markers:
        table_xy = truth.box_pose.box_to_table(np.asarray(marker.corners_mm, float))
        corners = np.column_stack([table_xy, np.full(len(table_xy), marker.z_mm)])
        pixels = truth.camera.project(corners)
        sides.append(float(np.mean(np.linalg.norm(np.roll(pixels, -1, axis=0) - pixels, axis=1))))
    return max(sides)


def table_hue_angle_deg(truth: LaunchTruth, first_frame_bgr: np.ndarray) -> float | None:
    """The angle (degrees) between the meteor's colour and the table's under its release, in the clip's
    first frame: the median of a square two meteor diameters wide round the release point's foot, as
    the label's camera sees it (None: no camera, or the point outside the picture)."""
    if truth.camera is None:
        return None
    foot = np.array([[*truth.release.table_mm, 0.0]])
    x, y = truth.camera.project(foot)[0]
    half = max(4, int(truth.camera.apparent_diameter_px(foot, truth.scene.meteor.diameter_mm)[0]))
    height, width = first_frame_bgr.shape[:2]
    if not (half <= x < width - half and half <= y < height - half):
        return None
    patch = first_frame_bgr[int(y) - half : int(y) + half + 1, int(x) - half : int(x) + half + 1]
    table_rgb = np.median(patch.reshape(-1, 3), axis=0)[::-1]
    return colour_angle_deg(table_rgb, np.asarray(truth.scene.meteor.rgb, dtype=np.float64))


def scene_kinds(truth: LaunchTruth, table_hue_deg: float | None = None) -> list[str]:
    """The kinds of scene this labelled launch belongs to (each a short name a person can read);
    with `table_hue_deg` (`table_hue_angle_deg`), whether the meteor has the table's hue."""
    red, green, blue = (value / 255 for value in truth.scene.meteor.rgb)
    _hue, saturation, value = colorsys.rgb_to_hsv(red, green, blue)
    width, height = truth.frame_size
    kinds = [
        "low-colour meteor" if saturation < LOW_COLOUR_SATURATION else "saturated meteor",
        f"{width}x{height}",
        f"{truth.fps:g} fps",
        f"released < {EARLY_RELEASE_S:g} s in" if truth.release.frame / truth.fps < EARLY_RELEASE_S
        else f"released >= {EARLY_RELEASE_S:g} s in",
        truth.launch_mode,
    ]
    if value < DARK_VALUE:
        kinds.append("dark meteor")
    if table_hue_deg is not None:
        kinds.append("meteor of the table's hue" if table_hue_deg < TABLE_HUE.table_deg else "meteor unlike the table")
    side_px = box_marker_side_px(truth)
    if side_px is not None:
        kinds.append(f"box markers < {READABLE_MARKER_PX:g} px" if side_px < READABLE_MARKER_PX
                     else f"box markers >= {READABLE_MARKER_PX:g} px")
    return kinds


def kinds_table(
    truths: Sequence[LaunchTruth], scores: Sequence, table_hues_deg: Sequence[float | None] | None = None
) -> str:
    """A text table: per kind of scene, its clips, outcome accuracy, launches missed, disputed rate,
    confident wrong calls and the median release and rest errors. `scores` are `ClipScore`s and
    `table_hues_deg` (when given) each clip's `table_hue_angle_deg`, in the order of `truths`."""
    groups: dict[str, list] = {"all": list(scores)}
    hues = table_hues_deg if table_hues_deg is not None else [None] * len(truths)
    for truth, score, hue in zip(truths, scores, hues, strict=True):
        for kind in scene_kinds(truth, hue):
            groups.setdefault(kind, []).append(score)
    header = ("kind", "clips", "outcome", "missed", "disputed", "conf. wrong", "release med", "rest med")
    lines = [header]
    for kind in ["all", *sorted(k for k in groups if k != "all")]:
        group = groups[kind]
        n = len(group)
        releases = [s.release_error_mm for s in group if s.release_error_mm is not None]
        rests = [s.rest_error_mm for s in group if s.rest_error_mm is not None]
        lines.append((
            kind,
            str(n),
            f"{100 * sum(s.outcome_ok for s in group) / n:.1f} %",
            str(sum(s.judged is None for s in group)),
            f"{100 * sum(s.disputed for s in group) / n:.1f} %",
            str(sum(s.confident_wrong for s in group)),
            f"{statistics.median(releases):.0f} mm" if releases else "n/a",
            f"{statistics.median(rests):.1f} mm" if rests else "n/a",
        ))
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join(_table_line(line, widths) for line in lines)


def _table_line(cells: Sequence[str], widths: Sequence[int]) -> str:
    """The first cell left-aligned, the figures right-aligned."""
    padded = [cells[0].ljust(widths[0])]
    padded += [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True)]
    return "  ".join(padded)
