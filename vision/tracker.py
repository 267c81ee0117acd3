"""A constant-acceleration Kalman filter on the meteor's pixel position, with gating.

It predicts where the meteor should be in the next frame, so the detector picks the candidate
inside the gate and never jumps to another meteor-coloured object; it coasts through short
occlusions (the hand at release, a wall) on its prediction, and declares the track lost after
`max_missed` frames without a sighting. Found again after a gap, it restarts its motion from the
mean step since the last sighting (a bounce in the gap changed the velocity at once).

While it coasts, its acceleration is held to `max_coast_accel_px`. An unseen meteor flies free,
and a free meteor's image accelerates about as gravity does at most; the filter's estimate may
carry a hand's push or a bounce's kink, which, carried on frame after frame, sends the prediction
(and the search round it) far from the meteor.

State (x, y, vx, vy, ax, ay) in pixels and frames. The two axes do not interact (the motion model,
the process noise and the measurement noise are the same on each and separable), and they start
with the same covariance, so both share one 3×3 covariance: predict and update are a dozen
closed-form scalar operations in plain Python (a few µs), the same filter as the 6×6 matrix form.
"""

from __future__ import annotations

import math

import numpy as np

REACQUIRE_MISSES = 2  # found again after this many frames unseen, the track restarts its motion


class KalmanTracker:
    """State (x, y, vx, vy, ax, ay) in pixels and frames."""

    def __init__(
        self,
        measurement_px: float = 0.7,
        jerk_px: float = 3.0,
        gate_sigmas: float = 4.0,
        min_gate_px: float = 12.0,
        max_missed: int = 8,
        max_coast_accel_px: float = math.inf,
    ) -> None:
        self.measurement_px = measurement_px
        self.jerk_px = jerk_px
        self.gate_sigmas = gate_sigmas
        self.min_gate_px = min_gate_px
        self.max_missed = max_missed
        self.max_coast_accel_px = max_coast_accel_px  # px per frame², while no sighting comes
        j2 = jerk_px**2
        self._q = (0.25 * j2, j2, j2)  # process noise per axis: position, velocity, acceleration
        self._r = measurement_px**2
        self.x: list[float] | None = None  # [x, y, vx, vy, ax, ay]
        # the per-axis covariance (p00, p01, p02, p11, p12, p22): position, velocity, acceleration
        self._p = (1.0, 0.0, 0.0, 1.0, 0.0, 1.0)
        self.missed = 0
        self.hits = 0
        self._last_sighting: tuple[float, float] | None = None

    @property
    def P(self) -> np.ndarray:
        """The full 6×6 covariance (x, y, vx, vy, ax, ay), for inspection."""
        p00, p01, p02, p11, p12, p22 = self._p
        axis = np.array([[p00, p01, p02], [p01, p11, p12], [p02, p12, p22]])
        full = np.zeros((6, 6))
        full[0::2, 0::2] = axis
        full[1::2, 1::2] = axis
        return full

    @property
    def active(self) -> bool:
        return self.x is not None

    def reset(self) -> None:
        self.x = None
        self.missed = 0
        self.hits = 0

    def start(self, x: float, y: float, velocity_px: tuple[float, float] | None = None) -> None:
        """Follow from (x, y), its image velocity (px per frame) unknown, or `velocity_px` when measured."""
        vx, vy = velocity_px or (0.0, 0.0)
        self.x = [float(x), float(y), float(vx), float(vy), 0.0, 0.0]
        self._p = (4.0, 0.0, 0.0, 400.0 if velocity_px is None else 100.0, 0.0, 25.0)
        self.missed = 0
        self.hits = 1
        self._last_sighting = (float(x), float(y))

    def _restart_after_gap(self, x: float, y: float) -> None:
        """Found again after `missed` frames: the motion is the mean step since the last sighting.

        A bounce or a wall hidden in the gap changes the velocity at once; fed through the filter,
        the far-off sighting would swing its velocity and acceleration the wrong way.
        """
        last_x, last_y = self._last_sighting
        steps = self.missed + 1
        self.x = [float(x), float(y), (x - last_x) / steps, (y - last_y) / steps, 0.0, 0.0]
        self._p = (self._r, 0.0, 0.0, 100.0, 0.0, 25.0)
        self.missed = 0
        self.hits += 1
        self._last_sighting = (float(x), float(y))

    def predict(self) -> tuple[float, float, float]:
        """Advance one frame; returns the predicted (x, y) and the gate radius in pixels."""
        s = self.x
        assert s is not None
        x, y, vx, vy, ax, ay = s
        self.x = [x + vx + 0.5 * ax, y + vy + 0.5 * ay, vx + ax, vy + ay, ax, ay]
        # P ← F P Fᵀ + Q with F = [[1, 1, ½], [0, 1, 1], [0, 0, 1]]
        p00, p01, p02, p11, p12, p22 = self._p
        a00 = p00 + p01 + 0.5 * p02
        a01 = p01 + p11 + 0.5 * p12
        a02 = p02 + p12 + 0.5 * p22
        a11 = p11 + p12
        a12 = p12 + p22
        q0, q1, q2 = self._q
        self._p = (a00 + a01 + 0.5 * a02 + q0, a01 + a02, a02, a11 + a12 + q1, a12, p22 + q2)
        return self.x[0], self.x[1], self.gate_radius()

    def gate_radius(self) -> float:
        return max(self.min_gate_px, self.gate_sigmas * math.sqrt(self._p[0] + self._r))

    def in_gate(self, x: float, y: float) -> bool:
        if self.x is None:
            return True
        return math.hypot(x - self.x[0], y - self.x[1]) <= self.gate_radius()

    def update(self, x: float, y: float, noise_px: float | None = None) -> None:
        s = self.x
        assert s is not None
        if self.missed >= REACQUIRE_MISSES and self._last_sighting is not None:
            self._restart_after_gap(x, y)
            return
        self._last_sighting = (float(x), float(y))
        r = self._r if noise_px is None else noise_px**2
        p00, p01, p02, p11, p12, p22 = self._p
        inv = 1.0 / (p00 + r)
        k0, k1, k2 = p00 * inv, p01 * inv, p02 * inv
        ex, ey = x - s[0], y - s[1]
        self.x = [s[0] + k0 * ex, s[1] + k0 * ey, s[2] + k1 * ex, s[3] + k1 * ey, s[4] + k2 * ex, s[5] + k2 * ey]
        # P ← (I − K H) P
        self._p = (p00 - k0 * p00, p01 - k0 * p01, p02 - k0 * p02, p11 - k1 * p01, p12 - k1 * p02, p22 - k2 * p02)
        self.missed = 0
        self.hits += 1

    def miss(self) -> bool:
        """Record a frame without a sighting; True when the track is now lost."""
        self.missed += 1
        if self.missed > self.max_missed:
            self.reset()
            return True
        x, y, vx, vy, ax, ay = self.x
        accel = math.hypot(ax, ay)
        if accel > self.max_coast_accel_px:
            shrink = self.max_coast_accel_px / accel
            self.x = [x, y, vx, vy, ax * shrink, ay * shrink]
        return False

    @property
    def speed_px(self) -> float:
        return 0.0 if self.x is None else math.hypot(self.x[2], self.x[3])
