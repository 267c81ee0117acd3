"""Fitting the likeness model (`vision.likeness`) on labelled clips: `meteors-judge train-likeness`.

Each clip is judged as `eval` judges it (the rig from its label, the calibration from its markers),
with candidates ranked the old way, so that what is collected does not depend on a model already
shipped. In every frame where the label fixes the meteor (`calibration.truth_path`: its free flight
to the last table bounce before the box, and its rest), the whole-frame search's candidates are
described (`MeteorDetector.likeness_features`), and a candidate is the meteor when its centre lies
within `NEAR_DIAMETERS` of the meteor's apparent diameter from the label's.

Clips are split into fitting and held-out ones by a hash of their names; on the held-out ones the
report gives the ranking's AUC and how often the best-ranked candidate of a frame is the meteor,
beside the rule the model replaces (the largest blob, weighted by how much of it moved).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from calibration.truth import LaunchTruth, load_label
from calibration.truth_path import centres_px, held_frames, known_centres_mm
from vision.doubt_fit import choose_l2, fit_logistic, is_held_out, standardize
from vision.likeness import FEATURE_NAMES, LikenessModel

NEAR_DIAMETERS = 1.5  # a candidate this near the true centre (in apparent diameters) is the meteor
REST_EVERY = 3  # frames at rest are alike: every third is enough


@dataclass
class Examples:
    """Candidates of many frames: their features, whether each is the meteor, its clip and frame, and
    whether a hand held the meteor in that frame (known only from a label's `meteor_track`)."""

    features: np.ndarray = field(default_factory=lambda: np.zeros((0, len(FEATURE_NAMES))))
    is_meteor: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    clip: list[str] = field(default_factory=list)
    frame: list[int] = field(default_factory=list)
    held: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))

    @classmethod
    def joined(cls, parts: Iterable[Examples]) -> Examples:
        """The examples of all `parts`, in their order (one concatenation, not one per part)."""
        parts = list(parts)
        if not parts:
            return cls()
        return cls(np.vstack([part.features for part in parts]), np.concatenate([part.is_meteor for part in parts]),
                   [clip for part in parts for clip in part.clip], [frame for part in parts for frame in part.frame],
                   np.concatenate([part.held for part in parts]))

    def subset(self, keep: np.ndarray) -> Examples:
        index = np.flatnonzero(keep)
        return Examples(self.features[index], self.is_meteor[index], [self.clip[i] for i in index],
                        [self.frame[i] for i in index], self.held[index])


def clip_examples(label_path: str | Path) -> Examples:
    """The candidates of one labelled clip's frames where its label fixes the meteor."""
    from vision.pipeline import JudgeConfig, LaunchJudge
    from vision.video import read_frames

    label_path = Path(label_path)
    truth = load_label(label_path)
    truths = centres_px(truth, known_centres_mm(truth, REST_EVERY))
    held = held_frames(truth)
    config = JudgeConfig(launch_mode=truth.launch_mode, use_likeness=False)
    judge = LaunchJudge(truth.scene, config=config, fps=truth.fps)
    rows: list[np.ndarray] = []
    near: list[bool] = []
    frames: list[int] = []
    for index, frame in read_frames(label_path.parent / truth.video):
        judge.process(frame, index)
        detector = judge.detector
        if index not in truths or detector is None or detector.background is None or judge.calibration is None:
            continue
        found = detector.candidates(detector.reduce(frame))
        if not found:
            continue
        x, y, diameter = truths[index]
        rows.append(detector.likeness_features(found, judge.meteor_disc_area_px()))
        near += [math.hypot(cx - x, cy - y) <= NEAR_DIAMETERS * max(diameter, 1.0) for cx, cy, *_rest in found]
        frames += [index] * len(found)
    features = np.vstack(rows) if rows else np.zeros((0, len(FEATURE_NAMES)))
    in_hand = np.array([frame in held for frame in frames], bool)
    return Examples(features, np.array(near, bool), [label_path.name] * len(near), frames, in_hand)


def collect(label_paths: Sequence[Path], workers: int = 1, on_clip: Callable[[], None] | None = None) -> Examples:
    """The examples of every clip, judged in `workers` processes."""
    from vision.evaluate import map_clips

    def each(found: Iterable[Examples]) -> Iterator[Examples]:
        for examples in found:
            if on_clip is not None:
                on_clip()
            yield examples

    return Examples.joined(each(map_clips(clip_examples, label_paths, workers)))


def fit(examples: Examples, about: dict[str, Any] | None = None) -> LikenessModel:
    """A logistic regression of `is_meteor` on the features, its L2 strength chosen by cross-validation."""
    x, y = examples.features, examples.is_meteor.astype(float)
    if len(y) < 20 or y.min() == y.max():
        raise ValueError(f"{len(y)} candidates, {int(y.sum())} of them the meteor: too few of each to fit a model "
                         "(give more clips)")
    l2 = choose_l2(x, y)
    mean, scale = standardize(x)
    coef, intercept = fit_logistic((x - mean) / scale, y, l2)
    return LikenessModel(mean, scale, coef, intercept,
                         {**(about or {}), "candidates": len(y), "meteor_candidates": int(y.sum()), "l2": l2})


def _auc(score: np.ndarray, positive: np.ndarray) -> float | None:
    """The probability that a random meteor candidate outranks a random other one."""
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if not n_pos or not n_neg:
        return None
    ranks = np.empty(len(score))
    ranks[np.argsort(score, kind="stable")] = np.arange(1, len(score) + 1)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def old_rule_scores(features: np.ndarray) -> np.ndarray:
    """The rule the model replaces: the blob's area weighted by how much of it moved, area·(0.3 + moving)."""
    names = list(FEATURE_NAMES)
    return np.exp(features[:, names.index("log_size")]) * (0.3 + features[:, names.index("moving")])


def ranking_report(model: LikenessModel, examples: Examples) -> dict[str, Any]:
    """On held-out examples: the AUC, and in the frames where the meteor is a candidate, how often the
    best-ranked candidate is it, by the model and by the old rule."""
    scores = model.probabilities(examples.features)
    old = old_rule_scores(examples.features)
    by_frame: dict[tuple[str, int], list[int]] = {}
    for i, key in enumerate(zip(examples.clip, examples.frame, strict=True)):
        by_frame.setdefault(key, []).append(i)
    frames = model_top = old_top = 0
    for rows in by_frame.values():
        index = np.array(rows)
        if not examples.is_meteor[index].any():
            continue
        frames += 1
        model_top += bool(examples.is_meteor[index[np.argmax(scores[index])]])
        old_top += bool(examples.is_meteor[index[np.argmax(old[index])]])
    return {
        "held_out_candidates": len(scores),
        "held_out_meteor_candidates": int(examples.is_meteor.sum()),
        "auc": _auc(scores, examples.is_meteor),
        "frames_with_the_meteor_a_candidate": frames,
        "best_ranked_is_the_meteor": model_top / frames if frames else None,
        "old_rule_best_is_the_meteor": old_top / frames if frames else None,
    }


def train(examples: Examples, held_out_fraction: float) -> tuple[LikenessModel, dict[str, Any]]:
    """The model fitted on the clips not held out, and its report on those held out."""
    held = np.array([is_held_out(clip, held_out_fraction) for clip in examples.clip], bool)
    model = fit(examples.subset(~held), {"held_out_fraction": held_out_fraction})
    report = ranking_report(model, examples.subset(held)) if held.any() else {}
    model.about.update(report)
    return model, report


def label_paths(
    folders: Sequence[str | Path], limit: int | None = None, keep: Callable[[LaunchTruth], bool] | None = None
) -> list[Path]:
    """The labels of the folders (sorted), at most `limit` of them from each, and of those only the ones
    whose label `keep` accepts."""
    from vision.evaluate import discover

    paths: list[Path] = []
    for folder in folders:
        clips, _skipped = discover(folder)
        paths += [clip.label_path for clip in clips[:limit] if keep is None or keep(clip.truth)]
    return paths
