"""A gallery: one frame of every labelled clip in a folder, tiled, so a person sees a set's variety at a glance.

Each tile shows the clip's first frame (or the frame of its labelled release), its name, size and
frame rate, the meteor's colour as a swatch, and the outcome.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from calibration.truth import LabelError, LaunchTruth, load_label


def _frame(video: Path, index: int) -> np.ndarray | None:
    cap = cv2.VideoCapture(str(video))
    if index > 0:
        cap.set(cv2.CAP_PROP_POS_FRAMES, index)
    ok, frame = cap.read()
    cap.release()
    return frame if ok else None


def _tile(frame: np.ndarray, label: LaunchTruth, name: str, note: str, width: int) -> np.ndarray:
    height = int(round(width * 9 / 16))  # every tile 16:9; a 4:3 frame is fitted inside it
    scale = min(width / frame.shape[1], height / frame.shape[0])
    fitted = cv2.resize(frame, (int(frame.shape[1] * scale), int(frame.shape[0] * scale)),
                        interpolation=cv2.INTER_AREA)
    tile = np.zeros((height, width, 3), np.uint8)
    x0, y0 = (width - fitted.shape[1]) // 2, (height - fitted.shape[0]) // 2
    tile[y0:y0 + fitted.shape[0], x0:x0 + fitted.shape[1]] = fitted
    band = np.full((34, width, 3), 24, np.uint8)
    w, h = label.frame_size
    r, g, b = label.scene.meteor.rgb
    cv2.rectangle(band, (4, 4), (26, 28), (int(b), int(g), int(r)), -1)
    cv2.rectangle(band, (4, 4), (26, 28), (200, 200, 200), 1)
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(band, f"{name} {w}x{h}@{label.fps:g} {label.outcome}", (32, 14), font, 0.36, (235, 235, 235), 1,
                cv2.LINE_AA)
    cv2.putText(band, note[:48], (32, 28), font, 0.34, (170, 200, 230), 1, cv2.LINE_AA)
    return np.vstack([tile, band])


def make_gallery(folder: str | Path, out: str | Path, columns: int = 6, tile_width: int = 260,
                 at: str = "first", limit: int = 60) -> Path:
    """Write a PNG of up to `limit` clips' frames (`at`: "first" frame or "release" frame) from `folder`."""
    folder, out = Path(folder), Path(out)
    labels = sorted(folder.glob("clip_*.json"))[:limit]
    if not labels:
        raise LabelError(f"no labelled clips (clip_*.json) in {folder}")
    notes: dict[str, str] = {}
    index_path = folder / "index.json"
    if index_path.exists():
        for clip in json.loads(index_path.read_text(encoding="utf-8")).get("clips", []):
            bits = [clip.get(k) for k in ("meteor_kind", "start", "motion", "table") if clip.get(k)]
            notes[clip.get("label", "")] = " ".join(str(b) for b in bits)
    tiles = []
    for path in labels:
        label = load_label(path)
        frame = _frame(path.with_suffix(".mp4"), label.release.frame if at == "release" else 0)
        if frame is None:
            raise LabelError(f"cannot read a frame of {path.with_suffix('.mp4')}")
        tiles.append(_tile(frame, label, path.stem, notes.get(path.name, ""), tile_width))
    blank = np.zeros_like(tiles[0])
    rows = [np.hstack((tiles[i:i + columns] + [blank] * columns)[:columns]) for i in range(0, len(tiles), columns)]
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), np.vstack(rows)):
        raise LabelError(f"cannot write {out}")
    return out
