"""Rendering a clip through a pinhole `CameraModel`: a static scene once, moving things per frame.

The static scene (table texture with markers, herd cards and shadows, the box in 3D with its
regions, walls, rim and markers) is drawn once per clip in an undistorted canvas and then
remapped through the lens distortion. Each frame copies it and composites, in a region of
interest only, the meteor (shaded, patterned, perspective-sized), its shadow and the
launcher's hand, averaged over sub-frames for motion blur; then exposure/white-balance drift
and sensor noise are applied to the whole frame.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.geometry import BoxPose
from footage.scenes import BoxSpec, Scene
from footage.world import TableLook

ARUCO = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
NEAR_PLANE_MM = 20.0  # nearest depth in front of the camera a drawn hand point may have
_MARKER_CACHE: dict[int, np.ndarray] = {}


def marker_image(marker_id: int, side: int = 240) -> np.ndarray:
    if marker_id not in _MARKER_CACHE:
        _MARKER_CACHE[marker_id] = cv2.aruco.generateImageMarker(ARUCO, marker_id, side)
    return _MARKER_CACHE[marker_id]


def _noise(rng: np.random.Generator, shape: tuple[int, int], cell: float) -> np.ndarray:
    """Smooth noise in [-1, 1] with features about `cell` pixels wide."""
    h, w = shape
    small = rng.uniform(-1, 1, (max(2, int(h / cell) + 2), max(2, int(w / cell) + 2))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def table_texture(rng: np.random.Generator, style: str, shape: tuple[int, int], px_per_mm: float,
                  look: TableLook | None = None) -> np.ndarray:
    """A top-down BGR texture of the table surface (float32 0..255); `look` sets the colours of the wide world."""
    h, w = shape
    if look is not None and style in ("felt", "pattern", "laminate"):
        return _wide_table_texture(rng, look, shape, px_per_mm)
    if style == "wood":
        base = np.array(rng.choice([[60, 105, 150], [45, 80, 125], [90, 140, 185], [40, 65, 95]]), np.float32)
        base = base * rng.uniform(0.9, 1.1)
        if look is not None:
            base = np.array(look.base_bgr, np.float32)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        angle = rng.uniform(0, np.pi)
        along = xs * np.cos(angle) + ys * np.sin(angle)
        across = -xs * np.sin(angle) + ys * np.cos(angle)
        warp = _noise(rng, shape, 60 * px_per_mm) * 8 * px_per_mm
        grain = np.sin((across + warp) / (rng.uniform(1.5, 3.0) * px_per_mm)) * 0.5 + 0.5
        plank_w = rng.uniform(90, 150) * px_per_mm
        plank = np.floor(across / plank_w)
        plank_tone = (np.sin(plank * 12.9898) * 43758.5453) % 1.0
        seams = (np.abs(across % plank_w) < 1.2 * px_per_mm).astype(np.float32)
        streak = _noise(rng, shape, 25 * px_per_mm) * 0.5
        del along
        tone = 0.82 + 0.1 * grain + 0.12 * (plank_tone - 0.5) + 0.06 * streak - 0.35 * seams
        texture = base[None, None, :] * tone[..., None]
    elif style == "cloth":
        base = np.array(rng.choice([[60, 110, 40], [110, 70, 30], [40, 40, 120], [90, 90, 90], [80, 60, 50]]),
                        np.float32)
        if look is not None:
            base = np.array(look.base_bgr, np.float32)
        fine = rng.normal(0, 1, shape).astype(np.float32)
        fine = cv2.GaussianBlur(fine, (0, 0), 0.8)
        mottle = _noise(rng, shape, 40 * px_per_mm)
        tone = 1.0 + 0.08 * fine + 0.07 * mottle
        texture = base[None, None, :] * tone[..., None]
    else:  # "mat": a printed neoprene play mat
        base = np.array(rng.choice([[50, 50, 55], [70, 60, 45], [45, 60, 70], [95, 100, 100]]), np.float32)
        if look is not None:
            base = np.array(look.base_bgr, np.float32)
        mottle = _noise(rng, shape, 80 * px_per_mm) + 0.5 * _noise(rng, shape, 12 * px_per_mm)
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
        pitch = rng.uniform(40, 70) * px_per_mm
        grid = ((xs % pitch) < 1.0 * px_per_mm) | ((ys % pitch) < 1.0 * px_per_mm)
        tone = 1.0 + 0.1 * mottle + 0.25 * grid
        texture = base[None, None, :] * tone[..., None]
    return np.clip(texture, 0, 255).astype(np.float32)


def _wide_table_texture(rng: np.random.Generator, look: TableLook, shape: tuple[int, int],
                        px_per_mm: float) -> np.ndarray:
    """Felt (fine fibres), patterned cloth (checks, stripes or dots) and laminate (smooth, faint mottle)."""
    h, w = shape
    base = np.array(look.base_bgr, np.float32)
    if look.style == "felt":
        fibres = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), 0.6 * px_per_mm)
        tone = 1.0 + 0.12 * fibres / (fibres.std() + 1e-6) * 0.5 + 0.05 * _noise(rng, shape, 60 * px_per_mm)
        return np.clip(base[None, None, :] * tone[..., None], 0, 255).astype(np.float32)
    if look.style == "laminate":
        tone = 1.0 + 0.02 * _noise(rng, shape, 30 * px_per_mm) + 0.01 * rng.normal(0, 1, shape).astype(np.float32)
        return np.clip(base[None, None, :] * tone[..., None], 0, 255).astype(np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    pitch = float(rng.uniform(15, 60)) * px_per_mm
    kind = str(rng.choice(["checks", "stripes", "dots"]))
    if kind == "checks":
        mask = ((np.floor(xs / pitch) + np.floor(ys / pitch)) % 2).astype(np.float32)
    elif kind == "stripes":
        angle = float(rng.uniform(0, np.pi))
        mask = ((xs * np.cos(angle) + ys * np.sin(angle)) % pitch < pitch * 0.4).astype(np.float32)
    else:
        mask = (((xs % pitch) - pitch / 2) ** 2 + ((ys % pitch) - pitch / 2) ** 2 < (pitch * 0.22) ** 2)
        mask = mask.astype(np.float32)
    mask = cv2.GaussianBlur(mask, (0, 0), 0.7 * px_per_mm)
    second = np.array(look.second_bgr, np.float32)
    texture = base[None, None, :] * (1 - mask[..., None]) + second[None, None, :] * mask[..., None]
    fine = cv2.GaussianBlur(rng.normal(0, 1, shape).astype(np.float32), (0, 0), 0.8)
    return np.clip(texture * (1.0 + 0.05 * fine)[..., None], 0, 255).astype(np.float32)


def _warp_marker(dst: np.ndarray, marker_id: int, quad: np.ndarray) -> None:
    """Draw an ArUco marker rasterised near its final size (no aliasing) onto `quad` of `dst`."""
    edge = float(np.linalg.norm(np.diff(np.vstack([quad, quad[:1]]), axis=0), axis=1).max())
    side = int(6 * max(2, math.ceil(edge * 1.5 / 6)))
    _warp_quad(dst, cv2.aruco.generateImageMarker(ARUCO, marker_id, side), quad)


def _warp_quad(dst: np.ndarray, image: np.ndarray, quad: np.ndarray, mask_out: np.ndarray | None = None) -> None:
    """Warp `image` (gray or BGR) so its outer corners land on `quad` (4×2, pixel-centre coords) of `dst`."""
    s = image.shape[1]
    src = np.float32([[-0.5, -0.5], [s - 0.5, -0.5], [s - 0.5, s - 0.5], [-0.5, s - 0.5]])
    x0 = max(int(np.floor(quad[:, 0].min())) - 2, 0)
    y0 = max(int(np.floor(quad[:, 1].min())) - 2, 0)
    x1 = min(int(np.ceil(quad[:, 0].max())) + 3, dst.shape[1])
    y1 = min(int(np.ceil(quad[:, 1].max())) + 3, dst.shape[0])
    if x1 <= x0 or y1 <= y0:
        return
    m = cv2.getPerspectiveTransform(src, np.float32(quad - [x0, y0]))
    img = image if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    warped = cv2.warpPerspective(img.astype(np.float32), m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(np.ones(img.shape[:2], np.float32), m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    roi = dst[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha[..., None]) + warped * alpha[..., None]
    if mask_out is not None:
        mask_out[y0:y1, x0:x1] = np.maximum(mask_out[y0:y1, x0:x1], alpha)


def _fill(img: np.ndarray, pts: np.ndarray, color, shift: int = 4) -> None:
    p = np.round(np.asarray(pts, np.float64) * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
    color = float(color) if np.ndim(color) == 0 else tuple(float(c) for c in color)
    cv2.fillPoly(img, [p], color, lineType=cv2.LINE_AA, shift=shift)


def _draw_object(texture: np.ndarray, item: dict, tex: Callable[[np.ndarray], np.ndarray], px_per_mm: float) -> None:
    """A flat thing lying on the table: a card, a sheet of paper, a coin, a die (its top face) or a pencil."""
    center = np.asarray(item["xy"], float)
    a = np.radians(item["angle"])
    along, across = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    color = tuple(float(c) for c in item["bgr"])
    kind, size = item["kind"], float(item["size"])
    if kind == "coin":
        ring = np.linspace(0, 2 * np.pi, 32, endpoint=False)
        pts = center + size / 2 * np.column_stack([np.cos(ring), np.sin(ring)])
        _fill(texture, tex(pts), color)
        _fill(texture, tex(center + (pts - center) * 0.8), tuple(0.85 * c for c in color))
        return
    length, width = {"card": (size, size * 1.4), "paper": (size, size * 1.41), "die": (size, size),
                     "pencil": (size, 7.0)}[kind]
    quad = np.array([center + sx * along * length / 2 + sy * across * width / 2
                     for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
    _fill(texture, tex(quad + np.array([1.5, -1.5])), tuple(0.6 * float(c) for c in texture.mean(axis=(0, 1))))
    _fill(texture, tex(quad), color)
    if kind == "card":
        _fill(texture, tex(center + (quad - center) * 0.8), tuple(0.6 * c for c in color))
    elif kind == "die":
        for sx, sy in ((-0.25, -0.25), (0.25, 0.25), (0.0, 0.0)):
            pip = tex(center + along * sx * size + across * sy * size)[0]
            cv2.circle(texture, (int(pip[0]), int(pip[1])), max(1, int(0.09 * size * px_per_mm)), (30, 30, 30), -1,
                       cv2.LINE_AA)


@dataclass
class HandState:
    palm: np.ndarray  # 3D table mm
    forward: np.ndarray  # unit horizontal throwing direction
    grip: float  # 1 closed around the meteor, 0 open
    visible: bool


DINO_COLORS = [(150, 190, 215), (120, 160, 120), (160, 140, 190), (110, 140, 175), (175, 175, 140), (135, 115, 150),
               (100, 170, 190), (185, 150, 160)]  # BGR, muted


class Renderer:
    def __init__(self, scene: Scene, camera: CameraModel, frame_size: tuple[int, int], rng: np.random.Generator,
                 box_colors: dict[str, tuple[int, int, int]], skin: tuple[int, int, int]):
        self.scene, self.camera, self.size = scene, camera, frame_size
        self.rng = rng
        self.box_colors = box_colors
        self.skin = np.array(skin, np.float32)
        self.R = camera.rotation
        self.t = camera.translation
        self.C = camera.center_mm
        self.f = camera.focal_px
        self.look = scene.look
        self.lamps = scene.lamps
        self.L = self.lamps[0][0]  # the main lamp: shading and highlights
        self.softness = scene.look.light.softness if scene.look is not None else 1.0
        width, height = frame_size
        self.distorted = any(abs(v) > 0 for v in camera.dist)
        self.pad = int(0.06 * max(width, height)) if self.distorted else 0
        K = camera.camera_matrix.copy()
        K[0, 2] += self.pad
        K[1, 2] += self.pad
        self.K_ideal = K
        self.canvas_size = (width + 2 * self.pad, height + 2 * self.pad)
        self._build_static()

    # ---- projections -------------------------------------------------------------------------
    def ideal(self, pts: np.ndarray) -> np.ndarray:
        p = np.asarray(pts, float).reshape(-1, 3) @ self.R.T + self.t
        uv = p[:, :2] / p[:, 2:3]
        return uv * [self.K_ideal[0, 0], self.K_ideal[1, 1]] + [self.K_ideal[0, 2], self.K_ideal[1, 2]]

    def project(self, pts: np.ndarray) -> np.ndarray:
        return self.camera.project(np.asarray(pts, float).reshape(-1, 3))

    def box3(self, pts: np.ndarray, z: float | np.ndarray) -> np.ndarray:
        xy = self.pose.box_to_table(np.asarray(pts, float).reshape(-1, 2))
        zz = np.broadcast_to(np.asarray(z, float), (len(xy),))
        return np.column_stack([xy, zz])

    # ---- static scene ------------------------------------------------------------------------
    def _build_static(self) -> None:
        """The table's texture and the lens, drawn once; then the background with the box where it starts."""
        scene, rng = self.scene, self.rng
        cw, ch = self.canvas_size
        # table texture covering the canvas footprint on z = 0
        H_plane = self.K_ideal @ np.column_stack([self.R[:, 0], self.R[:, 1], self.t])
        corners = np.array([[0, 0], [cw, 0], [cw, ch], [0, ch]], float)
        inv = np.linalg.inv(H_plane)
        pts = np.column_stack([corners, np.ones(4)]) @ inv.T
        pts = pts[:, :2] / pts[:, 2:3]
        x_min, y_min = pts.min(axis=0) - 20
        x_max, y_max = pts.max(axis=0) + 20
        depth = float(self.C[2])
        s = min(1.3 * self.f / depth, 3600.0 / max(x_max - x_min, y_max - y_min))
        self.tex_scale = s
        self.texture_origin_mm = (float(x_min), float(y_max))
        tw, th = int((x_max - x_min) * s), int((y_max - y_min) * s)
        # table frame → texture pixel (centre convention)
        T = np.array([[s, 0, -x_min * s - 0.5], [0, -s, y_max * s - 0.5], [0, 0, 1]])
        self.texture_to_canvas = H_plane @ np.linalg.inv(T)
        texture = table_texture(rng, scene.table_style, (th, tw), s, self.look.table if self.look else None)
        if self.look is not None:
            self._add_sheen(texture, self.tex)
            for item in self.look.objects:
                _draw_object(texture, item, self.tex, s)
        self.bare_texture = texture  # the table and what lies on it, before the box's shadow, cards and markers
        # the lens: distortion, vignetting and a touch of softness
        self.lens_map = self._lens_map() if self.distorted else None
        w, h = self.size
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        rr = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        self.vignette = (1 - float(rng.uniform(0.1, 0.25)) * rr)[..., None]
        self.lens_blur_sigma = float(rng.uniform(0.75, 1.0))
        self.pose: BoxPose | None = None
        self.use_pose(scene.pose)

    def tex(self, p: np.ndarray) -> np.ndarray:
        """Table mm → table-texture pixel (centre convention)."""
        x_min, y_max = self.texture_origin_mm
        p = np.asarray(p, float).reshape(-1, 2)
        return np.column_stack([(p[:, 0] - x_min) * self.tex_scale - 0.5, (y_max - p[:, 1]) * self.tex_scale - 0.5])

    def _lens_map(self) -> tuple[np.ndarray, np.ndarray]:
        """For each output pixel, where the ideal (undistorted) canvas is sampled."""
        w, h = self.size
        grid = np.stack(np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32)), -1)
        und = cv2.undistortPoints(grid.reshape(-1, 1, 2), self.camera.camera_matrix, self.camera.dist_coeffs)
        und = und.reshape(h, w, 2)
        mapx = (und[..., 0] * self.K_ideal[0, 0] + self.K_ideal[0, 2]).astype(np.float32)
        mapy = (und[..., 1] * self.K_ideal[1, 1] + self.K_ideal[1, 2]).astype(np.float32)
        return mapx, mapy

    def use_pose(self, pose: BoxPose) -> None:
        """Draw the still background (table, box, masks) with the box standing at `pose`."""
        if pose == self.pose:
            return
        self.pose = pose
        cw, ch = self.canvas_size
        canvas = cv2.warpPerspective(self._table_texture(), self.texture_to_canvas, (cw, ch), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_REPLICATE)
        walls_mask = np.zeros((ch, cw), np.float32)
        self._draw_box(canvas, walls_mask)
        box = self.scene.box
        silhouette = np.vstack([self.ideal(self.box3(box.outline, 0.0)), self.ideal(self.box3(box.outline,
                                                                                              box.rim_height))])
        box_mask = np.zeros((ch, cw), np.float32)
        _fill(box_mask, cv2.convexHull(np.float32(silhouette)).reshape(-1, 2), 1.0)
        if self.lens_map is not None:
            mapx, mapy = self.lens_map
            canvas = cv2.remap(canvas, mapx, mapy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            walls_mask = cv2.remap(walls_mask, mapx, mapy, cv2.INTER_LINEAR)
            box_mask = cv2.remap(box_mask, mapx, mapy, cv2.INTER_LINEAR)
        canvas *= self.vignette
        canvas = cv2.GaussianBlur(canvas, (0, 0), self.lens_blur_sigma)
        self.background_f = canvas
        self.background = np.clip(canvas, 0, 255).astype(np.uint8)
        self.walls_mask = walls_mask
        self.box_mask = box_mask

    def _table_texture(self) -> np.ndarray:
        """The bare table with the box's shadow (at the current pose), the herd cards and the table markers."""
        scene, s, tex = self.scene, self.tex_scale, self.tex
        texture = self.bare_texture.copy()
        th, tw = texture.shape[:2]
        # box shadow on the table, one per lamp
        outline_t = self.pose.box_to_table(scene.box.outline)
        for L, share in self.lamps:
            shadow = np.zeros((th, tw), np.float32)
            off = -L[:2] * scene.box.rim_height / L[2]
            hull = cv2.convexHull(np.float32(np.vstack([outline_t, outline_t + off])))
            _fill(shadow, tex(hull.reshape(-1, 2)), 1.0)
            shadow = cv2.GaussianBlur(shadow, (0, 0), 4 * s * self.softness)
            texture *= (1 - 0.45 * min(1.0, 1.3 * share) * shadow)[..., None]
        # herd cards
        for quad, color in zip(scene.herd_cards, scene.herd_colors, strict=True):
            q = tex(quad)
            _fill(texture, q + (np.array([1.5, 1.5]) * s), (0.7 * texture.mean(),) * 3)  # thin shadow
            _fill(texture, q, (235, 238, 240))
            center = q.mean(axis=0)
            inner = center + (q - center) * 0.86
            _fill(texture, inner, color)
            body = center + (q - center) * 0.3
            _fill(texture, body, tuple(0.55 * c for c in color))
            e = q[1] - q[0]
            cv2.circle(texture, tuple(int(v) for v in (center + e * 0.22)), max(2, int(7 * s)),
                       tuple(0.45 * float(c) for c in color), -1, cv2.LINE_AA)
        # table markers with a white quiet zone
        for marker in scene.table_markers:
            q = tex(marker.corners)
            c = q.mean(axis=0)
            _fill(texture, c + (q - c) * (1 + 2.2 / 6), (245, 245, 245))
            _warp_marker(texture, marker.id, q)
        return texture

    def _shade(self, color, normal: np.ndarray) -> tuple[float, float, float]:
        lit = sum(share * max(0.0, float(np.dot(normal, L))) for L, share in self.lamps)
        k = 0.55 + 0.45 * lit
        return tuple(float(c) * k for c in color)

    def _add_sheen(self, texture: np.ndarray, tex: Callable[[np.ndarray], np.ndarray]) -> None:
        """Each lamp's soft reflection on the table, where its mirror image meets the camera's view."""
        strength = self.look.table.reflection
        if strength <= 0:
            return
        th, tw = texture.shape[:2]
        for L, share in self.lamps:
            mirror = np.array([L[0], L[1], -L[2]])
            spot = self.C + mirror * (self.C[2] / L[2])
            center = tex(spot[:2])[0]
            radius = 0.25 * self.C[2] * self.tex_scale * (1 + 0.5 * self.softness)
            ys, xs = np.ogrid[0:th, 0:tw]
            blob = np.exp(-(((xs - center[0]) ** 2 + (ys - center[1]) ** 2) / (2 * radius**2))).astype(np.float32)
            texture += (70.0 * strength * share * blob)[..., None]
        np.clip(texture, 0, 255, out=texture)

    def _solid_faces(self, bounds, kind: str):
        """Faces of an axis-aligned solid as (corners 4×3 table, normal table, centre table, name)."""
        x0, x1, y0, y1, z0, z1 = bounds
        faces = {
            "top": ([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], z1, (0, 0, 1)),
        }
        out = []
        rot = self.pose.rotation
        for name, (xy, z, n) in faces.items():
            out.append((self.box3(np.array(xy), z), np.array(n, float), name))
        sides = [((x0, y0), (x1, y0), (0, -1)), ((x1, y0), (x1, y1), (1, 0)), ((x1, y1), (x0, y1), (0, 1)),
                 ((x0, y1), (x0, y0), (-1, 0))]
        for a, b, n in sides:
            corners = np.array([[*a, z0], [*b, z0], [*b, z1], [*a, z1]], float)
            pts = self.box3(corners[:, :2], corners[:, 2])
            nt = np.append(rot @ np.array(n, float), 0.0)
            out.append((pts, nt, "side"))
        return out

    def _draw_box(self, canvas: np.ndarray, walls_mask: np.ndarray) -> None:
        box: BoxSpec = self.scene.box
        colors = self.box_colors
        # floor regions
        for k, region in enumerate(box.regions):
            color = colors.get(region.name, DINO_COLORS[k % len(DINO_COLORS)])
            poly = self.ideal(self.box3(np.array(region.polygon), box.floor_height))
            _fill(canvas, poly, self._shade(color, np.array([0, 0, 1.0])))
            x0, x1, y0, y1 = region.rect
            cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
            dark = tuple(0.6 * c for c in color)
            if region.kind == "water":
                for j in range(3):
                    yy = y0 + (y1 - y0) * (j + 1) / 4
                    xs = np.linspace(x0 + 8, x1 - 8, 24)
                    wave = np.column_stack([xs, yy + 3 * np.sin(xs / 7)])
                    line = self.ideal(self.box3(wave, box.floor_height))
                    cv2.polylines(canvas, [np.int32(np.round(line)).reshape(-1, 1, 2)], False,
                                  tuple(min(255.0, 1.25 * float(c)) for c in color), 2, cv2.LINE_AA)
            else:  # a dinosaur silhouette: body, neck/head, tail
                sz = min(x1 - x0, y1 - y0) * 0.22
                th = np.linspace(0, 2 * np.pi, 20)
                seed = sum(map(ord, region.name))
                a = (seed % 7) * 0.6
                ca, sa = math.cos(a), math.sin(a)
                shapes = [(0, 0, sz, sz * 0.55), (sz * 0.95, sz * 0.5, sz * 0.35, sz * 0.25),
                          (-sz * 1.1, -sz * 0.1, sz * 0.6, sz * 0.15)]
                for ox, oy, ax, ay in shapes:
                    ex, ey = ox + ax * np.cos(th), oy + ay * np.sin(th)
                    pts = np.column_stack([cx + ca * ex - sa * ey, cy + sa * ex + ca * ey])
                    _fill(canvas, self.ideal(self.box3(pts, box.floor_height)), dark)
        # floor markers
        for marker in box.markers:
            if marker.z < box.rim_height - 1:
                q = self.ideal(self.box3(marker.corners, marker.z))
                c = q.mean(axis=0)
                _fill(canvas, c + (q - c) * (1 + 2.2 / 6), (240, 240, 240))
                _warp_marker(canvas, marker.id, q)
        # shadows of walls and partitions on the floor
        inner = np.zeros(canvas.shape[:2], np.float32)
        x0, x1, y0, y1 = box.inner
        _fill(inner, self.ideal(self.box3(np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]), box.floor_height)), 1.0)
        for L, share in self.lamps:
            shade = np.zeros(canvas.shape[:2], np.float32)
            for solid in box.solids:
                if solid.kind == "floor":
                    continue
                x0, x1, y0, y1, z0, z1 = solid.bounds
                top = np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], float)
                top_t = self.box3(top, z1)
                drop = (z1 - box.floor_height) / L[2]
                shadow_pts = top_t - L * drop
                base = self.box3(top, box.floor_height)
                hull2 = np.vstack([shadow_pts, base])
                _fill(shade, cv2.convexHull(np.float32(self.ideal(hull2))).reshape(-1, 2), 1.0)
            shade = cv2.GaussianBlur(shade * inner, (0, 0), 1.5 * self.softness)
            canvas *= (1 - 0.4 * min(1.0, 1.3 * share) * shade)[..., None]
        # walls: far inner faces, partitions (far to near), outer faces, rim tops, rim markers
        wall_color = colors["wall"]
        rim_color = colors["rim"]
        part_color = colors["partition"]
        inner_color = colors["inner"]
        outer_faces, inner_faces, rim_faces = [], [], []
        hx, hy = box.length / 2, box.width / 2
        for solid in box.solids:
            if solid.kind != "outer":
                continue
            for pts, normal, name in self._solid_faces(solid.bounds, solid.kind):
                visible = np.dot(normal, self.C - pts.mean(axis=0)) > 0
                if not visible:
                    continue
                if name == "top":
                    rim_faces.append((pts, normal))
                    continue
                box_xy = self.pose.table_to_box(pts[:, :2]).mean(axis=0)
                is_outer = abs(abs(box_xy[0]) - hx) < 0.5 or abs(abs(box_xy[1]) - hy) < 0.5
                (outer_faces if is_outer else inner_faces).append((pts, normal))
        for pts, normal in inner_faces:
            _fill(canvas, self.ideal(pts), self._shade(inner_color, normal))
        partitions = [s for s in box.solids if s.kind == "partition"]
        partitions.sort(key=lambda s: -np.linalg.norm(self.box3(np.array([[(s.bounds[0] + s.bounds[1]) / 2,
                                                                               (s.bounds[2] + s.bounds[3]) / 2]]),
                                                                 s.bounds[5])[0] - self.C))
        for solid in partitions:
            faces = self._solid_faces(solid.bounds, solid.kind)
            for pts, normal, name in faces[1:] + faces[:1]:
                if np.dot(normal, self.C - pts.mean(axis=0)) > 0:
                    color = part_color if name == "side" else tuple(min(255, 1.15 * c) for c in part_color)
                    _fill(canvas, self.ideal(pts), self._shade(color, normal))
        for pts, normal in outer_faces:
            poly = self.ideal(pts)
            _fill(canvas, poly, self._shade(wall_color, normal))
            _fill(walls_mask, poly, 1.0)
        for pts, normal in rim_faces:
            poly = self.ideal(pts)
            _fill(canvas, poly, self._shade(rim_color, normal))
            _fill(walls_mask, poly, 1.0)
        for marker in box.markers:
            if marker.z >= box.rim_height - 1:
                q = self.ideal(self.box3(marker.corners, marker.z))
                c = q.mean(axis=0)
                _fill(canvas, c + (q - c) * (1 + 1.6 / 6), (240, 240, 240))
                _warp_marker(canvas, marker.id, q)

    # ---- moving things ------------------------------------------------------------------------
    def occluder(self, p: np.ndarray) -> np.ndarray | None:
        """The static mask that hides the meteor centred at `p` (table mm), if any."""
        box = self.scene.box
        r = self.scene.meteor_radius
        bx, by = self.pose.table_to_box(p[:2])[0]
        x0, x1, y0, y1 = box.inner
        if x0 < bx < x1 and y0 < by < y1 and p[2] < box.rim_height + r:
            return self.walls_mask
        if p[2] < box.rim_height + r and (abs(bx) > box.length / 2 or abs(by) > box.width / 2):
            top = box.rim_height + r
            if self.C[2] <= p[2]:
                return None
            q = p + (self.C - p) * (top - p[2]) / (self.C[2] - p[2])
            qx, qy = self.pose.table_to_box(q[:2])[0]
            if abs(qx) < box.length / 2 + r and abs(qy) < box.width / 2 + r:
                return self.box_mask
        return None

    def shadow_point(self, p: np.ndarray, L: np.ndarray | None = None) -> np.ndarray:
        """Where the main lamp (or lamp direction `L`) throws the shadow of point `p`."""
        box = self.scene.box
        L = self.L if L is None else L
        s = p - L * (p[2] / L[2])
        bx, by = self.pose.table_to_box(s[:2])[0]
        if abs(bx) < box.length / 2 and abs(by) < box.width / 2:
            x0, x1, y0, y1 = box.inner
            z = box.floor_height if (x0 < bx < x1 and y0 < by < y1) else box.rim_height
            s = p - L * ((p[2] - z) / L[2])
        return s

    def render_frame(self, times: np.ndarray, meteor_at: Callable[[float], tuple[np.ndarray | None, np.ndarray]],
                     hand_at: Callable[[float], HandState], gains: np.ndarray, noise: tuple[np.ndarray, np.ndarray],
                     ) -> np.ndarray:
        """One frame: sub-frames at `times` averaged; meteor_at(t) → (centre or None, orientation 3×3)."""
        w, h = self.size
        r = self.scene.meteor_radius
        items = []
        boxes = []
        moments = [(meteor_at(t), hand_at(t)) for t in times]
        # every sub-frame's meteor centre and its shadows, projected together (one call, not one a point)
        points = [[center, *(self.shadow_point(center, L) for L, _ in self.lamps)]
                  for (center, _), _ in moments if center is not None]
        pixels = iter(self.project(np.asarray(points, float)).reshape(len(points), -1, 2) if points else ())
        for (center, orient), hand in moments:
            m = None
            if center is not None:
                uv, *shadow_uvs = next(pixels)
                rho = float(self.camera.apparent_diameter_px(center, 2 * r)[0] / 2)
                shadows = [(suv, share) for suv, (_, share) in zip(shadow_uvs, self.lamps, strict=True)]
                m = (center, orient, uv, rho, shadows)
                if -3 * rho - 40 < uv[0] < w + 3 * rho + 40 and -3 * rho - 40 < uv[1] < h + 3 * rho + 40:
                    for suv, _ in shadows:
                        boxes.append((min(uv[0], suv[0]) - 2 * rho - 6, min(uv[1], suv[1]) - 2 * rho - 6,
                                      max(uv[0], suv[0]) + 2 * rho + 6, max(uv[1], suv[1]) + 2 * rho + 6))
            shapes = self._hand_shapes(hand) if hand.visible else None
            if shapes is not None:
                allp = np.vstack([s[0] for s in shapes] + [s[2] for s in shapes if s[2] is not None])
                boxes.append((allp[:, 0].min() - 4, allp[:, 1].min() - 4, allp[:, 0].max() + 4, allp[:, 1].max() + 4))
            items.append((m, shapes))
        frame = self.background.copy()
        if boxes:
            b = np.array(boxes)
            x0 = int(max(0, np.floor(b[:, 0].min())))
            y0 = int(max(0, np.floor(b[:, 1].min())))
            x1 = int(min(w, np.ceil(b[:, 2].max())))
            y1 = int(min(h, np.ceil(b[:, 3].max())))
            if x1 > x0 and y1 > y0:
                bg = self.background_f[y0:y1, x0:x1].copy()
                middle_hand = items[len(items) // 2][1]
                if middle_hand is not None:  # a soft shadow: drawn once, where the hand is mid-exposure
                    self._draw_hand_shadow(bg, x0, y0, middle_hand)
                acc = np.zeros_like(bg)
                for m, shapes in items:
                    patch = bg.copy()
                    if m is not None:
                        self._draw_meteor(patch, x0, y0, m)
                    if shapes is not None:
                        self._draw_hand(patch, x0, y0, shapes)
                    acc += patch
                frame[y0:y1, x0:x1] = np.clip(acc / len(items), 0, 255).astype(np.uint8)
        frame = cv2.transform(frame, np.diag(gains).astype(np.float32))
        frame = cv2.add(frame, noise[0])
        frame = cv2.subtract(frame, noise[1])
        return frame

    def _draw_meteor_shadow(self, patch: np.ndarray, ox: int, oy: int, center: np.ndarray, rho: float,
                            suv: np.ndarray, share: float) -> None:
        """A soft dark disc, fainter and wider when the meteor is high (and when the lamp's light is soft)."""
        ph, pw = patch.shape[:2]
        height = max(0.0, float(center[2] - self.scene.meteor_radius))
        srad = rho * (1.0 + height / 600.0)
        strength = 0.45 * min(1.0, 1.3 * share) / (1.0 + height / 150.0)
        sx, sy = suv[0] - ox, suv[1] - oy
        soft = (1.5 + height / 40.0) * self.softness
        reach = srad + soft + 4
        xa, xb = int(max(0, sx - reach)), int(min(pw, sx + reach + 1))
        ya, yb = int(max(0, sy - reach)), int(min(ph, sy + reach + 1))
        if xb > xa and yb > ya:
            yy, xx = np.mgrid[ya:yb, xa:xb].astype(np.float32)
            d = np.sqrt((xx - sx) ** 2 + (yy - sy) ** 2)
            a = strength * np.clip((srad - d) / soft + 0.5, 0, 1)
            patch[ya:yb, xa:xb] *= (1 - a)[..., None]

    def _meteor_pattern(self, nb: np.ndarray, dx: np.ndarray, dy: np.ndarray, orient: np.ndarray):
        """(brightness modulation, outline scale, second colour's share) of the meteor's surface style."""
        style = self.scene.meteor_style
        ones = np.ones(dx.shape, np.float32)
        mod, edge, second = ones, ones, np.zeros(dx.shape, np.float32)
        ang = np.arctan2(dy, dx)
        phase = float(np.arctan2(orient[1, 0], orient[0, 0]))
        if style == "striped":
            mod = np.where(np.abs(nb[..., 2]) < 0.22, 0.5, 1.0)
        elif style == "spotted":
            dirs = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], np.float32)
            mod = np.where((nb @ dirs.T).max(axis=-1) > 0.93, 0.45, 1.0)
        elif style == "irregular":
            edge = 1.0 + 0.06 * np.sin(3 * ang + phase) + 0.035 * np.sin(5 * ang - 2 * phase)
            mod = 0.9 + 0.1 * np.sin(nb[..., 0] * 9)
        elif style == "two_tone":
            second = (nb[..., 2] > 0).astype(np.float32)
        elif style == "speckled":
            speckle = np.sin(nb[..., 0] * 23.0) * np.sin(nb[..., 1] * 19.0) * np.sin(nb[..., 2] * 29.0)
            second = (speckle > 0.35).astype(np.float32)
        look = self.look
        if look is not None and look.aspect < 1.0:  # an ellipsoid: its outline turns with the body
            edge = edge * (1.0 - (1.0 - look.aspect) * 0.5 * (1 - np.cos(2 * (ang - phase))))
        return mod, edge, second

    def _draw_meteor(self, patch: np.ndarray, ox: int, oy: int, m) -> None:
        center, orient, uv, rho, shadows = m
        ph, pw = patch.shape[:2]
        for suv, share in shadows:
            self._draw_meteor_shadow(patch, ox, oy, center, rho, suv, share)
        u, v = uv[0] - ox, uv[1] - oy
        xa, xb = int(max(0, u - rho - 3)), int(min(pw, u + rho + 4))
        ya, yb = int(max(0, v - rho - 3)), int(min(ph, v + rho + 4))
        if xb <= xa or yb <= ya:
            return
        yy, xx = np.mgrid[ya:yb, xa:xb].astype(np.float32)
        dx, dy = (xx - u) / rho, (yy - v) / rho
        d2 = dx * dx + dy * dy
        dist = np.sqrt(d2)
        nz = -np.sqrt(np.clip(1 - d2, 0, 1))
        n_cam = np.stack([dx, dy, nz], -1)
        n = n_cam @ self.R  # camera → table frame (R^T n)
        n /= np.linalg.norm(n, axis=-1, keepdims=True) + 1e-9
        lam = sum(share * np.clip(n @ L, 0, 1) for L, share in self.lamps)
        view = -self.R[2]
        half = self.L + view
        half /= np.linalg.norm(half)
        gloss = self.look.gloss if self.look is not None else 0.5
        spec = np.clip(n @ half, 0, 1) ** (10 + 60 * gloss) * (0.25 + 1.5 * gloss)
        base = np.array(self.scene.meteor_rgb[::-1], np.float32)
        nb = n @ orient  # body frame
        mod, edge, second = self._meteor_pattern(nb, dx, dy, orient)
        if self.look is not None and self.look.meteor is not None:
            other = np.array(self.look.meteor.second_rgb[::-1], np.float32)
            base = base[None, None, :] * (1 - second[..., None]) + other[None, None, :] * second[..., None]
        color = base * ((0.35 + 0.65 * lam) * mod)[..., None] + (160 * spec)[..., None]
        alpha = np.clip((edge * rho - dist * rho) + 0.5, 0, 1)
        sub = patch[ya:yb, xa:xb]
        sub[:] = sub * (1 - alpha[..., None]) + color * alpha[..., None]
        occ = self.occluder(center)
        if occ is not None:
            mask = occ[ya + oy:yb + oy, xa + ox:xb + ox][..., None]
            sub[:] = sub * (1 - mask) + self.background_f[ya + oy:yb + oy, xa + ox:xb + ox] * mask

    def _hand_solids(self, hand: HandState) -> list[tuple[np.ndarray, tuple[float, ...]]]:
        """3D outlines (N×3, table mm) of arms, palms and fingers, far to near, with their colours."""
        fwd = np.append(hand.forward[:2] / np.linalg.norm(hand.forward[:2]), 0.0)
        side = np.array([-fwd[1], fwd[0], 0.0])
        arm = self.look.arm if self.look is not None else None
        if arm is not None and arm.two_handed:  # palms together, the meteor between them
            return (self._one_hand(hand.palm + side * 38, fwd, side, hand.grip, arm, +1)
                    + self._one_hand(hand.palm - side * 38, fwd, side, hand.grip, arm, -1))
        return self._one_hand(hand.palm, fwd, side, hand.grip, arm, arm.handed if arm is not None else 1)

    def _one_hand(self, palm: np.ndarray, fwd: np.ndarray, side: np.ndarray, grip: float, arm, handed: int):
        up = np.array([0.0, 0.0, 1.0])
        skin = self.skin
        th = np.linspace(0, 2 * np.pi, 18, endpoint=False)

        def ellipse(c3, a_vec, b_vec):
            return c3[None, :] + np.cos(th)[:, None] * a_vec[None, :] + np.sin(th)[:, None] * b_vec[None, :]

        solids = []
        wrist = palm - fwd * 55
        if arm is None:
            shoulder = palm - fwd * 650 + up * 260 + side * 120
        else:
            motion = self.look.motion
            shoulder = palm - fwd * 600 + side * 140 * handed
            shoulder[2] = max(motion.shoulder_z_mm, 120.0)
        shoulder = self._in_front(shoulder, wrist)
        arm_dir = wrist - shoulder
        arm_dir /= np.linalg.norm(arm_dir)
        arm_side = np.cross(arm_dir, up)
        arm_side /= np.linalg.norm(arm_side) + 1e-9
        arm_poly = np.array([shoulder + arm_side * 60, wrist + arm_side * 33, wrist - arm_side * 33,
                             shoulder - arm_side * 60])
        solids.append((arm_poly, tuple(skin * 0.82)))
        if arm is not None and arm.sleeve_cover > 0:
            reach = 0.4 + 0.6 * arm.sleeve_cover
            end = shoulder + (wrist - shoulder) * reach
            half_width = 60 + (33 - 60) * reach + 4
            sleeve = np.array([shoulder + arm_side * 64, end + arm_side * half_width, end - arm_side * half_width,
                               shoulder - arm_side * 64])
            solids.append((sleeve, tuple(float(c) for c in arm.sleeve_bgr)))
        solids.append((ellipse(palm, fwd * 50, side * 42), tuple(skin * 0.95)))
        offsets = (-18, 0, 18) if arm is not None and arm.fingers == 3 else (-27, -9, 9, 27)
        for k, off in enumerate(offsets):
            length = 70 - 8 * abs(k - (len(offsets) - 1) / 2)
            reach = length * (0.55 + 0.45 * (1 - grip))
            base = palm + fwd * 38 + side * off
            tip = base + fwd * reach * 0.9 + up * (-10 * grip) + side * off * 0.2 * (1 - grip)
            mid = (base + tip) / 2
            solids.append((ellipse(mid, (tip - base) / 2 + fwd * 6, side * 8.5), tuple(skin * (0.9 + 0.03 * k))))
        thumb_base = palm + side * 40 * handed
        thumb_tip = thumb_base + fwd * (45 + 20 * grip) + side * (12 - 10 * grip) * handed
        solids.append((ellipse((thumb_base + thumb_tip) / 2, (thumb_tip - thumb_base) / 2, side * 10), tuple(skin)))
        return solids

    def _hand_shapes(self, hand: HandState):
        """Projected 2D polygons of arm, palm and fingers, far to near: list of (pts N×2, bgr, shadow N×2 or None)."""
        casts = self.look is not None and self.look.arm.casts_shadow
        solids = self._hand_solids(hand)
        outlines = np.vstack([pts3 for pts3, _ in solids])  # projected together: one call, not one per solid
        ends = np.cumsum([len(pts3) for pts3, _ in solids])[:-1]
        projected = np.split(self.project(outlines), ends)
        shadows: list[np.ndarray | None] = [None] * len(solids)
        if casts:
            ground = outlines - self.L[None, :] * (np.maximum(outlines[:, 2:3], 0.0) / self.L[2])
            shadows = np.split(self.project(ground), ends)
        return [(pts, color, shadow) for pts, (_, color), shadow in zip(projected, solids, shadows, strict=True)]

    def _in_front(self, point: np.ndarray, anchor: np.ndarray) -> np.ndarray:
        """`point` moved towards `anchor` until it lies NEAR_PLANE_MM in front of the camera.

        A shoulder behind the camera plane would project mirrored and draw the arm as a
        frame-wide bow-tie; clipped at the near plane it is a large, correct polygon.
        """
        depth, anchor_depth = self.camera.depth_mm(np.array([point, anchor]))
        if depth >= NEAR_PLANE_MM or anchor_depth <= NEAR_PLANE_MM:
            return point
        keep = (anchor_depth - NEAR_PLANE_MM) / (anchor_depth - depth)
        return anchor + (point - anchor) * keep

    def _draw_hand_shadow(self, patch: np.ndarray, ox: int, oy: int, shapes) -> None:
        """The arm's shadow on the table from the main lamp: one soft, darker patch."""
        outlines = [shadow - [ox, oy] for _, _, shadow in shapes if shadow is not None]
        if not outlines:
            return
        blur = 2.0 * self.softness
        pts = np.vstack(outlines)
        ph, pw = patch.shape[:2]
        x0, y0 = (max(0, int(np.floor(v - 3 * blur))) for v in pts.min(axis=0))
        x1 = min(pw, int(np.ceil(pts[:, 0].max() + 3 * blur)) + 1)
        y1 = min(ph, int(np.ceil(pts[:, 1].max() + 3 * blur)) + 1)
        if x1 <= x0 or y1 <= y0:
            return
        scale = 0.25  # a soft shadow needs no full resolution: drawn and blurred at a quarter, then enlarged
        small = np.zeros((max(1, int((y1 - y0) * scale)), max(1, int((x1 - x0) * scale))), np.float32)
        for outline in outlines:
            _fill(small, (outline - [x0, y0]) * scale, 1.0)
        small = cv2.GaussianBlur(small, (0, 0), max(0.5, blur * scale))
        mask = cv2.resize(small, (x1 - x0, y1 - y0), interpolation=cv2.INTER_LINEAR)
        patch[y0:y1, x0:x1] *= (1 - 0.35 * self.lamps[0][1] * mask)[..., None]

    def _draw_hand(self, patch: np.ndarray, ox: int, oy: int, shapes) -> None:
        for pts, color, _ in shapes:
            p = pts - [ox, oy]
            _fill(patch, p, tuple(c * 0.75 for c in color))
            c = p.mean(axis=0)
            _fill(patch, c + (p - c) * 0.88, color)
