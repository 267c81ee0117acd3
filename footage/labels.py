"""Simulation truth → `meteors-launch-truth/1` (calibration.truth.LaunchTruth).

Frame i is exposed over [i/fps, i/fps + exposure]; its reference time (where a label says the
meteor *is* in frame i) is the middle of that exposure.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from calibration.camera import CameraModel
from calibration.geometry import signed_distance_to_line
from calibration.rig import Rig
from calibration.truth import LaunchTruth, required_table_bounces
from footage.physics import STILL_SPEED, Trajectory
from footage.scenes import Scene, region_at


@dataclass
class Timing:
    fps: float
    exposure: float
    frame_count: int

    def frame_time(self, i: int) -> float:
        return i / self.fps + self.exposure / 2

    def clip_time(self, i: int) -> float:
        """Frame i's reference time on the clip's clock (`frame_time` may be seen from another clock)."""
        return Timing.frame_time(self, i)

    def first_frame_after(self, t: float) -> int:
        """The first frame whose whole exposure starts at or after `t`."""
        return int(math.ceil(t * self.fps - 1e-9))

    def frame_of(self, t: float) -> int:
        return int(math.floor(t * self.fps))


def _r(v: float, nd: int = 2) -> float:
    return float(round(float(v), nd))


def _xy(p) -> tuple[float, float]:
    return (_r(p[0]), _r(p[1]))


def rig_of(scene: Scene) -> Rig:
    box = scene.box
    data = {
        "aruco_dictionary": "DICT_4X4_50",
        "table_markers": [
            {"id": m.id, "size_mm": _r(m.size), "corners_mm": [_xy(c) for c in m.corners]} for m in scene.table_markers
        ],
        "box": {
            "outline_mm": [_xy(c) for c in box.outline],
            "rim_height_mm": _r(box.rim_height),
            "floor_height_mm": _r(box.floor_height),
            "markers": [
                {"id": m.id, "size_mm": _r(m.size), "z_mm": _r(m.z), "corners_mm": [_xy(c) for c in m.corners]}
                for m in box.markers
            ],
            "regions": [
                {"name": r.name, "kind": r.kind, "dinosaur": r.dinosaur, "polygon_mm": [_xy(c) for c in r.polygon]}
                for r in box.regions
            ],
        },
        "herd_line_mm": [_xy(scene.herd_line[0]), _xy(scene.herd_line[1])] if scene.herd_line is not None else None,
        "meteor": {"diameter_mm": _r(scene.meteor_diameter), "rgb": list(scene.meteor_rgb)},
    }
    return Rig.model_validate(data)


@dataclass
class Events:
    """Frame-level truth before the herd line is known (it does not change any of this)."""

    release_frame: int
    release_point: np.ndarray  # 3D at the release frame's reference time
    bounces: list[dict]
    entered_box_frame: int | None
    rest_frame: int | None
    rest_point: np.ndarray | None
    region: str
    bounces_before_box: int
    ambiguous: bool  # a table bounce in the frame of box entry (labels would hinge on sub-frame timing)
    box_contact_after_entry: bool


def events_of(scene: Scene, traj: Trajectory, timing: Timing, t_release: float, visible) -> Events:
    """Frame-level truth: `visible(point3)` says whether a meteor centre is in the camera's view."""
    release_frame = timing.first_frame_after(t_release)
    release_point = traj.position(timing.frame_time(release_frame))
    pose, box = scene.pose, scene.box
    hx, hy = box.length / 2, box.width / 2
    entered = None
    last = timing.frame_count
    for i in range(release_frame, last):
        p = traj.position(timing.frame_time(i))
        bx, by = scene.pose_at(timing.clip_time(i)).table_to_box(p[:2])[0]
        if abs(bx) < hx and abs(by) < hy:
            entered = i
            break
        if timing.frame_time(i) > traj.t_end:
            break
    bounces = []
    ambiguous = False
    count = 0
    contact_after = False
    for impact in traj.impacts:
        frame = timing.frame_of(impact.t)
        if entered is not None and frame >= entered and impact.surface != "table":
            contact_after = True
        if not impact.is_bounce:
            continue
        before = entered is None or frame < entered
        if entered is not None and impact.surface == "table" and abs(frame - entered) <= 1:
            ambiguous = True
        if before and impact.surface == "table":
            count += 1
        bounces.append({"frame": frame, "table_mm": _xy(impact.position), "surface": impact.surface,
                        "before_box": before})
    final = traj.positions[-1]
    rest_frame, rest_point = None, None
    if traj.still_time is not None and visible(final):
        rest_frame = timing.first_frame_after(traj.still_time)
        rest_point = final
        # stillness per the label's definition (speed under 5 mm/s) holds from the still time to the end
        assert traj.speed(traj.t_end) < STILL_SPEED
    if rest_point is not None:
        region = region_at(box, pose.table_to_box(rest_point[:2])[0], float(rest_point[2]), scene.meteor_radius)
    else:
        region = "outside"
    return Events(release_frame, release_point, bounces, entered, rest_frame, rest_point, region, count, ambiguous,
                  contact_after)


def herd_signed(scene: Scene, point_xy: np.ndarray, launcher_side: np.ndarray) -> float:
    return float(signed_distance_to_line(np.asarray(point_xy)[None, :2], scene.herd_line, launcher_side)[0])


def build_label(scene: Scene, camera: CameraModel, events: Events, timing: Timing, video: str,
                frame_size: tuple[int, int], launch_mode: str, launcher_side: np.ndarray,
                meteor_track: list[dict] | None = None) -> LaunchTruth:
    signed = herd_signed(scene, events.release_point, launcher_side)
    herd_ok = signed >= 0
    valid = herd_ok and events.bounces_before_box >= required_table_bounces(launch_mode)
    region = events.region
    if region == "outside" or region == "rim":
        landing = "outside"
        dinosaur_region = None
    else:
        spec = next(r for r in scene.box.regions if r.name == region)
        landing = spec.kind
        dinosaur_region = spec.dinosaur
    outcome = landing if (valid and landing in ("dinosaur", "water")) else "void"
    rest = None
    if events.rest_point is not None:
        box_xy = scene.pose.table_to_box(events.rest_point[:2])[0]
        rest = {"frame": events.rest_frame, "table_mm": _xy(events.rest_point), "box_mm": _xy(box_xy)}
    data = {
        "schema": "meteors-launch-truth/1",
        "video": video,
        "fps": float(timing.fps),
        "frame_size": list(frame_size),
        "frame_count": timing.frame_count,
        "launch_mode": launch_mode,
        "scene": rig_of(scene).model_dump(),
        "box_pose": _pose_json(scene.pose),
        "camera": {"K": [[_r(v, 4) for v in row] for row in camera.K], "dist": [_r(v, 6) for v in camera.dist],
                   "rvec": [_r(v, 8) for v in camera.rvec], "tvec": [_r(v, 4) for v in camera.tvec]},
        "release": {"frame": events.release_frame, "table_mm": _xy(events.release_point),
                    "height_mm": _r(events.release_point[2]), "herd_line_signed_mm": _r(signed)},
        "herd_line_ok": herd_ok,
        "bounces": events.bounces,
        "bounces_before_box": events.bounces_before_box,
        "entered_box_frame": events.entered_box_frame,
        "rest": rest,
        "region": region,
        "landing": landing,
        "valid": valid,
        "outcome": outcome,
        "dinosaur": dinosaur_region if outcome == "dinosaur" else None,
        "box_track": box_track(scene, timing),
        "meteor_track": meteor_track or [],
    }
    return LaunchTruth.model_validate(data)


def _pose_json(pose) -> dict:
    return {"yaw_deg": _r(pose.yaw_deg, 4), "translation_mm": [_r(v, 3) for v in pose.translation_mm]}


def box_track(scene: Scene, timing: Timing) -> list[dict]:
    """Where a moving box stands in every frame until the first after its last shove; [] for a still box."""
    if scene.motion is None:
        return []
    last = min(timing.first_frame_after(scene.motion.end_s), timing.frame_count - 1)
    return [{"frame": i, **_pose_json(scene.pose_at(timing.clip_time(i)))} for i in range(last + 1)]


def meteor_track(position_at: Callable[[float], np.ndarray], release_s: float, timing: Timing) -> list[dict]:
    """The meteor's centre in every frame at the frame's reference time (clip clock), and whether it is
    still in the hand then (before `release_s`)."""
    track = []
    for i in range(timing.frame_count):
        t = timing.clip_time(i)
        track.append({"frame": i, "centre_mm": [_r(v) for v in position_at(t)], "held": bool(t < release_s)})
    return track
