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


FRAME_COUNT_SLACK = 2  # containers may declare a frame or two more than they hold: no damage


class FrameReader:
    """A file's frames in order with their true frame numbers, reading on past a damaged stretch.

    When a frame fails to decode before the count the file declares, the reader seeks forward
    (1, 2, 4 ... frames on, then back to the earliest) to a position it can trust, one where seeking
    to the next frame gives the frame that reading on gives (inside damage, FFmpeg lands wherever it
    resynchronises), and goes on from there. `problems` says, in words, what could not be read.
    """

    def __init__(self, capture: cv2.VideoCapture, declared: int | None):
        self.capture = capture
        self.declared = declared if declared and declared > 0 else None
        self.problems: list[str] = []
        self.ended_early = False  # the frames ended before the declared count (cut short, or lost in damage)

    def __iter__(self) -> Iterator[tuple[int, np.ndarray]]:
        index, last = 0, None
        while True:
            ok, frame = self.capture.read()
            if ok:
                yield index, frame
                index, last = index + 1, frame
                continue
            if self.declared is None or index >= self.declared - FRAME_COUNT_SLACK:
                return
            if last is not None and not self._frame_at(index - 1, last):
                # FFmpeg skipped a damaged stretch without a word: the frames read are not where they seemed
                self.problems.append(f"{self.declared - index} of the {self.declared} frames the video declares "
                                     "could not be decoded (a damaged stretch of the file): the frame numbers after "
                                     "it are off by as many")
                self.ended_early = True
                return
            resumed = self._resume_after(index)
            if resumed is None:
                self.problems.append(f"the video ends after {index} of the {self.declared} frames it declares "
                                     "(the file is cut short or damaged)")
                self.ended_early = True
                return
            self.problems.append(f"frames {index}-{resumed - 1} of {self.declared} could not be decoded "
                                 "(a damaged stretch of the file): skipped")
            index = resumed

    def _frame_at(self, position: int, frame: np.ndarray) -> bool:
        self.capture.set(cv2.CAP_PROP_POS_FRAMES, position)
        ok, there = self.capture.read()
        return ok and np.array_equal(there, frame)

    def _resume_after(self, failed: int) -> int | None:
        """The first trusted position after `failed` (the capture left there), or None before the end."""
        assert self.declared is not None
        untrusted, step = failed, 1
        while failed + step < self.declared:
            if self._trusted(failed + step):
                trusted = failed + step
                while trusted - untrusted > 1:  # the earliest trusted position after the last untrusted one
                    middle = (untrusted + trusted) // 2
                    if self._trusted(middle):
                        trusted = middle
                    else:
                        untrusted = middle
                self._trusted(trusted)  # leaves the capture there
                return trusted
            untrusted, step = failed + step, step * 2
        return None

    def _trusted(self, position: int) -> bool:
        """Seek to `position` and check the seek: the next frame read on equals the frame a seek to it gives."""
        if position + 1 >= self.declared:
            return False
        self.capture.set(cv2.CAP_PROP_POS_FRAMES, position + 1)
        ok, expected = self.capture.read()
        if not ok:
            return False
        self.capture.set(cv2.CAP_PROP_POS_FRAMES, position)
        ok_first, _ = self.capture.read()
        ok_next, following = self.capture.read()
        if not (ok_first and ok_next and np.array_equal(following, expected)):
            return False
        self.capture.set(cv2.CAP_PROP_POS_FRAMES, position)
        return True


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
