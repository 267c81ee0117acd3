"""Writing a clip's frames: H.264 at a chosen quality (PyAV's bundled libx264), or OpenCV's mp4v.

Cheap webcams and phones record H.264, whose blocking and smearing at low bit rates the judge
must survive; OpenCV's pip wheels cannot encode it, PyAV's wheels can (and ship FFmpeg inside).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np


class ClipWriter:
    """`write(frame)` BGR uint8 frames, then `close()`. `crf` None writes mp4v through OpenCV."""

    def __init__(self, path: Path, fps: float, frame_size: tuple[int, int], crf: int | None = None):
        self.path = Path(path)
        self.crf = crf
        width, height = frame_size
        if crf is None:
            self._cv = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"mp4v"), fps, (width, height))
            if not self._cv.isOpened():
                raise RuntimeError(f"cannot open a video writer for {path}")
            return
        import av

        self._container = av.open(str(path), "w")
        self._stream = self._container.add_stream("libx264", rate=int(round(fps)))
        self._stream.width, self._stream.height = width, height
        self._stream.pix_fmt = "yuv420p"
        self._stream.options = {"crf": str(int(crf)), "preset": "superfast"}

    def write(self, frame: np.ndarray) -> None:
        if self.crf is None:
            self._cv.write(frame)
            return
        import av

        packet_frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="bgr24")
        for packet in self._stream.encode(packet_frame):
            self._container.mux(packet)

    def close(self) -> None:
        if self.crf is None:
            self._cv.release()
            return
        for packet in self._stream.encode():
            self._container.mux(packet)
        self._container.close()
