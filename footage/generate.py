"""Labelled launch clips: sample a case, build a scene, solve for a launch that produces it, render.

Every clip is deterministic in (seed, index): its random generator is seeded with both, so the
same seed gives byte-identical labels whatever the number of worker processes.
"""

from __future__ import annotations

import json
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.geometry import BoxPose
from calibration.rig import DINOSAUR_TYPES
from footage.box_motion import BoxMotion, draw_box_motion
from footage.camera_rig import random_camera
from footage.labels import Timing, build_label, events_of, meteor_track
from footage.physics import STILL_SPEED, Material, Trajectory, World, simulate
from footage.render import DINO_COLORS, HandState, Renderer
from footage.scenes import LAYOUTS, MarkerSpec, Scene, card_corners, make_box, marker_corners, place_objects
from footage.video_writer import ClipWriter
from footage.world import NARROW, WIDE, WORLDS, Look, WorldSpec, choose_meteor, draw_look

# ---- the case mix ------------------------------------------------------------------------------
# The bundled set is indices 0..len(CASE_MIX)-1 of seed 0; later indices draw from RANDOM_CASES.
CASE_MIX: list[dict] = [
    {"case": "hit", "dino": "trex"},  # 0: the typical valid 1280×720@60 dinosaur hit (demo, bench)
    {"case": "hit", "dino": "brontosaurus"},
    {"case": "hit", "dino": "pterodactyl", "height": "high"},
    {"case": "hit", "dino": "stegosaurus", "res": (640, 480)},
    {"case": "hit", "dino": "triceratops", "fps": 30},
    {"case": "hit", "dino": "velociraptor", "res": (1920, 1080), "fps": 30},
    {"case": "water"},
    {"case": "water", "res": (640, 480), "fps": 30},
    {"case": "outside", "miss": "short"},
    {"case": "outside", "miss": "wide"},
    {"case": "rim"},
    {"case": "rim", "fps": 30},
    {"case": "direct", "target": "dinosaur"},
    {"case": "direct", "target": "water", "res": (1920, 1080)},
    {"case": "two_bounce"},
    {"case": "hard_ok"},
    {"case": "hard_one"},
    {"case": "over_line"},
    {"case": "close_ok"},
    {"case": "close_foul"},
    {"case": "bounce_out"},
    {"case": "bounce_out", "fps": 30},
    {"case": "lost"},
    {"case": "lost", "res": (640, 480)},
    {"case": "hit", "height": "low"},
    {"case": "hard_ok", "fps": 30},
    {"case": "close_ok", "res": (640, 480)},
    {"case": "over_line", "height": "high"},
    {"case": "three_bounce"},
    {"case": "hit", "distortion": True},
]

RANDOM_CASES = ["hit"] * 6 + ["water"] * 2 + ["outside", "rim", "direct", "two_bounce", "hard_ok", "hard_one",
                                              "over_line", "close_ok", "close_foul", "bounce_out", "lost",
                                              "three_bounce"]

METEOR_COLORS = {"red": (215, 45, 35), "orange": (245, 135, 20), "yellow": (235, 215, 35), "green": (40, 185, 70),
                 "blue": (35, 90, 230), "purple": (150, 50, 200), "magenta": (230, 40, 160)}
METEOR_STYLES = ("plain", "striped", "spotted", "irregular")
SKINS = [(160, 185, 225), (120, 150, 200), (90, 120, 170), (60, 85, 125), (140, 170, 215)]  # BGR
WALL_COLORS = [(60, 110, 160), (90, 60, 40), (40, 40, 45), (70, 120, 70), (120, 80, 130)]
WATER_BGR = (200, 140, 60)


def case_for(index: int, rng: np.random.Generator, world: WorldSpec = NARROW) -> dict:
    if index < len(CASE_MIX):
        return dict(CASE_MIX[index])
    spec: dict = {"case": str(rng.choice(RANDOM_CASES))}
    roll = rng.random()
    if roll < world.low_res_probability:
        spec["res"] = (640, 480)
    elif roll < world.low_res_probability + world.full_hd_probability:
        spec["res"] = (1920, 1080)
    if rng.random() < world.fps_30_probability:
        spec["fps"] = 30
    return spec


# ---- the launch plan ---------------------------------------------------------------------------
@dataclass
class Plan:
    """Where the meteor and the launcher's hand are at any time of the clip.

    Phases: before `t_enter` the meteor is off-screen in the hand (or, for a pick-up, lies in the box
    while the hand reaches for it); until `t_hold` it is carried to the hold; it is held until
    `t_throw`, pushed until `t_release`, then flies (`traj`). A clip that starts in the hand has
    t_enter = t_hold = 0.
    """

    t_enter: float
    t_hold: float
    t_throw: float
    t_release: float
    start: np.ndarray  # meteor off-screen in the hand, or lying in the box for a pick-up
    hold: np.ndarray
    release: np.ndarray
    velocity: np.ndarray
    spin: np.ndarray
    forward: np.ndarray
    traj: Trajectory | None = None
    orient: list[np.ndarray] = field(default_factory=list)
    pickup: bool = False
    reach_from: np.ndarray | None = None  # the off-screen palm a pick-up's hand comes from
    lift_mm: float = 0.0  # how high a pick-up's carry lifts the meteor (over the box's wall)
    follow_s: float = 0.06  # how long the hand keeps moving with the meteor after the release
    open_s: float = 0.05  # how long the fingers take to open

    def meteor(self, t: float) -> np.ndarray:
        if t < self.t_enter:
            return self.start.copy()
        if t < self.t_hold:
            s = (t - self.t_enter) / (self.t_hold - self.t_enter)
            s = s * s * (3 - 2 * s)
            lift = np.array([0.0, 0.0, self.lift_mm * math.sin(math.pi * s)])
            return self.start + (self.hold - self.start) * s + lift
        if t < self.t_throw:
            k = t - self.t_hold
            return self.hold + np.array([1.2 * math.sin(9 * k), 1.0 * math.sin(7 * k + 1), 1.5 * math.sin(5 * k)])
        if t < self.t_release:
            T = self.t_release - self.t_throw
            s = (t - self.t_throw) / T
            h00, h01, h11 = 2 * s**3 - 3 * s**2 + 1, -2 * s**3 + 3 * s**2, s**3 - s**2
            return h00 * self.hold + h01 * self.release + h11 * T * self.velocity
        return self.traj.position(t)

    def orientation(self, t: float) -> np.ndarray:
        if t < self.t_release or not self.orient:
            return self.orient[0] if self.orient else np.eye(3)
        i = self.traj.index(t)
        return self.orient[min(i // 2, len(self.orient) - 1)]

    def hand(self, t: float, r: float) -> HandState:
        up = np.array([0.0, 0.0, 1.0])
        grip_offset = -self.forward * 72 + up * (r + 12)
        if t < self.t_enter:
            if not self.pickup:
                return HandState(self.start + grip_offset, self.forward, 1.0, False)
            s = t / self.t_enter
            s = s * s * (3 - 2 * s)
            palm = self.reach_from + (self.start + grip_offset - self.reach_from) * s
            return HandState(palm, self.forward, max(0.0, 3 * s - 2), True)
        if t < self.t_release:
            return HandState(self.meteor(t) + grip_offset, self.forward, 1.0, True)
        palm_release = self.release + grip_offset
        dt = t - self.t_release
        tau = self.follow_s
        follow = palm_release + self.velocity * tau * (1 - math.exp(-dt / tau)) * np.array([1, 1, 0.3])
        grip = max(0.0, 1 - dt / self.open_s)
        t_back = max(0.25, 3 * tau)
        if dt < t_back:
            return HandState(follow, self.forward, grip, True)
        s = min(1.0, (dt - t_back) / 0.55)
        s = s * s * (3 - 2 * s)
        end = (self.reach_from if self.pickup else self.start + grip_offset) - self.forward * 120 + up * 60
        pos = follow + (end - follow) * s
        return HandState(pos, self.forward, 0.0, s < 1.0)


def integrate_orientation(traj: Trajectory, rng: np.random.Generator) -> list[np.ndarray]:
    """Body orientation every 2 ms from the simulated spin."""
    q = cv2.Rodrigues(rng.normal(0, 1.5, 3))[0]
    out = [q]
    step = 2
    for i in range(0, len(traj.spins) - step, step):
        w = traj.spins[i] * traj.dt * step
        if np.any(w):
            q = cv2.Rodrigues(w)[0] @ q
        out.append(q)
    return out


# ---- scene and camera ----------------------------------------------------------------------------
def make_scene(rng: np.random.Generator, case: dict, look: Look | None = None) -> tuple[Scene, np.ndarray]:
    """The box, its pose, the table markers and the lamp; `look` (the wide world) sets the table and lamps."""
    layouts = ("rows", "ends") if case["case"] == "rim" else LAYOUTS
    low_res = case.get("res", (1280, 720))[0] < 1000
    marker_min_mm = 42.0 if low_res else 30.0
    if look is not None and look.small_box_markers:
        marker_min_mm = 0.0  # as printed: too small to read at 640×480, or close to it
    box = make_box(rng, str(rng.choice(layouts)), marker_min_mm=marker_min_mm)
    if look is not None and look.small_box_markers:
        _shrink_box_markers(box, float(rng.uniform(14, 20)))
    distance = float(rng.uniform(500, 700))
    bearing = np.radians(float(rng.uniform(-8, 8)))
    center = np.array([distance * math.cos(bearing), distance * math.sin(bearing) + rng.normal(0, 30)])
    spread = 6 if case["case"] == "rim" else 30
    yaw = float(rng.uniform(-spread, spread) + rng.choice([0, 90, 180, 270]))
    pose = BoxPose(yaw_deg=round(yaw, 4), translation_mm=(round(float(center[0]), 3), round(float(center[1]), 3)))
    outline = pose.box_to_table(box.outline)
    x_min = -330.0
    x_max = float(outline[:, 0].max()) + 150
    y_half = max(340.0, float(np.abs(outline[:, 1]).max()) + 130)
    region = (x_min, x_max, -y_half, y_half)
    size = float(rng.uniform(55, 65)) if low_res else float(rng.uniform(45, 60))
    markers = []
    inset = size / 2 + 25
    corners = [(x_min + inset, y_half - inset), (x_max - inset, y_half - inset), (x_max - inset, -y_half + inset),
               (x_min + inset, -y_half + inset)]
    for i, c in enumerate(corners):
        angle = float(rng.uniform(-15, 15) + rng.choice([0, 90, 180, 270]))
        markers.append(MarkerSpec(i, size, 0.0, marker_corners(np.array(c) + rng.normal(0, 6, 2), size, angle)))
    scene = Scene(box=box, pose=pose, table_markers=markers, table_region=region,
                  meteor_diameter=float(round(rng.uniform(18, 28), 1)))
    scene.table_style = str(rng.choice(["wood", "cloth", "mat"]))
    azimuth = rng.uniform(0, 2 * np.pi)
    elevation = np.radians(rng.uniform(50, 75))
    scene.light = np.array([math.cos(azimuth) * math.cos(elevation), math.sin(azimuth) * math.cos(elevation),
                            math.sin(elevation)])
    if look is not None:
        scene.look = look
        scene.table_style = look.table.style
        scene.light = look.light.lamps[0].direction
    return scene, center


def _shrink_box_markers(box, size_mm: float) -> None:
    """Box markers printed `size_mm` wide, each about its own centre."""
    for marker in box.markers:
        center = marker.corners.mean(axis=0)
        marker.corners = center + (marker.corners - center) * (size_mm / marker.size)
        marker.size = size_mm


def ray_blocked(scene: Scene, camera: CameraModel, point: np.ndarray, kinds=("outer", "partition")) -> bool:
    """True when the sight line from the camera to `point` (table mm, 3D) passes through the box's solids."""
    pose = scene.pose
    a = np.append(pose.table_to_box(np.asarray(point, float)[:2])[0], float(point[2]) + 0.05)
    c = camera.center_mm
    b = np.append(pose.table_to_box(c[:2])[0], c[2])
    d = b - a
    for solid in scene.box.solids:
        if solid.kind not in kinds:
            continue
        lo, hi = np.array(solid.bounds[0::2]), np.array(solid.bounds[1::2])
        t0, t1 = 1e-6, 1.0
        for k in range(3):
            if abs(d[k]) < 1e-12:
                if a[k] <= lo[k] or a[k] >= hi[k]:
                    t0, t1 = 1.0, 0.0
                    break
                continue
            u0, u1 = (lo[k] - a[k]) / d[k], (hi[k] - a[k]) / d[k]
            t0, t1 = max(t0, min(u0, u1)), min(t1, max(u0, u1))
        if t0 < t1:
            return True
    return False


def markers_visible(scene: Scene, camera: CameraModel, frame_size: tuple[int, int], min_px: float = 25.0) -> bool:
    """Every box marker in the picture, clear of the walls, at least `min_px` across its diagonal."""
    w, h = frame_size
    for m in scene.box.markers:
        pts = np.column_stack([scene.pose.box_to_table(m.corners), np.full(4, m.z)])
        center = pts.mean(axis=0)
        quiet = center + (pts - center) * 1.25
        if any(ray_blocked(scene, camera, p) for p in np.vstack([pts, quiet])):
            return False
        uv = camera.project(pts)
        if uv.min() < 4 or uv[:, 0].max() > w - 5 or uv[:, 1].max() > h - 5:
            return False
        if np.linalg.norm(uv[0] - uv[2]) < min_px:
            return False
    return True


def round_camera(camera: CameraModel) -> CameraModel:
    return CameraModel(K=tuple(tuple(round(v, 4) for v in row) for row in camera.K),
                       dist=tuple(round(v, 6) for v in camera.dist), rvec=tuple(round(v, 8) for v in camera.rvec),
                       tvec=tuple(round(v, 4) for v in camera.tvec))


# ---- solving for a launch --------------------------------------------------------------------------
def _target_point(rng: np.random.Generator, scene: Scene, case: dict, goal: str) -> tuple[np.ndarray, float]:
    """Where to aim (table xy) and at what height the centre should arrive."""
    box, pose = scene.box, scene.pose
    r = scene.meteor_radius
    if goal in DINOSAUR_TYPES or goal in ("dinosaur", "water", "anyregion"):
        if goal in DINOSAUR_TYPES:
            regions = [g for g in box.regions if g.dinosaur == goal]
        elif goal == "anyregion":
            regions = box.regions
        else:
            regions = [g for g in box.regions if g.kind == goal]
        reg = regions[int(rng.integers(len(regions)))]
        x0, x1, y0, y1 = reg.rect
        p = np.array([rng.uniform(x0 + 0.25 * (x1 - x0), x1 - 0.25 * (x1 - x0)),
                      rng.uniform(y0 + 0.25 * (y1 - y0), y1 - 0.25 * (y1 - y0))])
        return pose.box_to_table(p)[0], box.floor_height + r
    if goal == "rim":
        hx, hy, w = box.length / 2, box.width / 2, box.wall
        side = int(rng.integers(4))
        if side < 2:
            p = np.array([rng.uniform(-hx + w, hx - w), (hy - w / 2) * (1 if side else -1)])
        else:
            p = np.array([(hx - w / 2) * (1 if side == 2 else -1), rng.uniform(-hy + w, hy - w)])
        return pose.box_to_table(p)[0], box.rim_height + r
    if goal == "lost":
        x_min, x_max, y_min, y_max = scene.table_region
        side = 1 if rng.random() < 0.5 else -1
        p = np.array([rng.uniform(150, x_max), side * rng.uniform(y_max * 0.5, y_max * 1.1)])
        return p, r
    center = np.asarray(pose.translation_mm)
    if goal == "short":
        return center * rng.uniform(0.35, 0.55) + rng.normal(0, 40, 2), r
    # wide: beside the box
    side = 1 if rng.random() < 0.5 else -1
    return center + np.array([rng.normal(0, 60), side * (box.radius + rng.uniform(40, 120))]), r


def _rim_lob(rng: np.random.Generator, scene: Scene) -> tuple[np.ndarray, np.ndarray, float]:
    box, pose = scene.box, scene.pose
    hx, hy, w = box.length / 2, box.width / 2, box.wall
    sides = [np.array([[-hx + w, y], [hx - w, y]]) for y in (hy - w / 2, -hy + w / 2)]
    sides += [np.array([[x, -hy + w], [x, hy - w]]) for x in (hx - w / 2, -hx + w / 2)]
    best = None
    for side in sides:
        ends = pose.box_to_table(side)
        direction = ends[1] - ends[0]
        direction /= np.linalg.norm(direction)
        if np.dot(ends[0], direction) > np.dot(ends[1], direction):
            ends, direction = ends[::-1], -direction
        score = abs(direction[0]) - 0.002 * abs(ends[0][1])
        if best is None or score > best[0]:
            best = (score, ends, direction)
    _, ends, direction = best
    if float(np.dot(direction, pose.translation_mm)) < 0:
        # thrown from the side's end nearer the launcher (at the origin, the box ahead) towards the far
        # one: from the far end the throw came back over the box, its release beyond the herd line
        ends, direction = ends[::-1], -direction
    target = ends[0] + (ends[1] - ends[0]) * rng.uniform(0.05, 0.35)
    release = target - direction * rng.uniform(180, 320) + np.array([-direction[1], direction[0]]) * rng.normal(0, 2)
    return target, release, box.rim_height + scene.meteor_radius


def _plan_goal(case: dict) -> tuple[str, int, str]:
    """(aim goal, planned table bounces before the aim, launch mode)."""
    c = case["case"]
    if c == "hit":
        return case.get("dino") or "dinosaur", 1, "standard"
    if c == "water":
        return "water", 1, "standard"
    if c == "outside":
        return case.get("miss", "wide"), 1, "standard"
    if c == "rim":
        return "rim", 0, "standard"
    if c == "direct":
        return case.get("target", "dinosaur"), 0, "standard"
    if c == "two_bounce":
        return "dinosaur", 2, "standard"
    if c == "three_bounce":
        return "anyregion", 3, "standard"
    if c == "hard_ok":
        return "dinosaur", 2, "hard_velociraptor"
    if c == "hard_one":
        return "dinosaur", 1, "hard_velociraptor"
    if c in ("over_line", "close_ok", "close_foul"):
        return "anyregion", 1, "standard"
    if c == "bounce_out":
        return "anyregion", 1, "standard"
    if c == "lost":
        return "lost", 1, "standard"
    raise ValueError(f"unknown case {c!r}")


def _herd_offset(rng: np.random.Generator, case: dict) -> float:
    """Signed distance of the release from the herd line (positive: launcher's side)."""
    c = case["case"]
    if c == "over_line":
        return float(rng.uniform(-140, -30))
    if c == "close_ok":
        return float(rng.uniform(2, 18))
    if c == "close_foul":
        return float(rng.uniform(-18, -2))
    return float(rng.uniform(35, 150))


def _accept(case: dict, ev, mode: str, planned: int) -> bool:
    c = case["case"]
    if ev.ambiguous:
        return False
    region = ev.region
    kinds = {"rim": "outside", "outside": "outside"}
    landing = kinds.get(region, "water" if region.startswith("water") else "dinosaur")
    if c == "lost":
        return ev.rest_point is None
    if ev.rest_point is None:
        return False
    bbb = ev.bounces_before_box
    entered = ev.entered_box_frame is not None
    if c == "hit":
        dino = case.get("dino")
        return landing == "dinosaur" and bbb == 1 and (dino is None or region == dino)
    if c == "water":
        return landing == "water" and bbb == 1
    if c == "outside":
        return region == "outside" and not entered and bbb >= 1
    if c == "rim":
        return region == "rim"
    if c == "direct":
        return entered and bbb == 0 and landing == case.get("target", "dinosaur")
    if c == "two_bounce":
        return landing == "dinosaur" and bbb == 2
    if c == "three_bounce":
        return landing in ("dinosaur", "water") and bbb >= 3
    if c == "hard_ok":
        return landing == "dinosaur" and bbb >= 2
    if c == "hard_one":
        return landing == "dinosaur" and bbb == 1
    if c in ("over_line", "close_ok", "close_foul"):
        return landing in ("dinosaur", "water") and bbb >= 1
    if c == "bounce_out":
        return entered and region == "outside" and ev.box_contact_after_entry and bbb >= 1
    return False


class NoLaunchFound(RuntimeError):
    pass


def solve_launch(rng: np.random.Generator, scene: Scene, case: dict, world: World, timing_of, visible,
                 box_center: np.ndarray, trials: int = 400):
    """Random search over launch parameters until the simulated outcome is the case's.

    In the wide world the throwing motion (`scene.look.motion`) sets the release height and, for a
    single planned bounce, the time to it (a downward flick reaches the table sooner).
    """
    motion = scene.look.motion if scene.look is not None else None
    goal, planned, mode = _plan_goal(case)
    r = scene.meteor_radius
    c = case["case"]
    max_before = {"two_bounce": 2, "hard_ok": 3, "three_bounce": 6, "direct": 0, "rim": 9, "outside": 9,
                  "lost": 9}.get(c, 1)
    must_stay = c not in ("outside", "lost", "bounce_out", "rim")
    state = {"before": 0}

    def on_bounce(impact, entered):
        if impact.surface != "table":
            return False
        if entered:
            return must_stay
        state["before"] += 1
        return state["before"] > max_before

    world.on_bounce = on_bounce
    height_kind = case.get("height", "normal")
    for _ in range(trials):
        release_xy = np.array([rng.normal(0, 25), rng.normal(0, 50)])
        if height_kind == "high":
            h = rng.uniform(300, 450)
        elif height_kind == "low":
            h = rng.uniform(max(20, r + 6), 60)
        else:
            h = rng.uniform(max(40, r + 10), 260)
        if motion is not None and height_kind == "normal":
            h = max(float(rng.uniform(*motion.height_mm)), r + 6)
        target_xy, target_z = _target_point(rng, scene, case, goal)
        if goal == "rim":  # a lob along one rim side, to roll along it and stop there
            target_xy, release_xy, target_z = _rim_lob(rng, scene)
        if planned == 0:
            aim_xy, aim_z = target_xy, target_z
            tf = rng.uniform(0.22, 0.6) if goal != "rim" else rng.uniform(0.38, 0.6)
        else:
            if goal in ("short", "wide", "lost"):
                frac = rng.uniform(0.25, 0.6)
            elif planned == 1:
                frac = rng.uniform(0.35, 0.8)
            elif planned == 2:
                frac = rng.uniform(0.15, 0.45)
            else:
                frac = rng.uniform(0.08, 0.3)
            aim_xy = release_xy + (target_xy - release_xy) * frac
            aim_z = r
            tf = rng.uniform(0.12, 0.45) if planned == 1 else rng.uniform(0.1, 0.3)
            if motion is not None and planned == 1:
                tf = rng.uniform(*motion.flight_s)
        if goal == "lost":
            tf = rng.uniform(0.1, 0.3)
        vxy = (aim_xy - release_xy) / tf
        if goal == "lost":
            vxy *= rng.uniform(1.0, 1.8)
        vz = (aim_z - h + 0.5 * 9810.0 * tf * tf) / tf
        if case["case"] == "bounce_out":
            vxy *= rng.uniform(1.1, 1.7)
        velocity = np.array([vxy[0], vxy[1], vz])
        if np.linalg.norm(velocity) > 6000:
            continue
        forward = np.append(vxy / (np.linalg.norm(vxy) + 1e-9), 0.0)
        side = np.array([-forward[1], forward[0], 0.0])
        spin = side * rng.normal(0, 25) + np.array([0, 0, rng.normal(0, 10)])
        t_release = 0.0
        state["before"] = 0
        traj = simulate(world, (release_xy[0], release_xy[1], h), velocity, spin, t0=t_release, max_time=4.5)
        if traj.aborted or (traj.still_time is None and traj.left_view_time is None):
            continue
        timing = timing_of(traj)
        if timing is None:
            continue
        if traj.still_time is not None and visible(traj.positions[-1]) and traj.speed(traj.t_end) >= STILL_SPEED:
            continue  # "still" to the simulator yet creeping at its end: no clean rest to label
        ev = events_of(scene, traj, timing, t_release, visible)
        if _accept(case, ev, mode, planned):
            return traj, velocity, spin, mode, np.array([release_xy[0], release_xy[1], h]), forward
    raise NoLaunchFound(case)


# ---- one clip ----------------------------------------------------------------------------------------
def generate_clip(out_dir: Path, index: int, seed: int, world: WorldSpec = NARROW, track_meteor: bool = False) -> dict:
    """Write clip_NNN.mp4 + clip_NNN.json; re-drawn (deterministically) if a needed marker is not detectable.

    The narrow world needs every marker readable in the first frame; the wide world only the table's,
    in the first or the last frame (the hand may hide one at first, and box markers may be too small).
    With `track_meteor` the label also holds the meteor's centre in every frame (`meteor_track`, for
    training a detector); the video is the same either way.
    """
    info = None
    for attempt in range(6):
        try:
            info = _generate_clip(out_dir, index, seed, attempt, world, track_meteor)
        except NoLaunchFound:
            continue
        if world.require_box_markers:
            readable = markers_detected(out_dir / info["video"], out_dir / info["label"])
        else:
            readable = markers_detected(out_dir / info["video"], out_dir / info["label"], box_markers=False,
                                        frames=("first", "last"))
        if readable:
            return info
    if info is None:
        raise NoLaunchFound(f"clip {index}: no launch found")
    return info


def _first_and_last_frames(video: Path, frame_count: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The first and the last of the video's `frame_count` frames (None, None if the first cannot be read);
    the frames between are decoded but not converted (`grab`)."""
    cap = cv2.VideoCapture(str(video))
    ok, first = cap.read()
    last = first if ok else None
    for _ in range(frame_count - 2):
        ok = ok and cap.grab()
    if ok and frame_count > 1:
        ok, frame = cap.read()
        last = frame if ok else None
    cap.release()
    return (first, last) if first is not None else (None, None)


def markers_detected(video: Path, label_path: Path, tolerance_px: float = 1.5, box_markers: bool = True,
                     frames: tuple[str, ...] = ("first",)) -> bool:
    """Every marker of the label (the table's only, unless `box_markers`) found by ArUco within `tolerance_px`
    of its labelled corners, in one of `frames` ("first", "last")."""
    from calibration.truth import load_label

    label = load_label(label_path)
    first, last = _first_and_last_frames(video, label.frame_count if "last" in frames else 1)
    if first is None or label.camera is None:
        return False
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), params)
    expected = {m.id: label.camera.project(np.array(m.corners_mm)) for m in label.scene.table_markers}

    def expected_in(frame_index: int) -> dict[int, np.ndarray]:
        if not box_markers:
            return expected
        pose = label.box_pose_at(frame_index)
        on_box = {m.id: label.camera.project(np.column_stack([pose.box_to_table(np.array(m.corners_mm)),
                                                              np.full(4, m.z_mm)]))
                  for m in label.scene.box.markers}
        return {**expected, **on_box}

    missing = set(expected_in(0))
    for name in frames:
        frame, frame_index = (first, 0) if name == "first" else (last, label.frame_count - 1)
        if frame is None:
            continue
        wanted = expected_in(frame_index)
        corners, ids, _ = detector.detectMarkers(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
        found = {} if ids is None else {int(i): c.reshape(4, 2) for i, c in zip(ids.reshape(-1), corners,
                                                                                strict=True)}
        missing = {marker_id for marker_id in missing if marker_id not in found
                   or np.linalg.norm(found[marker_id] - wanted[marker_id], axis=1).max() > tolerance_px}
    return not missing


def _generate_clip(out_dir: Path, index: int, seed: int, attempt: int, world: WorldSpec = NARROW,
                   track_meteor: bool = False) -> dict:
    key = [seed, index, 7919] if attempt == 0 else [seed, index, 7919, attempt]
    rng = np.random.default_rng(key)
    look_key = [seed, index, 104729, attempt]  # the look's own streams: [*look_key, part]
    look = None
    if world.varied_looks:
        look = draw_look(np.random.default_rng([*look_key, 1]), box_rng=np.random.default_rng([*look_key, 5]))
    case = case_for(index, rng, world)
    width, height = case.get("res", (1280, 720))
    fps = float(case.get("fps", 60))
    exposure = (rng.uniform(0.5, 0.9) if fps >= 50 else rng.uniform(0.7, 0.95)) / fps
    if look is not None:
        exposure = look.exposure_share / fps
    distortion = bool(case.get("distortion", rng.random() < world.distortion_probability))
    top_mm = max(260.0, look.motion.height_mm[1] + 60) if look is not None else 260.0
    for _attempt in range(8):
        scene, box_center = make_scene(rng, case, look)
        launch_dir = np.append(box_center / np.linalg.norm(box_center), 0.0)
        x_min, x_max, y_min, y_max = scene.table_region
        outline = scene.pose.box_to_table(scene.box.outline)
        must_see = [np.array([x, y, 0.0]) for x in (x_min, x_max) for y in (y_min, y_max)]
        must_see += [np.array([p[0], p[1], scene.box.rim_height]) for p in outline]
        must_see += [np.array([0.0, 0.0, top_mm])]
        for _ in range(12):
            camera = round_camera(random_camera(rng, (width, height), np.array(must_see), launch_dir, distortion,
                                                height_mm=world.camera_height_mm,
                                                tilt_max_deg=world.camera_tilt_max_deg, k1_max=world.k1_max,
                                                k2_max=world.k2_max))
            if camera.center_mm[2] < top_mm + 350:
                continue  # the lamp-high release would touch the lens
            if markers_visible(scene, camera, (width, height), min_px=8.0 if look is not None else 25.0):
                break
        else:
            continue
        box, r = scene.box, scene.meteor_radius
        physics = World(radius=r, solids=[(s.bounds, s.kind) for s in box.solids], box_yaw_deg=scene.pose.yaw_deg,
                      box_center=tuple(scene.pose.translation_mm))
        physics.table = Material(float(rng.uniform(0.62, 0.78)), float(rng.uniform(0.25, 0.45)))
        physics.box = Material(float(rng.uniform(0.45, 0.6)), float(rng.uniform(0.3, 0.5)))
        physics.floor = Material(float(rng.uniform(0.35, 0.5)), float(rng.uniform(0.35, 0.5)))
        physics.rolling_resistance = float(rng.uniform(0.02, 0.045))

        def visible(p, camera=camera, w=width, h=height, r=r, scene=scene):
            if ray_blocked(scene, camera, np.asarray(p, float)):
                return False  # hidden behind a wall: no rest the judge could see
            uv = camera.project(np.asarray(p, float).reshape(1, 3))[0]
            rho = camera.apparent_diameter_px(np.asarray(p, float).reshape(1, 3), 2 * r)[0] / 2
            return -rho < uv[0] < w + rho and -rho < uv[1] < h + rho

        rot, tr = camera.rotation.tolist(), camera.translation.tolist()
        fx, fy, cx, cy = camera.K[0][0], camera.K[1][1], camera.K[0][2], camera.K[1][2]

        def cheap_visible(x, y, z, rot=rot, tr=tr, fx=fx, fy=fy, cx=cx, cy=cy, w=width, h=height):
            X = rot[0][0] * x + rot[0][1] * y + rot[0][2] * z + tr[0]
            Y = rot[1][0] * x + rot[1][1] * y + rot[1][2] * z + tr[1]
            Z = rot[2][0] * x + rot[2][1] * y + rot[2][2] * z + tr[2]
            u, v = fx * X / Z + cx, fy * Y / Z + cy
            return -60 < u < w + 60 and -60 < v < h + 60

        physics.view_test = cheap_visible
        t_still = float(rng.uniform(0.55, 1.0))
        t_enter_len = float(rng.uniform(0.35, 0.5))
        t_hold_len = float(rng.uniform(0.15, 0.35))
        t_throw_len = float(rng.uniform(0.1, 0.16))
        if look is not None:
            t_still, t_enter_len, t_hold_len, t_throw_len = _start_timing(np.random.default_rng([*look_key, 2]), look,
                                                                          t_still)
        lead = t_still + t_enter_len + t_hold_len + t_throw_len
        if look is not None:
            quiet_s = t_still if look.start == "pickup" else 0.0  # a pick-up's meteor lies in the box till then
            scene.motion = draw_box_motion(np.random.default_rng([*look_key, 6]), look.box_motion, scene.pose,
                                           launch_dir[:2], quiet_s, lead)
        if scene.motion is not None:  # the physics runs from the release (t = 0): the box's clock runs `lead` ahead
            physics.box_motion = partial(_box_state_from_release, scene.motion, lead)
            physics.box_still_from = scene.motion.end_s - lead

        def timing_of(traj, lead=lead, fps=fps, exposure=exposure):
            end = traj.left_view_time + 0.6 if traj.left_view_time is not None else traj.still_time + 0.55
            total = lead + end
            if total > 7.0:
                return None
            n = int(math.ceil(max(total, lead + 1.6) * fps))
            # the solver simulates from t = 0 at release: shift times by `lead` through a view
            return _ShiftedTiming(fps, exposure, n, lead)

        try:
            traj, velocity, spin, mode, release, forward = solve_launch(rng, scene, case, physics, timing_of, visible,
                                                                        box_center)
        except NoLaunchFound:
            continue
        break
    else:
        raise NoLaunchFound(f"clip {index}: no launch found for {case}")
    # shift the trajectory to clip time
    t_release = lead
    traj.t0 = t_release
    for impact in traj.impacts:
        impact.t += t_release
    if traj.still_time is not None:
        traj.still_time += t_release
    if traj.left_view_time is not None:
        traj.left_view_time += t_release
    end = (traj.left_view_time + 0.6) if traj.left_view_time is not None else traj.still_time + 0.55
    frame_count = int(math.ceil(max(end, lead + 1.6) * fps))
    timing = Timing(fps, exposure, frame_count)
    events = events_of(scene, traj, timing, t_release, visible)
    # the herd, placed relative to the labelled release point
    launcher_side = events.release_point[:2] - launch_dir[:2] * 1000
    offset = _herd_offset(rng, case)
    normal = -launch_dir[:2]
    tilt = np.radians(rng.uniform(-8, 8))
    normal = np.array([normal[0] * math.cos(tilt) - normal[1] * math.sin(tilt),
                       normal[0] * math.sin(tilt) + normal[1] * math.cos(tilt)])
    along = np.array([-normal[1], normal[0]])
    on_line = events.release_point[:2] - normal * offset
    pitch = 63 + float(rng.uniform(6, 16))
    mid = on_line + along * float(rng.normal(0, 40))
    centers = [mid + along * pitch * (k - 2.5) for k in range(6)]
    scene.herd_line = np.array([centers[0], centers[-1]])
    scene.herd_cards = [card_corners(c, along, 63.0, 88.0) for c in centers]
    palette = [(70, 120, 190), (60, 160, 100), (170, 110, 60), (60, 90, 170), (150, 80, 150), (90, 170, 200),
               (40, 130, 160), (140, 140, 60)]
    scene.herd_colors = [palette[int(k)] for k in rng.integers(0, len(palette), 6)]
    launcher_side_point = events.release_point[:2] + normal * 1000
    del launcher_side
    # colours that stand out where the meteor rests
    region = events.region
    names = list(METEOR_COLORS)
    if region.startswith("water"):
        names.remove("blue")
    if scene.table_style == "cloth":
        names.remove("green")
    scene.meteor_rgb = METEOR_COLORS[str(rng.choice(names))]
    scene.meteor_style = str(rng.choice(METEOR_STYLES))
    if look is not None:
        look_rng = np.random.default_rng([*look_key, 3])
        look.meteor = choose_meteor(look_rng, look, region.startswith("water"))
        scene.meteor_rgb, scene.meteor_style = look.meteor.rgb, look.meteor.style
        keep_clear = np.vstack([traj.positions[::20, :2], release[None, :2]])
        look.objects = place_objects(look_rng, scene, look.table.objects, keep_clear)
    video = f"clip_{index:03d}.mp4"
    # render
    box_colors = {"wall": WALL_COLORS[int(rng.integers(len(WALL_COLORS)))], "partition": (205, 215, 220),
                  "inner": (170, 185, 195)}
    box_colors["rim"] = tuple(min(255, int(c * 1.35 + 20)) for c in box_colors["wall"])
    dino_cols = list(DINO_COLORS)
    rng.shuffle(dino_cols)
    k = 0
    for reg in scene.box.regions:
        if reg.kind == "water":
            box_colors[reg.name] = WATER_BGR
        else:
            box_colors[reg.name] = dino_cols[k]
            k += 1
    skin = SKINS[int(rng.integers(len(SKINS)))]
    if look is not None:
        skin = look.arm.skin_bgr
    renderer = Renderer(scene, camera, (width, height), rng, box_colors, skin)
    plan = _make_plan(scene, camera, (width, height), t_still, t_enter_len, t_hold_len, t_throw_len, release,
                      velocity, spin, forward, traj)
    if look is not None:
        _style_plan(plan, scene, camera, (width, height), look, np.random.default_rng([*look_key, 4]))
    plan.orient = integrate_orientation(traj, rng)
    path = out_dir / video
    _write_video(path, renderer, plan, timing, rng, r, look)
    decoded = count_frames(path)
    if decoded != frame_count:
        raise RuntimeError(f"{video}: wrote {frame_count} frames, OpenCV decodes {decoded}")
    label = build_label(scene, camera, events, timing, video, (width, height), mode, launcher_side_point,
                        meteor_track(plan.meteor, plan.t_release, timing) if track_meteor else None)
    (out_dir / f"clip_{index:03d}.json").write_text(label.to_json() + "\n", encoding="utf-8")
    return {"video": video, "label": f"clip_{index:03d}.json", "case": case["case"],
            "spec": {k: (list(v) if isinstance(v, tuple) else v) for k, v in case.items()},
            "frame_size": [width, height], "fps": fps, "frame_count": frame_count, "launch_mode": mode,
            "outcome": label.outcome, "region": label.region, "valid": label.valid,
            "bounces_before_box": label.bounces_before_box,
            "herd_line_signed_mm": label.release.herd_line_signed_mm,
            "release_height_mm": label.release.height_mm, "rest": label.rest is not None,
            "layout": scene.box.layout, "table": scene.table_style, "meteor_style": scene.meteor_style,
            "k1": camera.dist[0], **(_look_summary(look) if look is not None else {"world": world.name})}


def _look_summary(look: Look) -> dict:
    """The wide world's draw for a clip, for the index and the README table."""
    return {"world": "wide", "meteor_kind": look.meteor.kind, "start": look.start, "motion": look.motion.name,
            "hand": "two" if look.arm.two_handed else ("left" if look.arm.handed < 0 else "right"),
            "lamps": len(look.light.lamps), "objects": len(look.objects), "small_box_markers": look.small_box_markers,
            "box_motion": look.box_motion, "crf": look.crf}


def _box_state_from_release(motion: BoxMotion, lead_s: float, t_s: float) -> tuple[float, float, float]:
    """The box's (yaw_deg, x_mm, y_mm) at `t_s` after the release, which is `lead_s` into the clip."""
    return motion.state_at(t_s + lead_s)


class _ShiftedTiming(Timing):
    """Timing seen from simulation time (t = 0 at release) for a clip whose release is at `lead`."""

    def __init__(self, fps: float, exposure: float, frame_count: int, lead: float):
        super().__init__(fps, exposure, frame_count)
        self.lead = lead

    def frame_time(self, i: int) -> float:
        return super().frame_time(i) - self.lead

    def first_frame_after(self, t: float) -> int:
        return super().first_frame_after(t + self.lead)

    def frame_of(self, t: float) -> int:
        return super().frame_of(t + self.lead)


def _make_plan(scene, camera, size, t_still, enter_len, hold_len, throw_len, release, velocity, spin, forward, traj):
    t_enter = t_still
    t_hold = t_enter + enter_len
    t_throw = t_hold + hold_len
    t_release = t_throw + throw_len
    hold = release - velocity * throw_len / 2
    hold[2] = max(hold[2], scene.meteor_radius + 8)
    w, h = size
    start = hold.copy()
    for dist in range(150, 3000, 50):
        start = hold - forward * dist + np.array([0, 0, 40.0])
        palm = start - forward * 72
        uv = camera.project(np.vstack([start, palm]))
        if all(not (-120 < u < w + 120 and -120 < v < h + 120) for u, v in uv):
            break
    return Plan(t_enter, t_hold, t_throw, t_release, start, hold, release, velocity, spin, forward, traj)


def _start_timing(rng: np.random.Generator, look: Look, t_still: float) -> tuple[float, float, float, float]:
    """(still table, hand entering, hold, push) durations for the look's start and motion.

    empty: the table is still for a while, then the hand enters; in_hand: held from the first frame;
    quick: held from the first frame and released within 0.3 s; pickup: the hand reaches into the
    box (the first duration), then carries the meteor over the table.
    """
    push = float(rng.uniform(*look.motion.push_s))
    if look.start == "in_hand":
        return 0.0, 0.0, float(rng.uniform(0.15, 1.0)), push
    if look.start == "quick":
        hold = float(rng.uniform(0.0, 0.12))
        return 0.0, 0.0, hold, min(push, 0.3 - hold - 1e-3)
    if look.start == "pickup":
        return float(rng.uniform(0.4, 0.7)), float(rng.uniform(0.5, 0.8)), float(rng.uniform(0.15, 0.5)), push
    return float(rng.uniform(0.3, 1.0)), float(rng.uniform(0.35, 0.5)), float(rng.uniform(0.15, 0.35)), push


def _style_plan(plan: Plan, scene: Scene, camera: CameraModel, size: tuple[int, int], look: Look,
                rng: np.random.Generator) -> None:
    """The wide world's hand: its follow-through, and for a pick-up the meteor lying in the box at first."""
    plan.follow_s = look.motion.follow_s * float(rng.uniform(0.7, 1.6))
    plan.open_s = max(0.05, 0.8 * plan.follow_s)
    if look.start != "pickup":
        return
    box = scene.box
    region = box.regions[int(rng.integers(len(box.regions)))]
    x0, x1, y0, y1 = region.rect
    spot = np.array([rng.uniform(x0 + 0.3 * (x1 - x0), x1 - 0.3 * (x1 - x0)),
                     rng.uniform(y0 + 0.3 * (y1 - y0), y1 - 0.3 * (y1 - y0))])
    plan.reach_from = plan.start - plan.forward * 72 + np.array([0.0, 0.0, scene.meteor_radius + 12])
    plan.start = np.append(scene.pose_at(0.0).box_to_table(spot)[0], box.floor_height + scene.meteor_radius)
    plan.pickup = True
    plan.lift_mm = box.rim_height + 40.0


def _write_video(path: Path, renderer: Renderer, plan: Plan, timing: Timing, rng: np.random.Generator,
                 r: float, look: Look | None = None) -> None:
    """Render every frame, the box standing where it is at the frame's time."""
    w, h = renderer.size
    writer = ClipWriter(path, timing.fps, (w, h), crf=look.crf if look is not None else None)
    sigma = float(rng.uniform(0.5, 1.1))
    pool = []
    for _ in range(4):
        n = rng.normal(0, sigma, (h, w, 3))
        pool.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
    phase = rng.uniform(0, 2 * np.pi, 4)
    period = rng.uniform(2.5, 6.0, 4)
    amp = float(rng.uniform(0.01, 0.04))
    wb = float(rng.uniform(0.005, 0.02))
    tint = np.ones(3)
    if look is not None:
        amp, wb, tint = look.light.drift, look.light.wb_drift, np.array(look.light.tint_bgr)

    def meteor_at(t: float):
        return plan.meteor(t), plan.orientation(t)

    def hand_at(t: float) -> HandState:
        return plan.hand(t, r)

    for i in range(timing.frame_count):
        t0 = i / timing.fps
        a, b = plan.meteor(t0), plan.meteor(t0 + timing.exposure)
        ha, hb = plan.hand(t0, r), plan.hand(t0 + timing.exposure, r)
        pts = renderer.project(np.vstack([a, b, ha.palm, hb.palm]))
        disp = max(np.linalg.norm(pts[0] - pts[1]), np.linalg.norm(pts[2] - pts[3]) if ha.visible else 0.0)
        k = int(min(32, max(1, math.ceil(disp / 2.0) + 1)))
        times = t0 + (np.arange(k) + 0.5) / k * timing.exposure
        g = 1 + amp * math.sin(2 * math.pi * t0 / period[0] + phase[0])
        gains = tint * np.array([g * (1 + wb * math.sin(2 * math.pi * t0 / period[c + 1] + phase[c + 1]))
                                 for c in range(3)])
        renderer.use_pose(renderer.scene.pose_at(timing.frame_time(i)))
        frame = renderer.render_frame(times, meteor_at, hand_at, gains, pool[i % len(pool)])
        writer.write(frame)
    writer.close()


def count_frames(path: Path) -> int:
    cap = cv2.VideoCapture(str(path))
    n = 0
    while True:
        ok = cap.grab()
        if not ok:
            break
        n += 1
    cap.release()
    return n


# ---- many clips ----------------------------------------------------------------------------------------
def _job(args: tuple[str, int, int, str, bool]) -> dict:
    out, index, seed, world, track_meteor = args
    cv2.setNumThreads(1)
    return generate_clip(Path(out), index, seed, WORLDS[world], track_meteor)


def generate(out_dir: str | Path, n: int, seed: int = 0, workers: int = 2, progress: bool = True,
             start: int = 0, world: WorldSpec = WIDE, track_meteor: bool = False) -> list[dict]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(str(out), i, seed, world.name, track_meteor) for i in range(start, start + n)]
    workers = max(1, min(2, workers, len(jobs)))
    from tqdm import tqdm

    bar = tqdm(total=len(jobs), desc="clips", unit="clip", file=sys.stderr, disable=not progress)
    results: list[dict] = []
    if workers == 1:
        cv2.setNumThreads(1)
        for job in jobs:
            results.append(_job(job))
            bar.update(1)
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for result in pool.map(_job, jobs):
                results.append(result)
                bar.update(1)
    bar.close()
    index = {"schema": "meteors-launch-index/1", "labels_schema": "meteors-launch-truth/1", "seed": seed,
             "world": world.name, "count": len(results), "generator": "meteors-judge samples generate",
             "clips": results}
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    return results


if __name__ == "__main__":  # pragma: no cover
    generate(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 0,
             int(os.environ.get("WORKERS", "2")))
