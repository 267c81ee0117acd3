"""Test support: the judge run on a labelled clip as `meteors-judge eval` runs it, what it hands to
`judge_launch` for each launch, a calibration whose herd line makes a clip's release legal, and
flight impacts made to order."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest

import vision.decision as decision
import vision.detector as detector
import vision.pipeline as pipeline
from calibration.camera import CameraModel
from calibration.truth import load_label
from vision.backtrack import BacktrackSettings
from vision.flight import FlightImpact
from vision.landing import herd_line_signed, herd_normal
from vision.runner import RunResult, run_judge


@contextmanager
def hue_test_only() -> Iterator[None]:
    """The detector without its table-hue test (`vision.detector.TableHue`), as it was when a clip was
    chosen to show a mechanism that the table-hue test now spares it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(detector, "TABLE_HUE", detector.TableHue(table_deg=0.0))
        yield


@contextmanager
def without_heatmap() -> Iterator[None]:
    """The judge without the learned detector's sightings (`vision.heatmap`), as it was when a clip was
    chosen to show a mechanism that the heat map now spares it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(pipeline, "peak_in_window", lambda *_args, **_kwargs: None)
        patch.setattr(pipeline, "best_peaks_px", lambda *_args, **_kwargs: [])
        yield


def judge_labelled(video: Path, label, **options) -> RunResult:
    """`run_judge` on `video` given what eval gives it: the rig of its label's scene and its launch mode."""
    return run_judge(video, label.scene, launch_mode=label.launch_mode, **options)


NARROW_LABEL = Path(__file__).resolve().parents[1] / "narrow_clips" / "clip_000.json"


def narrow_empty_frame() -> np.ndarray:
    """A black frame of the narrow clip_000's size, for decisions that read the track, not the picture."""
    width, height = load_label(NARROW_LABEL).frame_size
    return np.zeros((height, width, 3), np.uint8)


def narrow_judge() -> pipeline.LaunchJudge:
    """A judge given the narrow clip_000's true calibration (taken on a first empty frame), at 60 fps."""
    label = load_label(NARROW_LABEL)
    judge = pipeline.LaunchJudge(label.scene, calibration=pipeline.calibration_from_label(label),
                                 config=pipeline.JudgeConfig(), fps=60.0)
    judge.process(narrow_empty_frame(), 0)
    return judge


def first_frames(source: Path, out: Path, frames: int) -> Path:
    """The first `frames` frames of the video `source`, written again as MJPEG AVI: a recording stopped early."""
    capture = cv2.VideoCapture(str(source))
    fps = capture.get(cv2.CAP_PROP_FPS)
    writer = None
    for _ in range(frames):
        ok, frame = capture.read()
        assert ok, f"{source} has fewer than {frames} frames"
        if writer is None:
            height, width = frame.shape[:2]
            writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"MJPG"), fps, (width, height))
        writer.write(frame)
    capture.release()
    writer.release()
    return out


def judge_without_walk_back(label) -> pipeline.LaunchJudge:
    """A judge for `label`'s clip that keeps no frames, so never walks a flight back (`vision.backtrack`):
    for the decisions on a track whose gaps stay unseen."""
    config = pipeline.JudgeConfig(launch_mode=label.launch_mode, backtrack=BacktrackSettings(seconds=0.0))
    return pipeline.LaunchJudge(label.scene, config=config, fps=label.fps)


def judge_stopping_at_the_first_touch(label) -> pipeline.LaunchJudge:
    """A judge for `label`'s clip whose walk back ends at the first sighting touching the hand, as it did
    before a hand following the meteor through was walked past (`BacktrackSettings.touches_to_stop`)."""
    config = pipeline.JudgeConfig(launch_mode=label.launch_mode, backtrack=BacktrackSettings(touches_to_stop=1))
    return pipeline.LaunchJudge(label.scene, config=config, fps=label.fps)


def judge_launch_inputs(video: Path, label, **options) -> list[tuple]:
    """Run the judge on `video` with its label's scene and launch mode (`options` as `run_judge`'s); every
    `judge_launch` call's arguments (track, rig, calibration, config, frame_index), in order."""
    calls = []
    original = decision.judge_launch

    def capture(*arguments):
        calls.append(arguments)
        return original(*arguments)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decision, "judge_launch", capture)
        judge_labelled(video, label, **options)
    return calls


def camera_looking_at(centre_mm, target_mm) -> CameraModel:
    """A 1280×720 camera at `centre_mm` looking at `target_mm` (table mm), with mild distortion."""
    centre = np.asarray(centre_mm, dtype=np.float64)
    forward = np.asarray(target_mm, dtype=np.float64) - centre
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rotation = np.vstack([right, down, forward])
    return CameraModel(
        K=((1000.0, 0.0, 640.0), (0.0, 1000.0, 360.0), (0.0, 0.0, 1.0)),
        dist=(0.02, -0.01, 0.0, 0.0, 0.0),
        rvec=tuple(float(v) for v in cv2.Rodrigues(rotation)[0].ravel()),
        tvec=tuple(float(v) for v in -rotation @ centre),
    )


def herd_line_behind_the_release(calibration, rig, release_xy, behind_mm: float):
    """`calibration` with its herd line moved so the labelled release lies `behind_mm` behind it: a
    legal release, so that the bounce count decides the call."""
    line = np.asarray(calibration.herd_line_mm or rig.herd_line_mm, dtype=np.float64)
    now_mm = herd_line_signed(rig, calibration.box_pose, np.asarray(release_xy), line)
    moved = line + (now_mm - behind_mm) * herd_normal(rig, calibration.box_pose, line)
    return calibration.model_copy(update={"herd_line_mm": tuple(map(tuple, moved))})


def flight_impact(frame, surface="table", bounce=True, reasons=(), before_box=True, fps=60.0) -> FlightImpact:
    """An impact at `frame` on `surface`, doubtful when it has `reasons`, for tests of the count's rules."""
    return FlightImpact(frame / fps, frame, np.zeros(3), (0.0, 0.0), surface, -1.0, 0.6, 0.05, 100.0, bounce,
                        doubtful=bool(reasons), before_box=before_box, reasons=list(reasons))


def scene_for_another_box(scene):
    """`scene` with its box's markers under other ids: a rig file for another game box, on which no
    frame of the clip calibrates."""
    markers = [marker.model_copy(update={"id": marker.id + 40}) for marker in scene.box.markers]
    return scene.model_copy(update={"box": scene.box.model_copy(update={"markers": markers})})
