"""Tracks kept between evaluations, so that a change to the analysis is measured without the videos.

Watching a clip (decoding it, finding and following the meteor) costs about a hundred times what
deciding its launches from the track does. `meteors-judge eval DIR --tracks CACHE` keeps, per clip,
what the watching gave: the judge's warnings and each launch's `LaunchDecision` (its track, rig,
calibration, config and the stream's own disputes), with the disputes the runner added to the
verdict afterwards. A later eval with the same tracking code decides each launch again with the
analysis code of the day and never opens the video.

Whether the tracking code is the same is told by a fingerprint of every file the stream may run
(code, settings and the learned models): all of `vision/` and `calibration/` except the modules
that only decide (`DECISION_FILES`) or only score (`EVALUATION_FILES`). A clip's kept tracks are
used only for the same video (its size and modification time), rig and launch mode; anything else,
or a file that cannot be read back, is watched again and kept anew.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from calibration.rig import Rig
from vision.decision import LaunchDecision
from vision.runner import run_judge
from vision.verdict import Verdict

FORMAT = "meteors-tracks/2"
# what reading back a file kept by other code, or not kept at all, can raise
UNREADABLE = (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError, TypeError, ValueError)
# modules only the decision runs: changing them is what a kept track lets one measure cheaply
DECISION_FILES = frozenset({
    "analysis.py", "decision.py", "doubt.py", "doubt_model.json", "evidence.py", "flight.py", "kinks.py",
    "release.py", "verdict.py",
})
# modules that score, train or draw, never judge
EVALUATION_FILES = frozenset({
    "bench.py", "doubt_fit.py", "evaluate.py", "heatmap_fit.py", "likeness_fit.py", "overlay.py", "reliability.py",
    "scene_kinds.py", "track_check.py",
})


@dataclass(frozen=True)
class ClipKey:
    """What a clip's kept tracks hold good for."""

    tracking: str  # `tracking_fingerprint()` when they were made
    video_size: int
    video_mtime_ns: int
    rig_json: str
    launch_mode: str


@dataclass(frozen=True)
class KeptTracks:
    """One clip's watching: each launch's decision inputs (with the disputes the runner added after it) and
    the warnings."""

    launches: tuple[LaunchDecision, ...]
    warnings: tuple[str, ...]


@functools.cache
def tracking_fingerprint() -> str:
    """A hash of every file of `vision/` and `calibration/` that the watching may run (code and models)."""
    import calibration

    return fingerprint_of([Path(__file__).parent, Path(calibration.__file__).parent])


def fingerprint_of(packages: Sequence[Path]) -> str:
    """A hash of the code (.py), settings (.json) and learned models (.onnx) under `packages`, but for
    the modules that only decide or only score."""
    digest = hashlib.sha256(FORMAT.encode())
    for package in packages:
        for path in sorted(package.rglob("*")):
            if path.suffix not in (".py", ".json", ".onnx") or path.name in DECISION_FILES | EVALUATION_FILES:
                continue
            digest.update(str(path.relative_to(package.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def clip_key(video: Path, rig: Rig, launch_mode: str) -> ClipKey:
    stat = Path(video).stat()
    return ClipKey(tracking_fingerprint(), stat.st_size, stat.st_mtime_ns, rig.model_dump_json(), launch_mode)


def kept_path(cache: Path, video: Path) -> Path:
    """Where `video`'s tracks are kept: named for the video, with a hash of its full path (two folders'
    clip_000.mp4 do not share a file)."""
    where = hashlib.sha256(str(Path(video).resolve()).encode()).hexdigest()[:10]
    return Path(cache) / f"{Path(video).stem}-{where}.tracks"


def is_kept(cache: Path, video: Path, rig: Rig, launch_mode: str) -> bool:
    """Whether `video` has tracks kept in `cache` that still hold good (only the file's key is read)."""
    try:
        with kept_path(cache, video).open("rb") as file:
            return pickle.load(file) == clip_key(video, rig, launch_mode)
    except UNREADABLE:
        return False


def judge_verdicts_kept(cache: Path, video: Path, rig: Rig, launch_mode: str) -> tuple[list[Verdict], list[str]]:
    """As `vision.runner.judge_verdicts`, deciding from the tracks kept in `cache` where they hold good,
    else watching the video and keeping its tracks there."""
    path, key = kept_path(cache, video), clip_key(video, rig, launch_mode)
    kept = _read(path, key)
    if kept is None:
        kept = watch(video, rig, launch_mode)
        _write(path, key, kept)
    return [decision.decide()[0] for decision in kept.launches], list(kept.warnings)


def watch(video: Path, rig: Rig, launch_mode: str) -> KeptTracks:
    """Judge `video`, keeping each launch's decision inputs as they were when it was decided."""
    decided: list[tuple[bytes, Verdict]] = []

    def keep(decision: LaunchDecision, verdict: Verdict) -> None:
        # pickled at once: the calibration object goes on changing with the stream
        decided.append((pickle.dumps(decision, protocol=pickle.HIGHEST_PROTOCOL), verdict))

    result = run_judge(video, rig, launch_mode=launch_mode, progress=False, on_decision=keep)
    if len(decided) != len(result.verdicts):
        raise RuntimeError(f"{video}: {len(result.verdicts)} verdicts from {len(decided)} decisions")
    launches = []
    for (decision, own), final in zip(decided, result.verdicts, strict=True):
        kept: LaunchDecision = pickle.loads(decision)
        added = tuple(final.dispute_reasons[len(own.dispute_reasons):])  # the runner's, after the decision
        launches.append(replace(kept, disputes=kept.disputes + added))
    return KeptTracks(tuple(launches), tuple(result.warning_lines()))


def _read(path: Path, key: ClipKey) -> KeptTracks | None:
    """The tracks kept at `path` if they were kept for `key` and can be read back with today's code."""
    try:
        with path.open("rb") as file:
            if pickle.load(file) != key:
                return None
            kept = pickle.load(file)
    except UNREADABLE:
        return None
    return kept if isinstance(kept, KeptTracks) else None


def _write(path: Path, key: ClipKey, kept: KeptTracks) -> None:
    """Write the key, then the tracks (so the key alone can be read), through a temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    with partial.open("wb") as file:
        pickle.dump(key, file, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(kept, file, protocol=pickle.HIGHEST_PROTOCOL)
    partial.replace(path)
