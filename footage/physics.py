"""A 3D bouncing-sphere simulator: the meteor on the table and in the box, at a fine time step.

Units: millimetres, seconds. Gravity along −z. Contacts: the table plane z = 0 and the box's
axis-aligned solids (outer walls whose tops are the rim, the raised floor, low partitions),
given in the box frame and turned by the box's yaw. Each impact applies restitution along the
contact normal and a Coulomb-limited friction impulse at the contact point, which exchanges
linear and angular momentum (a solid sphere, I = 2/5 m r²). Slow contacts become rolling:
sliding friction until the contact point stops slipping, then rolling resistance, then rest.
The box may move (`World.box_motion`, a kinematic body): impulses, friction, rolling and rest
are then taken relative to the moving surface, so a tapped box carries or pushes the meteor.
Truth (bounces, box entry, rest) comes from here, never from images.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

G = 9810.0  # mm/s²
BOUNCE_MIN_SPEED = 150.0  # mm/s: the label's bounce threshold (vertical reversal faster than 0.15 m/s)
RESTING_SPEED = 40.0  # mm/s: slower normal approach becomes a resting (rolling) contact
STILL_SPEED = 5.0  # mm/s


@dataclass
class Material:
    restitution: float
    friction: float


@dataclass
class World:
    """What the meteor can touch. `solids` are (bounds, kind) in the box frame."""

    radius: float
    solids: list[tuple[tuple[float, float, float, float, float, float], str]] = field(default_factory=list)
    box_yaw_deg: float = 0.0
    box_center: tuple[float, float] = (0.0, 0.0)
    table: Material = field(default_factory=lambda: Material(0.7, 0.35))
    box: Material = field(default_factory=lambda: Material(0.5, 0.4))
    floor: Material = field(default_factory=lambda: Material(0.45, 0.45))
    rolling_resistance: float = 0.02  # × g, on any support
    view_test: object = None  # callable(x, y, z) -> bool: still in view (for stopping early)
    box_motion: object = None  # callable(t_s) -> (yaw_deg, x_mm, y_mm); None: still at box_yaw_deg, box_center
    box_still_from: float = -math.inf  # from this time the box stands still (only then can the meteor rest)
    on_bounce: object = None  # callable(impact, entered_box: bool) -> bool: True aborts the simulation


@dataclass
class Impact:
    t: float
    position: tuple[float, float, float]
    surface: str  # table | box_floor | box_wall | box_rim
    vz_before: float
    vz_after: float

    @property
    def is_bounce(self) -> bool:
        return self.vz_before < -BOUNCE_MIN_SPEED and self.vz_after > 0.0


@dataclass
class Trajectory:
    dt: float
    t0: float
    positions: np.ndarray  # N×3, at t0 + i·dt
    spins: np.ndarray  # N×3 angular velocity (rad/s), table frame
    impacts: list[Impact]
    still_time: float | None  # first time of stillness lasting to the end of the simulation
    left_view_time: float | None
    entered_time: float | None = None
    aborted: bool = False

    @property
    def t_end(self) -> float:
        return self.t0 + (len(self.positions) - 1) * self.dt

    def index(self, t: float) -> int:
        return int(min(max(round((t - self.t0) / self.dt), 0), len(self.positions) - 1))

    def position(self, t: float) -> np.ndarray:
        """Linear interpolation between steps; before t0 the release point, after the end the last."""
        s = (t - self.t0) / self.dt
        if s <= 0:
            return self.positions[0].copy()
        i = int(s)
        if i >= len(self.positions) - 1:
            return self.positions[-1].copy()
        f = s - i
        return self.positions[i] * (1 - f) + self.positions[i + 1] * f

    def speed(self, t: float) -> float:
        i = self.index(t)
        j = min(i + 1, len(self.positions) - 1)
        i = j - 1 if j > 0 else 0
        return float(np.linalg.norm(self.positions[j] - self.positions[i]) / self.dt) if j > i else 0.0


def simulate(
    world: World,
    position: tuple[float, float, float],
    velocity: tuple[float, float, float],
    spin: tuple[float, float, float] = (0.0, 0.0, 0.0),
    t0: float = 0.0,
    dt: float = 0.001,
    max_time: float = 5.0,
    settle_time: float = 0.3,
    out_of_view_time: float = 0.4,
) -> Trajectory:
    """Integrate from release until the meteor has been still for `settle_time` (or left the view)."""
    r = world.radius
    px, py, pz = (float(v) for v in position)
    vx, vy, vz = (float(v) for v in velocity)
    wx, wy, wz = (float(v) for v in spin)
    yaw = math.radians(world.box_yaw_deg)
    cy_, sy_ = math.cos(yaw), math.sin(yaw)
    bcx, bcy = world.box_center
    box_motion, still_from = world.box_motion, world.box_still_from
    if box_motion is not None:
        yaw_deg, bcx, bcy = box_motion(t0)
        cy_, sy_ = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
    else:
        still_from = -math.inf
    prev_cy, prev_sy, prev_bcx, prev_bcy = cy_, sy_, bcx, bcy
    solids = world.solids
    reach = 0.0
    for (x0, x1, y0, y1, _z0, _z1), _kind in solids:
        reach = max(reach, math.hypot(max(abs(x0), abs(x1)), max(abs(y0), abs(y1))))
    reach += r + 2.0
    roll_decel = world.rolling_resistance * G
    out_pos = [(px, py, pz)]
    out_spin = [(wx, wy, wz)]
    impacts: list[Impact] = []
    still_since: float | None = None
    out_since: float | None = None
    steps = int(max_time / dt)
    t = t0
    hx = hy = 0.0
    for (x0, x1, y0, y1, _z0, _z1), kind in solids:
        if kind == "outer":
            hx, hy = max(hx, abs(x0), abs(x1)), max(hy, abs(y0), abs(y1))
    entered_time: float | None = None
    aborted = False
    view_test = world.view_test
    on_bounce = world.on_bounce
    for step in range(steps):
        vz -= G * dt
        px += vx * dt
        py += vy * dt
        pz += vz * dt
        t += dt
        box_moving = box_motion is not None and t - dt < still_from
        if box_moving:
            prev_cy, prev_sy, prev_bcx, prev_bcy = cy_, sy_, bcx, bcy
            yaw_deg, bcx, bcy = box_motion(t)
            cy_, sy_ = math.cos(math.radians(yaw_deg)), math.sin(math.radians(yaw_deg))
        supported = False
        support_vx = support_vy = 0.0  # the supporting surface's velocity
        contacts: list[tuple[float, float, float, float, str, Material, float, float]] = []
        if pz < r:
            contacts.append((0.0, 0.0, 1.0, r - pz, "table", world.table, 0.0, 0.0))
        dxb, dyb = px - bcx, py - bcy
        if solids and dxb * dxb + dyb * dyb < reach * reach:
            bx = cy_ * dxb + sy_ * dyb
            by = -sy_ * dxb + cy_ * dyb
            if entered_time is None and -hx < bx < hx and -hy < by < hy:
                entered_time = t
            for (x0, x1, y0, y1, z0, z1), kind in solids:
                qx = x0 if bx < x0 else (x1 if bx > x1 else bx)
                qy = y0 if by < y0 else (y1 if by > y1 else by)
                qz = z0 if pz < z0 else (z1 if pz > z1 else pz)
                ex, ey, ez = bx - qx, by - qy, pz - qz
                d2 = ex * ex + ey * ey + ez * ez
                if d2 >= r * r:
                    continue
                d = math.sqrt(d2)
                if d > 1e-9:
                    nx, ny, nz = ex / d, ey / d, ez / d
                    depth = r - d
                else:  # centre inside the solid: push out along the shallowest axis
                    options = [(bx - x0, -1, 0, 0), (x1 - bx, 1, 0, 0), (by - y0, 0, -1, 0), (y1 - by, 0, 1, 0),
                               (z1 - pz, 0, 0, 1)]
                    pen, nx, ny, nz = min(options)
                    depth = pen + r
                if kind == "floor":
                    surface, material = "box_floor", world.floor
                elif kind == "outer" and nz > 0.7:
                    surface, material = "box_rim", world.box
                else:
                    surface, material = "box_wall", world.box
                tx = cy_ * nx - sy_ * ny  # box frame → table frame
                ty = sy_ * nx + cy_ * ny
                svx = svy = 0.0
                if box_moving:  # the contact point's velocity: where it is now less where it was a step ago
                    svx = (cy_ * qx - sy_ * qy + bcx - (prev_cy * qx - prev_sy * qy + prev_bcx)) / dt
                    svy = (sy_ * qx + cy_ * qy + bcy - (prev_sy * qx + prev_cy * qy + prev_bcy)) / dt
                contacts.append((tx, ty, nz, depth, surface, material, svx, svy))
        for nx, ny, nz, depth, surface, material, svx, svy in contacts:
            px += nx * depth
            py += ny * depth
            pz += nz * depth
            vn = (vx - svx) * nx + (vy - svy) * ny + vz * nz
            if nz > 0.5:
                support_vx, support_vy = svx, svy
            if vn >= 0.0:
                if nz > 0.5:
                    supported = True
                continue
            if -vn < RESTING_SPEED:
                jn = -vn  # inelastic: resting/rolling contact
                e = 0.0
            else:
                e = material.restitution
                jn = (1.0 + e) * -vn
            vz_before = vz
            vx += jn * nx
            vy += jn * ny
            vz += jn * nz
            # friction at the contact point (offset −r·n from the centre), relative to the surface
            cx = vx - svx + (wy * (-r * nz) - wz * (-r * ny))
            cy = vy - svy + (wz * (-r * nx) - wx * (-r * nz))
            cz = vz + (wx * (-r * ny) - wy * (-r * nx))
            cn = cx * nx + cy * ny + cz * nz
            sx, sy, sz = cx - cn * nx, cy - cn * ny, cz - cn * nz
            slip = math.sqrt(sx * sx + sy * sy + sz * sz)
            if slip > 1e-9:
                jt = min(material.friction * jn, slip * 2.0 / 7.0)
                ux, uy, uz = sx / slip, sy / slip, sz / slip
                vx -= jt * ux
                vy -= jt * uy
                vz -= jt * uz
                k = 2.5 * jt / r  # Δω = (5 jt / 2r) (n × u)
                wx += k * (ny * uz - nz * uy)
                wy += k * (nz * ux - nx * uz)
                wz += k * (nx * uy - ny * ux)
            if nz > 0.5:
                supported = True
            if e > 0.0:
                impact = Impact(t, (px, py, pz), surface, vz_before, vz)
                impacts.append(impact)
                if on_bounce is not None and impact.is_bounce and on_bounce(impact, entered_time is not None):
                    aborted = True
        if aborted:
            break
        if supported and vz < RESTING_SPEED * 0.5:
            rel_x, rel_y = vx - support_vx, vy - support_vy
            speed_h = math.hypot(rel_x, rel_y)
            if speed_h > 0.0:
                scale = max(speed_h - roll_decel * dt, 0.0) / speed_h
                vx = support_vx + rel_x * scale
                vy = support_vy + rel_y * scale
                wx *= scale
                wy *= scale
            wz *= 0.98
        speed = math.sqrt(vx * vx + vy * vy + vz * vz)
        rel_x, rel_y = vx - support_vx, vy - support_vy
        if supported and math.sqrt(rel_x * rel_x + rel_y * rel_y + vz * vz) < 2.0 and abs(vz) < 2.0:
            vx, vy, vz = support_vx, support_vy, 0.0
            wx = wy = wz = 0.0
        out_pos.append((px, py, pz))
        out_spin.append((wx, wy, wz))
        if speed < STILL_SPEED and supported and t >= still_from:
            if still_since is None:
                still_since = t
            if t - still_since >= settle_time:
                break
        else:
            still_since = None
        if view_test is not None and step % 5 == 0 and not view_test(px, py, pz):
            if out_since is None:
                out_since = t
            if t - out_since >= out_of_view_time:
                break
        elif view_test is not None and step % 5 == 0:
            out_since = None
    if aborted:
        still_since = out_since = None
    if still_since is not None and t - still_since < settle_time - dt / 2:
        still_since = None  # ran out of time while only momentarily slow
    if out_since is not None and t - out_since < out_of_view_time - dt / 2:
        out_since = None
    return Trajectory(dt, t0, np.asarray(out_pos), np.asarray(out_spin), impacts, still_since, out_since,
                      entered_time, aborted)
