"""Synthetic frames with exactly known truth: a textured table plane and a box lid at rim height.

Each output pixel's ray (through the known camera, distortion included) is cut with the box
lid (z = rim height, inside the outline) or else with the table (z = 0) and the matching
texture is sampled. Textures are drawn at `PX_PER_MM` with marker edges on pixel edges, so
marker corners are exactly where the rig says.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.geometry import BoxPose
from calibration.markers import marker_image
from calibration.rig import Rig

PX_PER_MM = 4.0
TABLE_RGB = (96, 128, 92)  # green felt
BOX_RGB = (70, 70, 150)
CARD_SIZE_MM = (63.0, 88.0)


def look_at_camera(
    eye_mm: tuple[float, float, float],
    target_mm: tuple[float, float, float] = (0.0, 0.0, 0.0),
    focal_px: float = 1000.0,
    frame_size: tuple[int, int] = (1280, 720),
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
    roll_deg: float = 0.0,
) -> CameraModel:
    eye, target = np.asarray(eye_mm, float), np.asarray(target_mm, float)
    forward = (target - eye) / np.linalg.norm(target - eye)
    up_hint = np.array([0.0, 1.0, 0.0])  # image "up" roughly towards +y on the table
    right = np.cross(forward, up_hint)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.vstack([right, down, forward])  # rows: camera axes in table frame
    roll = np.radians(roll_deg)
    roll_matrix = np.array([[np.cos(roll), -np.sin(roll), 0], [np.sin(roll), np.cos(roll), 0], [0, 0, 1]])
    rotation = roll_matrix @ rotation
    rvec = cv2.Rodrigues(rotation)[0].ravel()
    tvec = -rotation @ eye
    width, height = frame_size
    K = ((focal_px, 0.0, (width - 1) / 2.0), (0.0, focal_px, (height - 1) / 2.0), (0.0, 0.0, 1.0))
    return CameraModel(K=K, dist=tuple(dist), rvec=tuple(rvec), tvec=tuple(tvec))


@dataclass
class Scene:
    rig: Rig
    camera: CameraModel
    box_pose: BoxPose
    frame_size: tuple[int, int] = (1280, 720)
    cards_mm: list[tuple[float, float, float]] = field(default_factory=list)  # centre x, y, angle deg
    meteor_mm: tuple[float, float, float] | None = None
    meteor_rgb: tuple[int, int, int] = (210, 90, 40)
    noise: float = 2.0
    table_extent_mm: tuple[float, float, float, float] = (-700.0, 700.0, -500.0, 500.0)
    hidden_markers: set[int] = field(default_factory=set)
    print_scale: dict[int, float] = field(default_factory=dict)  # marker id -> printed size factor


def herd_cards(start=(-280.0, -60.0), end=(280.0, -40.0), count=6, jitter_deg=(3, -4, 2, 0, -3, 5)):
    xs = np.linspace(start[0], end[0], count)
    ys = np.linspace(start[1], end[1], count)
    jitter = [float(jitter_deg[i % len(jitter_deg)]) for i in range(count)]
    return [(float(x), float(y), a) for x, y, a in zip(xs, ys, jitter, strict=True)]


def _paste_marker(texture, dictionary, marker_id, corners_mm, to_texture, scale=1.0):
    """Draw the marker with its white quiet zone so that its outer corners land on `corners_mm`."""
    corners = np.asarray(corners_mm, float)
    if scale != 1.0:
        centre = corners.mean(axis=0)
        corners = centre + (corners - centre) * scale
    dst = to_texture(corners)  # edge coordinates in the texture
    side_tex = np.linalg.norm(dst[1] - dst[0])
    n = max(24, int(round(side_tex)))
    image = marker_image(dictionary, marker_id, n)
    # white quiet zone: a bigger white square under the marker
    centre = dst.mean(axis=0)
    quiet = centre + (dst - centre) * 1.4
    cv2.fillConvexPoly(texture, np.round(quiet - 0.5).astype(np.int32), (250, 250, 250))
    x0, y0 = np.floor(dst.min(axis=0)).astype(int) - 2
    x1, y1 = np.ceil(dst.max(axis=0)).astype(int) + 2
    src = np.float32([[-0.5, -0.5], [n - 0.5, -0.5], [n - 0.5, n - 0.5]])
    dst_c = np.float32(dst[:3] - 0.5 - [x0, y0])
    matrix = cv2.getAffineTransform(src, dst_c)
    w, h = x1 - x0, y1 - y0
    warped = cv2.warpAffine(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    mask = cv2.warpAffine(np.full((n, n), 255, np.uint8), matrix, (w, h), flags=cv2.INTER_LINEAR, borderValue=0)
    alpha = (mask.astype(np.float32) / 255.0)[..., None]
    roi = texture[y0:y1, x0:x1]
    roi[:] = (roi * (1 - alpha) + warped[..., None] * alpha).astype(np.uint8)


def _texture(extent, rgb):
    xmin, xmax, ymin, ymax = extent
    w, h = int(round((xmax - xmin) * PX_PER_MM)), int(round((ymax - ymin) * PX_PER_MM))
    texture = np.empty((h, w, 3), np.uint8)
    texture[:] = rgb[::-1]

    def to_texture(points_mm):
        points = np.asarray(points_mm, float).reshape(-1, 2)
        return np.column_stack([(points[:, 0] - xmin) * PX_PER_MM, (ymax - points[:, 1]) * PX_PER_MM])

    return texture, to_texture


def render(scene: Scene, rng: np.random.Generator | None = None) -> np.ndarray:
    rng = rng or np.random.default_rng(0)
    rig = scene.rig
    table_tex, table_map = _texture(scene.table_extent_mm, TABLE_RGB)
    for cx, cy, angle in scene.cards_mm:
        rect = cv2.boxPoints(((cx, cy), CARD_SIZE_MM, angle))
        pts = table_map(rect) - 0.5
        cv2.fillConvexPoly(table_tex, np.round(pts * 16).astype(np.int32), (235, 240, 245), cv2.LINE_AA, 4)
        inner = cv2.boxPoints(((cx, cy + 8), (CARD_SIZE_MM[0] - 12, CARD_SIZE_MM[1] * 0.5), angle))
        cv2.fillConvexPoly(table_tex, np.round((table_map(inner) - 0.5) * 16).astype(np.int32), (60, 140, 200),
                           cv2.LINE_AA, 4)
    for marker in rig.table_markers:
        if marker.id in scene.hidden_markers:
            continue
        _paste_marker(table_tex, rig.aruco_dictionary, marker.id, marker.corners_mm, table_map,
                      scene.print_scale.get(marker.id, 1.0))
    outline = np.asarray(rig.box.outline_mm, float)
    box_extent = (outline[:, 0].min() - 5, outline[:, 0].max() + 5, outline[:, 1].min() - 5, outline[:, 1].max() + 5)
    box_tex, box_map = _texture(box_extent, BOX_RGB)
    for region in rig.box.regions:
        cv2.polylines(box_tex, [np.round(box_map(region.polygon_mm) - 0.5).astype(np.int32)], True, (200, 200, 200), 3)
    for marker in rig.box.markers:
        if marker.id in scene.hidden_markers:
            continue
        _paste_marker(box_tex, rig.aruco_dictionary, marker.id, marker.corners_mm, box_map,
                      scene.print_scale.get(marker.id, 1.0))

    width, height = scene.frame_size
    cam = scene.camera
    u, v = np.meshgrid(np.arange(width, dtype=np.float64), np.arange(height, dtype=np.float64))
    pixels = np.column_stack([u.ravel(), v.ravel()])
    rays = cam.rays(pixels)
    centre = cam.center_mm
    rim = rig.box.rim_height_mm
    lid = centre + rays * ((rim - centre[2]) / rays[:, 2])[:, None]
    ground = centre + rays * ((0.0 - centre[2]) / rays[:, 2])[:, None]
    lid_box = scene.box_pose.table_to_box(lid[:, :2])
    path = outline.astype(np.float32)
    # vectorised point-in-polygon (ray casting)
    x, y = lid_box[:, 0], lid_box[:, 1]
    on_box = np.zeros(len(x), bool)
    for i in range(len(path)):
        x1, y1 = path[i]
        x2, y2 = path[(i + 1) % len(path)]
        crosses = ((y1 > y) != (y2 > y)) & (x < (x2 - x1) * (y - y1) / (y2 - y1 + 1e-12) + x1)
        on_box ^= crosses
    table_uv = table_map(ground[:, :2]) - 0.5
    box_uv = box_map(lid_box) - 0.5
    uv = np.where(on_box[:, None], box_uv, table_uv).astype(np.float32)
    map_u = uv[:, 0].reshape(height, width)
    map_v = uv[:, 1].reshape(height, width)
    table_img = cv2.remap(table_tex, map_u, map_v, cv2.INTER_LINEAR,
                          borderValue=(40, 40, 40))
    box_img = cv2.remap(box_tex, map_u, map_v, cv2.INTER_LINEAR, borderValue=(40, 40, 40))
    frame = np.where(on_box.reshape(height, width, 1), box_img, table_img)
    if scene.meteor_mm is not None:
        centre_px = cam.project(np.asarray([scene.meteor_mm]))[0]
        diameter = cam.apparent_diameter_px(np.asarray([scene.meteor_mm]), rig.meteor.diameter_mm)[0]
        cv2.circle(frame, tuple(np.round(centre_px * 16).astype(int)), int(round(diameter / 2 * 16)),
                   scene.meteor_rgb[::-1], -1, cv2.LINE_AA, 4)
    frame = cv2.GaussianBlur(frame, (0, 0), 0.6)
    if scene.noise:
        frame = np.clip(frame + rng.normal(0, scene.noise, frame.shape), 0, 255).astype(np.uint8)
    return frame


def standard_scene(rig: Rig, **overrides) -> Scene:
    camera = overrides.pop("camera", None) or look_at_camera((80.0, -900.0, 1250.0), (0.0, 40.0, 0.0), 1050.0)
    box_pose = overrides.pop("box_pose", None) or BoxPose(yaw_deg=12.5, translation_mm=(40.0, 180.0))
    return Scene(rig=rig, camera=camera, box_pose=box_pose, **overrides)
