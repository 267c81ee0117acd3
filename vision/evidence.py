"""What the judge measured on one launch, as numbers: the inputs of a doubt model (issue 38).

Every decision of `vision.analysis.judge_launch` rests on measurements (the release point and its
window, the herd-line distance, the frames the hand hid, the fit residuals, each bounce's evidence,
the frame rate, the rest point's distance to a region border...). `LaunchEvidence` carries them on
the verdict, so that a model giving the probability that a call is right can be fitted from cached
`meteors-judge eval --out` rows without judging the clips again. Nothing here decides anything.

Units are in the names (`_mm`, `_px`, `_frames`, `_m_s`); a value the launch does not have (no
herd line known, no usable release fit, no rest) is None, as is any non-finite measurement.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, field_validator

from vision.track import COASTED, HAND, PARTIAL, SEEN

if TYPE_CHECKING:  # the verdict imports this module: no OpenCV behind it
    from vision.flight import FlightAnalysis
    from vision.track import LaunchTrack


class _Measured(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="before")
    @classmethod
    def _finite_or_none(cls, value: Any) -> Any:
        """NaN and infinities (a measurement that could not be made) become None: JSON has no NaN."""
        if isinstance(value, float | np.floating) and not math.isfinite(float(value)):
            return None
        if isinstance(value, np.generic):
            return value.item()
        return value


class BounceEvidence(_Measured):
    """One impact of the flight (counted as a bounce or not) and how clearly the track shows it."""

    frame: int
    surface: str  # table | box_floor | box_wall | box_rim
    is_bounce: bool  # a bounce (approached fast enough, rebounded), not a touch; a doubtful one may go uncounted
    before_box: bool
    chi2_saved: float | None  # χ² the break saves over one arc through it; None for an inferred hop
    approach_speed_m_s: float | None  # vertical speed into the impact
    rebound_speed_m_s: float | None  # vertical speed out of it
    speed_sigma_m_s: float | None  # one sigma of those speeds
    doubtful: bool
    inferred: bool  # implied by the restitution before a roll, not seen as a break
    maybe_table: bool  # placed off the table, but last seen over it before an unseen frame
    table_on_ray: bool  # its camera ray meets the table outside the box at contact height


class LaunchEvidence(_Measured):
    """The judge's measurements behind one verdict, field by field (None: not measured on this launch)."""

    # -- the footage and the track
    fps: float | None = None
    frame_width_px: int | None = None
    frame_height_px: int | None = None
    meteor_diameter_px: float | None = None  # median apparent diameter over the track
    px_per_mm: float | None = None  # image scale on the table at the track's first sighting
    sightings: int = 0  # track frames, coasted ones included
    seen_fraction: float | None = None  # of the sightings: the whole meteor, clear of any hand
    partial_fraction: float | None = None  # ... part of it (picture edge, faint streak)
    coasted_fraction: float | None = None  # ... not seen (the tracker's prediction)
    hand_fraction: float | None = None  # ... touching a hand
    track_lost: bool = False  # the meteor left the view or was lost
    clip_ended_early: bool = False  # the clip ended before the rest was long enough
    flight_unseen: bool = False  # first found in the box, already landed
    regained_count: int = 0  # times the tracker lost the meteor and the judge found it again
    regained_frames_max: int = 0  # the longest such loss
    markers_missing: int = 0
    calibration_doubtful: bool = False  # markers missing in a way that makes the box pose unsafe
    always_disputed: bool = False  # a reason that disputes whatever the rulings (lost, no flight, ...)

    # -- the release and the herd line
    herd_line_known: bool = False
    release_fit_reliable: bool = False
    release_fit_group: str | None = None  # error-model group (clean, hidden, push, hand, rough); None: unusable
    release_fit_reasons: list[str] = []  # the fit's unreliability reasons, as keys
    release_fit_rms_px: float | None = None  # residual RMS of the clear sightings in the fit
    release_fit_free_frames: int = 0  # clear sightings of the free flight in the fit
    release_fit_hidden_frames: int = 0  # frames hidden between the hand and the first clear sighting
    release_fit_covered_sightings: int = 0  # sightings judged covered by fingers
    release_time_sigma_frames: float | None = None  # the fit's one sigma of the release time
    release_size_scale_stray: float | None = None  # the fit's detector size scale minus the expected one
    release_window_late_frames: int | None = None  # the error model's window: the release may be this early ...
    release_window_early_frames: int | None = None  # ... or this late
    release_second_opinions: int = 0  # other fits whose windows were allowed too
    hand_timed: bool = False  # the fit's release time came from the launcher's hand
    hand_meteor_disagree_frames: float | None = None  # when they disagree: hand's vs meteor's own release time
    arcs_fit_height_gap_mm: float | None = None  # when they disagree: the fit's vs the arcs' height
    throw_to_free_frames: int | None = None  # from the throw's start to the first hand-free sighting
    hand_free_seen: bool = False  # a run of sightings clear of the hand was seen before the rest
    hand_seen_letting_go: bool = False  # the touch ring saw the hand on the meteor before that run
    release_height_mm: float | None = None  # of the meteor's centre above the table
    release_speed_px_per_frame: float | None = None  # image speed over the flight's first 3 frames
    release_blur_diameters: float | None = None  # ... in apparent diameters per frame (motion blur)
    release_slowdown_ratio: float | None = None  # image speed after the flight's start / before it
    herd_signed_mm: float | None = None  # the judged release's signed distance (≥ 0: behind the line)
    herd_low_mm: float | None = None  # the lowest distance the release window allows
    herd_high_mm: float | None = None  # ... and the highest
    herd_first_free_signed_mm: float | None = None  # the first hand-free sighting's distance (released no later)
    herd_first_free_low_mm: float | None = None  # ... its lowest at k sigmas of height, and of the next sighting
    herd_first_free_height_sigma_mm: float | None = None  # one sigma of that sighting's height
    herd_margin_mm: float | None = None  # the verdict's herd margin and uncertainty
    herd_uncertainty_mm: float | None = None
    herd_call_unsure: bool = False  # the judge's alternatives allow both sides of the line
    release_over_box: bool = False  # the release was judged over the box

    # -- the bounces before the box
    bounces_required: int | None = None
    bounces_counted: int | None = None
    bounce_count_min: int | None = None
    bounce_count_max: int | None = None
    bounce_count_lower_bound: bool = False  # a stretch of the flight nobody saw may hide a table bounce
    bounce_unseen_reasons: list[str] = []  # why (as the verdict's notes word them)
    bounce_weakest_chi2: float | None = None  # the least χ² saved by a table bounce before the box (seen ones)
    flight_gap_frames_max: int | None = None  # the longest run of unseen frames before the box
    flight_sightings_before_box: int | None = None  # sightings free of the hand from the release to the entry
    flight_size_ratio: float | None = None  # apparent size in flight against the arcs' height, relative to rest
    flight_sunk_mm: float | None = None  # deepest arc sighting under the table with no bounce near
    flight_arcs: int = 0  # free-flight stretches fitted
    flight_chi2_per_sighting: float | None = None  # the arcs' residual χ² per sighting
    flight_restitution: float | None = None  # table, vertical
    flight_doubtful_reasons: int = 0
    entered_box: bool = False
    table_bounces_after_entry: int = 0  # after a box entry of a meteor not ending in the box
    bounces_call_unsure: bool = False  # the judge's alternatives allow enough and not enough bounces
    bounces: list[BounceEvidence] = []

    # -- the rest and the region
    rest_found: bool = False
    rest_surface: str | None = None  # table, floor or rim
    rest_sightings: int | None = None
    rest_alternatives: int = 0  # surfaces the geometry allows for the rest
    region_margin_mm: float | None = None  # distance of the rest point to the nearest region border
    region_uncertainty_mm: float | None = None  # one sigma of the rest point
    region_places: int = 0  # regions within the dispute sigmas of the rest point (and its alternatives)
    region_call_unsure: bool = False
    left_picture_from_box_mm: float | None = None  # a meteor that left the picture: its distance from the box


def track_evidence(track: LaunchTrack) -> dict[str, Any]:
    """The footage's and the track's share of the evidence."""
    flags = np.asarray(track.flags)
    n = len(flags)

    def share(flag: int) -> float | None:
        return float(np.count_nonzero(flags == flag)) / n if n else None

    usable = np.isfinite(track.diameters) & (flags != COASTED)
    return {
        "fps": float(track.fps),
        "frame_width_px": int(track.frame_size[0]),
        "frame_height_px": int(track.frame_size[1]),
        "meteor_diameter_px": float(np.median(track.diameters[usable])) if usable.any() else None,
        "sightings": n,
        "seen_fraction": share(SEEN),
        "partial_fraction": share(PARTIAL),
        "coasted_fraction": share(COASTED),
        "hand_fraction": share(HAND),
        "track_lost": bool(track.lost),
        "clip_ended_early": bool(track.ended_early),
        "flight_unseen": bool(track.flight_unseen),
        "regained_count": len(track.regained),
        "regained_frames_max": max((int(unseen) for _, unseen in track.regained), default=0),
    }


def flight_evidence(flight: FlightAnalysis) -> dict[str, Any]:
    """The flight's arcs and impacts."""
    from vision.flight import FLIGHT

    arcs = [stretch for stretch in flight.stretches if stretch.kind == FLIGHT]
    sightings = sum(stretch.stop - stretch.start for stretch in arcs)
    table = [imp.evidence for imp in flight.impacts if imp.bounce and imp.before_box and imp.surface == "table"]
    return {
        "bounce_count_min": int(flight.count_min),
        "bounce_count_max": int(flight.count_max),
        "bounce_weakest_chi2": min((value for value in table if math.isfinite(value)), default=None),
        "flight_arcs": len(arcs),
        "flight_chi2_per_sighting": sum(stretch.rss for stretch in arcs) / sightings if sightings else None,
        "flight_restitution": float(flight.restitution),
        "flight_doubtful_reasons": len(flight.doubtful_reasons),
        "entered_box": flight.entered_box_frame is not None,
        "bounces": [
            BounceEvidence(
                frame=imp.frame,
                surface=imp.surface,
                is_bounce=imp.bounce,
                before_box=imp.before_box,
                chi2_saved=imp.evidence,
                approach_speed_m_s=abs(imp.vz_before_m_s),
                rebound_speed_m_s=abs(imp.rebound_m_s),
                speed_sigma_m_s=imp.sigma_m_s,
                doubtful=imp.doubtful,
                inferred=imp.inferred,
                maybe_table=imp.maybe_table,
                table_on_ray=imp.table_on_ray,
            )
            for imp in flight.impacts
        ],
    }
