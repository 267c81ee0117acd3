"""What the replay of a launch shows: its key frames and the judge's marks, in the clip's pixels.

The key frames (hold, release, each bounce, box entry, rest) become the replay's strip and jump
buttons; the marks (release point and the ground point under it, the herd line, the bounces, the
rest) are projected with the calibration the judge used, so the player can draw them as they happen
and zoom on the release. Frame numbers are the judge's; `clip_index` is the frame's place in the
saved clip.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.landing import herd_line_in_use
from vision.overlay import herd_line_ends_mm
from web.words import herd_line_words

#: how long before the release the "hold" key frame is taken, seconds
HOLD_BEFORE_RELEASE_S = 0.25

SURFACE_WORDS = {"table": "on the table", "box_floor": "on the box floor", "box_wall": "off a box wall",
                 "box_rim": "on the box rim"}


def key_frames(verdict: dict, fps: float) -> list[dict]:
    """The moments a referee looks at, in order: name, label and judge frame of each."""
    release = (verdict.get("release") or {}).get("frame")
    keys = []
    if release is not None:
        hold = max(verdict.get("start_frame", release), release - round(HOLD_BEFORE_RELEASE_S * fps))
        if hold < release:
            keys.append({"name": "hold", "label": "held", "frame": hold})
        keys.append({"name": "release", "label": "release", "frame": release})
    for number, bounce in enumerate(verdict.get("bounces") or [], start=1):
        where = SURFACE_WORDS.get(bounce.get("surface"), "")
        keys.append({"name": "bounce", "label": f"bounce {number} {where}".strip(), "frame": bounce["frame"]})
    if verdict.get("entered_box_frame") is not None:
        keys.append({"name": "box", "label": "enters the box", "frame": verdict["entered_box_frame"]})
    if verdict.get("rest"):
        keys.append({"name": "rest", "label": "at rest", "frame": verdict["rest"]["frame"]})
    return sorted(keys, key=lambda key: key["frame"])


def in_clip(keys: list[dict], first_frame: int | None, frames: int) -> list[dict]:
    """The key frames the saved clip holds, each with its `clip_index`."""
    if first_frame is None:
        return []
    return [{**key, "clip_index": key["frame"] - first_frame} for key in keys
            if 0 <= key["frame"] - first_frame < frames]


def _pixel(camera: Any, point_mm: list[float]) -> list[float]:
    return [round(float(v), 1) for v in camera.project(np.asarray([point_mm], dtype=np.float64))[0]]


def _foot_on_line(point_mm: list[float], line_mm: Any) -> np.ndarray:
    """The point of the herd line nearest `point_mm` on the table: the other end of the signed distance."""
    a, b = np.asarray(line_mm, dtype=np.float64)
    direction = (b - a) / np.linalg.norm(b - a)
    return a + direction * float(np.dot(np.asarray(point_mm, dtype=np.float64) - a, direction))


def marks_px(verdict: dict, calibration: Any, rig: Any) -> dict | None:
    """The judge's marks in pixels of the camera's frame; None without a calibration to project them."""
    camera = getattr(calibration, "camera", None)
    if camera is None:
        return None
    floor = rig.box.floor_height_mm
    marks: dict[str, Any] = {"bounces": []}
    release = verdict.get("release")
    herd = herd_line_in_use(rig, calibration)
    if release:
        x, y = release["table_mm"]
        marks["release"] = {"meteor": _pixel(camera, [x, y, release["height_mm"]]),
                            "ground": _pixel(camera, [x, y, 0.0])}
        if herd is not None:
            marks["release"]["line_foot"] = _pixel(camera, [*_foot_on_line([x, y], herd), 0.0])
    if herd is not None:
        marks["herd_line"] = [_pixel(camera, [*end, 0.0]) for end in herd_line_ends_mm(herd)]
    for bounce in verdict.get("bounces") or []:
        height = 0.0 if bounce.get("surface") == "table" else floor
        marks["bounces"].append({"frame": bounce["frame"], "px": _pixel(camera, [*bounce["table_mm"], height])})
    if verdict.get("rest"):
        marks["rest"] = _pixel(camera, [*verdict["rest"]["table_mm"], floor])
    return marks


def release_caption(verdict: dict) -> str:
    """The inset's caption: where the ground point under the release is, and what the rule asks."""
    release = verdict.get("release")
    if not release:
        return "The release was not seen."
    where = herd_line_words(release.get("herd_line_signed_mm"))
    return f"At the release the meteor is above a point {where} (it must be released behind the line)."


def replay_info(launch: dict, clip_meta: dict, calibration: Any, rig: Any) -> dict:
    """Everything the replay player needs beside the frames."""
    verdict = launch.get("verdict") or {}
    fps = float(launch.get("clip_fps") or clip_meta.get("fps") or 30.0)
    first = clip_meta.get("first_frame")
    marks = clip_meta.get("marks")
    if marks is None and verdict:
        marks = marks_px(verdict, calibration, rig)
    return {
        "first_frame": first,
        "key_frames": in_clip(key_frames(verdict, fps), first, int(launch.get("clip_frames") or 0)) if verdict else [],
        "marks": marks,
        "release_caption": release_caption(verdict) if verdict else None,
        "herd_line_signed_mm": (verdict.get("release") or {}).get("herd_line_signed_mm"),
    }
