"""Kinks in a pixel track: where a smooth piece ends, something hit the meteor (an impact).

Needs no 3D, so it gives the release fit a first impact to stop at before the 3D flight
analysis (vision/flight.py) places each impact.
"""

from __future__ import annotations

import numpy as np


def pixel_segments(
    times: np.ndarray, px: np.ndarray, sigma: np.ndarray, penalty: float, min_len: int = 4, max_len: int = 300
) -> list[tuple[int, int]]:
    """Split a pixel track into smooth pieces (each x(t), y(t) a cubic): the breaks are impacts.

    Needs no 3D: an impact shows in the image as a kink (the vertical velocity reverses, friction
    changes the horizontal one). Same least-residual-plus-penalty split as the 3D arcs, with
    prefix sums making every stretch's quadratic fit O(1).
    """
    n = len(times)
    if n < 2 * min_len:
        return [(0, n)]
    t = times - times[0]
    w = 1.0 / np.asarray(sigma, float) ** 2
    basis = np.stack([np.ones(n), t, t * t, t * t * t], axis=1)  # n×4: a cubic absorbs the perspective
    normal = np.einsum("ni,nj,n->nij", basis, basis, w)
    rhs = np.einsum("ni,nk,n->nik", basis, px, w)  # n×3×2
    const = np.einsum("nk,nk,n->n", px, px, w)
    cs = lambda a: np.concatenate([np.zeros((1,) + a.shape[1:]), np.cumsum(a, axis=0)])  # noqa: E731
    normal_s, rhs_s, const_s = cs(normal), cs(rhs), cs(const)
    starts, stops = [], []
    for stop in range(min_len, n + 1):
        for start in range(max(0, stop - max_len), stop - min_len + 1):
            starts.append(start)
            stops.append(stop)
    sa, so = np.asarray(starts), np.asarray(stops)
    nm = normal_s[so] - normal_s[sa] + np.eye(4)[None] * 1e-9
    rh = rhs_s[so] - rhs_s[sa]
    params = np.linalg.solve(nm, rh)
    rss = const_s[so] - const_s[sa] - np.einsum("mik,mik->m", rh, params)
    cost = np.maximum(rss, 0.0) + penalty
    total = np.full(n + 1, np.inf)
    total[0] = 0.0
    back = np.full(n + 1, -1)
    for index in np.argsort(so, kind="stable"):
        value = total[sa[index]] + cost[index]
        if value < total[so[index]]:
            total[so[index]] = value
            back[so[index]] = sa[index]
    pieces = []
    stop = n
    while stop > 0 and back[stop] >= 0:
        pieces.append((int(back[stop]), stop))
        stop = int(back[stop])
    pieces.reverse()
    return pieces or [(0, n)]
