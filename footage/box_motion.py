"""The box on the move: bumped between launches, or tapped left and right during a hard-mode T-Rex launch.

A motion is a sum of shoves, each a cosine-eased shift (and small turn) of the box over a short time,
counted back from the box's final pose: once the last shove is over the box stands at `final`, the
label's `box_pose`, where the meteor comes to rest. Times are clip seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.geometry import BoxPose


@dataclass
class BoxMotion:
    """`kind` ("bumped" | "tapped") moves the box from its start to `final` by shoves k: each starts at
    `start_s[k]`, lasts `shove_s[k]` and moves the box by `shift_mm[k]` (table frame) and `turn_deg[k]`."""

    kind: str
    final: BoxPose
    start_s: np.ndarray  # K
    shift_mm: np.ndarray  # K×2
    turn_deg: np.ndarray  # K
    shove_s: np.ndarray  # K

    def __post_init__(self) -> None:
        # plain floats: the physics asks for the box's state every simulated millisecond
        self._shoves = [(float(t0), float(d), float(dx), float(dy), float(a)) for t0, d, (dx, dy), a
                        in zip(self.start_s, self.shove_s, self.shift_mm, self.turn_deg, strict=True)]
        self._final = (float(self.final.yaw_deg), *(float(v) for v in self.final.translation_mm))

    @property
    def end_s(self) -> float:
        """When the last shove is over: from then on the box stands at `final`."""
        return max(t0 + d for t0, d, *_ in self._shoves)

    def state_at(self, t_s: float) -> tuple[float, float, float]:
        """(yaw_deg, x_mm, y_mm) of the box at clip time `t_s`."""
        yaw, x, y = self._final
        for t0, duration, dx, dy, turn in self._shoves:
            if t_s >= t0 + duration:
                continue
            remaining = 1.0 if t_s <= t0 else 0.5 * (1.0 + math.cos(math.pi * (t_s - t0) / duration))
            yaw -= remaining * turn
            x -= remaining * dx
            y -= remaining * dy
        return yaw, x, y

    def pose_at(self, t_s: float) -> BoxPose:
        yaw, x, y = self.state_at(t_s)
        return BoxPose(yaw_deg=yaw, translation_mm=(x, y))


def draw_box_motion(rng: np.random.Generator, kind: str, final: BoxPose, throw_dir: np.ndarray, clip_start_s: float,
                    release_s: float) -> BoxMotion | None:
    """A random motion of `kind` ("still" gives None) ending at `final`.

    bumped: one shove of 8–35 mm (±5°) in 0.1–0.25 s, between `clip_start_s` and 0.35 s before the
    release: a player knocked the box, and it stands still again before the launch.
    tapped: the hard-mode T-Rex launch's small taps, alternately on the box's two sides (across the
    throw, 2–7 mm and up to 1.2° each, the first half as far), every 0.12–0.3 s from shortly before
    the release until the meteor has landed.
    Nothing moves the box before `clip_start_s` (a meteor lying in it waits for the hand till then).
    """
    if kind == "still":
        return None
    forward = np.asarray(throw_dir, float)[:2] / np.linalg.norm(np.asarray(throw_dir, float)[:2])
    across = np.array([-forward[1], forward[0]])
    if kind == "bumped":
        shove = float(rng.uniform(0.1, 0.25))
        latest = max(clip_start_s, release_s - 0.35 - shove)
        start = float(rng.uniform(clip_start_s, latest)) if latest > clip_start_s else clip_start_s
        direction = rng.uniform(0, 2 * np.pi)
        shift = float(rng.uniform(8, 35)) * np.array([math.cos(direction), math.sin(direction)])
        return BoxMotion(kind, final, np.array([start]), shift[None, :], np.array([rng.uniform(-5, 5)]),
                         np.array([shove]))
    if kind != "tapped":
        raise ValueError(f"unknown box motion {kind!r}")
    t = max(clip_start_s, release_s - float(rng.uniform(0.2, 0.8)))
    stop = release_s + float(rng.uniform(0.4, 1.0))
    starts, shifts, turns, shoves = [], [], [], []
    side = 1.0 if rng.random() < 0.5 else -1.0
    while t < stop:
        size = float(rng.uniform(2, 7)) * (0.5 if not starts else 1.0)  # from the middle, then side to side
        shove = float(rng.uniform(0.06, 0.1))
        starts.append(t)
        shifts.append(side * size * across)
        turns.append(side * float(rng.uniform(0, 1.2)))
        shoves.append(shove)
        side = -side
        t += max(shove, float(rng.uniform(0.12, 0.3)))
    return BoxMotion(kind, final, np.array(starts), np.array(shifts), np.array(turns), np.array(shoves))
