"""A contact sheet: a grid of a clip's frames with its true trajectory, bounces and rest drawn over them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from calibration.truth import LaunchTruth, load_label

COLORS = {"table": (0, 255, 255), "box_floor": (255, 255, 0), "box_wall": (255, 0, 255), "box_rim": (0, 128, 255)}


def _frames(path: Path, wanted: list[int]) -> dict[int, np.ndarray]:
    cap = cv2.VideoCapture(str(path))
    out: dict[int, np.ndarray] = {}
    i = 0
    wanted_set = set(wanted)
    last = max(wanted)
    while i <= last:
        ok, frame = cap.read()
        if not ok:
            break
        if i in wanted_set:
            out[i] = frame
        i += 1
    cap.release()
    return out


def _overlay(frame: np.ndarray, label: LaunchTruth, upto: int | None, scale: float) -> np.ndarray:
    from calibration.geometry import BoxPose

    img = frame.copy()
    camera = label.camera
    if camera is None:
        return img
    lw = max(1, int(round(2 / scale)))
    pose = BoxPose.model_validate(label.box_pose.model_dump())
    # box outline at rim height and herd line on the table
    outline = pose.box_to_table(np.array(label.scene.box.outline_mm))
    rim = camera.project(np.column_stack([outline, np.full(len(outline), label.scene.box.rim_height_mm)]))
    cv2.polylines(img, [np.int32(rim).reshape(-1, 1, 2)], True, (255, 255, 255), lw, cv2.LINE_AA)
    if label.scene.herd_line_mm is not None:
        herd = camera.project(np.array(label.scene.herd_line_mm))
        cv2.line(img, tuple(int(v) for v in herd[0]), tuple(int(v) for v in herd[1]), (0, 200, 0), lw, cv2.LINE_AA)
    # ground track through release, bounces and rest
    pts = [(label.release.frame, label.release.table_mm)]
    pts += [(b.frame, b.table_mm) for b in label.bounces]
    if label.rest is not None:
        pts.append((label.rest.frame, label.rest.table_mm))
    ground = camera.project(np.array([p for _, p in pts]))
    for k in range(len(ground) - 1):
        if upto is not None and pts[k + 1][0] > upto:
            break
        cv2.line(img, tuple(int(v) for v in ground[k]), tuple(int(v) for v in ground[k + 1]), (0, 255, 0), lw,
                 cv2.LINE_AA)
    rel = camera.project(np.array([[*label.release.table_mm, label.release.height_mm]]))[0]
    cv2.circle(img, tuple(int(v) for v in rel), int(8 / scale), (255, 255, 255), lw, cv2.LINE_AA)
    cv2.line(img, tuple(int(v) for v in rel), tuple(int(v) for v in ground[0]), (255, 255, 255), lw, cv2.LINE_AA)
    for b, g in zip(label.bounces, ground[1:], strict=False):
        if upto is not None and b.frame > upto:
            continue
        cv2.drawMarker(img, tuple(int(v) for v in g), COLORS[b.surface], cv2.MARKER_TILTED_CROSS, int(14 / scale), lw)
    if label.rest is not None and (upto is None or label.rest.frame <= upto):
        from calibration.truth_path import rest_centre_mm

        c = camera.project(rest_centre_mm(label)[None, :])[0]
        cv2.drawMarker(img, tuple(int(v) for v in c), (0, 0, 255), cv2.MARKER_CROSS, int(20 / scale), lw)
    return img


def make_sheet(video: str | Path, out: str | Path, columns: int = 4, rows: int = 4, tile_width: int = 480) -> Path:
    video = Path(video)
    label = load_label(video.with_suffix(".json"))
    n = label.frame_count
    key = [0, label.release.frame] + [b.frame for b in label.bounces]
    if label.entered_box_frame is not None:
        key.append(label.entered_box_frame)
    if label.rest is not None:
        key.append(label.rest.frame)
    key.append(n - 1)
    count = columns * rows
    key = sorted({min(max(k, 0), n - 1) for k in key})
    if len(key) < count:
        even = [int(round(v)) for v in np.linspace(label.release.frame - 10, n - 1, count * 2)]
        for f in even:
            if len(key) >= count:
                break
            if 0 <= f < n and f not in key:
                key.append(f)
    key = sorted(key)[:count]
    frames = _frames(video, key)
    w, h = label.frame_size
    scale = tile_width / w
    tile_h = int(round(h * scale))
    sheet = np.full((rows * (tile_h + 22), columns * tile_width, 3), 30, np.uint8)
    events = {label.release.frame: "release"}
    for b in label.bounces:
        events[b.frame] = f"bounce {b.surface}"
    if label.entered_box_frame is not None:
        events.setdefault(label.entered_box_frame, "enters box")
    if label.rest is not None:
        events[label.rest.frame] = "rest"
    for k, f in enumerate(key):
        if f not in frames:
            continue
        img = _overlay(frames[f], label, f, scale)
        tile = cv2.resize(img, (tile_width, tile_h), interpolation=cv2.INTER_AREA)
        r, c = divmod(k, columns)
        y0 = r * (tile_h + 22)
        sheet[y0 + 22:y0 + 22 + tile_h, c * tile_width:(c + 1) * tile_width] = tile
        text = f"#{f}  {events.get(f, '')}"
        cv2.putText(sheet, text, (c * tile_width + 6, y0 + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (230, 230, 230), 1,
                    cv2.LINE_AA)
    summary = (f"{label.video}: {label.launch_mode}  region={label.region}  outcome={label.outcome}  "
               f"valid={label.valid}  bbb={label.bounces_before_box}  herd={label.release.herd_line_signed_mm:+.1f}mm")
    banner = np.full((28, sheet.shape[1], 3), 0, np.uint8)
    cv2.putText(banner, summary, (6, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (255, 255, 255), 1, cv2.LINE_AA)
    sheet = np.vstack([banner, sheet])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out), sheet)
    return out
