"""Lens calibration (optional): intrinsics and distortion from a ChArUco or chessboard video.

Without it the table calibration estimates the focal length (and, when the data asks for
it, k1) from the markers themselves. With it, K and the distortion are taken as given.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

SCHEMA = "meteors-lens/1"


class LensError(ValueError):
    """A lens calibration that cannot be made or read; the message says why."""


class LensCalibration(BaseModel):
    """OpenCV intrinsics and distortion for one camera at one image size."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    schema_: Literal["meteors-lens/1"] = Field(alias="schema", default=SCHEMA)
    K: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)
    image_size: tuple[int, int]
    rms_px: float = 0.0
    board: str = ""
    frames_used: int = 0

    def for_size(self, frame_size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """K and dist for frames of `frame_size` (width, height): the same lens at another resolution."""
        K = np.asarray(self.K, dtype=np.float64).copy()
        if tuple(frame_size) != tuple(self.image_size):
            sx = frame_size[0] / self.image_size[0]
            sy = frame_size[1] / self.image_size[1]
            if abs(sx - sy) > 0.01:
                raise LensError(
                    f"the lens calibration was made at {self.image_size[0]}×{self.image_size[1]}, "
                    f"which has another aspect ratio than {frame_size[0]}×{frame_size[1]}"
                )
            K[0] *= sx
            K[1] *= sy
        return K, np.asarray(self.dist, dtype=np.float64)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.model_dump_json(by_alias=True, indent=2) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> LensCalibration:
        path = Path(path)
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except FileNotFoundError:
            raise LensError(f"lens calibration not found: {path}") from None
        except (OSError, json.JSONDecodeError, ValidationError) as error:
            raise LensError(f"cannot read lens calibration {path}: {error}") from None


def calibrate_lens(
    frames: list[np.ndarray] | object,
    board: Literal["charuco", "chessboard"] = "charuco",
    squares: tuple[int, int] = (7, 5),
    square_mm: float = 30.0,
    marker_mm: float = 22.0,
    dictionary_name: str = "DICT_4X4_50",
    max_views: int = 40,
) -> LensCalibration:
    """Calibrate from an iterable of BGR frames showing a board from varied angles.

    `squares` is (columns, rows) of board squares; for a chessboard the inner corners are
    one fewer each way. Uses at most `max_views` views spread over the frames.
    """
    object_views: list[np.ndarray] = []
    image_views: list[np.ndarray] = []
    image_size: tuple[int, int] | None = None
    if board == "charuco":
        from calibration.markers import aruco_dictionary

        charuco = cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, aruco_dictionary(dictionary_name))
        detector = cv2.aruco.CharucoDetector(charuco)
    elif board != "chessboard":
        raise LensError(f"unknown board {board!r}: use 'charuco' or 'chessboard'")
    pattern = (squares[0] - 1, squares[1] - 1)
    chess_object = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    chess_object[:, :2] = np.mgrid[0 : pattern[0], 0 : pattern[1]].T.reshape(-1, 2) * square_mm
    for frame in frames:
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        image_size = (gray.shape[1], gray.shape[0])
        if board == "charuco":
            corners, ids, _, _ = detector.detectBoard(gray)
            if ids is None or len(ids) < 6:
                continue
            obj, img = charuco.matchImagePoints(corners, ids)
            if obj is None or len(obj) < 6:
                continue
        else:
            found, corners = cv2.findChessboardCorners(
                gray, pattern, flags=cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE
            )
            if not found:
                continue
            corners = cv2.cornerSubPix(
                gray, corners, (5, 5), (-1, -1), (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 40, 0.01)
            )
            obj, img = chess_object, corners
        object_views.append(np.asarray(obj, np.float32).reshape(-1, 3))
        image_views.append(np.asarray(img, np.float32).reshape(-1, 2))
    if len(object_views) < 4 or image_size is None:
        raise LensError(f"the {board} board was found in only {len(object_views)} frames; at least 4 are needed")
    if len(object_views) > max_views:
        keep = np.linspace(0, len(object_views) - 1, max_views).round().astype(int)
        object_views = [object_views[i] for i in keep]
        image_views = [image_views[i] for i in keep]
    rms, K, dist, _, _ = cv2.calibrateCamera(object_views, image_views, image_size, None, None)
    return LensCalibration(
        K=tuple(tuple(float(v) for v in row) for row in K),
        dist=tuple(float(v) for v in np.ravel(dist)[:5]),
        image_size=image_size,
        rms_px=float(rms),
        board=f"{board} {squares[0]}x{squares[1]} {square_mm:g} mm",
        frames_used=len(object_views),
    )
