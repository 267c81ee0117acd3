"""The live runner: one background thread from the camera (or a video looped as a camera) to the page.

It reads frames, feeds them to the `LaunchJudge`, draws the overlay, keeps the latest annotated JPEG
for the MJPEG stream and a ring buffer of recent annotated frames, publishes the judge's events to
the Server-Sent Events hub, hands every verdict to `on_verdict` (which records the launch and
applies it to the game), then saves the launch's clip from one second before release to one second
after rest as numbered JPEG frames. A camera that stops delivering frames is reopened with
exponential back-off, and the status (shown on the page) says so.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.rig import Rig

log = logging.getLogger(__name__)

VerdictHook = Callable[[dict, bytes], int | None]  # (verdict as JSON data, snapshot JPEG) -> launch id
ClipHook = Callable[[int, str, int, float, str | None], None]  # (launch id, clip dir, frames, fps, error)
Publish = Callable[[str, Any], None]


def encode_jpeg(frame: np.ndarray, quality: int = 80) -> bytes:
    ok, data = cv2.imencode(".jpg", frame, [int(cv2.IMWRITE_JPEG_QUALITY), quality])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return data.tobytes()


def placeholder_jpeg(message: str, size: tuple[int, int] = (960, 540)) -> bytes:
    """A dark frame with a message, shown while there is no picture (camera off or reconnecting)."""
    frame = np.full((size[1], size[0], 3), 40, np.uint8)
    cv2.putText(frame, message, (30, size[1] // 2), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (220, 220, 220), 2, cv2.LINE_AA)
    return encode_jpeg(frame)


@dataclass
class PendingClip:
    launch_id: int | None
    start: int
    end: int
    generation: int
    marks: dict | None = None  # the judge's marks in pixels (see `web.replay.marks_px`)


@dataclass
class LiveStatus:
    source: str = ""
    connected: bool = False
    state: str = "off"
    message: str = "camera off"
    judge: bool = False
    fps: float = 0.0
    frame: int = 0
    loops: int = 0
    reconnect_in: float | None = None
    calibration: dict | None = None
    warnings: list[str] = field(default_factory=list)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class LiveRunner:
    def __init__(
        self,
        source: str | int,
        rig: Rig,
        calibration: Any = None,
        clips_dir: str | Path = "clips",
        publish: Publish | None = None,
        on_verdict: VerdictHook | None = None,
        on_clip: ClipHook | None = None,
        launch_mode: Callable[[], str] | None = None,
        loop: bool = False,
        realtime: bool = True,
        ring_seconds: float = 20.0,
        jpeg_quality: int = 75,
        max_backoff: float = 30.0,
        loop_pause: float = 0.0,
    ):
        self.source = source
        self.rig = rig
        self.calibration = calibration
        self.clips_dir = Path(clips_dir)
        self.publish = publish or (lambda kind, data: None)
        self.on_verdict = on_verdict
        self.on_clip = on_clip
        self.launch_mode = launch_mode or (lambda: "standard")
        self.loop = loop
        self.realtime = realtime
        self.ring_seconds = ring_seconds
        self.jpeg_quality = jpeg_quality
        self.max_backoff = max_backoff
        self.loop_pause = loop_pause
        self.status = LiveStatus(source=str(source))
        self.judge: Any = None
        self.latest_verdict: dict | None = None
        self._latest_jpeg: bytes = placeholder_jpeg("starting the camera...")
        self._latest_raw: np.ndarray | None = None
        self._frame_seq = 0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._restart_judge = threading.Event()
        self._thread: threading.Thread | None = None
        self._ring: deque[tuple[int, bytes]] = deque()
        self._pending: list[PendingClip] = []
        self._generation = 0

    # -- control ------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread and self._thread.is_alive():
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="live-runner", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread:
            self._thread.join(timeout)

    def set_rig(self, rig: Rig, calibration: Any = None) -> None:
        """Use a changed rig (herd line, meteor colour) from the next frame on."""
        self.rig = rig
        if calibration is not None:
            self.calibration = calibration
        self._restart_judge.set()

    # -- what the pages read ----------------------------------------------------------------------
    def latest_jpeg(self) -> tuple[int, bytes]:
        with self._cond:
            return self._frame_seq, self._latest_jpeg

    def wait_frame(self, after: int, timeout: float = 2.0) -> tuple[int, bytes]:
        with self._cond:
            if self._frame_seq <= after and not self._stop.is_set():
                self._cond.wait(timeout)
            return self._frame_seq, self._latest_jpeg

    def latest_raw(self) -> np.ndarray | None:
        with self._cond:
            return None if self._latest_raw is None else self._latest_raw.copy()

    # -- the thread -------------------------------------------------------------------------------
    def _set_status(self, **changes: Any) -> None:
        before = self.status.as_dict()
        for key, value in changes.items():
            setattr(self.status, key, value)
        after = self.status.as_dict()
        interesting = {k for k in after if k not in ("frame", "fps") and after[k] != before[k]}
        if interesting:
            self.publish("status", after)

    def _show(self, jpeg: bytes, raw: np.ndarray | None = None) -> None:
        with self._cond:
            self._latest_jpeg = jpeg
            if raw is not None:
                self._latest_raw = raw
            self._frame_seq += 1
            self._cond.notify_all()

    def _make_judge(self, fps: float) -> Any:
        try:
            from vision.pipeline import JudgeConfig, LaunchJudge
        except ImportError:
            return None
        return LaunchJudge(self.rig, calibration=self.calibration,
                           config=JudgeConfig(launch_mode=self.launch_mode()), fps=fps)

    def _run(self) -> None:
        from vision.video import VideoError, open_capture, video_info

        backoff = 1.0
        while not self._stop.is_set():
            try:
                capture = open_capture(self.source)
            except VideoError as error:
                self._set_status(connected=False, state="disconnected", reconnect_in=backoff,
                                 message=f"{error}; retrying in {backoff:.0f} s")
                self._show(placeholder_jpeg(f"camera lost - retrying in {backoff:.0f} s"))
                if self._stop.wait(backoff):
                    break
                backoff = min(backoff * 2, self.max_backoff)
                continue
            backoff = 1.0
            is_file = isinstance(self.source, str) and "://" not in self.source and not self.source.isdigit()
            info = video_info(capture, live=not is_file)
            try:
                self._judge_capture(capture, info.fps, is_file)
            except Exception as error:  # never let the thread die: say what happened and reopen
                log.exception("live runner failed")
                self._set_status(connected=False, state="error", message=f"judge error: {error}")
            finally:
                capture.release()
            if self._stop.is_set():
                break
            if is_file and not self.loop:
                self._set_status(connected=False, state="ended", message="the video has ended")
                break
            self._set_status(connected=False, state="disconnected", reconnect_in=backoff,
                             message=f"camera stopped sending frames; reopening in {backoff:.0f} s")
            if self._stop.wait(backoff):
                break
            backoff = min(backoff * 2, self.max_backoff)

    def _new_judge(self, fps: float, clear_ring: bool = True) -> None:
        """A fresh judge (same calibration); `clear_ring` when frame numbers start again (a looped video)."""
        if self.judge is not None and getattr(self.judge, "calibration", None) is not None:
            self.calibration = self.judge.calibration
        self.judge = self._make_judge(fps)
        if clear_ring:
            self._generation += 1
            self._ring.clear()
        self._set_status(judge=self.judge is not None,
                         state=getattr(self.judge, "state", "no judge") if self.judge else "no judge")

    def _judge_capture(self, capture: cv2.VideoCapture, fps: float, is_file: bool) -> None:
        self._set_status(connected=True, reconnect_in=None, fps=fps,
                         message="video looped as a live camera" if is_file else "camera connected")
        self._ring = deque(maxlen=max(30, int(fps * self.ring_seconds)))
        self._new_judge(fps)
        index = 0
        started = time.monotonic()
        failures = 0
        while not self._stop.is_set():
            ok, frame = capture.read()
            if not ok:
                if is_file and self.loop and index > 0:
                    self._finish_judge(fps)
                    if self.loop_pause and self._stop.wait(self.loop_pause):
                        return
                    capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
                    self._set_status(loops=self.status.loops + 1)
                    self._new_judge(fps)
                    index, started = 0, time.monotonic()
                    continue
                failures += 1
                if is_file or failures > 10:
                    if is_file:
                        self._finish_judge(fps)
                    return
                time.sleep(0.05)
                continue
            failures = 0
            if self._restart_judge.is_set() and self._judge_idle():
                self._restart_judge.clear()
                self._finish_judge(fps)
                self._new_judge(fps, clear_ring=False)
            self._process(frame, index, fps)
            index += 1
            if is_file and self.realtime:
                delay = started + index / fps - time.monotonic()
                if delay > 0:
                    time.sleep(delay)

    def _judge_idle(self) -> bool:
        """No launch under way and no clip waiting for its last second: a good moment to swap judges."""
        state = getattr(self.judge, "state", "waiting")
        return not self._pending and state not in ("in_hand", "in_flight")

    def _process(self, frame: np.ndarray, index: int, fps: float) -> None:
        events: list[Any] = []
        if self.judge is not None:
            events = list(self.judge.process(frame, index))
        annotated = self._draw(frame)
        jpeg = encode_jpeg(annotated, self.jpeg_quality)
        self._ring.append((index, jpeg))
        self._show(jpeg, frame)
        self.status.frame = index
        self._handle_events(events, jpeg, frame, fps)
        self._flush_clips(index, fps)

    def _draw(self, frame: np.ndarray, verdict: Any = None) -> np.ndarray:
        if self.judge is None:
            out = frame.copy()
            cv2.putText(out, "judge not available", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 200, 255), 2)
            return out
        try:
            from vision.overlay import draw_overlay
        except ImportError:
            return fallback_overlay(frame, self.judge, verdict)
        drawn = draw_overlay(frame.copy(), self.judge, self.rig, getattr(self.judge, "calibration", None),
                             verdict=verdict, show_state=False)
        return drawn if drawn is not None else frame

    def _finish_judge(self, fps: float) -> None:
        if self.judge is None:
            return
        frame = self.latest_raw()
        events = list(self.judge.finish() or [])
        jpeg = self.latest_jpeg()[1]
        self._handle_events(events, jpeg, frame, fps)
        self._flush_clips(None, fps)

    def _handle_events(self, events: list[Any], jpeg: bytes, frame: np.ndarray | None, fps: float) -> None:
        for event in events:
            kind = getattr(event, "kind", "event")
            data = {"kind": kind, "frame": getattr(event, "frame", None), "message": getattr(event, "message", "")}
            if kind == "calibrated" and self.judge is not None:
                self.calibration = getattr(self.judge, "calibration", None)
                self._set_status(calibration=calibration_summary(self.calibration))
            if kind == "state":
                self._set_status(state=getattr(self.judge, "state", data["message"]))
            if kind == "warning":
                self._set_status(warnings=[*self.status.warnings[-4:], data["message"]])
            self.publish("judge", data)
            verdict = getattr(event, "verdict", None)
            if kind == "verdict" and verdict is not None:
                self._on_verdict(verdict, frame, jpeg, fps)
        if self.judge is not None and self.status.state != self.judge.state:
            self._set_status(state=self.judge.state)

    def _on_verdict(self, verdict: Any, frame: np.ndarray | None, jpeg: bytes, fps: float) -> None:
        data = json.loads(verdict.model_dump_json()) if hasattr(verdict, "model_dump_json") else dict(verdict)
        snapshot = jpeg
        if frame is not None:
            try:
                snapshot = encode_jpeg(self._draw(frame, verdict=verdict), 85)
            except Exception:  # the plain annotated frame will do
                log.exception("snapshot overlay failed")
        self.latest_verdict = data
        launch_id = self.on_verdict(data, snapshot) if self.on_verdict else None
        release = (data.get("release") or {}).get("frame")
        rest = (data.get("rest") or {}).get("frame")
        start = (release if release is not None else data.get("start_frame", 0)) - int(round(fps))
        end = (rest if rest is not None else data.get("verdict_frame", 0)) + int(round(fps))
        self._pending.append(PendingClip(launch_id, max(0, start), end, self._generation, self._marks(data)))

    def _marks(self, verdict: dict) -> dict | None:
        """The verdict's marks in pixels, with the calibration the judge used (kept with the clip)."""
        from web.replay import marks_px

        try:
            return marks_px(verdict, getattr(self.judge, "calibration", None) or self.calibration, self.rig)
        except Exception:  # a partial calibration: the replay goes without marks
            log.exception("projecting the verdict's marks failed")
            return None

    def _flush_clips(self, index: int | None, fps: float) -> None:
        """Save every pending clip whose last frame has arrived (all of them when `index` is None)."""
        still: list[PendingClip] = []
        for clip in self._pending:
            if index is not None and index < clip.end and clip.generation == self._generation:
                still.append(clip)
                continue
            frames = [(i, jpeg) for i, jpeg in self._ring if clip.start <= i <= clip.end]
            self._save_clip(clip, frames, fps)
        self._pending = still

    def _save_clip(self, clip: PendingClip, frames: list[tuple[int, bytes]], fps: float) -> None:
        if clip.launch_id is None:
            return
        name = f"launch_{clip.launch_id:05d}"
        folder = self.clips_dir / name
        error = None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for number, (_, jpeg) in enumerate(frames):
                (folder / f"{number:05d}.jpg").write_bytes(jpeg)
            (folder / "clip.json").write_text(json.dumps({
                "fps": fps, "frames": len(frames), "first_frame": frames[0][0] if frames else None,
                "marks": clip.marks}))
        except OSError as error_:
            error = f"cannot save the clip in {folder}: {error_.strerror or error_}"
            log.error(error)
        if self.on_clip:
            self.on_clip(clip.launch_id, name, len(frames), fps, error)


def calibration_summary(calibration: Any) -> dict | None:
    """The calibration figures the pages show, from whatever the calibration object carries."""
    if calibration is None:
        return None
    summary: dict[str, Any] = {}
    for name in ("quality", "markers_seen", "markers_missing", "meteor_rgb", "herd_line_mm"):
        value = getattr(calibration, name, None)
        if hasattr(value, "model_dump"):
            value = value.model_dump(mode="json")
        elif isinstance(value, np.ndarray):
            value = value.tolist()
        elif isinstance(value, set | frozenset | tuple):
            value = list(value)
        summary[name] = value
    return json.loads(json.dumps(summary, default=str))


def fallback_overlay(frame: np.ndarray, judge: Any, verdict: Any = None) -> np.ndarray:
    """The meteor's track, its bounces and the judge's state, when `vision.overlay` is not there."""
    out = frame.copy()
    try:
        track = judge.current_track()
        points = np.asarray(track.px, float).reshape(-1, 2)
        points = points[np.isfinite(points).all(axis=1)].astype(np.int32)
        if len(points) > 1:
            cv2.polylines(out, [points], False, (0, 255, 255), 2, cv2.LINE_AA)
        for index in track.bounce_indices or []:
            if 0 <= index < len(track.px):
                x, y = (int(v) for v in track.px[index])
                cv2.circle(out, (x, y), 9, (0, 0, 255), 2, cv2.LINE_AA)
        if track.release_index is not None and 0 <= track.release_index < len(track.px):
            x, y = (int(v) for v in track.px[track.release_index])
            cv2.drawMarker(out, (x, y), (255, 0, 255), cv2.MARKER_TRIANGLE_UP, 16, 2)
    except Exception:  # an empty or partial track: draw what we can
        pass
    text = f"judge: {getattr(judge, 'state', '?')}"
    if verdict is not None:
        text += f" | verdict: {getattr(verdict, 'outcome', '')} {getattr(verdict, 'dinosaur', '') or ''}"
    cv2.putText(out, text, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 4, cv2.LINE_AA)
    cv2.putText(out, text, (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (255, 255, 255), 2, cv2.LINE_AA)
    return out
