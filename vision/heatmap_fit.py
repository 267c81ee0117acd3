"""Fitting the heat-map detector (`vision.heatmap`) on labelled clips: `meteors-judge train-heatmap`.

Needs labels with `meteor_track` (`samples generate --track-meteor`: the meteor's centre in every
frame, held or free) and the optional `train` extra (PyTorch to fit, ONNX to write the model; the
judge runs the file with OpenCV alone).

From each clip: every frame from 20 before the release to 24 after it (the hold, the release, the
first flight: where the colour test loses the meteor) and every eighth frame after that, each with
the two frames before it, reduced as the detector reduces them. Each frame gives two 64×64 windows
of the reduced picture, one holding the meteor at a random place and one anywhere; the target is a
Gaussian of one reduced pixel round the meteor's centre. Clips are split into fitting and held-out
ones by a hash of their names; on the held-out ones the report gives, per phase of the meteor (in
the hand, flying before the box, in the box and after), how often the highest peak of the whole
reduced frame, and one of the five highest, lies on the meteor (within `NEAR_DIAMETERS` apparent
diameters), measured through the ONNX file written, as the judge would run it, and the same for
the shipped model on the same clips: a new model is worth shipping only if it beats that.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.truth import LaunchTruth, load_label
from calibration.truth_path import centres_px
from vision.doubt_fit import is_held_out
from vision.heatmap import (
    CHANNELS,
    FRAMES,
    SHIPPED_MODEL,
    WINDOW_PX,
    heatmap,
    input_planes,
    peaks,
    reduce_frame,
    reduction_for,
)
from vision.likeness_fit import NEAR_DIAMETERS
from vision.track_check import MIN_DIAMETER_PX, phase_of

EDGE_PX = 8  # a window's meteor lies at least this far inside it
TARGET_SIGMA_PX = 1.0
BEFORE_RELEASE, AFTER_RELEASE = 20, 24  # every frame of this stretch round the release is used ...
# ... and every eighth frame after it (the box, the rest); not the hold's earlier frames, where the
# meteor is often hidden in the fist: as targets they teach the network that a hand is the meteor
OTHER_EVERY = 8
POSITIVE_WEIGHT = 30.0  # the meteor's few pixels against a window's thousands
BATCH = 64


class TrainingUnavailable(RuntimeError):
    """PyTorch or ONNX is not installed (the optional `train` extra)."""


@dataclass
class ClipFrames:
    """What one clip gives the fit: its reduced frames (frame → uint8 BGR) and, in each frame to learn
    from, the meteor's centre and apparent diameter (reduced px) and its phase."""

    name: str
    meteor_rgb: tuple[int, int, int]
    reduced: dict[int, np.ndarray] = field(default_factory=dict)
    centres: dict[int, tuple[float, float, float]] = field(default_factory=dict)
    phases: dict[int, str] = field(default_factory=dict)

    def planes(self, frame: int) -> np.ndarray:
        return input_planes([self.reduced[frame - back] for back in range(FRAMES - 1, -1, -1)], self.meteor_rgb)


def frames_to_learn(label: LaunchTruth) -> list[int]:
    """The frames of a clip the fit learns from (each needs the `FRAMES` - 1 before it)."""
    release = label.release.frame if label.release is not None else label.frame_count // 2
    near = range(max(FRAMES - 1, release - BEFORE_RELEASE), min(label.frame_count, release + AFTER_RELEASE + 1))
    later = range(release + AFTER_RELEASE + OTHER_EVERY, label.frame_count, OTHER_EVERY)
    return [*near, *later]


def collect_clip(label_path: str | Path) -> ClipFrames:
    """Read one labelled clip's frames to learn from (see `ClipFrames`)."""
    from vision.video import read_frames

    label_path = Path(label_path)
    label = load_label(label_path)
    if not label.meteor_track:
        raise ValueError(f"{label_path.name} has no meteor_track (generate with --track-meteor)")
    truths = centres_px(label, {point.frame: point.centre_mm for point in label.meteor_track})
    scale = reduction_for(float(np.median([truth[2] for truth in truths.values()])))
    wanted = frames_to_learn(label)
    needed = {frame - back for frame in wanted for back in range(FRAMES)}
    clip = ClipFrames(label_path.stem, tuple(label.scene.meteor.rgb))
    for index, frame in read_frames(label_path.parent / label.video):
        if index in needed:
            clip.reduced[index] = reduce_frame(frame, scale)
    phases = phase_of(label)
    for frame in wanted:
        if frame in truths and all(frame - back in clip.reduced for back in range(FRAMES)):
            x, y, diameter = truths[frame]
            clip.centres[frame] = ((x + 0.5) / scale - 0.5, (y + 0.5) / scale - 0.5, diameter / scale)
            clip.phases[frame] = phases[frame]
    return clip


def targets_for(centres: np.ndarray) -> np.ndarray:
    """The target heat maps (N×1×64×64) of windows whose meteor centres (N×2, window px; NaN where the
    meteor is not in the picture) are given: a Gaussian of `TARGET_SIGMA_PX` round each."""
    ys, xs = np.mgrid[0:WINDOW_PX, 0:WINDOW_PX].astype(np.float32)
    x = centres[:, 0, None, None].astype(np.float32)
    y = centres[:, 1, None, None].astype(np.float32)
    heat = np.exp(-((xs - x) ** 2 + (ys - y) ** 2) / np.float32(2 * TARGET_SIGMA_PX**2))
    return np.nan_to_num(heat, nan=0.0)[:, None]


@dataclass
class Windows:
    """Training windows: their input planes as bytes (N×`CHANNELS`×64×64, the planes × 255, which the
    frames' and colour's planes are exactly) and the meteor's centre in each (N×2 window px, NaN when
    out of the picture). Bytes, not floats: a thousand clips' windows fit in memory."""

    planes: np.ndarray
    centres: np.ndarray

    @staticmethod
    def none() -> Windows:
        return Windows(np.zeros((0, CHANNELS, WINDOW_PX, WINDOW_PX), np.uint8), np.zeros((0, 2)))


def clip_windows(clip: ClipFrames, rng: np.random.Generator) -> Windows:
    """Two windows a frame of the clip: one anywhere, one holding the meteor at a random place."""
    planes_list, centres = [], []
    for frame, centre in clip.centres.items():
        planes = clip.planes(frame)
        height, width = planes.shape[1:]
        if height < WINDOW_PX or width < WINDOW_PX:
            continue
        corners = [(int(rng.integers(0, width - WINDOW_PX + 1)), int(rng.integers(0, height - WINDOW_PX + 1)))]
        if 0 <= centre[0] < width and 0 <= centre[1] < height:
            left = int(np.clip(centre[0] - rng.integers(EDGE_PX, WINDOW_PX - EDGE_PX), 0, width - WINDOW_PX))
            top = int(np.clip(centre[1] - rng.integers(EDGE_PX, WINDOW_PX - EDGE_PX), 0, height - WINDOW_PX))
            corners.append((left, top))
        for left, top in corners:
            window = planes[:, top : top + WINDOW_PX, left : left + WINDOW_PX]
            planes_list.append(np.rint(window * 255.0).astype(np.uint8))
            centres.append((centre[0] - left, centre[1] - top))
    if not planes_list:
        return Windows.none()
    return Windows(np.stack(planes_list), np.asarray(centres, np.float64))


def joined(parts: Sequence[Windows]) -> Windows:
    if not parts:
        return Windows.none()
    return Windows(np.concatenate([part.planes for part in parts]), np.concatenate([part.centres for part in parts]))


def _torch() -> Any:
    try:
        import onnx  # noqa: F401
        import torch
    except ImportError:
        raise TrainingUnavailable("training the heat map needs PyTorch and ONNX: pip install -e '.[train]'") from None
    return torch


def network() -> Any:
    """The heat map's network: five convolutions, dilated to see a fast meteor's three positions."""
    nn = _torch().nn
    return nn.Sequential(
        nn.Conv2d(CHANNELS, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 16, 3, padding=2, dilation=2), nn.ReLU(),
        nn.Conv2d(16, 24, 3, padding=4, dilation=4), nn.ReLU(),
        nn.Conv2d(24, 16, 3, padding=1), nn.ReLU(),
        nn.Conv2d(16, 1, 1),
    )


def fit(windows: Windows, epochs: int, seed: int = 0, on_epoch: Callable[[int, float], None] | None = None) -> Any:
    """The network fitted to the windows by Adam on a weighted cross-entropy (same seed, same network)."""
    torch = _torch()
    torch.manual_seed(seed)
    model = network()
    optimizer = torch.optim.Adam(model.parameters(), 2e-3)
    loss_of = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(POSITIVE_WEIGHT))
    count = len(windows.planes)
    generator = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order = torch.randperm(count, generator=generator).numpy()
        total = 0.0
        for start in range(0, count, BATCH):
            batch = np.sort(order[start : start + BATCH])
            x = torch.from_numpy(windows.planes[batch].astype(np.float32) / np.float32(255.0))
            y = torch.from_numpy(targets_for(windows.centres[batch]))
            optimizer.zero_grad()
            loss = loss_of(model(x), y)
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        if on_epoch is not None:
            on_epoch(epoch, total / count)
    return model.eval()


def export(model: Any, path: Path) -> None:
    """Write the network as ONNX, any reduced frame size."""
    torch = _torch()
    example = torch.zeros(1, CHANNELS, WINDOW_PX, WINDOW_PX)
    path.parent.mkdir(parents=True, exist_ok=True)
    # the TorchScript exporter: the newer one needs onnxscript, and a fixed five-layer network is all it exports
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, example, str(path), dynamo=False, input_names=["planes"],
                          output_names=["logits"], opset_version=13,
                          dynamic_axes={"planes": {2: "height", 3: "width"}, "logits": {2: "height", 3: "width"}})


def held_out_report(label_paths: Sequence[Path], model: Path) -> dict[str, dict[str, float]]:
    """Per phase, over the frames to learn from of the clips at `label_paths` (read one at a time): how
    often the whole reduced frame's highest peak, and one of its five highest, lies on the meteor."""
    counts: Counter = Counter()
    for path in label_paths:
        clip = collect_clip(path)
        for frame, (x, y, diameter) in clip.centres.items():
            phase = clip.phases[frame]
            found = peaks(heatmap(clip.planes(frame), model), 5)
            reach = NEAR_DIAMETERS * max(diameter, MIN_DIAMETER_PX / 2)
            on = [math.hypot(px - x, py - y) <= reach for px, py, _ in found]
            counts[phase, "frames"] += 1
            counts[phase, "first"] += bool(on) and on[0]
            counts[phase, "five"] += any(on)
    report = {}
    for phase in ("held", "flight", "after"):
        frames = counts[phase, "frames"]
        if frames:
            report[phase] = {"frames": frames, "first_on_meteor": counts[phase, "first"] / frames,
                             "five_on_meteor": counts[phase, "five"] / frames}
    return report


def train(label_paths: Sequence[Path], out: Path, epochs: int, held_out: float,
          on_clip: Callable[[], None] | None = None,
          on_epoch: Callable[[int, float], None] | None = None) -> dict[str, Any]:
    """Collect windows from the clips not held out, fit, write the model to `out`, and report on the
    held-out clips through the file written, beside the shipped model's figures on the same clips."""
    _torch()
    rng = np.random.default_rng(0)
    parts, fitted, checking = [], 0, []
    for path in label_paths:
        if is_held_out(Path(path).stem, held_out):
            checking.append(path)
        else:
            parts.append(clip_windows(collect_clip(path), rng))
            fitted += 1
        if on_clip is not None:
            on_clip()
    windows = joined(parts)
    if not fitted:
        raise ValueError("every clip is held out: none is left to fit on")
    if not len(windows.planes):
        raise ValueError("no frame to learn from: the clips are smaller than a training window")
    # the shipped model on the same held-out clips, read before `out` may replace it: the figure to beat
    shipped = held_out_report(checking, SHIPPED_MODEL) if checking and SHIPPED_MODEL.is_file() else None
    model = fit(windows, epochs, on_epoch=on_epoch)
    export(model, out)
    report: dict[str, Any] = {"fitted_clips": fitted, "windows": len(windows.planes), "epochs": epochs,
                              "held_out_clips": len(checking)}
    if checking:
        report["held_out"] = held_out_report(checking, out)
    if shipped is not None:
        report["held_out_shipped_model"] = shipped
    return report
