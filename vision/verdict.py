"""The judge's verdict on one launch: the same pydantic model in JSON, the dashboard and the engine.

Field names follow `meteors-launch-truth/1` (shared/spec/launch-truth.md) wherever they mean the
same thing, so a verdict can be compared field by field with a label. On top of the label's
fields a verdict says how sure it is: every decision carries a margin (how far the measurement is
from the threshold that would flip it) and an uncertainty (one standard deviation of that
measurement), and a call whose margin is inside its uncertainty is `disputed`, with the reason.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from calibration.truth import Landing, LaunchMode, Outcome, Surface
from vision.evidence import LaunchEvidence

Point2 = tuple[float, float]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Margin(_Model):
    """How far a decision is from flipping (`margin_mm`, ≥ 0 unless stated) and how well it is measured.

    The herd line's and the region's are millimetres; the bounces' are counts of bounces (the field
    names are the schema's, shared by every decision; the dashboard and `analyze` print the unit)."""

    margin_mm: float
    uncertainty_mm: float


class JudgedRelease(_Model):
    frame: int
    table_mm: Point2
    height_mm: float  # of the meteor's centre above the table, as in the label
    herd_line_signed_mm: float | None  # None when no herd line is known


class JudgedBounce(_Model):
    frame: int
    table_mm: Point2
    surface: Surface
    before_box: bool = True
    confidence: float = 1.0  # 0…1: how clearly the impact shows in the track


class JudgedRest(_Model):
    frame: int
    table_mm: Point2
    box_mm: Point2


class DecisionProbabilities(_Model):
    """Filled by the doubt model: the probability that each decision's call is right (None: not modelled)."""

    herd_line: float | None = Field(default=None, ge=0.0, le=1.0)  # the side of the herd line
    bounces: float | None = Field(default=None, ge=0.0, le=1.0)  # enough table bounces before the box
    region: float | None = Field(default=None, ge=0.0, le=1.0)  # the region the meteor rests in
    found: float | None = Field(default=None, ge=0.0, le=1.0)  # a real launch, this one


class Verdict(_Model):
    """One launch, decided."""

    outcome: Outcome
    dinosaur: str | None = None
    valid: bool
    reasons: list[str] = Field(default_factory=list)
    region: str  # a region's name, "outside" or "rim" (or "lost" when the meteor left the view)
    landing: Landing
    launch_mode: LaunchMode = "standard"
    bounces_before_box: int
    bounces: list[JudgedBounce] = Field(default_factory=list)
    release: JudgedRelease | None
    herd_line_ok: bool
    entered_box_frame: int | None
    rest: JudgedRest | None
    disputed: bool = False
    dispute_reasons: list[str] = Field(default_factory=list)
    margins: dict[str, Margin] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)  # uncertain decisions that cannot change the ruling
    start_frame: int
    verdict_frame: int
    # what the judge measured for its decisions (`vision.evidence`): the doubt model's inputs
    evidence: LaunchEvidence | None = None
    # filled by the doubt model (issue 38): the probability that the ruling (outcome, dinosaur,
    # valid) is right, and that of each decision that can change it; None until a model is fitted
    ruling_probability: float | None = Field(default=None, ge=0.0, le=1.0)
    decision_probabilities: DecisionProbabilities | None = None

    def with_dispute(self, reason: str) -> Verdict:
        """The same verdict, disputed for `reason` as well (a copy: a verdict is never changed in place)."""
        return self.model_copy(update={"disputed": True, "dispute_reasons": [*self.dispute_reasons, reason]})

    def summary(self) -> str:
        """One line for a person: the outcome, and why."""
        text = self.outcome if self.outcome != "dinosaur" else f"dinosaur ({self.dinosaur})"
        parts = [text, f"{self.bounces_before_box} table bounce(s) before the box", f"rests in {self.region}"]
        if self.reasons:
            parts.append("void: " + "; ".join(self.reasons))
        if self.disputed:
            parts.append("DISPUTED: " + "; ".join(self.dispute_reasons))
        return ", ".join(parts)


VerdictKind = Literal["dinosaur", "water", "void"]
