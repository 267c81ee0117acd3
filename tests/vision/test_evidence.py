"""The verdict carries the judge's measurements (`vision.evidence`), as numbers that agree with its calls."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import pytest
from launch_inputs import judge_labelled

from calibration.truth import load_label
from vision.doubt import shipped_model
from vision.evidence import LaunchEvidence
from vision.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
CLIPS = [ROOT / "tests" / "narrow_clips" / "clip_000.mp4", ROOT / "sample_videos" / "clip_008.mp4"]


@pytest.fixture(scope="module", params=CLIPS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def judged(request) -> tuple[Path, Verdict]:
    video = request.param
    verdicts = judge_labelled(video, load_label(video.with_suffix(".json"))).verdicts
    assert len(verdicts) == 1
    return video, verdicts[0]


def test_the_evidence_agrees_with_the_verdict_it_explains(judged):
    video, verdict = judged
    evidence = verdict.evidence
    assert evidence is not None
    capture = cv2.VideoCapture(str(video))
    fps, width = capture.get(cv2.CAP_PROP_FPS), int(capture.get(cv2.CAP_PROP_FRAME_WIDTH))
    capture.release()
    assert evidence.fps == pytest.approx(fps) and evidence.frame_width_px == width
    assert evidence.herd_line_known and evidence.herd_signed_mm == verdict.release.herd_line_signed_mm
    assert evidence.herd_margin_mm == verdict.margins["herd_line"].margin_mm
    assert evidence.bounces_counted == verdict.bounces_before_box
    assert evidence.bounce_count_min <= verdict.bounces_before_box <= evidence.bounce_count_max
    assert {bounce.frame for bounce in verdict.bounces} <= {bounce.frame for bounce in evidence.bounces}
    assert evidence.entered_box == (verdict.entered_box_frame is not None)
    assert evidence.rest_found == (verdict.rest is not None)
    if verdict.rest is not None:
        assert evidence.region_margin_mm == verdict.margins["region"].margin_mm
        assert evidence.rest_sightings > 0
    assert 0 < evidence.seen_fraction + evidence.partial_fraction <= 1
    assert evidence.px_per_mm > 0 and evidence.meteor_diameter_px > 0
    assert evidence.always_disputed <= verdict.disputed  # a reason that always disputes does dispute
    assert (verdict.ruling_probability is None) == (shipped_model() is None)  # filled by a shipped model


def test_the_evidence_is_plain_json_and_reads_back(judged):
    _, verdict = judged
    text = json.dumps(verdict.model_dump(mode="json")["evidence"], allow_nan=False)  # no NaN or inf
    assert LaunchEvidence.model_validate_json(text) == verdict.evidence
    assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict


def test_a_measurement_that_could_not_be_made_is_none():
    evidence = LaunchEvidence(flight_size_ratio=math.nan, release_fit_rms_px=math.inf, px_per_mm=0.4)
    assert evidence.flight_size_ratio is None and evidence.release_fit_rms_px is None and evidence.px_per_mm == 0.4
