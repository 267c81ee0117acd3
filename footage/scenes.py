"""Random physical scenes: the box (layouts, walls, regions, markers), the table markers, the meteor.

Everything is in millimetres. The box frame has its origin at the box centre, x along its
length; the box stands on the table at `BoxPose` (table_xy = R(yaw) · box_xy + t).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.geometry import BoxPose
from calibration.rig import DINOSAUR_TYPES
from footage.box_motion import BoxMotion
from footage.world import Look

# An axis-aligned solid in the box frame: (xmin, xmax, ymin, ymax, zmin, zmax), and what it is.
Solid = tuple[float, float, float, float, float, float]


@dataclass
class BoxSolid:
    bounds: Solid
    kind: str  # "outer" (outer wall: its top is the rim), "partition" or "floor"


@dataclass
class RegionSpec:
    name: str
    kind: str  # "dinosaur" | "water"
    dinosaur: str | None
    rect: tuple[float, float, float, float]  # xmin, xmax, ymin, ymax (box frame)

    @property
    def polygon(self) -> list[tuple[float, float]]:
        x0, x1, y0, y1 = self.rect
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


@dataclass
class MarkerSpec:
    id: int
    size: float
    z: float
    corners: np.ndarray  # 4×2, ArUco order (TL, TR, BR, BL), in its own frame (table or box)


@dataclass
class BoxSpec:
    layout: str
    length: float  # along box x
    width: float  # along box y
    rim_height: float
    floor_height: float
    wall: float  # outer wall thickness (the rim's width)
    partition_height: float  # height of the low walls above the table
    partition_thickness: float
    regions: list[RegionSpec]
    solids: list[BoxSolid]
    markers: list[MarkerSpec] = field(default_factory=list)

    @property
    def outline(self) -> np.ndarray:
        hx, hy = self.length / 2, self.width / 2
        return np.array([(-hx, -hy), (hx, -hy), (hx, hy), (-hx, hy)], dtype=float)

    @property
    def inner(self) -> tuple[float, float, float, float]:
        hx, hy = self.length / 2 - self.wall, self.width / 2 - self.wall
        return (-hx, hx, -hy, hy)

    @property
    def radius(self) -> float:
        return float(np.hypot(self.length, self.width) / 2)


@dataclass
class Scene:
    box: BoxSpec
    pose: BoxPose
    table_markers: list[MarkerSpec]
    table_region: tuple[float, float, float, float]  # xmin, xmax, ymin, ymax of the set-up area
    meteor_diameter: float
    meteor_rgb: tuple[int, int, int] = (200, 60, 40)
    meteor_style: str = "plain"
    herd_line: np.ndarray | None = None  # 2×2
    herd_cards: list[np.ndarray] = field(default_factory=list)  # each 4×2 corners (table frame)
    herd_colors: list[tuple[int, int, int]] = field(default_factory=list)
    table_style: str = "wood"
    table_seed: int = 0
    light: np.ndarray = field(default_factory=lambda: np.array([0.3, 0.2, 0.93]))
    look: Look | None = None  # the wide world's appearance; None draws the narrow world's
    motion: BoxMotion | None = None  # how the box moves during the clip, ending at `pose`; None: it stands still

    def pose_at(self, t_s: float) -> BoxPose:
        """Where the box stands at clip time `t_s`."""
        return self.pose if self.motion is None else self.motion.pose_at(t_s)

    @property
    def lamps(self) -> list[tuple[np.ndarray, float]]:
        """(unit direction towards the lamp, share of the light), strongest first."""
        if self.look is None:
            return [(np.asarray(self.light, float) / np.linalg.norm(self.light), 1.0)]
        return [(lamp.direction, lamp.weight) for lamp in self.look.light.lamps]

    @property
    def meteor_radius(self) -> float:
        return self.meteor_diameter / 2


LAYOUTS = ("rows", "ends", "columns")

WATER_NAMES = {"rows": ["water_center"], "ends": ["water_west", "water_east"], "columns": ["water_center"]}


def marker_corners(center: np.ndarray, size: float, angle_deg: float) -> np.ndarray:
    """Corners (TL, TR, BR, BL) of a marker lying face up, seen non-mirrored from above."""
    a = np.radians(angle_deg)
    e_u = np.array([np.cos(a), np.sin(a)])  # marker image's +u (right)
    e_v = np.array([np.sin(a), -np.cos(a)])  # marker image's +v (down)
    tl = np.asarray(center, float) - (e_u + e_v) * size / 2
    return np.array([tl, tl + e_u * size, tl + (e_u + e_v) * size, tl + e_v * size])


def make_box(rng: np.random.Generator, layout: str, marker_min_mm: float = 24.0) -> BoxSpec:
    wide_rim = layout != "columns"
    length = float(rng.uniform(300, 360))
    width = float(rng.uniform(220, 260))
    rim_height = float(rng.uniform(45, 65))
    floor_height = float(rng.uniform(10, 22))
    marker_size = float(max(marker_min_mm, rng.uniform(26, 34)))
    if not wide_rim:
        marker_size = float(max(marker_size, rng.uniform(34, 40)))  # floor markers: larger, there is room
    wall = max(float(rng.uniform(34, 40)), marker_size + 9) if wide_rim else float(rng.uniform(6, 9))
    part_t = float(rng.uniform(3, 5))
    part_h = floor_height + float(rng.uniform(12, 18))
    x0, x1, y0, y1 = -length / 2 + wall, length / 2 - wall, -width / 2 + wall, width / 2 - wall
    dinos = list(DINOSAUR_TYPES)
    rng.shuffle(dinos)
    cells: list[tuple[str, str, str | None, tuple[float, float, float, float]]] = []
    xs_cut: list[float] = []
    ys_cut: list[tuple[float, float, float]] = []  # (y, xmin, xmax) horizontal partitions
    if layout == "rows":  # two rows of three dinosaurs around a central water band
        band = float(rng.uniform(0.22, 0.3)) * (y1 - y0)
        ya, yb = -band / 2, band / 2
        cols = np.linspace(x0, x1, 4)
        k = 0
        for row in ((y0, ya), (yb, y1)):
            for c in range(3):
                cells.append(("dinosaur", dinos[k], dinos[k], (cols[c], cols[c + 1], row[0], row[1])))
                k += 1
        cells.append(("water", "water_center", None, (x0, x1, ya, yb)))
        xs_cut = [cols[1], cols[2]]
        ys_cut = [(ya, x0, x1), (yb, x0, x1)]
        x_partitions = [(x, y0, ya) for x in xs_cut] + [(x, yb, y1) for x in xs_cut]
    elif layout == "ends":  # water at both ends, 3×2 dinosaurs between
        end = float(rng.uniform(0.14, 0.2)) * (x1 - x0)
        xa, xb = x0 + end, x1 - end
        cols = np.linspace(xa, xb, 4)
        ym = 0.0
        k = 0
        for row in ((y0, ym), (ym, y1)):
            for c in range(3):
                cells.append(("dinosaur", dinos[k], dinos[k], (cols[c], cols[c + 1], row[0], row[1])))
                k += 1
        cells.append(("water", "water_west", None, (x0, xa, y0, y1)))
        cells.append(("water", "water_east", None, (xb, x1, y0, y1)))
        x_partitions = [(xa, y0, y1), (xb, y0, y1)] + [(x, y0, y1) for x in cols[1:3]]
        ys_cut = [(ym, xa, xb)]
    else:  # "columns": 2 columns × 3 rows of dinosaurs, a water column in the middle
        band = float(rng.uniform(0.22, 0.3)) * (x1 - x0)
        xa, xb = -band / 2, band / 2
        rows = np.linspace(y0, y1, 4)
        k = 0
        for col in ((x0, xa), (xb, x1)):
            for r in range(3):
                cells.append(("dinosaur", dinos[k], dinos[k], (col[0], col[1], rows[r], rows[r + 1])))
                k += 1
        cells.append(("water", "water_center", None, (xa, xb, y0, y1)))
        x_partitions = [(xa, y0, y1), (xb, y0, y1)]
        ys_cut = [(y, x0, xa) for y in rows[1:3]] + [(y, xb, x1) for y in rows[1:3]]
    regions = [RegionSpec(name, kind, dino, tuple(float(v) for v in rect)) for kind, name, dino, rect in cells]
    hx, hy, h = length / 2, width / 2, part_t / 2
    solids = [
        BoxSolid((-hx, hx, -hy, -hy + wall, 0.0, rim_height), "outer"),
        BoxSolid((-hx, hx, hy - wall, hy, 0.0, rim_height), "outer"),
        BoxSolid((-hx, -hx + wall, -hy + wall, hy - wall, 0.0, rim_height), "outer"),
        BoxSolid((hx - wall, hx, -hy + wall, hy - wall, 0.0, rim_height), "outer"),
        BoxSolid((x0, x1, y0, y1, 0.0, floor_height), "floor"),
    ]
    for x, ya_, yb_ in x_partitions:
        solids.append(BoxSolid((x - h, x + h, ya_, yb_, floor_height, part_h), "partition"))
    for y, xa_, xb_ in ys_cut:
        solids.append(BoxSolid((xa_, xb_, y - h, y + h, floor_height, part_h), "partition"))
    box = BoxSpec(layout, length, width, rim_height, floor_height, wall, part_h, part_t, regions, solids)
    # box markers 4..7: on the rim's corners (wide rim) or on the floor in the inner corners
    size = marker_size
    if wide_rim:
        c = wall / 2
        centers = [(-hx + c, hy - c), (hx - c, hy - c), (hx - c, -hy + c), (-hx + c, -hy + c)]
        z = rim_height
    else:  # on the floor, in the corner compartments, clear of the walls' occlusion
        cx = min(size / 2 + 0.6 * (rim_height - floor_height) + 4, (x1 - x0) / 4)
        cy = min(size / 2 + 0.6 * (rim_height - floor_height) + 4, (y1 - y0) / 6)
        centers = [(x0 + cx, y1 - cy), (x1 - cx, y1 - cy), (x1 - cx, y0 + cy), (x0 + cx, y0 + cy)]
        z = floor_height
    for i, center in enumerate(centers):
        angle = float(rng.choice([0, 90, 180, 270]))
        box.markers.append(MarkerSpec(4 + i, size, z, marker_corners(np.array(center), size, angle)))
    return box


def region_at(box: BoxSpec, box_xy: np.ndarray, z: float, radius: float) -> str:
    """The label's `region` for a meteor centre at box-frame `box_xy`, height `z`."""
    x, y = float(box_xy[0]), float(box_xy[1])
    hx, hy = box.length / 2, box.width / 2
    if abs(x) > hx or abs(y) > hy:
        return "outside"
    if z > box.rim_height + radius * 0.5 - 1.0:
        return "rim"
    x0, x1, y0, y1 = box.inner
    if not (x0 < x < x1 and y0 < y < y1):
        return "rim"
    best, best_d = "rim", -1e9
    for region in box.regions:
        rx0, rx1, ry0, ry1 = region.rect
        d = min(x - rx0, rx1 - x, y - ry0, ry1 - y)
        if d > best_d:
            best, best_d = region.name, d
    return best


def card_corners(center: np.ndarray, direction: np.ndarray, along: float, across: float) -> np.ndarray:
    normal = np.array([-direction[1], direction[0]])
    u, v = direction * along / 2, normal * across / 2
    return np.array([center - u - v, center + u - v, center + u + v, center - u + v])


OBJECT_KINDS = ("card", "paper", "coin", "die", "pencil")


def place_objects(rng: np.random.Generator, scene: Scene, count: int, keep_clear_xy: np.ndarray) -> list[dict]:
    """Things lying about on the table (flat: cards, paper, coins, dice, pencils), off the markers, the box,
    the herd and the meteor's ground path (`keep_clear_xy`, N×2 table mm)."""
    x_min, x_max, y_min, y_max = scene.table_region
    outline = scene.pose.box_to_table(scene.box.outline)
    blocked = [m.corners.mean(axis=0) for m in scene.table_markers]
    placed: list[dict] = []
    for _ in range(count * 20):
        if len(placed) >= count:
            break
        kind = str(rng.choice(OBJECT_KINDS))
        size = {"card": rng.uniform(55, 65), "paper": rng.uniform(90, 150), "coin": rng.uniform(16, 28),
                "die": rng.uniform(12, 18), "pencil": rng.uniform(120, 180)}[kind]
        xy = np.array([rng.uniform(x_min, x_max), rng.uniform(y_min, y_max)])
        reach = float(size) * 0.8 + 25
        if min(np.linalg.norm(np.asarray(blocked) - xy, axis=1)) < reach + 45:
            continue
        if np.linalg.norm(keep_clear_xy - xy, axis=1).min() < reach + scene.meteor_radius + 20:
            continue
        if np.linalg.norm(outline.mean(axis=0) - xy) < scene.box.radius + reach:
            continue
        if scene.herd_line is not None and np.linalg.norm(scene.herd_line.mean(axis=0) - xy) < 260 + reach:
            continue
        bgr = tuple(int(c) for c in rng.integers(20, 240, 3))
        if kind == "coin":
            bgr = (60, 150, 190) if rng.random() < 0.5 else (170, 170, 165)
        placed.append({"kind": kind, "xy": (float(xy[0]), float(xy[1])), "size": float(size),
                       "angle": float(rng.uniform(0, 180)), "bgr": bgr})
        blocked.append(xy)
    return placed
