"""The world a clip is drawn from: how widely tables, meteors, arms, lights and cameras vary.

`NARROW` is the generator's original world (saturated meteors, an empty table at first, one lamp,
one throwing motion, mp4v); `WIDE`, the default, covers what a real game may show. A clip's
appearance is a `Look`, drawn from its own random stream so that the physics and the case mix
consume the clip's main stream the same way in both worlds.
"""

from __future__ import annotations

import colorsys
import math
from dataclasses import dataclass, field

import numpy as np
from pydantic import BaseModel, ConfigDict


class WorldSpec(BaseModel):
    """The ranges a world draws from (lengths mm, times s, angles degrees)."""

    model_config = ConfigDict(frozen=True)

    name: str
    camera_height_mm: tuple[float, float] = (900.0, 1600.0)
    camera_tilt_max_deg: float = 15.0
    distortion_probability: float = 0.35
    k1_max: float = 0.05
    k2_max: float = 0.0
    low_res_probability: float = 0.15
    full_hd_probability: float = 0.10
    fps_30_probability: float = 0.25
    varied_looks: bool = False  # meteors, tables, arms, lights and starts beyond the original world
    require_box_markers: bool = True  # redraw a clip whose box markers ArUco cannot read
    h264: bool = False  # encode H.264 at a random quality (else mp4v)


NARROW = WorldSpec(name="narrow")
WIDE = WorldSpec(
    name="wide",
    camera_height_mm=(800.0, 1800.0),
    camera_tilt_max_deg=20.0,
    distortion_probability=0.5,
    k1_max=0.12,
    k2_max=0.05,
    low_res_probability=0.25,
    full_hd_probability=0.20,
    fps_30_probability=0.35,
    varied_looks=True,
    require_box_markers=False,
    h264=True,
)
WORLDS = {"narrow": NARROW, "wide": WIDE}


# ---- the parts of a look ---------------------------------------------------------------------------
@dataclass
class MeteorLook:
    rgb: tuple[int, int, int]  # the colour a user would name (the label's `scene.meteor.rgb`)
    kind: str  # how the colour was chosen: saturated, white, grey, dark, brown, beige, like_table, ...
    style: str  # plain, striped, spotted, irregular, two_tone, speckled
    second_rgb: tuple[int, int, int]  # the other colour of a two-tone or speckled meteor
    gloss: float  # 0 matt .. 1 glossy
    aspect: float  # 1 round; under 1 an ellipsoid's short axis over its long one


@dataclass
class ArmLook:
    skin_bgr: tuple[int, int, int]
    sleeve_bgr: tuple[int, int, int]
    sleeve_cover: float  # share of the forearm the sleeve covers, 0 bare .. 1 to the wrist
    handed: int  # +1 right hand, -1 left hand
    fingers: int  # 4, or 3 for the Triceratops' three fingers
    two_handed: bool  # the Stegosaurus: both hands round the meteor
    casts_shadow: bool


@dataclass
class Lamp:
    direction: np.ndarray  # unit vector towards the lamp (table frame)
    weight: float  # share of the light


@dataclass
class LightLook:
    lamps: list[Lamp]
    softness: float  # 1 hard .. 4 soft shadows
    tint_bgr: tuple[float, float, float]  # white balance of the light (gains)
    drift: float  # auto exposure's wander, relative
    wb_drift: float  # auto white balance's wander, relative


@dataclass
class TableLook:
    style: str  # wood, cloth, mat, felt, pattern, laminate
    base_bgr: tuple[float, float, float]
    second_bgr: tuple[float, float, float]  # a pattern's other colour
    reflection: float  # strength of the lamps' sheen, 0 .. 1
    objects: int  # how many cards, coins, dice and pencils lie about


@dataclass
class Motion:
    """How the meteor is thrown: the Dinosaur card's launch mode, as the camera sees it."""

    name: str
    height_mm: tuple[float, float]  # release height range
    flight_s: tuple[float, float]  # time to the first aim point (short: a flick downwards)
    push_s: tuple[float, float]  # the push before the release
    follow_s: float  # how long the hand keeps moving with the meteor after it leaves
    shoulder_z_mm: float


MOTIONS = {
    "elbow_on_table": Motion("elbow_on_table", (25.0, 90.0), (0.12, 0.45), (0.08, 0.2), 0.06, 160.0),
    "above_head": Motion("above_head", (400.0, 560.0), (0.2, 0.5), (0.1, 0.3), 0.08, 620.0),
    "hands_on_chest": Motion("hands_on_chest", (140.0, 300.0), (0.12, 0.45), (0.05, 0.12), 0.05, 330.0),
    "two_hands": Motion("two_hands", (60.0, 260.0), (0.12, 0.45), (0.1, 0.25), 0.07, 300.0),
    "three_fingers": Motion("three_fingers", (40.0, 220.0), (0.12, 0.45), (0.08, 0.2), 0.1, 280.0),
    "downward_flick": Motion("downward_flick", (180.0, 380.0), (0.08, 0.2), (0.05, 0.12), 0.12, 420.0),
    "long_push": Motion("long_push", (40.0, 260.0), (0.12, 0.45), (0.2, 0.35), 0.15, 300.0),
}


@dataclass
class Look:
    meteor_kind: str
    meteor_style: str
    gloss: float
    aspect: float
    arm: ArmLook
    light: LightLook
    table: TableLook
    motion: Motion
    start: str  # empty (the hand enters), in_hand (held from the first frame), quick (thrown within 0.3 s),
    #             pickup (picked out of the box and carried over the table)
    small_box_markers: bool
    exposure_share: float  # shutter time over the frame time
    crf: int  # H.264 quality (lower is better)
    box_motion: str = "still"  # a key of BOX_MOTIONS
    meteor: MeteorLook | None = None  # chosen once the landing is known (a colour that shows there)
    objects: list[dict] = field(default_factory=list)  # placed once the flight is known


# ---- palettes (BGR where the renderer uses them) --------------------------------------------------------
SKINS_BGR = [(200, 215, 245), (170, 195, 235), (140, 170, 215), (110, 145, 195), (85, 115, 165), (65, 90, 135),
             (45, 65, 100), (35, 48, 75)]
WOOD_BGR = [(150, 190, 220), (110, 160, 205), (60, 105, 150), (45, 80, 125), (50, 70, 140), (40, 55, 110),
            (30, 45, 70), (25, 35, 50)]
FELT_BGR = [(60, 120, 40), (110, 70, 30), (40, 40, 130), (95, 95, 95), (120, 90, 60), (50, 90, 60)]
LAMINATE_BGR = [(235, 236, 232), (215, 215, 212), (160, 160, 158), (120, 122, 125), (200, 210, 220)]
METEOR_KINDS = {  # kind: weight
    "saturated": 0.30, "white": 0.10, "light_grey": 0.08, "dark_grey": 0.08, "near_black": 0.09, "brown": 0.08,
    "beige": 0.08, "like_table": 0.07, "like_skin": 0.06, "like_sleeve": 0.06,
}
METEOR_HSV = {  # kind: hue, saturation and value ranges (0..1)
    "white": ((0, 1), (0, 0.08), (0.88, 1.0)),
    "light_grey": ((0, 1), (0, 0.08), (0.6, 0.8)),
    "dark_grey": ((0, 1), (0, 0.1), (0.25, 0.45)),
    "near_black": ((0, 1), (0, 0.3), (0.06, 0.18)),
    "brown": ((0.04, 0.1), (0.45, 0.75), (0.3, 0.6)),
    "beige": ((0.07, 0.14), (0.15, 0.32), (0.75, 0.92)),
}
START_KINDS = {"empty": 0.25, "in_hand": 0.25, "quick": 0.35, "pickup": 0.15}
# still; bumped (knocked between launches, still again before this one); tapped (the hard-mode T-Rex launch)
BOX_MOTIONS = {"still": 0.76, "bumped": 0.12, "tapped": 0.12}


def _pick(rng: np.random.Generator, weights: dict[str, float]) -> str:
    names = list(weights)
    p = np.array([weights[n] for n in names], float)
    return names[int(rng.choice(len(names), p=p / p.sum()))]


def _jitter(rng: np.random.Generator, bgr, amount: float = 0.1) -> tuple[float, float, float]:
    return tuple(float(np.clip(c * rng.uniform(1 - amount, 1 + amount), 0, 255)) for c in bgr)


def _hsv_bgr(h: float, s: float, v: float) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, s, v)
    return (int(round(b * 255)), int(round(g * 255)), int(round(r * 255)))


def _draw_table(rng: np.random.Generator) -> TableLook:
    style = _pick(rng, {"wood": 0.3, "cloth": 0.12, "mat": 0.1, "felt": 0.18, "pattern": 0.12, "laminate": 0.18})
    if style == "wood":
        base = _jitter(rng, WOOD_BGR[int(rng.integers(len(WOOD_BGR)))])
    elif style == "felt":
        base = _jitter(rng, FELT_BGR[int(rng.integers(len(FELT_BGR)))])
    elif style == "laminate":
        base = _jitter(rng, LAMINATE_BGR[int(rng.integers(len(LAMINATE_BGR)))], 0.04)
    else:
        base = _hsv_bgr(rng.uniform(0, 1), rng.uniform(0.1, 0.7), rng.uniform(0.25, 0.85))
    second = _hsv_bgr(rng.uniform(0, 1), rng.uniform(0.0, 0.6), rng.uniform(0.3, 0.95))
    reflection = float(rng.uniform(0.3, 0.8)) if style == "laminate" else float(rng.uniform(0.0, 0.25))
    return TableLook(style, tuple(float(c) for c in base), tuple(float(c) for c in second), reflection,
                     int(rng.integers(0, 7)))


def _draw_light(rng: np.random.Generator) -> LightLook:
    n = int(rng.choice([1, 2, 3], p=[0.5, 0.35, 0.15]))
    weights = rng.dirichlet(np.full(n, 2.0))
    weights = np.sort(weights)[::-1]
    lamps = []
    for w in weights:
        azimuth = rng.uniform(0, 2 * np.pi)
        elevation = np.radians(rng.uniform(35, 85))
        direction = np.array([math.cos(azimuth) * math.cos(elevation), math.sin(azimuth) * math.cos(elevation),
                              math.sin(elevation)])
        lamps.append(Lamp(direction, float(w)))
    warmth = float(rng.uniform(-1, 1))  # -1 cold .. +1 warm
    tint = (1.0 - 0.12 * warmth, 1.0, 1.0 + 0.12 * warmth)
    return LightLook(lamps, float(rng.uniform(1.0, 4.0)), tint, float(rng.uniform(0.01, 0.08)),
                     float(rng.uniform(0.005, 0.04)))


def _draw_arm(rng: np.random.Generator, motion: Motion) -> ArmLook:
    skin = _jitter(rng, SKINS_BGR[int(rng.integers(len(SKINS_BGR)))], 0.06)
    sleeve = _hsv_bgr(rng.uniform(0, 1), rng.uniform(0, 0.9), rng.uniform(0.08, 0.95))
    return ArmLook(
        skin_bgr=tuple(int(c) for c in skin),
        sleeve_bgr=sleeve,
        sleeve_cover=float(rng.choice([0.0, rng.uniform(0.2, 0.6), rng.uniform(0.7, 0.97)])),
        handed=1 if rng.random() < 0.8 else -1,
        fingers=3 if motion.name == "three_fingers" else 4,
        two_handed=motion.name == "two_hands",
        casts_shadow=bool(rng.random() < 0.8),
    )


def draw_look(rng: np.random.Generator, box_rng: np.random.Generator | None = None) -> Look:
    """A random appearance for one clip of the wide world (the meteor's colour comes later).

    `box_rng` draws how the box moves (none without it); a tapped box is the hard-mode T-Rex launch,
    thrown with the hands on the chest. The other draws do not depend on it.
    """
    motion = MOTIONS[str(rng.choice(list(MOTIONS)))]
    box_motion = _pick(box_rng, BOX_MOTIONS) if box_rng is not None else "still"
    if box_motion == "tapped":
        motion = MOTIONS["hands_on_chest"]
    styles = ["plain", "striped", "spotted", "irregular", "two_tone", "speckled"]
    return Look(
        meteor_kind=_pick(rng, METEOR_KINDS),
        meteor_style=str(rng.choice(styles)),
        gloss=float(rng.choice([rng.uniform(0.0, 0.2), rng.uniform(0.5, 1.0)])),
        aspect=float(rng.choice([1.0, rng.uniform(0.85, 0.97)])),
        arm=_draw_arm(rng, motion),
        light=_draw_light(rng),
        table=_draw_table(rng),
        motion=motion,
        start=_pick(rng, START_KINDS),
        small_box_markers=bool(rng.random() < 0.25),
        exposure_share=float(rng.uniform(0.25, 1.0)),
        crf=int(rng.integers(18, 31)),
        box_motion=box_motion,
    )


def _meteor_rgb(rng: np.random.Generator, look: Look, avoid_hues: list[float]) -> tuple[int, int, int]:
    """The meteor's colour (RGB) for its kind."""
    kind = look.meteor_kind
    if kind == "saturated":
        for _ in range(20):
            h = rng.uniform(0, 1)
            if all(min(abs(h - a), 1 - abs(h - a)) > 0.06 for a in avoid_hues):
                break
        b, g, r = _hsv_bgr(h, rng.uniform(0.6, 1.0), rng.uniform(0.6, 1.0))
    elif kind in METEOR_HSV:
        b, g, r = _hsv_bgr(*(rng.uniform(*bounds) for bounds in METEOR_HSV[kind]))
    else:
        source = {"like_table": look.table.base_bgr, "like_skin": look.arm.skin_bgr,
                  "like_sleeve": look.arm.sleeve_bgr}[kind]
        b, g, r = _jitter(rng, source, 0.08)
    return (int(round(r)), int(round(g)), int(round(b)))


def choose_meteor(rng: np.random.Generator, look: Look, rests_in_water: bool) -> MeteorLook:
    """The meteor's look, once the landing is known (a saturated one avoids the water's blue there)."""
    avoid = [0.6] if rests_in_water else []
    rgb = _meteor_rgb(rng, look, avoid)
    second = _hsv_bgr(rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.1, 1.0))[::-1]
    return MeteorLook(rgb, look.meteor_kind, look.meteor_style, tuple(int(c) for c in second), look.gloss,
                      look.aspect)


def saturation(rgb) -> float:
    """HSV saturation of an RGB colour, 0..1."""
    hi, lo = max(rgb), min(rgb)
    return 0.0 if hi <= 0 else (hi - lo) / hi
