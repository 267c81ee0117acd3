"""Score the judge against labelled clips (`meteors-launch-truth/1`, shared/spec/launch-truth.md).

`discover` finds the labelled clips of a folder (any `*.json` that validates, with its video
beside it; everything else is reported and skipped), `score_clip` compares the judge's
verdicts on one clip with its label, and `summarize` turns the per-clip scores into the
figures of issue 5: accuracies, rest and release errors, the disputed rate and the
confident wrong calls.

Verdicts are taken as plain mappings (or anything with `model_dump()`, such as
`vision.verdict.Verdict`), so this module depends only on the verdict's field names,
which are the label format's names.
"""

from __future__ import annotations

import hashlib
import json
import math
import multiprocessing
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.rig import Rig
from calibration.truth import LabelError, LaunchTruth, load_label

HERD_MARGIN_MM = 10.0  # herd-line accuracy is also reported for releases farther than this from the line


@dataclass(frozen=True)
class LabelledClip:
    """A valid label and the video it describes."""

    label_path: Path
    video_path: Path
    truth: LaunchTruth

    @property
    def name(self) -> str:
        return self.label_path.name


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


def discover(folder: str | Path) -> tuple[list[LabelledClip], list[Skipped]]:
    """The labelled clips of `folder` (sorted by label name) and the `*.json` files skipped, with why."""
    folder = Path(folder)
    clips: list[LabelledClip] = []
    skipped: list[Skipped] = []
    for label_path in sorted(folder.glob("*.json")):
        try:
            truth = load_label(label_path)
        except LabelError as error:
            if _is_other_json(label_path):
                skipped.append(Skipped(label_path, "not a launch label (no video, scene or release)"))
            else:
                skipped.append(Skipped(label_path, f"not a valid meteors-launch-truth/1 label: {error}"))
            continue
        video_path = label_path.parent / truth.video
        if not video_path.is_file():
            skipped.append(Skipped(label_path, f"its video {truth.video!r} is not beside it"))
            continue
        clips.append(LabelledClip(label_path, video_path, truth))
    return clips, skipped


def _is_other_json(path: Path) -> bool:
    """A JSON file that does not even try to be a label (an index of clips, a rig, a calibration)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return not isinstance(data, dict) or not {"video", "scene", "release"} & set(data)


def as_dict(verdict: Any) -> dict[str, Any]:
    """A verdict as a plain dict (a pydantic model is dumped in JSON mode)."""
    if hasattr(verdict, "model_dump"):
        return verdict.model_dump(mode="json")
    return dict(verdict)


def match_launch(truth: LaunchTruth, verdicts: Sequence[Mapping[str, Any]]) -> int | None:
    """Index of the verdict whose launch spans the labelled one best (None if there are none): the
    least frames between their releases plus, when the label has a rest, between their rests (a verdict
    without a rest ends at the frame it was decided in). A phantom judged at rest before the real
    landing is then the extra launch, not the one scored.

    A verdict without a release frame is a last resort, taken only when no verdict has one.
    """
    if not verdicts:
        return None

    def distance(index: int) -> float:
        verdict = verdicts[index]
        frame = (verdict.get("release") or {}).get("frame")
        if frame is None:
            return math.inf
        frames = abs(frame - truth.release.frame)
        end = (verdict.get("rest") or {}).get("frame", verdict.get("verdict_frame"))
        if truth.rest is not None and end is not None:
            frames += abs(end - truth.rest.frame)
        return frames

    return min(range(len(verdicts)), key=distance)


@dataclass
class ClipScore:
    """How the judge did on one labelled clip."""

    clip: str
    video: str
    truth: dict[str, Any]
    judged: dict[str, Any] | None  # the matched verdict's decisions; None when no launch was found
    launches_found: int
    outcome_ok: bool
    valid_ok: bool
    bounces_ok: bool
    herd_ok: bool
    herd_distance_mm: float  # |labelled signed distance of the release from the herd line|
    rest_error_mm: float | None
    release_error_mm: float | None
    disputed: bool
    dispute_reasons: list[str] = field(default_factory=list)
    # seconds of video from the labelled rest to the frame the verdict was decided in (None: no rest or
    # no verdict); a live camera adds the analysis's own time, which `meteors-judge bench` measures
    verdict_delay_s: float | None = None
    wrong: list[str] = field(default_factory=list)  # why the call is wrong (empty when right)
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    warnings: list[str] = field(default_factory=list)  # the judge's warning lines for the clip (`analyze --json`)
    # the matched verdict's measurements (`vision.evidence.LaunchEvidence`) and the doubt model's
    # probability that its ruling is right (None until a model is fitted): a doubt model is fitted
    # from these rows and their `truth` without judging the clips again
    evidence: dict[str, Any] | None = None
    ruling_probability: float | None = None

    @property
    def is_wrong(self) -> bool:
        return bool(self.wrong)

    @property
    def ruling_ok(self) -> bool:
        """The ruling: the outcome (with the dinosaur) and valid/void."""
        return self.outcome_ok and self.valid_ok

    @property
    def confident_wrong(self) -> bool:
        """A wrong ruling (outcome incl. dinosaur, or valid/void) that the judge did not mark disputed.

        A wrong bounce count with the right ruling is no wrong call: it is counted on its own
        (`bounce_count_accuracy`, `bounce_wrong_undisputed`)."""
        return not self.ruling_ok and not self.disputed

    @property
    def bounce_wrong_undisputed(self) -> bool:
        return not self.bounces_ok and not self.disputed

    def to_json(self) -> dict[str, Any]:
        row = asdict(self)
        row["confident_wrong"] = self.confident_wrong
        row["bounce_wrong_undisputed"] = self.bounce_wrong_undisputed
        return row


def _truth_summary(truth: LaunchTruth) -> dict[str, Any]:
    return {
        "outcome": truth.outcome,
        "dinosaur": truth.dinosaur,
        "valid": truth.valid,
        "region": truth.region,
        "bounces_before_box": truth.bounces_before_box,
        "herd_line_ok": truth.herd_line_ok,
        "herd_line_signed_mm": truth.release.herd_line_signed_mm,
        "release_frame": truth.release.frame,
        "rest_frame": truth.rest.frame if truth.rest else None,
        "entered_box_frame": truth.entered_box_frame,
        "launch_mode": truth.launch_mode,
    }


def _judged_summary(verdict: Mapping[str, Any]) -> dict[str, Any]:
    release = verdict.get("release") or {}
    rest = verdict.get("rest") or {}
    return {
        "outcome": verdict.get("outcome"),
        "dinosaur": verdict.get("dinosaur"),
        "valid": verdict.get("valid"),
        "region": verdict.get("region"),
        "bounces_before_box": verdict.get("bounces_before_box"),
        "herd_line_ok": verdict.get("herd_line_ok"),
        "herd_line_signed_mm": release.get("herd_line_signed_mm"),
        "release_frame": release.get("frame"),
        "rest_frame": rest.get("frame"),
    }


def _distance(a: Any, b: Any) -> float | None:
    if a is None or b is None:
        return None
    return float(np.hypot(float(a[0]) - float(b[0]), float(a[1]) - float(b[1])))


def _outcome_text(outcome: Any, dinosaur: Any) -> str:
    return f"{outcome} ({dinosaur})" if outcome == "dinosaur" else str(outcome)


def score_clip(
    truth: LaunchTruth,
    verdicts: Iterable[Any],
    clip: str = "",
    video: str = "",
    error: str | None = None,
    warnings: Iterable[str] = (),
) -> ClipScore:
    """Compare the judge's verdicts on one clip with its label (and keep the judge's `warnings`).

    The verdict matched to the labelled launch is the one whose release and rest lie nearest its own
    (`match_launch`).
    A clip where no launch was found (or the judge failed, `error`) is wrong on every count
    and, having no verdict to be disputed, a confident wrong call.
    """
    found = [as_dict(verdict) for verdict in verdicts]
    herd_distance = abs(truth.release.herd_line_signed_mm)
    base = {
        "clip": clip,
        "video": video or truth.video,
        "truth": _truth_summary(truth),
        "launches_found": len(found),
        "herd_distance_mm": herd_distance,
        "error": error,
        "warnings": list(warnings),
    }
    index = match_launch(truth, found)
    if index is None:
        why = f"judge failed: {error}" if error else "no launch found"
        return ClipScore(
            **base,
            judged=None,
            outcome_ok=False,
            valid_ok=False,
            bounces_ok=False,
            herd_ok=False,
            rest_error_mm=None,
            release_error_mm=None,
            disputed=False,
            wrong=[why],
        )

    verdict = found[index]
    outcome_ok = verdict.get("outcome") == truth.outcome and (
        truth.outcome != "dinosaur" or verdict.get("dinosaur") == truth.dinosaur
    )
    valid_ok = verdict.get("valid") == truth.valid
    bounces_ok = verdict.get("bounces_before_box") == truth.bounces_before_box
    herd_ok = verdict.get("herd_line_ok") == truth.herd_line_ok

    wrong: list[str] = []
    if not outcome_ok:
        wrong.append(
            f"outcome {_outcome_text(verdict.get('outcome'), verdict.get('dinosaur'))}, "
            f"label {_outcome_text(truth.outcome, truth.dinosaur)}"
        )
    if not valid_ok:
        wrong.append(f"valid {verdict.get('valid')}, label {truth.valid}")
    if not bounces_ok:
        wrong.append(f"bounces before box {verdict.get('bounces_before_box')}, label {truth.bounces_before_box}")
    if not herd_ok:
        judged_mm = (verdict.get("release") or {}).get("herd_line_signed_mm")
        judged_text = "?" if judged_mm is None else f"{judged_mm:+.1f}"
        wrong.append(
            f"herd line ok {verdict.get('herd_line_ok')} ({judged_text} mm), "
            f"label {truth.herd_line_ok} ({truth.release.herd_line_signed_mm:+.1f} mm)"
        )

    notes: list[str] = []
    if len(found) > 1:
        notes.append(f"{len(found)} launches found, 1 labelled")
    release = verdict.get("release") or {}
    rest = verdict.get("rest") or {}
    release_error = _distance(release.get("table_mm"), truth.release.table_mm)
    if release_error is None:
        notes.append("no release point")
    rest_error = None
    verdict_delay = None
    if truth.rest is not None and verdict.get("verdict_frame") is not None:
        verdict_delay = (int(verdict["verdict_frame"]) - truth.rest.frame) / truth.fps
    if truth.rest is None:
        if rest:
            notes.append("rest reported, but the label says the meteor left the view")
    else:
        rest_error = _distance(rest.get("table_mm"), truth.rest.table_mm)
        if rest_error is None:
            notes.append("no rest point")

    return ClipScore(
        **base,
        judged=_judged_summary(verdict),
        outcome_ok=outcome_ok,
        valid_ok=valid_ok,
        bounces_ok=bounces_ok,
        herd_ok=herd_ok,
        rest_error_mm=rest_error,
        release_error_mm=release_error,
        disputed=bool(verdict.get("disputed")),
        dispute_reasons=list(verdict.get("dispute_reasons") or []),
        verdict_delay_s=verdict_delay,
        wrong=wrong,
        notes=notes,
        evidence=verdict.get("evidence"),
        ruling_probability=verdict.get("ruling_probability"),
    )


def _rate(flags: Sequence[bool]) -> float | None:
    return (sum(flags) / len(flags)) if flags else None


def _percentile(values: Sequence[float], q: float) -> float | None:
    return float(np.percentile(np.asarray(values, dtype=float), q)) if values else None


def summarize(scores: Sequence[ClipScore], skipped: Sequence[Skipped] = ()) -> dict[str, Any]:
    """The figures of issue 5 over all scored clips (rates are fractions; None when undefined)."""
    beyond = [score for score in scores if score.herd_distance_mm > HERD_MARGIN_MM]
    entering = [score for score in scores if score.truth.get("entered_box_frame") is not None]
    rest_errors = [score.rest_error_mm for score in scores if score.rest_error_mm is not None]
    release_errors = [score.release_error_mm for score in scores if score.release_error_mm is not None]
    delays = [score.verdict_delay_s for score in scores if score.verdict_delay_s is not None]
    return {
        "clips": len(scores),
        "skipped": len(skipped),
        "outcome_accuracy": _rate([s.outcome_ok for s in scores]),
        "valid_accuracy": _rate([s.valid_ok for s in scores]),
        "bounce_count_accuracy": _rate([s.bounces_ok for s in scores]),
        "bounce_count_accuracy_entering_box": _rate([s.bounces_ok for s in entering]),
        "bounce_count_clips_entering_box": len(entering),
        "bounce_wrong_undisputed": sum(s.bounce_wrong_undisputed for s in scores),
        "herd_line_accuracy": _rate([s.herd_ok for s in scores]),
        "herd_line_accuracy_beyond_10mm": _rate([s.herd_ok for s in beyond]),
        "herd_line_clips_beyond_10mm": len(beyond),
        "rest_error_median_mm": _percentile(rest_errors, 50),
        "rest_error_p95_mm": _percentile(rest_errors, 95),
        "rest_error_clips": len(rest_errors),
        "release_error_median_mm": _percentile(release_errors, 50),
        "release_error_p95_mm": _percentile(release_errors, 95),
        "release_error_clips": len(release_errors),
        "verdict_delay_median_s": _percentile(delays, 50),
        "verdict_delay_p95_s": _percentile(delays, 95),
        "verdict_delay_max_s": max(delays) if delays else None,
        "verdict_delay_clips": len(delays),
        "disputed_rate": _rate([s.disputed for s in scores]),
        "wrong_calls": sum(s.is_wrong for s in scores),
        "confident_wrong_calls": sum(s.confident_wrong for s in scores),
        "missed_launches": sum(s.judged is None for s in scores),
        # a launch missed in silence: no verdict, no judge error, and no warning a referee would see
        "missed_launches_silent": sum(s.judged is None and s.error is None and not s.warnings for s in scores),
        "clips_with_extra_launches": sum(s.launches_found > 1 for s in scores),
    }


# -- running the judge over a folder ---------------------------------------------------------

JudgeClip = Callable[[Path, Rig, str], tuple[list[Any], list[str]]]  # (video, rig, launch_mode) -> verdicts, warnings
Judged = tuple[list[dict[str, Any]], list[str], str | None]  # (verdicts as plain dicts, warnings, error or None)


def evaluate(
    clips: Sequence[LabelledClip],
    judge_clip: JudgeClip,
    on_clip: Callable[[ClipScore], None] | None = None,
    workers: int = 1,
) -> list[ClipScore]:
    """Judge every clip with `judge_clip`, given only its video, the rig of its label's scene and
    its launch mode, and score the verdicts (in the order of `clips`). A judge that raises on a clip,
    or whose process dies on it, scores as a missed launch with the error.

    With `workers` > 1 the clips are judged in that many processes (`judge_clip` must then be a
    module-level function, which a process can import); `on_clip` is called as each clip is done."""
    scores: list[ClipScore | None] = [None] * len(clips)

    def done(index: int, judged: Judged) -> None:
        clip = clips[index]
        verdicts, warnings, error = judged
        score = score_clip(clip.truth, verdicts, clip=clip.name, video=clip.truth.video, error=error,
                           warnings=warnings)
        scores[index] = score
        if on_clip is not None:
            on_clip(score)

    if workers <= 1:
        for index, clip in enumerate(clips):
            done(index, _judge_one(judge_clip, clip))
    else:
        _judge_in_processes(clips, judge_clip, workers, done)
    return [score for score in scores if score is not None]


def _judge_one(judge_clip: JudgeClip, clip: LabelledClip) -> Judged:
    """One clip's verdicts (as dicts) and warnings, or the error the judge raised on it."""
    try:
        verdicts, warnings = judge_clip(clip.video_path, clip.truth.scene, clip.truth.launch_mode)
    except Exception as exc:  # noqa: BLE001 - one failing clip must not stop the evaluation
        return [], [], f"{type(exc).__name__}: {exc}"
    return [as_dict(verdict) for verdict in verdicts], list(warnings), None


def one_thread_each() -> None:
    """Each worker decodes and judges on one thread: `workers` processes share the cores, not fight for them."""
    import cv2

    cv2.setNumThreads(1)


def map_clips(function: Callable[[Path], Any], paths: Sequence[Path], workers: int = 1) -> Iterator[Any]:
    """`function` of each path in order, in `workers` fresh processes of one thread each (one: here)."""
    if workers <= 1:
        yield from map(function, paths)
        return
    context = multiprocessing.get_context("spawn")  # no fork of a parent whose OpenCV/FFmpeg threads run
    with ProcessPoolExecutor(workers, mp_context=context, initializer=one_thread_each) as pool:
        yield from pool.map(function, paths)


def _judge_in_processes(
    clips: Sequence[LabelledClip], judge_clip: JudgeClip, workers: int, done: Callable[[int, Judged], None]
) -> None:
    """Judge `clips` in `workers` fresh processes, at most one clip per process at a time.

    A process that dies (a crash in native code, the kernel's OOM killer) breaks its pool; the
    clips it was judging are then judged again one at a time in a process of their own, so the
    one that kills its process is found and scored with the error, and the others still count."""
    context = multiprocessing.get_context("spawn")  # no fork of a parent whose OpenCV/FFmpeg threads run
    waiting = deque(range(len(clips)))
    suspects: deque[int] = deque()  # being judged when a pool broke: judged again, each alone
    while waiting or suspects:
        queue, size = (deque([suspects.popleft()]), 1) if suspects else (waiting, workers)
        pool = ProcessPoolExecutor(size, mp_context=context, initializer=one_thread_each)
        running: dict[Future[Judged], int] = {}
        try:
            while queue or running:
                while queue and len(running) < size:
                    index = queue.popleft()
                    running[pool.submit(_judge_one, judge_clip, clips[index])] = index
                finished, _ = wait(running, return_when=FIRST_COMPLETED)
                broken = False
                for future in finished:
                    index = running.pop(future)
                    try:
                        judged = future.result()
                    except BrokenProcessPool:
                        if size > 1:
                            suspects.append(index)
                            broken = True
                            continue
                        judged = [], [], "the judge's process died on this clip (a crash in native code, or memory)"
                    done(index, judged)
                if broken:  # the pool is gone: every clip it was judging is judged again, alone
                    suspects.extend(running.values())
                    running.clear()
                    break
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


# -- the report ------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:6.2f} %"


def _mm(value: float | None) -> str:
    return "n/a" if value is None else f"{value:6.2f} mm"


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f} s"


def format_report(metrics: Mapping[str, Any], scores: Sequence[ClipScore], skipped: Sequence[Skipped]) -> str:
    """The human-readable table of `meteors-judge eval`."""
    n = metrics["clips"]
    rows = [
        ("clips judged", f"{n}"),
        ("outcome accuracy", _pct(metrics["outcome_accuracy"])),
        ("valid/void accuracy", _pct(metrics["valid_accuracy"])),
        ("bounce count exact", _pct(metrics["bounce_count_accuracy"])),
        (
            "bounce count exact, entered box",
            f"{_pct(metrics['bounce_count_accuracy_entering_box'])}"
            f"  ({metrics['bounce_count_clips_entering_box']} clips)",
        ),
        ("bounce count wrong, not disputed", f"{metrics['bounce_wrong_undisputed']}"),
        ("herd-line accuracy", _pct(metrics["herd_line_accuracy"])),
        (
            f"herd-line accuracy > {HERD_MARGIN_MM:g} mm",
            f"{_pct(metrics['herd_line_accuracy_beyond_10mm'])}  ({metrics['herd_line_clips_beyond_10mm']} clips)",
        ),
        (
            "rest error median / p95",
            f"{_mm(metrics['rest_error_median_mm'])} / {_mm(metrics['rest_error_p95_mm'])}"
            f"  ({metrics['rest_error_clips']} clips)",
        ),
        (
            "release error median / p95",
            f"{_mm(metrics['release_error_median_mm'])} / {_mm(metrics['release_error_p95_mm'])}"
            f"  ({metrics['release_error_clips']} clips)",
        ),
        (
            "verdict after the rest (video)",
            f"{_seconds(metrics['verdict_delay_median_s'])} median / {_seconds(metrics['verdict_delay_p95_s'])} p95"
            f" / {_seconds(metrics['verdict_delay_max_s'])} max  ({metrics['verdict_delay_clips']} clips;"
            " the analysis's own time comes on top: `meteors-judge bench`)",
        ),
        ("disputed rate", _pct(metrics["disputed_rate"])),
        ("wrong calls", f"{metrics['wrong_calls']}"),
        ("confident wrong calls", f"{metrics['confident_wrong_calls']}"),
        ("launches missed", f"{metrics['missed_launches']}  ({metrics['missed_launches_silent']} with no warning)"),
        ("clips with extra launches", f"{metrics['clips_with_extra_launches']}"),
    ]
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {value}" for label, value in rows]

    wrong = [score for score in scores if score.is_wrong]
    if wrong:
        lines += ["", "wrong calls:"]
        for score in wrong:
            tag = "disputed " if score.disputed else ("CONFIDENT" if score.confident_wrong else "ruling ok")
            why = "; ".join(score.wrong)
            if score.disputed and score.dispute_reasons:
                why += f"  [disputed: {'; '.join(score.dispute_reasons)}]"
            elif score.judged is None and score.warnings:
                why += f"  [warned: {'; '.join(score.warnings)}]"
            lines.append(f"  {tag}  {score.clip}: {why}")
    if skipped:
        lines += ["", f"skipped {len(skipped)} file(s):"]
        lines += [f"  {item.path.name}: {_shorten(item.reason)}" for item in skipped]
    return "\n".join(lines)


def _shorten(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def code_fingerprints() -> dict[str, str]:
    """What judges a verdict, as two hashes: the watching (`vision.track_cache.tracking_fingerprint`) and the
    modules that only decide (`deciding_fingerprint_of`). Two evaluations with the same pair judged with the
    same code. (Kept here, with the scoring, so that the watching's own fingerprint does not change with it.)"""
    from vision.track_cache import tracking_fingerprint

    return {"tracking": tracking_fingerprint(), "deciding": deciding_fingerprint_of(Path(__file__).parent)}


def deciding_fingerprint_of(package: Path) -> str:
    """A hash of the modules of `package` that only decide (`vision.track_cache.DECISION_FILES`), which the
    watching's fingerprint leaves out."""
    from vision.track_cache import DECISION_FILES

    digest = hashlib.sha256()
    for path in sorted(Path(package).glob("*")):
        if path.name in DECISION_FILES:
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()
