"""A learned meteor detector: a small network that maps three frames to a heat map of the meteor's centre.

The colour test of `vision.detector` finds a meteor by the direction of its colour, which grey,
near-black and table-hued meteors do not have, and which box markers, cards and hands share. This
network looks at what the meteor is instead: three consecutive frames, reduced as the detector
reduces them (the meteor 3 to 6 px across), and the rig's meteor colour as three constant planes,
so one model serves every meteor. Its output is, per reduced pixel, how likely the meteor's centre
is there (TrackNet's idea, a network a few layers deep for a CPU).

Fitted on generated launches with `meteors-judge train-heatmap` (`vision.heatmap_fit`, which needs
the optional `train` extra), it ships as a small ONNX file and runs with OpenCV's `dnn` module alone.
The judge runs it in a window round the tracker's prediction when the colour test finds no meteor
in a hold or a flight (`peak_in_window`); `meteors-judge track-check --heatmap` compares its best
peak over the whole frame with the judge's track, frame by frame.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

SHIPPED_MODEL = Path(__file__).with_name("heatmap_model.onnx")
FRAMES = 3  # the frames the network sees: the two before the frame and the frame itself
CHANNELS = 3 * FRAMES + 3  # their BGR planes, then the meteor's colour (BGR) as constant planes
SMALLEST_METEOR_PX = 3.0  # the reduction keeps the meteor at least this many reduced pixels across
LARGEST_SCALE = 4
WINDOW_PX = 64  # reduced px: the side of the windows the network was fitted on and is run on


class HeatmapModelError(ValueError):
    """The heat-map model file is missing or not a network OpenCV can read."""


def reduction_for(meteor_diameter_px: float) -> int:
    """The power-of-two reduction (1, 2 or 4) that keeps a meteor of this apparent diameter (full-res px)
    at least `SMALLEST_METEOR_PX` across: the detector's rule, so the network sees meteors of one size."""
    scale = 1
    while scale * 2 <= LARGEST_SCALE and meteor_diameter_px / (scale * 2) >= SMALLEST_METEOR_PX:
        scale *= 2
    return scale


def reduce_frame(frame_bgr: np.ndarray, scale: int) -> np.ndarray:
    """The frame `scale` times smaller, each pixel the mean of its block (uint8 BGR)."""
    if scale == 1:
        return frame_bgr
    height, width = frame_bgr.shape[:2]
    return cv2.resize(frame_bgr, (width // scale, height // scale), interpolation=cv2.INTER_AREA)


def input_planes(reduced_bgr: Sequence[np.ndarray], meteor_rgb: tuple[int, int, int]) -> np.ndarray:
    """The network's input (`CHANNELS`×H×W float32 in 0–1) from `FRAMES` reduced BGR frames, oldest first."""
    if len(reduced_bgr) != FRAMES:
        raise ValueError(f"the heat map needs {FRAMES} frames, got {len(reduced_bgr)}")
    height, width = reduced_bgr[0].shape[:2]
    planes = np.empty((CHANNELS, height, width), np.float32)
    for index, frame in enumerate(reduced_bgr):
        planes[3 * index : 3 * index + 3] = np.moveaxis(frame, -1, 0)
    planes[: 3 * FRAMES] *= np.float32(1.0 / 255.0)
    planes[3 * FRAMES :] = (np.asarray(meteor_rgb[::-1], np.float32) / 255.0)[:, None, None]
    return planes


def _network(path: str | Path):
    model = Path(path)
    if not model.is_file():
        raise HeatmapModelError(f"heat-map model not found: {model}")
    return _read_network(str(model), model.stat().st_mtime_ns)


@functools.cache
def _read_network(path: str, _mtime_ns: int):
    """The network in `path` as it was at `_mtime_ns` (a model written anew is read anew)."""
    model = Path(path)
    try:
        return cv2.dnn.readNetFromONNX(str(model))
    except cv2.error as error:
        raise HeatmapModelError(f"{model} is not a heat-map model OpenCV can read: {error.msg.strip()}") from None


def heatmap(planes: np.ndarray, model: str | Path = SHIPPED_MODEL) -> np.ndarray:
    """The meteor's centre probability per reduced pixel (H×W float32) for the input `planes`."""
    network = _network(model)
    network.setInput(planes[None])
    logits = network.forward()[0, 0]
    return 1.0 / (1.0 + np.exp(-logits))


def peaks(heat: np.ndarray, count: int, min_distance_px: int = 4) -> list[tuple[float, float, float]]:
    """The `count` highest local maxima of `heat`, at least `min_distance_px` apart: (x, y, probability)
    in reduced pixels, highest first."""
    spread = cv2.dilate(heat, np.ones((2 * min_distance_px + 1,) * 2, np.uint8))
    ys, xs = np.nonzero((heat >= spread) & (heat > 0))
    order = np.argsort(-heat[ys, xs], kind="stable")
    found: list[tuple[float, float, float]] = []
    for index in order:
        x, y = int(xs[index]), int(ys[index])
        if all(max(abs(x - fx), abs(y - fy)) > min_distance_px for fx, fy, _ in found):
            found.append((float(x), float(y), float(heat[y, x])))
            if len(found) == count:
                break
    return found


def best_peak_px(reduced_bgr: Sequence[np.ndarray], meteor_rgb: tuple[int, int, int], scale: int,
                 model: str | Path = SHIPPED_MODEL) -> tuple[float, float, float] | None:
    """The heat map's highest peak over three frames reduced `scale` times (`reduce_frame`, oldest first),
    in full-resolution px (the centre of its reduced pixel), with its probability; None when the map has
    no peak."""
    found = best_peaks_px(reduced_bgr, meteor_rgb, scale, 1, model)
    return found[0] if found else None


def best_peaks_px(reduced_bgr: Sequence[np.ndarray], meteor_rgb: tuple[int, int, int], scale: int, count: int,
                  model: str | Path = SHIPPED_MODEL) -> list[tuple[float, float, float]]:
    """The heat map's `count` highest peaks (`peaks`) as `best_peak_px` gives the highest, highest first."""
    found = peaks(heatmap(input_planes(reduced_bgr, meteor_rgb), model), count)
    return [(_full_res_px(x, scale), _full_res_px(y, scale), probability) for x, y, probability in found]


def _full_res_px(reduced_px: float, scale: int) -> float:
    """A reduced pixel coordinate in full-resolution px (a reduced pixel's centre is its block's centre)."""
    return (reduced_px + 0.5) * scale - 0.5


def _peak_centre(heat: np.ndarray, x: int, y: int) -> tuple[float, float]:
    """The heat-weighted centre of the 3×3 pixels round the peak at (x, y): a position finer than a pixel."""
    top, left = max(0, y - 1), max(0, x - 1)
    patch = heat[top : y + 2, left : x + 2]
    ys, xs = np.mgrid[top : top + patch.shape[0], left : left + patch.shape[1]]
    total = float(patch.sum())
    return float((patch * xs).sum()) / total, float((patch * ys).sum()) / total


def window_corner(centre: tuple[float, float], side: int, width: int, height: int) -> tuple[int, int]:
    """The top left corner (left, top) of a `side`-pixel square round `centre` in a `width`×`height`
    picture, moved inside it where it would cross an edge."""
    left = int(np.clip(round(centre[0] - side / 2), 0, max(0, width - side)))
    top = int(np.clip(round(centre[1] - side / 2), 0, max(0, height - side)))
    return left, top


def peak_in_window(frames_bgr: Sequence[np.ndarray], centre_px: tuple[float, float],
                   meteor_rgb: tuple[int, int, int], scale: int,
                   model: str | Path = SHIPPED_MODEL) -> tuple[float, float, float] | None:
    """The heat map's highest peak in a `WINDOW_PX`-reduced-pixel window round `centre_px` (full-res px),
    from `FRAMES` full-resolution frames (oldest first), each cut to the window before it is reduced:
    (x, y, probability) in full-resolution px, its centre finer than a reduced pixel; None when the map
    has no peak."""
    height, width = frames_bgr[-1].shape[:2]
    side = WINDOW_PX * scale
    left, top = window_corner(centre_px, side, width, height)
    cuts = [reduce_frame(np.ascontiguousarray(frame[top : top + side, left : left + side]), scale)
            for frame in frames_bgr]
    heat = heatmap(input_planes(cuts, meteor_rgb), model)
    found = peaks(heat, 1)
    if not found:
        return None
    x, y, probability = found[0]
    fine_x, fine_y = _peak_centre(heat, int(x), int(y))
    return left + _full_res_px(fine_x, scale), top + _full_res_px(fine_y, scale), probability
