"""The risk–coverage and reliability tables of `meteors-judge eval`, and their pictures."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import pytest

from vision.reliability import (
    BLUE,
    RED,
    doubt_summary,
    draw_reliability,
    draw_risk_coverage,
    flag_point,
    format_tables,
    reliability,
    risk_coverage,
)


@dataclass
class Launch:
    """A scored launch as the tables read it: found or not, disputed or not, right or not, its probability."""

    ruling_ok: bool
    ruling_probability: float | None = None
    disputed: bool = False
    judged: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.judged is None:
            self.judged = {"outcome": "void"}


def missed() -> Launch:
    return Launch(ruling_ok=False, judged=None)


@pytest.fixture
def rated() -> list[Launch]:
    # 9 found launches with probabilities (2 of them wrong), and one launch never found
    return [
        Launch(True, 0.999), Launch(True, 0.999), Launch(True, 0.995), Launch(True, 0.97), Launch(False, 0.96),
        Launch(True, 0.85), Launch(True, 0.6, disputed=True), Launch(False, 0.55, disputed=True), Launch(True, 0.3),
        missed(),
    ]


def test_disputing_below_a_threshold_trades_disputes_for_confident_wrong_calls(rated):
    points = {point.threshold: point for point in risk_coverage(rated, thresholds=(0.5, 0.9, 0.98, 0.9999))}
    # below 0.5 only the 0.3 launch is disputed; the wrong 0.96 and 0.55 calls and the missed launch are not
    assert points[0.5].disputed_rate == pytest.approx(0.1) and points[0.5].confident_wrong == 3
    # below 0.9: 0.85, 0.6, 0.55 and 0.3 disputed; the wrong 0.96 call and the missed launch remain
    assert points[0.9].disputed_rate == pytest.approx(0.4) and points[0.9].confident_wrong == 2
    assert points[0.9].wrong_among_undisputed == pytest.approx(2 / 6)
    # below 0.98 the wrong 0.96 call is disputed too: the missed launch is the only confident wrong one
    assert points[0.98].confident_wrong == 1 and points[0.98].confident_wrong_rate == pytest.approx(0.1)
    assert points[0.9999].disputed_rate == pytest.approx(0.9)  # all but the missed launch, which cannot be


def test_the_disputed_flag_is_one_point_of_the_plane(rated):
    flag = flag_point(rated)
    assert flag.threshold is None and flag.disputed_rate == pytest.approx(0.2)
    assert flag.confident_wrong == 2  # the wrong 0.96 call and the missed launch


def test_reliability_bins_the_predictions_against_how_often_they_were_right(rated):
    table = reliability(rated, edges=(0.0, 0.5, 0.9, 1.0))
    assert table.launches == 9  # the missed launch has no probability
    low, middle, high = table.bins
    assert (low.count, low.observed_accuracy) == (1, 1.0) and low.mean_predicted == pytest.approx(0.3)
    assert middle.count == 3 and middle.observed_accuracy == pytest.approx(2 / 3)
    assert middle.mean_predicted == pytest.approx((0.85 + 0.6 + 0.55) / 3)
    assert high.count == 5 and high.observed_accuracy == pytest.approx(0.8)
    p = np.array([0.999, 0.999, 0.995, 0.97, 0.96, 0.85, 0.6, 0.55, 0.3])
    right = np.array([1, 1, 1, 1, 0, 1, 1, 0, 1])
    assert table.brier_score == pytest.approx(np.mean((p - right) ** 2))
    expected_gap = (abs(0.3 - 1) + 3 * abs(2 / 3 - 2 / 3) + 5 * abs(np.mean(p[:5]) - 0.8)) / 9
    assert table.expected_calibration_error == pytest.approx(expected_gap)


def test_without_probabilities_the_report_says_so_in_one_line_and_gives_the_flag():
    launches = [Launch(True, disputed=True), Launch(False), missed(), Launch(True)]
    text = format_tables(launches)
    first, second = text.splitlines()
    assert first.startswith("no ruling probabilities (no doubt model fitted)")
    assert "25.00 % disputed, 2 confident wrong" in second
    assert risk_coverage(launches) == [] and reliability(launches) is None
    summary = doubt_summary(launches)
    assert summary["launches_with_probability"] == 0 and summary["reliability"] is None
    assert summary["disputed_flag"]["confident_wrong"] == 2


def test_with_probabilities_both_tables_are_printed(rated):
    text = format_tables(rated)
    assert "risk–coverage (9 of 10 launches with a ruling probability)" in text
    assert "reliability (predicted probability" in text and "expected calibration error" in text
    assert "the disputed flag:" in text


def _has_colour(image: np.ndarray, bgr: tuple[int, int, int]) -> bool:
    return bool(np.any(np.all(np.abs(image.astype(int) - bgr) <= 10, axis=2)))


def test_the_pictures_show_the_curve_the_flag_and_the_bins(rated, tmp_path):
    draw_risk_coverage(rated, tmp_path / "risk.png")
    draw_reliability(reliability(rated), tmp_path / "reliability.png")
    risk, diagram = cv2.imread(str(tmp_path / "risk.png")), cv2.imread(str(tmp_path / "reliability.png"))
    assert risk is not None and diagram is not None
    assert _has_colour(risk, BLUE) and _has_colour(risk, RED)  # the thresholds' curve and the flag's point
    assert _has_colour(diagram, BLUE)

    draw_risk_coverage([Launch(True, disputed=True), missed()], tmp_path / "flag_only.png")
    flag_only = cv2.imread(str(tmp_path / "flag_only.png"))
    assert _has_colour(flag_only, RED) and not _has_colour(flag_only, BLUE)
