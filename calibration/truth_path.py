"""Where a label fixes the meteor's centre (table frame, mm), frame by frame.

A label gives the release point and height, each table bounce and the rest. Between the release and
the last table bounce before the box the meteor flies drag-free arcs through those points (the
generator's physics has no drag); from the rest frame on it lies at its rest point, on the surface
it rests on. Other frames (the hold, the flight after the last table bounce, bounces in the box)
are not fixed by those events and are left out, unless the label carries the optional
`meteor_track`, which fixes every frame.
"""

from __future__ import annotations

import numpy as np

from calibration.truth import LaunchTruth

GRAVITY_MM_S2 = 9810.0


def rest_centre_mm(label: LaunchTruth) -> np.ndarray:
    """The resting meteor's centre (table frame, 3D): its ground point raised to the surface it lies on."""
    if label.rest is None:
        raise ValueError("the meteor has no rest point (it left the view)")
    r = label.scene.meteor.diameter_mm / 2
    box = label.scene.box
    if label.region == "rim":
        z = box.rim_height_mm + r
    elif label.region == "outside":
        z = r
    else:
        z = box.floor_height_mm + r
    return np.array([*label.rest.table_mm, z], dtype=float)


def flight_centres_mm(label: LaunchTruth) -> dict[int, np.ndarray]:
    """The meteor's centre in each frame after the release up to its last table bounce before the box:
    a drag-free arc between each pair of labelled points."""
    radius = label.scene.meteor.diameter_mm / 2
    points = [(label.release.frame, np.array([*label.release.table_mm, label.release.height_mm]))]
    for bounce in label.bounces:
        if not bounce.before_box or bounce.surface != "table":
            break
        points.append((bounce.frame, np.array([*bounce.table_mm, radius])))
    centres: dict[int, np.ndarray] = {}
    for (f0, p0), (f1, p1) in zip(points, points[1:], strict=False):
        if f1 <= f0:
            continue
        duration_s = (f1 - f0) / label.fps
        rise_mm_s = (p1[2] - p0[2] + 0.5 * GRAVITY_MM_S2 * duration_s**2) / duration_s
        for frame in range(f0 + 1, f1 + 1):
            t = (frame - f0) / label.fps
            share = t / duration_s
            xy = p0[:2] + share * (p1[:2] - p0[:2])
            centres[frame] = np.array([*xy, p0[2] + rise_mm_s * t - 0.5 * GRAVITY_MM_S2 * t * t])
    return centres


def known_centres_mm(label: LaunchTruth, rest_every: int = 1) -> dict[int, np.ndarray]:
    """Every frame of the `meteor_track` when the label has one, else `flight_centres_mm`; from the rest
    on, only every `rest_every`-th frame, at the rest centre."""
    centres = {point.frame: np.array(point.centre_mm, dtype=float) for point in label.meteor_track}
    if not centres:
        centres = flight_centres_mm(label)
    elif label.rest is not None:
        centres = {frame: centre for frame, centre in centres.items() if frame < label.rest.frame}
    if label.rest is not None:
        rest = rest_centre_mm(label)
        for frame in range(label.rest.frame, label.frame_count, max(1, rest_every)):
            centres[frame] = rest
    return centres


def held_frames(label: LaunchTruth) -> set[int]:
    """The frames in which a hand holds the meteor, by the `meteor_track` (empty without one)."""
    return {point.frame for point in label.meteor_track if point.held}


def centres_px(label: LaunchTruth, centres_mm: dict[int, np.ndarray]) -> dict[int, tuple[float, float, float]]:
    """Frame → (x, y, apparent diameter) in pixels of the meteor at the given centres, through the
    label's camera (empty without one)."""
    frames = sorted(centres_mm)
    if label.camera is None or not frames:
        return {}
    points = np.array([centres_mm[frame] for frame in frames])
    pixels = label.camera.project(points)
    diameters = label.camera.apparent_diameter_px(points, label.scene.meteor.diameter_mm)
    return {frame: (float(x), float(y), float(d)) for frame, (x, y), d in zip(frames, pixels, diameters, strict=True)}
