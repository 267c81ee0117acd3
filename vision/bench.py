"""How fast the judge runs on one core, against the bare decode of the same clip.

One run measures, in this order: the decode alone (every frame read with `cv2.VideoCapture`,
nothing else), then decode plus judge (the same frames, read the same way, each given to
a `LaunchJudge`). Both use one thread: `cv2.setNumThreads(1)` and a single FFmpeg decoding
thread. Peak memory is the process's peak resident set size (`resource.getrusage`
`ru_maxrss`), read after each phase, so it includes Python, NumPy, OpenCV and the decoder.
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from calibration.rig import Rig
from vision.runner import run_judge
from vision.truth import LaunchTruth
from vision.video import VideoError


def single_threaded() -> None:
    import cv2

    cv2.setNumThreads(1)


def open_single_threaded(video: str | Path) -> Any:
    """A `cv2.VideoCapture` of a file decoding on one thread; `VideoError` if it cannot be opened."""
    import cv2

    path = Path(video)
    if not path.exists():
        raise VideoError(f"video not found: {path}")
    if path.is_dir():
        raise VideoError(f"{path} is a folder, not a video file")
    capture = cv2.VideoCapture(str(path), cv2.CAP_ANY, [cv2.CAP_PROP_N_THREADS, 1])
    if not capture.isOpened():
        raise VideoError(f"cannot open video {path}: OpenCV could not read it")
    return capture


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def time_decode(video: str | Path) -> tuple[int, float]:
    """Frames decoded and seconds taken to decode every frame of `video`, doing nothing else."""
    capture = open_single_threaded(video)
    frames = 0
    try:
        start = time.perf_counter()
        while True:
            ok, _ = capture.read()
            if not ok:
                break
            frames += 1
        seconds = time.perf_counter() - start
    finally:
        capture.release()
    if frames == 0:
        raise VideoError(f"no frame could be decoded from {video}")
    return frames, seconds


@dataclass
class BenchResult:
    video: str
    frame_size: tuple[int, int]
    video_fps: float
    frames: int
    decode_seconds: float
    judge_seconds: float  # decode + judge
    decode_fps: float
    judge_fps: float
    ratio: float  # (decode + judge time) / decode time
    peak_rss_after_decode_mb: float
    peak_rss_mb: float
    threads: int
    launches: int
    verdict_emitted_frame: int | None = None
    label_rest_frame: int | None = None
    latency_frames: int | None = None
    latency_seconds: float | None = None
    memory_measure: str = "ru_maxrss (peak resident set size of the whole process)"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def run_bench(
    video: str | Path,
    rig: Rig,
    calibration: Any = None,
    launch_mode: str = "standard",
    truth: LaunchTruth | None = None,
) -> BenchResult:
    """Time decode alone, then decode + judge, on one thread; with a label, the verdict latency."""
    import cv2

    single_threaded()
    frames, decode_seconds = time_decode(video)
    rss_after_decode = peak_rss_mb()

    capture = open_single_threaded(video)
    start = time.perf_counter()
    result = run_judge(video, rig, calibration=calibration, launch_mode=launch_mode, capture=capture)
    judge_seconds = time.perf_counter() - start

    bench = BenchResult(
        video=str(video),
        frame_size=result.frame_size,
        video_fps=result.fps,
        frames=result.frames,
        decode_seconds=decode_seconds,
        judge_seconds=judge_seconds,
        decode_fps=frames / decode_seconds,
        judge_fps=result.frames / judge_seconds,
        ratio=judge_seconds / decode_seconds,
        peak_rss_after_decode_mb=rss_after_decode,
        peak_rss_mb=peak_rss_mb(),
        threads=cv2.getNumThreads(),
        launches=len(result.verdicts),
    )
    if truth is not None and truth.rest is not None:
        bench.label_rest_frame = truth.rest.frame
        emitted = _verdict_for_label(result, truth)
        if emitted is not None:
            bench.verdict_emitted_frame = emitted
            bench.latency_frames = emitted - truth.rest.frame
            bench.latency_seconds = bench.latency_frames / (result.fps or truth.fps)
    return bench


def _verdict_for_label(result: Any, truth: LaunchTruth) -> int | None:
    """The frame whose processing emitted the verdict matched to the labelled launch."""
    from vision.evaluate import as_dict, match_launch

    verdicts = [as_dict(v) for v in result.verdicts]
    index = match_launch(truth, verdicts)
    if index is None:
        return None
    return result.verdict_emitted_at()[index]


def format_bench(bench: BenchResult) -> str:
    width, height = bench.frame_size
    lines = [
        f"clip                {bench.video}  ({width}×{height}, {bench.video_fps:g} fps, {bench.frames} frames)",
        f"threads             1 (cv2.setNumThreads(1), one FFmpeg decoding thread; getNumThreads={bench.threads})",
        f"decode only         {bench.decode_seconds:7.3f} s  {bench.decode_fps:8.1f} frames/s",
        f"decode + judge      {bench.judge_seconds:7.3f} s  {bench.judge_fps:8.1f} frames/s",
        f"ratio               {bench.ratio:7.2f} × the bare decode",
        f"peak memory         {bench.peak_rss_mb:7.1f} MB  (ru_maxrss: peak RSS of the whole process;"
        f" {bench.peak_rss_after_decode_mb:.1f} MB after the decode-only pass)",
        f"launches judged     {bench.launches}",
    ]
    if bench.label_rest_frame is not None:
        if bench.latency_frames is None:
            lines.append(
                f"verdict latency     no verdict for the labelled launch (rest at frame {bench.label_rest_frame})"
            )
        else:
            at_end = " (at the end of the clip)" if bench.verdict_emitted_frame == bench.frames else ""
            lines.append(
                f"verdict latency     {bench.latency_frames} frames = {bench.latency_seconds:.3f} s of video"
                f" after the labelled rest (frame {bench.label_rest_frame} → verdict emitted while processing"
                f" frame {bench.verdict_emitted_frame}{at_end})"
            )
    return "\n".join(lines)
