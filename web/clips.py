"""Saved clips: numbered JPEG frames (the replay player steps through them), and a WebM made on demand.

Chromium cannot play OpenCV's default mp4v, so the downloadable clip is VP8 WebM.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

_lock = threading.Lock()


class ClipError(RuntimeError):
    pass


def webm_for(folder: Path, fps: float) -> Path:
    target = folder / "clip.webm"
    with _lock:
        if target.exists():
            return target
        frames = sorted(folder.glob("[0-9]*.jpg"))
        if not frames:
            raise ClipError(f"the clip in {folder.name} has no frames (unreadable or deleted)")
        first = cv2.imread(str(frames[0]))
        if first is None:
            raise ClipError(f"the clip frame {frames[0].name} is unreadable")
        height, width = first.shape[:2]
        partial = folder / "clip.partial.webm"
        writer = cv2.VideoWriter(str(partial), cv2.VideoWriter_fourcc(*"VP80"), float(fps), (width, height))
        if not writer.isOpened():
            raise ClipError("this OpenCV cannot write VP8 WebM")
        try:
            for path in frames:
                frame = cv2.imread(str(path))
                if frame is None:
                    frame = np.zeros((height, width, 3), np.uint8)
                writer.write(frame)
        finally:
            writer.release()
        try:
            partial.replace(target)
        except OSError as error:
            raise ClipError(f"cannot save the WebM: {error.strerror}") from None
        return target
