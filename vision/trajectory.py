"""3D trajectory of the meteor from its pixel track: ballistic arcs and surface contacts.

Between impacts the meteor flies a ballistic arc, `P(t) = P0 + V·t + ½·g·t²` with g known
(9810 mm/s², straight down). Its pixel in a frame says that P(t) lies on the ray from the camera
centre C along the unit direction d: `u·(P − C) = 0` and `w·(P − C) = 0` for two unit vectors u, w
orthogonal to d, two equations *linear* in the six unknowns (P0, V). Its apparent diameter says how
far along the ray it is, `d·(P − C) = f·D / diameter_px`, a third, noisier linear equation. So an
arc is a weighted linear least-squares fit, and every stretch of frames has normal equations that
are sums over its frames: with prefix sums, the fit and the residual of any stretch cost one 6×6
solve, and the best split of the whole track into arcs (and contacts: rolling or sliding on the
table, the box floor or a rim, at a known height) is a dynamic programme over those stretches.
The split points are the impacts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

G_MM_S2 = 9810.0

BALLISTIC = 0  # model kinds; contact models are 1 + index of the surface height
KIND_NAMES = ("ballistic", "contact")


@dataclass
class Segment:
    """A stretch of frames [start, stop) explained by one model."""

    start: int
    stop: int
    kind: int  # BALLISTIC, or 1 + index into the contact heights
    params: np.ndarray  # 6 values: (P0, V) for an arc; (x0, y0, vx, vy, ax, ay) for a contact
    cov: np.ndarray
    rss: float
    z_contact: float = 0.0

    def position(self, t: np.ndarray | float) -> np.ndarray:
        t = np.atleast_1d(np.asarray(t, dtype=np.float64))
        p = self.params
        if self.kind == BALLISTIC:
            out = p[None, :3] + t[:, None] * p[None, 3:]
            out[:, 2] -= 0.5 * G_MM_S2 * t * t
            return out
        xy = p[None, :2] + t[:, None] * p[None, 2:4] + (t * t)[:, None] * p[None, 4:6]
        return np.column_stack([xy, np.full(len(t), self.z_contact)])

    def velocity(self, t: float) -> np.ndarray:
        p = self.params
        if self.kind == BALLISTIC:
            return np.array([p[3], p[4], p[5] - G_MM_S2 * t])
        return np.array([p[2] + 2 * t * p[4], p[3] + 2 * t * p[5], 0.0])

    def position_cov(self, t: float) -> np.ndarray:
        """3×3 covariance of the position at time t (the contact height is exact)."""
        if self.kind == BALLISTIC:
            j = np.hstack([np.eye(3), t * np.eye(3)])
            return j @ self.cov @ j.T
        j = np.zeros((3, 6))
        j[0, 0] = j[1, 1] = 1.0
        j[0, 2] = j[1, 3] = t
        j[0, 4] = j[1, 5] = t * t
        return j @ self.cov @ j.T


@dataclass
class TrackGeometry:
    """Per-frame rays and size-derived distances of a pixel track, with the normal-equation prefix sums."""

    times: np.ndarray  # seconds
    centre: np.ndarray  # camera centre, table frame
    rays: np.ndarray  # N×3 unit directions
    distances: np.ndarray  # N: distance along the ray from the apparent size
    sigma_perp: np.ndarray  # N: mm, across the ray
    sigma_along: np.ndarray  # N: mm, along the ray (size)
    contact_heights: tuple[float, ...] = ()
    prefix: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.times)


def _perpendiculars(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    helper = np.where(np.abs(d[:, 2:3]) < 0.9, np.array([[0.0, 0.0, 1.0]]), np.array([[1.0, 0.0, 0.0]]))
    u = np.cross(d, helper)
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    w = np.cross(d, u)
    return u, w


def build_geometry(
    camera,
    pixels: np.ndarray,
    diameters_px: np.ndarray,
    times: np.ndarray,
    diameter_mm: float,
    sigma_px: np.ndarray | float = 0.6,
    size_rel: np.ndarray | float = 0.05,
    contact_heights: tuple[float, ...] = (),
) -> TrackGeometry:
    pixels = np.asarray(pixels, dtype=np.float64).reshape(-1, 2)
    diameters = np.maximum(np.asarray(diameters_px, dtype=np.float64), 1.0)
    rays = camera.rays(pixels)
    distances = camera.focal_px * diameter_mm / diameters
    sigma_perp = np.broadcast_to(np.asarray(sigma_px, float), len(pixels)) * distances / camera.focal_px
    sigma_along = np.broadcast_to(np.asarray(size_rel, float), len(pixels)) * distances
    geo = TrackGeometry(
        times=np.asarray(times, dtype=np.float64),
        centre=camera.center_mm,
        rays=rays,
        distances=distances,
        sigma_perp=np.asarray(sigma_perp, float),
        sigma_along=np.asarray(sigma_along, float),
        contact_heights=tuple(contact_heights),
    )
    for kind in range(1 + len(contact_heights)):
        geo.prefix[kind] = _prefix_sums(geo, kind)
    return geo


def _rows(geo: TrackGeometry, kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Design rows A (N×3×6), targets b (N×3) and weights (N×3) for every frame."""
    d = geo.rays
    u, w = _perpendiculars(d)
    t = geo.times
    n = len(t)
    c = geo.centre
    a = np.zeros((n, 3, 6))
    b = np.zeros((n, 3))
    weights = np.zeros((n, 3))
    if kind == BALLISTIC:
        gz = -0.5 * G_MM_S2 * t * t  # gravity's contribution to z
        for row, vec in enumerate((u, w, d)):
            a[:, row, :3] = vec
            a[:, row, 3:] = vec * t[:, None]
            b[:, row] = vec @ c - vec[:, 2] * gz
        b[:, 2] += geo.distances
        weights[:, 0] = weights[:, 1] = 1.0 / geo.sigma_perp**2
        weights[:, 2] = 1.0 / geo.sigma_along**2
    else:
        z = geo.contact_heights[kind - 1]
        for row, vec in enumerate((u, w, d)):
            a[:, row, 0] = vec[:, 0]
            a[:, row, 1] = vec[:, 1]
            a[:, row, 2] = vec[:, 0] * t
            a[:, row, 3] = vec[:, 1] * t
            a[:, row, 4] = vec[:, 0] * t * t
            a[:, row, 5] = vec[:, 1] * t * t
            b[:, row] = vec @ c - vec[:, 2] * z
        b[:, 2] += geo.distances
        weights[:, 0] = weights[:, 1] = 1.0 / geo.sigma_perp**2
        weights[:, 2] = 1.0 / geo.sigma_along**2
    return a, b, weights


def _prefix_sums(geo: TrackGeometry, kind: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a, b, weights = _rows(geo, kind)
    wa = a * weights[:, :, None]
    normal = np.einsum("nri,nrj->nij", wa, a)
    rhs = np.einsum("nri,nr->ni", wa, b)
    const = np.einsum("nr,nr->n", weights * b, b)
    zero = np.zeros
    return (
        np.concatenate([zero((1, 6, 6)), np.cumsum(normal, axis=0)]),
        np.concatenate([zero((1, 6)), np.cumsum(rhs, axis=0)]),
        np.concatenate([zero(1), np.cumsum(const)]),
    )


def fit_many(geo: TrackGeometry, kind: int, starts: np.ndarray, stops: np.ndarray):
    """Fits of many stretches at once: params (M×6), covariances (M×6×6) and residuals (M)."""
    normal_sum, rhs_sum, const_sum = geo.prefix[kind]
    normal = normal_sum[stops] - normal_sum[starts]
    rhs = rhs_sum[stops] - rhs_sum[starts]
    const = const_sum[stops] - const_sum[starts]
    normal = normal + np.eye(6)[None] * 1e-9 * (np.trace(normal, axis1=1, axis2=2)[:, None, None] + 1.0)
    params = np.linalg.solve(normal, rhs[:, :, None])[:, :, 0]
    rss = const - np.einsum("mi,mi->m", rhs, params)
    cov = np.linalg.inv(normal)
    return params, cov, np.maximum(rss, 0.0)


def below_floor_cost(params: np.ndarray, t0: np.ndarray, t1: np.ndarray, floor: float, sigma: float = 3.0):
    """Chi² penalty for arcs that dip below the lowest surface (the parabola is lowest at an end)."""
    z0 = params[:, 2] + params[:, 5] * t0 - 0.5 * G_MM_S2 * t0 * t0
    z1 = params[:, 2] + params[:, 5] * t1 - 0.5 * G_MM_S2 * t1 * t1
    dip = np.maximum(0.0, floor - 2.0 - np.minimum(z0, z1))
    return (dip / sigma) ** 2


def fit_segment(geo: TrackGeometry, start: int, stop: int, kind: int = BALLISTIC) -> Segment:
    params, cov, rss = fit_many(geo, kind, np.array([start]), np.array([stop]))
    z = geo.contact_heights[kind - 1] if kind > 0 else 0.0
    return Segment(start, stop, kind, params[0], cov[0], float(rss[0]), z)


def segment_track(
    geo: TrackGeometry,
    penalty: float = 40.0,
    min_len: int = 3,
    max_len: int = 400,
    surface_check=None,
    first_ballistic: bool = True,
) -> list[Segment]:
    """The split of the whole track into model stretches with the least residual + penalty per stretch."""
    n = len(geo)
    if n < min_len:
        kinds = [BALLISTIC]
        return [fit_segment(geo, 0, n, BALLISTIC)] if n >= 2 else []
    kinds = list(range(1 + len(geo.contact_heights)))
    starts, stops = [], []
    for stop in range(min_len, n + 1):
        first = max(0, stop - max_len)
        for start in range(first, stop - min_len + 1):
            starts.append(start)
            stops.append(stop)
    starts_a = np.asarray(starts)
    stops_a = np.asarray(stops)
    costs = np.full((len(kinds), len(starts_a)), np.inf)
    floor = min(geo.contact_heights) if geo.contact_heights else None
    for kind in kinds:
        params, _, rss = fit_many(geo, kind, starts_a, stops_a)
        costs[kind] = rss + penalty * (1.0 if kind == BALLISTIC else 1.3)
        if kind == BALLISTIC and floor is not None:
            costs[kind] += below_floor_cost(params, geo.times[starts_a], geo.times[stops_a - 1], floor)
        if kind != BALLISTIC and surface_check is not None:
            # a contact must lie on its surface: the table outside the box, the floor inside, the rim on it
            for t in (geo.times[starts_a], geo.times[stops_a - 1]):
                xy = params[:, :2] + t[:, None] * params[:, 2:4] + (t * t)[:, None] * params[:, 4:6]
                costs[kind] += np.where(surface_check(kind - 1, xy), 0.0, 4.0 * penalty)
    if first_ballistic:
        costs[1:, starts_a == 0] = np.inf  # just released: the meteor starts in the air
    best_kind = np.argmin(costs, axis=0)
    best_cost = costs[best_kind, np.arange(len(starts_a))]
    total = np.full(n + 1, np.inf)
    total[0] = 0.0
    back = np.full(n + 1, -1)
    back_kind = np.zeros(n + 1, dtype=int)
    order = np.argsort(stops_a, kind="stable")
    for index in order:
        start, stop = starts_a[index], stops_a[index]
        value = total[start] + best_cost[index]
        if value < total[stop]:
            total[stop] = value
            back[stop] = start
            back_kind[stop] = best_kind[index]
    if not np.isfinite(total[n]):
        return [fit_segment(geo, 0, n, BALLISTIC)]
    segments = []
    stop = n
    while stop > 0:
        start = int(back[stop])
        segments.append(fit_segment(geo, start, stop, int(back_kind[stop])))
        stop = start
    segments.reverse()
    return segments


def fit_release(
    geo: TrackGeometry, start: int, stop: int, taus: np.ndarray, landing: tuple[float, float, float] | None = None
) -> tuple[float, np.ndarray, np.ndarray, Segment | None]:
    """When the hand let go: the change point between the hand's smooth push and the free arc.

    Frames [start, stop) cover the end of the throw and the first free arc. For a release time τ
    the model is one ballistic arc for t ≥ τ and, before τ, that arc plus an acceleration step
    and a jerk (the hand's push): `P(t) + ½·Δa·(t−τ)² + ⅙·j·(t−τ)³`. Position and velocity stay
    continuous through τ, as they do when a hand opens. Linear for each τ; the τ with the least
    residual wins. Returns (τ, the residual curve over `taus`, taus, the free arc for the best τ).
    """
    a, b, weights = _rows(geo, BALLISTIC)
    a, b, weights = a[start:stop], b[start:stop], weights[start:stop]
    t = geo.times[start:stop]
    d = geo.rays[start:stop]
    u, w = _perpendiculars(d)
    vecs = np.stack([u, w, d], axis=1)  # n×3(rows)×3
    if landing is not None:
        # the arc ends on a surface: z(t_b) = z_surface (± sigma), a row on (P0, V)
        t_b, z_b, sigma_b = landing
        row = np.zeros((1, 3, 6))
        row[0, 0, 2] = 1.0
        row[0, 0, 5] = t_b
        a = np.concatenate([a, row])
        b = np.concatenate([b, np.array([[z_b + 0.5 * G_MM_S2 * t_b * t_b, 0.0, 0.0]])])
        weights = np.concatenate([weights, np.array([[1.0 / sigma_b**2, 0.0, 0.0]])])
        t = np.concatenate([t, [np.inf]])
        vecs = np.concatenate([vecs, np.zeros((1, 3, 3))])
    sw = np.sqrt(weights)
    rss = np.full(len(taus), np.inf)
    best = None
    for k, tau in enumerate(taus):
        dt = np.minimum(t - tau, 0.0)
        extra = np.concatenate([vecs * (0.5 * dt * dt)[:, None, None], vecs * (dt**3 / 6.0)[:, None, None]], axis=2)
        design = np.concatenate([a, extra], axis=2).reshape(-1, 12)
        target = b.reshape(-1)
        ws = sw.reshape(-1)
        if np.count_nonzero(dt < 0) < 2:
            design = design[:, :6]
        x, *_ = np.linalg.lstsq(design * ws[:, None], target * ws, rcond=None)
        residual = (design @ x - target) * ws
        rss[k] = float(residual @ residual)
        if best is None or rss[k] < best[0]:
            best = (rss[k], k, x[:6])
    if best is None:
        return float(taus[0]), rss, taus, None
    _, k, params = best
    normal = np.einsum("nri,nrj->ij", a * weights[:, :, None], a)
    cov = np.linalg.pinv(normal)
    return float(taus[k]), rss, taus, Segment(start, stop, BALLISTIC, params, cov, float(best[0]))
