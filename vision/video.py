"""Frame sources: a recorded file or a live camera, decoded by OpenCV, with clear errors."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np


class VideoError(ValueError):
    """A video or camera that cannot be used; the message names it and says why."""


@dataclass(frozen=True)
class VideoInfo:
    fps: float
    frame_size: tuple[int, int]  # (width, height) in pixels
    frame_count: int | None  # None for a live camera


def open_capture(source: str | int | Path) -> cv2.VideoCapture:
    """Open a file path, a camera index ("0" or 0) or a stream URL; raise VideoError if it fails."""
    if isinstance(source, Path):
        source = str(source)
    if isinstance(source, str) and source.isdigit():
        source = int(source)
    if isinstance(source, str) and "://" not in source:
        path = Path(source)
        if not path.exists():
            raise VideoError(f"video not found: {path}")
        if path.is_dir():
            raise VideoError(f"{path} is a folder, not a video file")
    capture = cv2.VideoCapture(source)
    if not capture.isOpened():
        what = f"camera {source}" if isinstance(source, int) else f"video {source}"
        raise VideoError(f"cannot open {what}: OpenCV could not read it")
    return capture


def video_info(capture: cv2.VideoCapture, live: bool = False) -> VideoInfo:
    fps = capture.get(cv2.CAP_PROP_FPS) or 0.0
    width = int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
    height = int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT))
    count = None if live else int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    return VideoInfo(fps=fps if fps > 0 else 30.0, frame_size=(width, height), frame_count=count)


def read_frames(source: str | int | Path) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (frame_index, BGR frame) until the source ends; raise VideoError if none decodes."""
    capture = open_capture(source)
    index = 0
    try:
        while True:
            ok, frame = capture.read()
            if not ok:
                break
            yield index, frame
            index += 1
    finally:
        capture.release()
    if index == 0:
        raise VideoError(f"no frame could be decoded from {source}")


def probe(source: str | int | Path) -> VideoInfo:
    """Frame rate, size and frame count of a file (or camera) without decoding it all."""
    capture = open_capture(source)
    try:
        return video_info(capture, live=isinstance(source, int))
    finally:
        capture.release()
