"""Fitting the heat-map detector (`vision.heatmap`) on labelled clips: `meteors-judge train-heatmap`.

Needs labels with `meteor_track` (`samples generate --track-meteor`: the meteor's centre in every
frame, held or free) and the optional `train` extra (PyTorch to fit, ONNX to write the model; the
judge runs the file with OpenCV alone).

From each clip: every frame from 20 before the release to 24 after it (the hold, the release, the
first flight: where the colour test loses the meteor) and every eighth frame after that, each with
the two frames before it, reduced as the detector reduces them. Each frame gives two 64×64 windows
of the reduced picture, one holding the meteor at a random place and one anywhere; the target is a
Gaussian of one reduced pixel round the meteor's centre. Half the epochs are fitted on those; then the
half-fitted network is run over the whole reduced frames of the fitting clips, and each of its highest
peaks off the meteor (up to `HARD_PER_FRAME` a frame: a hand, a marker, a card, the meteor's trace)
gives one more window holding it; the other half of the epochs is fitted on both kinds. The random
windows alone rarely hold what the meteor is confused with.

Clips are split into fitting and held-out ones by a hash of their names; on the held-out ones the
report gives, per phase of the meteor (in the hand, flying before the box, in the box and after),
through the ONNX file written and through the shipped model: how often the highest peak of the whole
reduced frame, and one of the five highest, lies on the meteor (within `NEAR_DIAMETERS` apparent
diameters); and how often, as the judge runs the network (a window round a prediction near the
meteor, `window_sighting`), it gives a sighting on the meteor and one elsewhere. The window
figures are the ones a new model has to beat to be worth shipping: the judge uses no other.
"""

from __future__ import annotations

import math
import shutil
import tempfile
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
    window_corner,
)
from vision.likeness_fit import NEAR_DIAMETERS
from vision.pipeline import JudgeConfig
from vision.track_check import MIN_DIAMETER_PX, phase_of

EDGE_PX = 8  # a window's meteor lies at least this far inside it
TARGET_SIGMA_PX = 1.0
BEFORE_RELEASE, AFTER_RELEASE = 20, 24  # every frame of this stretch round the release is used ...
# ... and every eighth frame after it (the box, the rest); not the hold's earlier frames, where the
# meteor is often hidden in the fist: as targets they teach the network that a hand is the meteor
OTHER_EVERY = 8
POSITIVE_WEIGHT = 30.0  # the meteor's few pixels against a window's thousands
BATCH = 64
HARD_PER_FRAME = 2  # windows round the half-fitted network's highest peaks off the meteor, a frame
PREDICTION_OFF_DIAMETERS = 2.0  # the held-out check's predictions lie this near the meteor
JUDGE_DEFAULTS = JudgeConfig()  # the heat map's probability floor and reach, as the judge runs it


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


def clip_windows(clip: ClipFrames, rng: np.random.Generator, model: Path | None = None) -> Windows:
    """Windows of the clip's frames to learn from. Without a `model`: two a frame, one anywhere and one
    holding the meteor at a random place. With one (an ONNX file): one round each of that network's
    highest whole-frame peaks off the meteor, up to `HARD_PER_FRAME` a frame (its hard negatives)."""
    planes_list, centres = [], []
    for frame, centre in clip.centres.items():
        planes = clip.planes(frame)
        height, width = planes.shape[1:]
        if height < WINDOW_PX or width < WINDOW_PX:
            continue
        if model is None:
            corners = [(int(rng.integers(0, width - WINDOW_PX + 1)), int(rng.integers(0, height - WINDOW_PX + 1)))]
            held = [centre[:2]] if 0 <= centre[0] < width and 0 <= centre[1] < height else []
        else:
            corners, held = [], _peaks_off_meteor(planes, centre, model)[:HARD_PER_FRAME]
        corners += [_corner_holding(point, width, height, rng) for point in held]
        for left, top in corners:
            window = planes[:, top : top + WINDOW_PX, left : left + WINDOW_PX]
            planes_list.append(np.rint(window * 255.0).astype(np.uint8))
            centres.append((centre[0] - left, centre[1] - top))
    if not planes_list:
        return Windows.none()
    return Windows(np.stack(planes_list), np.asarray(centres, np.float64))


def _corner_holding(point: tuple[float, float], width: int, height: int, rng: np.random.Generator) -> tuple[int, int]:
    """The top left corner of a window holding `point` (reduced px) at a random place, `EDGE_PX` inside."""
    left = int(np.clip(point[0] - rng.integers(EDGE_PX, WINDOW_PX - EDGE_PX), 0, width - WINDOW_PX))
    top = int(np.clip(point[1] - rng.integers(EDGE_PX, WINDOW_PX - EDGE_PX), 0, height - WINDOW_PX))
    return left, top


def _on_meteor(point: tuple[float, float], centre: tuple[float, float, float]) -> bool:
    """Whether a peak at `point` lies on the meteor at `centre` (x, y, diameter; reduced px)."""
    reach = NEAR_DIAMETERS * max(centre[2], MIN_DIAMETER_PX / 2)
    return math.hypot(point[0] - centre[0], point[1] - centre[1]) <= reach


def _peaks_off_meteor(planes: np.ndarray, centre: tuple[float, float, float], model: Path) -> list[tuple[float, float]]:
    """The network's five highest whole-frame peaks that are not on the meteor, highest first."""
    return [(x, y) for x, y, _ in peaks(heatmap(planes, model), 5) if not _on_meteor((x, y), centre)]


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


class Fit:
    """The network being fitted by Adam on a weighted cross-entropy, epoch after epoch, on one set of
    windows or several in turn (the same seed gives the same network)."""

    def __init__(self, seed: int = 0) -> None:
        torch = _torch()
        torch.manual_seed(seed)
        self.model = network()
        self.optimizer = torch.optim.Adam(self.model.parameters(), 2e-3)
        self.loss_of = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(POSITIVE_WEIGHT))
        self.generator = torch.Generator().manual_seed(seed)
        self.epochs_done = 0

    def run(self, windows: Windows, epochs: int, on_epoch: Callable[[int, float], None] | None = None) -> None:
        """Fit `epochs` passes over `windows`; `on_epoch(epoch, mean loss)` after each."""
        torch = _torch()
        self.model.train()
        count = len(windows.planes)
        for _ in range(epochs):
            order = torch.randperm(count, generator=self.generator).numpy()
            total = 0.0
            for start in range(0, count, BATCH):
                batch = np.sort(order[start : start + BATCH])
                x = torch.from_numpy(windows.planes[batch].astype(np.float32) / np.float32(255.0))
                y = torch.from_numpy(targets_for(windows.centres[batch]))
                self.optimizer.zero_grad()
                loss = self.loss_of(self.model(x), y)
                loss.backward()
                self.optimizer.step()
                total += float(loss.detach()) * len(batch)
            if on_epoch is not None:
                on_epoch(self.epochs_done, total / count)
            self.epochs_done += 1
        self.model.eval()


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


def held_out_reports(label_paths: Sequence[Path], models: dict[str, Path],
                     on_clip: Callable[[], None] | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """For each named model, per phase, over the frames to learn from of the clips at `label_paths` (each
    read once): how often the whole reduced frame's highest peak, and one of its five highest, lies on
    the meteor; and, as the judge uses the network (`window_sighting`), how often a window round a
    prediction near the meteor gives a sighting on it, and one elsewhere."""
    counts: Counter = Counter()
    rng = np.random.default_rng(0)  # the same predictions for every model
    for path in label_paths:
        clip = collect_clip(path)
        for frame, centre in clip.centres.items():
            phase, planes = clip.phases[frame], clip.planes(frame)
            counts[phase, "frames"] += 1
            prediction = _prediction_near(centre, planes.shape[1:], rng)
            counts[phase, "window_calls"] += prediction is not None
            for name, model in models.items():
                on = [_on_meteor((x, y), centre) for x, y, _ in peaks(heatmap(planes, model), 5)]
                counts[name, phase, "first"] += bool(on) and on[0]
                counts[name, phase, "five"] += any(on)
                sighting = None if prediction is None else window_sighting(planes, prediction, centre[2], model)
                if sighting is not None:
                    counts[name, phase, "window_on" if _on_meteor(sighting, centre) else "window_elsewhere"] += 1
        if on_clip is not None:
            on_clip()
    reports: dict[str, dict[str, dict[str, float]]] = {name: {} for name in models}
    for phase in ("held", "flight", "after"):
        frames, calls = counts[phase, "frames"], max(1, counts[phase, "window_calls"])
        for name in models if frames else ():
            reports[name][phase] = {"frames": frames, "first_on_meteor": counts[name, phase, "first"] / frames,
                                    "five_on_meteor": counts[name, phase, "five"] / frames,
                                    "window_sighting_on_meteor": counts[name, phase, "window_on"] / calls,
                                    "window_sighting_elsewhere": counts[name, phase, "window_elsewhere"] / calls}
    return reports


def _prediction_near(centre: tuple[float, float, float], shape: tuple[int, int],
                     rng: np.random.Generator) -> tuple[float, float] | None:
    """A tracker's prediction for a meteor at `centre` (reduced px): uniformly within
    `PREDICTION_OFF_DIAMETERS` diameters of it; None when the meteor is out of the picture."""
    x, y, diameter = centre
    if not (0 <= x < shape[1] and 0 <= y < shape[0]):
        return None
    off, angle = PREDICTION_OFF_DIAMETERS * diameter * math.sqrt(rng.random()), 2 * math.pi * rng.random()
    return x + off * math.cos(angle), y + off * math.sin(angle)


def window_sighting(planes: np.ndarray, prediction: tuple[float, float], diameter: float,
                    model: Path) -> tuple[float, float] | None:
    """Where the judge would see the meteor from the network's peak in a `WINDOW_PX` window round
    `prediction` (reduced px, whole input `planes`; `LaunchJudge._heat_near` with `JudgeConfig`'s
    defaults): the peak, when it is likely enough and near enough the prediction; else None."""
    config = JUDGE_DEFAULTS
    height, width = planes.shape[1:]
    left, top = window_corner(prediction, WINDOW_PX, width, height)
    found = peaks(heatmap(planes[:, top : top + WINDOW_PX, left : left + WINDOW_PX], model), 1)
    if not found or found[0][2] < config.heatmap_min_probability:
        return None
    peak = (left + found[0][0], top + found[0][1])
    if math.dist(peak, prediction) > config.heatmap_reach_diameters * diameter:
        return None
    return peak


def train(label_paths: Sequence[Path], out: Path, epochs: int, held_out: float,
          on_clip: Callable[[str], None] | None = None,
          on_epoch: Callable[[int, float], None] | None = None) -> dict[str, Any]:
    """Collect windows from the clips not held out, fit half the epochs, add the hard windows of those
    clips (`clip_windows` with the half-fitted network), fit the rest, write the model to `out`, and
    report on the held-out clips through the file written, beside the shipped model's figures on the
    same clips. `on_clip(stage)` follows each clip read: "reading clips", "finding hard windows",
    "checking held-out clips"."""
    _torch()
    rng = np.random.default_rng(0)
    fitting = [path for path in label_paths if not is_held_out(Path(path).stem, held_out)]
    checking = [path for path in label_paths if is_held_out(Path(path).stem, held_out)]
    if not fitting:
        raise ValueError("every clip is held out: none is left to fit on")

    def clip_read(stage: str) -> None:
        if on_clip is not None:
            on_clip(stage)

    def windows_of(stage: str, model: Path | None = None) -> Windows:
        parts = []
        for path in fitting:
            parts.append(clip_windows(collect_clip(path), rng, model))
            clip_read(stage)
        return joined(parts)

    windows = windows_of("reading clips")
    if not len(windows.planes):
        raise ValueError("no frame to learn from: the clips are smaller than a training window")
    fit, first_epochs = Fit(), max(1, epochs // 2)
    fit.run(windows, first_epochs, on_epoch)
    report: dict[str, Any] = {"fitted_clips": len(fitting), "windows": len(windows.planes), "epochs": epochs,
                              "held_out_clips": len(checking)}
    with tempfile.TemporaryDirectory() as scratch:
        if epochs > first_epochs:
            half_fitted = Path(scratch) / "half_fitted.onnx"
            export(fit.model, half_fitted)
            hard = windows_of("finding hard windows", half_fitted)
            report["hard_windows"] = len(hard.planes)
            fit.run(joined([windows, hard]), epochs - first_epochs, on_epoch)
        models = {"held_out": Path(scratch) / "fitted.onnx"}
        export(fit.model, models["held_out"])
        if SHIPPED_MODEL.is_file():  # the figures to beat (`out`, which may replace it, is written after)
            models["held_out_shipped_model"] = SHIPPED_MODEL
        if checking:
            report |= held_out_reports(checking, models, lambda: clip_read("checking held-out clips"))
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(models["held_out"], out)
    return report
