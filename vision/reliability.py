"""How far the judge's doubt can be trusted: a risk–coverage table and a reliability table (issue 38).

Both read the scored clips of `vision.evaluate`. A launch's call is right when its ruling (outcome,
dinosaur, valid) is; a launch never found is a wrong call nobody could dispute.

- **Risk–coverage**: disputing every verdict whose `ruling_probability` is below a threshold, the
  share of launches disputed against the share that are confident wrong calls (wrong, not
  disputed), as the threshold moves. The judge's own `disputed` flag is one point of that plane.
- **Reliability**: the verdicts binned by their predicted probability, each bin's mean prediction
  against the share of its calls that were right (a calibrated model sits on the diagonal), with the
  expected calibration error and the Brier score.

Until a doubt model fills `ruling_probability`, only the flag's point can be given. `draw_*` make
the same figures as PNG images with OpenCV (no plotting library needed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

import numpy as np

THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)  # dispute below these probabilities
BIN_EDGES = (0.0, 0.5, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0)  # reliability bins of the predicted probability


class Scored(Protocol):
    """What these tables read of a `vision.evaluate.ClipScore`."""

    judged: dict[str, Any] | None
    disputed: bool
    ruling_probability: float | None

    @property
    def ruling_ok(self) -> bool: ...


@dataclass(frozen=True)
class RiskPoint:
    threshold: float | None  # None: the judge's own disputed flag
    disputed_rate: float  # of all launches
    confident_wrong: int  # wrong and not disputed (launches never found included)
    confident_wrong_rate: float  # of all launches
    wrong_among_undisputed: float | None  # the risk of the calls given as certain


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    count: int
    mean_predicted: float | None
    observed_accuracy: float | None


@dataclass(frozen=True)
class Reliability:
    bins: list[ReliabilityBin]
    expected_calibration_error: float
    brier_score: float
    launches: int


def _point(threshold: float | None, disputed: np.ndarray, right: np.ndarray) -> RiskPoint:
    sure_wrong = ~disputed & ~right
    undisputed = int(np.count_nonzero(~disputed))
    return RiskPoint(
        threshold=threshold,
        disputed_rate=float(np.mean(disputed)),
        confident_wrong=int(np.count_nonzero(sure_wrong)),
        confident_wrong_rate=float(np.mean(sure_wrong)),
        wrong_among_undisputed=float(np.count_nonzero(sure_wrong)) / undisputed if undisputed else None,
    )


def flag_point(scores: Sequence[Scored]) -> RiskPoint | None:
    """The judge's own `disputed` flag as a point of the risk–coverage plane (None without launches)."""
    if not scores:
        return None
    disputed = np.array([s.judged is not None and s.disputed for s in scores], dtype=bool)
    return _point(None, disputed, np.array([s.ruling_ok for s in scores], dtype=bool))


def with_probability(scores: Sequence[Scored]) -> list[Scored]:
    """The scored launches whose verdict carries a ruling probability."""
    return [s for s in scores if s.judged is not None and s.ruling_probability is not None]


def risk_coverage(scores: Sequence[Scored], thresholds: Sequence[float] = THRESHOLDS) -> list[RiskPoint]:
    """Disputing every verdict whose ruling probability is below each threshold: the disputed rate
    and the confident wrong calls over all launches (a launch never found is never disputed). Empty
    when no verdict carries a probability; a verdict without one counts as not disputed."""
    if not with_probability(scores):
        return []
    probability = np.array(
        [np.inf if s.judged is None or s.ruling_probability is None else s.ruling_probability for s in scores]
    )
    right = np.array([s.ruling_ok for s in scores], dtype=bool)
    return [_point(float(t), probability < t, right) for t in thresholds]


def reliability(scores: Sequence[Scored], edges: Sequence[float] = BIN_EDGES) -> Reliability | None:
    """Predicted ruling probability against observed accuracy, by bins (None: no probabilities)."""
    rated = with_probability(scores)
    if not rated:
        return None
    predicted = np.array([s.ruling_probability for s in rated], dtype=float)
    right = np.array([s.ruling_ok for s in rated], dtype=float)
    which = np.clip(np.searchsorted(edges, predicted, side="right") - 1, 0, len(edges) - 2)
    bins = []
    gap = 0.0
    for index, (low, high) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
        inside = which == index
        count = int(np.count_nonzero(inside))
        mean_p = float(np.mean(predicted[inside])) if count else None
        accuracy = float(np.mean(right[inside])) if count else None
        if count:
            gap += count * abs(mean_p - accuracy)
        bins.append(ReliabilityBin(float(low), float(high), count, mean_p, accuracy))
    return Reliability(
        bins=bins,
        expected_calibration_error=gap / len(rated),
        brier_score=float(np.mean((predicted - right) ** 2)),
        launches=len(rated),
    )


def doubt_summary(scores: Sequence[Scored]) -> dict[str, Any]:
    """The disputed flag's point, the risk–coverage points and the reliability bins, as plain JSON."""
    flag = flag_point(scores)
    table = reliability(scores)
    return {
        "disputed_flag": asdict(flag) if flag is not None else None,
        "launches_with_probability": len(with_probability(scores)),
        "risk_coverage": [asdict(point) for point in risk_coverage(scores)],
        "reliability": asdict(table) if table is not None else None,
    }


# -- text -----------------------------------------------------------------------------------------


def _pct(value: float | None) -> str:
    return "   n/a" if value is None else f"{100 * value:6.2f} %"


def format_tables(scores: Sequence[Scored]) -> str:
    """The risk–coverage and reliability tables of `meteors-judge eval`, or what can be said without them."""
    flag = flag_point(scores)
    if flag is None:
        return ""
    flag_line = (
        f"the disputed flag: {_pct(flag.disputed_rate).strip()} disputed, {flag.confident_wrong} confident wrong"
        f" ({_pct(flag.confident_wrong_rate).strip()}), {_pct(flag.wrong_among_undisputed).strip()} wrong"
        " among the undisputed"
    )
    rated = with_probability(scores)
    if not rated:
        return "\n".join([
            "no ruling probabilities (no doubt model fitted): no risk–coverage or reliability table",
            flag_line,
        ])
    lines = [f"risk–coverage ({len(rated)} of {len(scores)} launches with a ruling probability):",
             "  dispute below   disputed   confident wrong   wrong among undisputed"]
    for point in risk_coverage(scores):
        lines.append(
            f"  {point.threshold:<13g}  {_pct(point.disputed_rate)}   {point.confident_wrong:4d} "
            f"({_pct(point.confident_wrong_rate)})   {_pct(point.wrong_among_undisputed)}"
        )
    lines.append(f"  {flag_line}")
    table = reliability(scores)
    assert table is not None  # there are rated launches
    lines += ["", "reliability (predicted probability of the ruling against how often it was right):",
              "  predicted       launches   mean predicted   observed"]
    for item in table.bins:
        lines.append(
            f"  {item.low:.2f}–{item.high:.2f}      {item.count:8d}   {_pct(item.mean_predicted)}         "
            f"{_pct(item.observed_accuracy)}"
        )
    lines.append(
        f"  expected calibration error {_pct(table.expected_calibration_error).strip()},"
        f" Brier score {table.brier_score:.4f}"
    )
    return "\n".join(lines)


# -- pictures ---------------------------------------------------------------------------------------

WHITE, BLACK, GREY, BLUE, RED = (255, 255, 255), (0, 0, 0), (200, 200, 200), (180, 90, 20), (40, 40, 210)  # BGR
FONT = 0  # cv2.FONT_HERSHEY_SIMPLEX


class _Plot:
    """A white picture with one pair of axes, mapping data (x, y) to pixels."""

    def __init__(self, title: str, x_label: str, y_label: str, x_max: float, y_max: float, size=(720, 540)):
        import cv2

        self.cv2 = cv2
        self.width, self.height = size
        self.left, self.right, self.top, self.bottom = 80, self.width - 30, 50, self.height - 60
        self.x_max, self.y_max = x_max, y_max
        self.image = np.full((self.height, self.width, 3), 255, np.uint8)
        cv2.putText(self.image, title, (self.left, 20), FONT, 0.55, BLACK, 1, cv2.LINE_AA)
        cv2.putText(self.image, x_label, (self.left, self.height - 15), FONT, 0.5, BLACK, 1, cv2.LINE_AA)
        cv2.putText(self.image, y_label, (10, self.top - 8), FONT, 0.5, BLACK, 1, cv2.LINE_AA)
        for i in range(6):
            fx, fy = i * x_max / 5, i * y_max / 5
            x, y = self.at(fx, 0.0)[0], self.at(0.0, fy)[1]
            cv2.line(self.image, (x, self.top), (x, self.bottom), GREY, 1)
            cv2.line(self.image, (self.left, y), (self.right, y), GREY, 1)
            cv2.putText(self.image, f"{fx:.3g}", (x - 12, self.bottom + 20), FONT, 0.4, BLACK, 1, cv2.LINE_AA)
            cv2.putText(self.image, f"{fy:.3g}", (self.left - 55, y + 4), FONT, 0.4, BLACK, 1, cv2.LINE_AA)
        cv2.rectangle(self.image, (self.left, self.top), (self.right, self.bottom), BLACK, 1)

    def at(self, x: float, y: float) -> tuple[int, int]:
        u = self.left + (self.right - self.left) * min(max(x / self.x_max, 0.0), 1.0)
        v = self.bottom - (self.bottom - self.top) * min(max(y / self.y_max, 0.0), 1.0)
        return int(round(u)), int(round(v))

    def line(self, points: Sequence[tuple[float, float]], colour, thickness: int = 2) -> None:
        pixels = np.array([self.at(x, y) for x, y in points], np.int32)
        self.cv2.polylines(self.image, [pixels], False, colour, thickness, self.cv2.LINE_AA)

    def mark(self, x: float, y: float, colour, label: str = "", radius: int = 5) -> None:
        u, v = self.at(x, y)
        self.cv2.circle(self.image, (u, v), radius, colour, -1, self.cv2.LINE_AA)
        if label:
            self.cv2.putText(self.image, label, (u + 7, v - 7), FONT, 0.4, colour, 1, self.cv2.LINE_AA)

    def write(self, path) -> None:
        if not self.cv2.imwrite(str(path), self.image):
            raise OSError(f"could not write {path}")


def draw_risk_coverage(scores: Sequence[Scored], path) -> None:
    """The risk–coverage plane as a PNG: the curve of the thresholds (when probabilities exist) and
    the judge's disputed flag as one point."""
    points = risk_coverage(scores)
    flag = flag_point(scores)
    rates = [p.confident_wrong_rate for p in points] + ([flag.confident_wrong_rate] if flag else [])
    title = "risk-coverage: disputing below a ruling probability" if points else (
        "risk-coverage: no ruling probabilities (no doubt model), the disputed flag only")
    plot = _Plot(title, "disputed rate", "confident wrong rate", 1.0, _round_up(1.1 * max(rates, default=0.0)))
    if points:
        plot.line([(p.disputed_rate, p.confident_wrong_rate) for p in points], BLUE)
        for p in points:
            plot.mark(p.disputed_rate, p.confident_wrong_rate, BLUE, f"{p.threshold:g}", radius=3)
    if flag is not None:
        plot.mark(flag.disputed_rate, flag.confident_wrong_rate, RED, "disputed flag")
    plot.write(path)


def _round_up(value: float) -> float:
    """The least of 1, 2, 2.5 or 5 times a power of ten at or above `value` (at least 0.01): an axis's end."""
    if value <= 0.01:
        return 0.01
    power = 10.0 ** np.floor(np.log10(value))
    return float(next(step * power for step in (1.0, 2.0, 2.5, 5.0, 10.0) if step * power >= value))


def draw_reliability(table: Reliability, path) -> None:
    """The reliability diagram as a PNG: each bin's mean prediction against its observed accuracy."""
    plot = _Plot(f"reliability ({table.launches} launches, ECE {table.expected_calibration_error:.3f})",
                 "predicted probability of the ruling", "observed accuracy", 1.0, 1.0)
    plot.line([(0.0, 0.0), (1.0, 1.0)], GREY, 1)
    filled = [b for b in table.bins if b.count]
    plot.line([(b.mean_predicted, b.observed_accuracy) for b in filled], BLUE)
    for b in filled:
        plot.mark(b.mean_predicted, b.observed_accuracy, BLUE, f"n={b.count}", radius=4)
    plot.write(path)
