"""How fast the judge runs on one core, against the bare decode of the same clip.

One run measures, in this order: the decode alone (every frame read with `cv2.VideoCapture`,
nothing else; twice, the faster run kept), then decode plus judge (the same frames, read the same way, each given to
a `LaunchJudge`). Both use one thread: `cv2.setNumThreads(1)` and a single FFmpeg decoding
thread. Peak memory is the process's peak resident set size (`resource.getrusage`
`ru_maxrss`), read after each phase, so it includes Python, NumPy, OpenCV and the decoder.
The judge's modules are imported before its clock starts: importing is the program's start-up,
paid once, not a cost per frame (a live camera judges for hours after it).
"""

from __future__ import annotations

import resource
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from calibration.rig import Rig
from calibration.truth import LaunchTruth
from vision.runner import run_judge
from vision.video import VideoError

DECODE_RUNS = 2  # the decode alone is timed twice and the faster run kept (a warm file cache, as for the judge)


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


def import_judge_modules() -> None:
    """Import what the judge imports lazily: the pipeline and its analysis, NumPy's masked arrays
    (`np.median` imports them on first use) and the progress bar's multiprocessing lock (made on
    the first bar). Start-up, paid once, not per frame."""
    import numpy.ma  # noqa: F401
    import tqdm

    import vision.pipeline  # noqa: F401

    tqdm.tqdm.get_lock()


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far, in MB (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def time_decode(video: str | Path) -> tuple[int, float, float]:
    """Frames decoded, wall seconds and CPU seconds to decode every frame of `video`, doing nothing else."""
    capture = open_single_threaded(video)
    frames = 0
    try:
        start, start_cpu = time.perf_counter(), time.process_time()
        while True:
            ok, _ = capture.read()
            if not ok:
                break
            frames += 1
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu
    finally:
        capture.release()
    if frames == 0:
        raise VideoError(f"no frame could be decoded from {video}")
    return frames, seconds, cpu_seconds


@dataclass
class BenchResult:
    video: str
    frame_size: tuple[int, int]
    video_fps: float
    frames: int
    decode_seconds: float  # best of DECODE_RUNS
    judge_seconds: float  # decode + judge
    decode_cpu_seconds: float
    judge_cpu_seconds: float
    decode_fps: float
    judge_fps: float
    ratio: float  # (decode + judge time) / decode time, wall clock
    cpu_ratio: float  # the same in CPU time of this process (steadier on a busy machine)
    peak_rss_after_decode_mb: float
    peak_rss_mb: float
    threads: int
    launches: int
    calibrated_at_frame: int | None = None  # the judge's "calibrated" event (None: never, or given --cal)
    calibration_seconds: float | None = None  # wall time of decode + judge up to and including that frame
    verdict_emitted_frame: int | None = None
    label_rest_frame: int | None = None
    latency_frames: int | None = None
    latency_seconds: float | None = None
    # wall time to decode and judge the frame that emitted the verdict (the launch's analysis runs in
    # it): on a live camera the verdict comes this much later than `latency_seconds` of video says
    verdict_frame_seconds: float | None = None
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
    runs = [time_decode(video) for _ in range(DECODE_RUNS)]
    frames = runs[0][0]
    decode_seconds = min(run[1] for run in runs)
    decode_cpu_seconds = min(run[2] for run in runs)
    rss_after_decode = peak_rss_mb()

    calibrated: list[tuple[int, float]] = []  # (frame, wall seconds since start) when calibration came
    frame_done: list[float] = []  # wall seconds since start when each frame was decoded and judged

    def note_frame(index: int, _frame: Any, _judge: Any, events: list[Any]) -> None:
        frame_done.append(time.perf_counter() - start)
        if not calibrated and any(event.kind == "calibrated" for event in events):
            calibrated.append((index, frame_done[-1]))

    import_judge_modules()
    capture = open_single_threaded(video)
    start, start_cpu = time.perf_counter(), time.process_time()
    result = run_judge(
        video, rig, calibration=calibration, launch_mode=launch_mode, capture=capture, on_frame=note_frame
    )
    judge_seconds, judge_cpu_seconds = time.perf_counter() - start, time.process_time() - start_cpu

    bench = BenchResult(
        video=str(video),
        frame_size=result.frame_size,
        video_fps=result.fps,
        frames=result.frames,
        decode_seconds=decode_seconds,
        judge_seconds=judge_seconds,
        decode_cpu_seconds=decode_cpu_seconds,
        judge_cpu_seconds=judge_cpu_seconds,
        decode_fps=frames / decode_seconds,
        judge_fps=result.frames / judge_seconds,
        ratio=judge_seconds / decode_seconds,
        cpu_ratio=judge_cpu_seconds / max(decode_cpu_seconds, 1e-9),
        peak_rss_after_decode_mb=rss_after_decode,
        peak_rss_mb=peak_rss_mb(),
        threads=cv2.getNumThreads(),
        launches=len(result.verdicts),
    )
    if calibrated:
        bench.calibrated_at_frame, bench.calibration_seconds = calibrated[0]
    if truth is not None and truth.rest is not None:
        bench.label_rest_frame = truth.rest.frame
        emitted = _verdict_for_label(result, truth)
        if emitted is not None:
            bench.verdict_emitted_frame = emitted
            bench.latency_frames = emitted - truth.rest.frame
            bench.latency_seconds = bench.latency_frames / (result.fps or truth.fps)
            if emitted < len(frame_done):
                bench.verdict_frame_seconds = frame_done[emitted] - (frame_done[emitted - 1] if emitted else 0.0)
    return bench


def _verdict_for_label(result: Any, truth: LaunchTruth) -> int | None:
    """The frame whose processing emitted the verdict matched to the labelled launch."""
    from vision.evaluate import as_dict, match_launch

    verdicts = [as_dict(v) for v in result.verdicts]
    index = match_launch(truth, verdicts)
    if index is None:
        return None
    return result.verdict_emitted_at()[index]


def _calibration_lines(bench: BenchResult) -> list[str]:
    if bench.calibrated_at_frame is None or bench.calibration_seconds is None:
        return []
    rest_frames = bench.frames - bench.calibrated_at_frame - 1
    rest_seconds = bench.judge_seconds - bench.calibration_seconds
    line = (
        f"  of which          {bench.calibration_seconds:7.3f} s until calibrated (frame {bench.calibrated_at_frame})"
    )
    if rest_frames > 0 and rest_seconds > 0:
        line += f"; after it {rest_frames / rest_seconds:.1f} frames/s"
    return [line]


def format_bench(bench: BenchResult) -> str:
    width, height = bench.frame_size
    lines = [
        f"clip                {bench.video}  ({width}×{height}, {bench.video_fps:g} fps, {bench.frames} frames)",
        f"threads             1 (cv2.setNumThreads(1), one FFmpeg decoding thread; getNumThreads={bench.threads});"
        " modules imported before timing",
        f"decode only         {bench.decode_seconds:7.3f} s  {bench.decode_fps:8.1f} frames/s"
        f"  (CPU {bench.decode_cpu_seconds:.3f} s; best of {DECODE_RUNS} runs)",
        f"decode + judge      {bench.judge_seconds:7.3f} s  {bench.judge_fps:8.1f} frames/s"
        f"  (CPU {bench.judge_cpu_seconds:.3f} s)",
        *_calibration_lines(bench),
        f"ratio               {bench.ratio:7.2f} × the bare decode (wall clock); {bench.cpu_ratio:.2f} × in CPU time",
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
            if bench.verdict_frame_seconds is not None and bench.latency_seconds is not None:
                live = bench.latency_seconds + bench.verdict_frame_seconds
                lines.append(
                    f"                    that frame took {bench.verdict_frame_seconds:.3f} s to decode and judge:"
                    f" on a live camera the verdict comes about {live:.3f} s after the rest"
                )
    return "\n".join(lines)
