"""Saved clips: numbered JPEG frames (the replay player steps through them), and a WebM made on demand.

Chromium cannot play OpenCV's default mp4v, so the downloadable clip is VP8 WebM. Making one takes
seconds, so the page asks for it with `webm_progress`, which makes it in the background (once) and
says how many frames are done.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

_lock = threading.Lock()
_jobs_lock = threading.Lock()
_jobs: dict[Path, dict] = {}

Progress = Callable[[int, int], None]  # (frames done, frames in all)


class ClipError(RuntimeError):
    pass


def _frames(folder: Path) -> list[Path]:
    return sorted(folder.glob("[0-9]*.jpg"))


def webm_for(folder: Path, fps: float, progress: Progress | None = None) -> Path:
    target = folder / "clip.webm"
    with _lock:
        if target.exists():
            return target
        frames = _frames(folder)
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
            for done, path in enumerate(frames, start=1):
                frame = cv2.imread(str(path))
                if frame is None:
                    frame = np.zeros((height, width, 3), np.uint8)
                writer.write(frame)
                if progress is not None:
                    progress(done, len(frames))
        finally:
            writer.release()
        try:
            partial.replace(target)
        except OSError as error:
            raise ClipError(f"cannot save the WebM: {error.strerror}") from None
        return target


def webm_progress(folder: Path, fps: float) -> dict:
    """How far the clip's WebM has got: `ready`, `making` (started here if need be) or `error`, with frames."""
    if (folder / "clip.webm").exists():
        total = len(_frames(folder))
        return {"state": "ready", "done": total, "total": total, "error": None}
    with _jobs_lock:
        job = _jobs.get(folder)
        if job is None or job["state"] == "error" or (job["state"] == "ready" and not (folder / "clip.webm").exists()):
            job = {"state": "making", "done": 0, "total": len(_frames(folder)), "error": None}
            _jobs[folder] = job
            threading.Thread(target=_make, args=(folder, fps, job), name="webm", daemon=True).start()
        return dict(job)


def _make(folder: Path, fps: float, job: dict) -> None:
    def advance(done: int, total: int) -> None:
        job.update(done=done, total=total)

    try:
        webm_for(folder, fps, advance)
    except ClipError as error:
        job.update(state="error", error=str(error))
        return
    job.update(state="ready", done=job["total"])
