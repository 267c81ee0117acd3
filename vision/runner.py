"""Run a `LaunchJudge` over a recorded video, frame by frame, with an optional progress bar.

The same streaming judge serves a live camera; this module only feeds it a file's frames,
collects its events and verdicts, and lets a caller see every frame (to draw an annotated
video) through `on_frame`.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.rig import Rig
from vision.video import FrameReader, VideoError, open_capture, video_info

FrameHook = Callable[[int, np.ndarray, Any, list[Any]], None]  # (index, frame, judge, events of this frame)


@dataclass
class EmittedEvent:
    """A judge event and the index of the frame whose processing emitted it.

    `emitted_at` is the frame count (one past the last frame) for events that only
    came out of `finish()` at the end of the video.
    """

    event: Any
    emitted_at: int


@dataclass
class RunResult:
    verdicts: list[Any] = field(default_factory=list)
    events: list[EmittedEvent] = field(default_factory=list)
    frames: int = 0
    fps: float = 0.0
    frame_size: tuple[int, int] = (0, 0)
    calibration: Any = None
    decode_problems: list[str] = field(default_factory=list)  # frames the file declares but could not give

    def verdict_emitted_at(self) -> list[int]:
        """For each verdict, the frame whose processing produced it."""
        return [item.emitted_at for item in self.events if item.event.kind == "verdict"]

    def warning_lines(self) -> list[str]:
        """What the file could not give, then the judge's warnings (`frame N: ...`)."""
        judge = [f"frame {item.event.frame}: {item.event.message}" for item in self.events
                 if item.event.kind == "warning"]
        return [*self.decode_problems, *judge]


def make_judge(rig: Rig, calibration: Any = None, launch_mode: str = "standard", fps: float = 60.0,
               on_decision: Any = None) -> Any:
    from vision.pipeline import JudgeConfig, LaunchJudge

    return LaunchJudge(rig, calibration=calibration, config=JudgeConfig(launch_mode=launch_mode), fps=fps,
                       on_decision=on_decision)


def progress_bar(total: int | None, description: str, enabled: bool | None = None, unit: str = "frame") -> Any:
    """A tqdm bar on standard error, shown only when standard error is a terminal (unless forced)."""
    from tqdm import tqdm

    if enabled is None:
        enabled = sys.stderr.isatty()
    return tqdm(
        total=total or None, desc=description, unit=unit, file=sys.stderr, disable=not enabled, leave=False
    )


def run_judge(
    video: str | Path,
    rig: Rig,
    calibration: Any = None,
    launch_mode: str = "standard",
    progress: bool | None = False,
    on_frame: FrameHook | None = None,
    judge: Any = None,
    capture: Any = None,
    on_decision: Any = None,
) -> RunResult:
    """Judge every frame of `video`; raise `VideoError` if it cannot be opened or decodes no frame.

    Frames the file declares but cannot give are in `decode_problems`; past a damaged stretch the
    judge starts afresh (with the calibration it had), so later launches are judged too.

    `capture`, when given, is an already opened `cv2.VideoCapture` of `video` to read from
    (the benchmark opens it with single-threaded decoding); it is released at the end.
    `on_decision(decision, verdict)` is told each launch's decision inputs (`LaunchJudge.on_decision`).
    A caller's `judge` brings its own hook and config: past a damaged stretch the judge made afresh has
    both (and the calibration it had).
    """
    if judge is not None and on_decision is not None:
        raise ValueError("run_judge: give on_decision to the LaunchJudge passed as judge, not beside it")
    if capture is None:
        capture = open_capture(video)
    try:
        info = video_info(capture)
        if judge is None:
            judge = make_judge(rig, calibration=calibration, launch_mode=launch_mode, fps=info.fps,
                               on_decision=on_decision)
        result = RunResult(fps=info.fps, frame_size=info.frame_size)
        bar = progress_bar(info.frame_count, Path(str(video)).name, enabled=progress)
        reader = FrameReader(capture, info.frame_count)
        try:
            index = 0
            resumed_at, damaged_until = -1, -1  # a launch starting before `damaged_until` began in the damage
            for number, frame in reader:
                if number != index:  # past a damaged stretch: what was under way is judged as it stands
                    _collect(result, _disputed(judge.finish() or [], f"the video is damaged from frame {index}: "
                                               "the launch's end could not be seen"), index)
                    judge = _afresh(judge, rig, calibration, info.fps)
                    index = resumed_at = number
                    damaged_until = number + int(round(info.fps))
                events = list(judge.process(frame, index) or [])
                if damaged_until >= 0:
                    events = _disputed(events, f"frames before {resumed_at} could not be decoded: the launch's "
                                               "start may not have been seen", starting_before=damaged_until)
                _collect(result, events, index)
                if on_frame is not None:
                    on_frame(index, frame, judge, events)
                index += 1
                bar.update(1)
        finally:
            bar.close()
        result.decode_problems = reader.problems
    finally:
        capture.release()
    if index == 0:
        raise VideoError(f"no frame could be decoded from {video}")
    last = list(judge.finish() or [])
    if damaged_until >= 0:
        last = _disputed(last, f"frames before {resumed_at} could not be decoded: the launch's start may not have "
                               "been seen", starting_before=damaged_until)
    if reader.ended_early:
        last = _disputed(last, f"the video ends early, at frame {index}: the launch's end could not be seen")
    _collect(result, last, index)
    result.frames = index
    result.calibration = getattr(judge, "calibration", None)
    return result


def _afresh(judge: Any, rig: Rig, calibration: Any, fps: float) -> Any:
    """A new judge like `judge` (its config, its decision hook, the calibration it had): the one that
    goes on past a damaged stretch."""
    from vision.pipeline import LaunchJudge

    return LaunchJudge(rig, calibration=judge.calibration or calibration, config=judge.config, fps=fps,
                       on_decision=judge.on_decision)


def judge_verdicts(video: Path, rig: Rig, launch_mode: str) -> tuple[list[Any], list[str]]:
    """The verdicts of every launch in `video` and the warning lines (no progress bar): what
    `meteors-judge eval` scores, and whether a launch it missed was at least warned of."""
    result = run_judge(video, rig, launch_mode=launch_mode, progress=False)
    return result.verdicts, result.warning_lines()


def _disputed(events: list[Any], reason: str, starting_before: int | None = None) -> list[Any]:
    """The events with their verdicts disputed for `reason` (only launches starting before a frame, if given)."""
    out = []
    for event in events:
        verdict = getattr(event, "verdict", None)
        if verdict is not None and (starting_before is None or verdict.start_frame < starting_before):
            verdict = verdict.with_dispute(reason)
            event = dataclasses.replace(event, verdict=verdict)  # a JudgeEvent
        out.append(event)
    return out


def _collect(result: RunResult, events: list[Any], emitted_at: int) -> None:
    for event in events:
        result.events.append(EmittedEvent(event, emitted_at))
        if event.kind == "verdict" and event.verdict is not None:
            result.verdicts.append(event.verdict)
