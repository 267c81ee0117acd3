"""One launch, decided from its buffered pixel track: a composition of the release, flight and landing.

Runs once per launch when the meteor comes to rest (or is lost):

1. rest and region: the final stillness, the surface it rests on, its region (`vision.landing`); a
   meteor that came into the box and was lost there, inside the picture, is placed in the region of its
   last sighting over the box floor (disputed for the loss);
2. release: `vision.release.estimate_release` (hold → push → ballistic fit), its frame candidates
   and their herd-line signs; the launcher's side is the side the meteor comes from. When the
   estimate is unreliable, the first hand-free sighting bounds it (the meteor moves towards the box);
   the flight's arcs fitted without the release point are a second opinion on its height;
3. bounces: `vision.flight.segment_flight` from the release, its impacts, box entry and the
   [count_min, count_max] bracket of table bounces before the box (only a lower bound where the
   meteor reads too small in flight for the arcs' height);
4. disputes that matter: every uncertain decision gives a *set* of possible values (herd sign,
   enough bounces, rest region within `dispute_sigmas` of a border); the verdict is disputed iff
   those sets allow more than one ruling (outcome, dinosaur, valid). Uncertainties that cannot
   change the ruling go to `margins` and `notes`, not to the dispute. Unsafe calibration, a meteor
   lost inside the picture and a track with no free flight always dispute.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

import numpy as np

from calibration.rig import Rig
from calibration.solve import Calibration
from calibration.tracking import calibration_doubt
from calibration.truth import required_table_bounces
from vision.doubt import ruling_probability
from vision.evidence import LaunchEvidence, flight_evidence, track_evidence
from vision.flight import FLIGHT, FlightAnalysis, FlightImpact, rest_start, segment_flight
from vision.landing import RIM_BAND_MM, classify_point, herd_line_in_use, herd_line_signed, outline_signed_mm
from vision.release import estimate_release, held_still_before_throw, release_spread, window_sigma_mm
from vision.track import COASTED, HAND, PARTIAL, SEEN, LaunchTrack, sizes_by_turns
from vision.verdict import JudgedBounce, JudgedRelease, JudgedRest, Margin, Verdict

CALIBRATION_MM = 1.5  # one sigma of a table point from the calibration (issue 4's figures)
CANDIDATE_MIN_P = 0.02  # release frame candidates less likely than this are not alternatives
BRACKET_SIGMA_MM = 4.0  # one sigma of the first hand-free sighting's ground point at a known height
EDGE_FAR_FROM_BOX_MM = 60.0  # a meteor leaving the picture this far from the box cannot be in it
# one sigma of the flight arcs' height at the first hand-free sighting, where the release fit is unusable:
# against the labelled release height, 112 such dev launches read quartiles -65/+131 mm, 5th/95th
# percentiles -162/+429 mm (a tight sigma such as 15 mm makes herd calls certain on a height 200 mm off).
# On 800 cached dev tracks 100 mm disputes 14 more launches, no call changed
FLIGHT_HEIGHT_MM = 100.0
MAX_UNSEEN_FRAMES = 4  # a gap this long in the flight before the box may hide a table bounce
# A release fit the error model can use joined the push to one ballistic arc through the first clear
# sightings: a table bounce hidden between the hand and them would have broken that arc. On 600 cached
# dev launches all 11 bounces hidden there came with no usable fit. At 30 fps its arcs
# are too short to lean on: trusting them undisputed two calls whose table bounce near the box was read
# as a wall hit; at 60 fps it undisputes 9 launches, all right, and changes no other call
FIT_SPANS_HAND_GAP_MIN_FPS = 45.0
# Arcs grossly too high (at 30 fps, nearly a metre up) put the meteor's ground point over the box from the
# start of its flight, and a table bounce right after the release goes uncounted as a certainty. With fewer
# sightings free of the hand than this between the release and the box entry, nothing of the flight
# before the box was judged: the count is only a lower bound
ENTRY_SIGHTINGS_MIN = 2
# A released meteor flies on at the speed the hand gave it; one whose image speed over the 3 frames
# after the flight's start is under this fraction of the speed over the 3 frames before it hit
# something, or the release was timed late (a hand clock a few frames late can put the flight's start
# after a table bounce). The flight analysed then misses the start of the real one: the count is only a
# lower bound. On 1000 dev clips 14 launches read under 0.55, 9 of them with a table bounce the flight's
# start had passed
SLOWDOWN_RATIO = 0.55
# the meteor's own fit this far from the hand's release time: both windows are allowed. The hand's clock
# can read 2-3 frames late when the phase correlation loses the hand just after the release; the meteor's
# own fit, right to the frame, must then count too. On 400 cached launches 2.0 changes no call or dispute.
# A fit of a group known to be late (a typical lateness in `RELEASE_TYPICAL_LATE_S`: the push group,
# late by 0-8 frames) disagrees only where it puts the release earlier than the hand, or later by more
# than its own window's late frames: on 400 cached dev launches 19 of 20 push fits beside a hand's clock
# were 0-8 frames late, and a test blind to that lateness disputed certain calls whose hand was right.
HAND_DISAGREE_FRAMES = 2.0
MOVING_PX = 2.0  # frame-to-frame motion of a meteor already in flight when the track starts
# where the release falls between the throw's start and the first hand-free sighting: a median 0.69
# of the way on the reliable fits of 398 dev clips (quartiles 0.62–0.77)
BRACKET_RELEASE_FRACTION = 0.7
HAND_SEEN_FRAMES = 6  # the hold's last sightings, where the touch ring must have seen the hand ...
HAND_SEEN_MIN = 2  # ... this many times (a single hit may be stray, on a dark hand the ring otherwise misses)
# the meteor in flight reads this small against its arcs' height (relative to its reading at rest): the
# arcs are too high, and a table bounce may be missed (taken for a lob into the box). On dev clips: 1st
# percentile 0.70 at 60 fps, 10th 0.59 at 30; on 1800 dev clips (cached tracks) it disputes 3 more
# launches, all called right
FLIGHT_SIZE_MIN = 0.6
# a sighting of the flight before the box whose fitted centre lies this far below a meteor on the table,
# with no impact within `SUNK_CLEAR_FRAMES` of it: the arcs went through the table, so a table bounce
# there went unnoticed and the count is only a lower bound
SUNK_MM = 20.0
SUNK_CLEAR_FRAMES = 2
# the release fit and the arcs alone disagree this much on a free sighting's height: the fit may be grossly
# wrong, and the herd call is then disputed. A hand-timed fit whose detector size scale strays low (0.75
# for 0.95) can put the meteor 180-240 mm too high at its first free sighting and call a valid launch a
# confident foul; before the arcs start (in the hand) only the fit's height places the meteor, so allowing
# both heights is not enough. Usable fits' gap: 99.5th percentile 248 mm (511 dev fits); on 1200 cached
# dev launches 150 mm disputes 44.75 -> 46.67 %, nothing else changed (200 mm misses such a fit).
# Compared at the first sighting within ARCS_LOOKAHEAD of the first free one that the arcs place (the
# first free one may lie between their stretches)
ARCS_DISAGREE_MM = 150.0
ARCS_LOOKAHEAD = 4
# A release fit whose detector size scale strays this far from the expected one (the configured prior) has bought its
# pixels with a wrong depth (0.74 for 0.95 can put the meteor 218 mm up at the release for 134 and call
# a valid launch a certain foul): the fit with the scale held there (within
# PINNED_SCALE_SIGMA) is a second opinion, and both its window and the fit's count
SCALE_STRAY = 0.10
PINNED_SCALE_SIGMA = 0.01
# the first hand-free run of sightings is free only if the touch ring does not see the hand on the meteor
# again in the next sightings: it may miss a grip for a few frames, and a "free" sighting before the
# real release can make a foul a certain valid launch. On 1200 cached dev launches 2 sightings gave 2
# more right outcomes, 1 fewer dispute, no new confident wrong call (4: 1 fewer right)
HAND_RETURN_SIGHTINGS = 2


@dataclass
class Analysis:
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # per track frame
    release_index: int | None = None
    bounce_indices: list[int] = field(default_factory=list)
    release: object = None  # vision.release.ReleaseEstimate
    flight: object = None  # vision.flight.FlightAnalysis
    rulings: set = field(default_factory=set)
    free_start_frame: int | None = None
    throw_start_frame: int | None = None


def times_of(frames: np.ndarray, fps: float) -> np.ndarray:
    return (frames - frames[0]) / fps if len(frames) else np.zeros(0)


def _hand_seen_on(flags: np.ndarray) -> bool:
    """Whether the touch ring saw the hand on the meteor in these sightings (`HAND_SEEN_MIN` times)."""
    return int(np.count_nonzero(flags == HAND)) >= HAND_SEEN_MIN


def _hand_seen_holding(flags: np.ndarray, throw_start: int, free_start: int) -> bool:
    """Whether the touch ring saw the hand on the meteor in the hold's last sightings or in the last
    sightings before the first hand-free one. Only then does a sighting it calls free mean the hand
    has let go: a hand whose skin it misses makes every sighting of the hold and the push look free.
    A track that starts in flight (the meteor first found mid-push) shows neither, so nothing tells
    that its first sightings were free. A meteor carried into view and thrown without a pause shows no
    hold, but the hand on it up to the release."""
    before_free = flags[max(0, free_start - HAND_SEEN_FRAMES) : free_start]
    if _hand_seen_on(before_free):
        return True
    return throw_start > 0 and _hand_seen_on(flags[max(0, throw_start - HAND_SEEN_FRAMES) : throw_start + 1])


def _clear_run_at(flags: np.ndarray, index: int) -> bool:
    """Whether the three sightings from `index` are all clear of the hand (seen or partial), and the hand
    is not seen on the meteor in the `HAND_RETURN_SIGHTINGS` after them: the run that marks the first
    hand-free sighting."""
    if not all(f in (SEEN, PARTIAL) for f in flags[index : index + 3]):
        return False
    return not np.any(flags[index + 3 : index + 3 + HAND_RETURN_SIGHTINGS] == HAND)


def _first_departure(px: np.ndarray, stop: int, diameter_px: float) -> int:
    """The last index before the meteor first moves a diameter from where the track found it.

    Without a clean hold (a jittery grip, noisy sightings of a small meteor) the throw still starts
    no earlier than this: a sighting before it is no free flight, even one the touch ring saw free.
    A track that starts in flight departs at once (index 0).
    """
    moved = np.flatnonzero(np.hypot(*(px[:stop] - px[0]).T) > diameter_px)
    return max(0, int(moved[0]) - 1) if len(moved) else 0


def flight_before_box(track: LaunchTrack, flight: FlightAnalysis, release_index: int) -> np.ndarray:
    """Which track sightings are of the flight: from the release, before the box entry and the rest."""
    index = np.arange(len(track.frames))
    entry = flight.entered_box_frame if flight.entered_box_frame is not None else int(track.frames[-1]) + 1
    rest = flight.rest_index if flight.rest_index is not None else len(track.frames)
    return (index >= release_index) & (track.frames < entry) & (index < rest)


def sunk_sighting(
    track: LaunchTrack, flight: FlightAnalysis, radius_mm: float, release_index: int
) -> tuple[int, float] | None:
    """(frame, depth mm) of the deepest sighting of the flight before the box whose fitted centre lies
    `SUNK_MM` or more below a meteor resting on the table, far from every impact; None if there is none."""
    z = flight.positions[:, 2]
    depth = radius_mm - z
    in_flight = flight_before_box(track, flight, release_index)
    sunk = np.isfinite(z) & (track.flags != COASTED) & in_flight & (depth >= SUNK_MM)
    if flight.impacts:
        impact_frames = np.array([imp.frame for imp in flight.impacts], dtype=np.int64)
        sunk &= np.min(np.abs(track.frames[:, None] - impact_frames[None, :]), axis=1) > SUNK_CLEAR_FRAMES
    if not sunk.any():
        return None
    deepest = int(np.argmax(np.where(sunk, depth, -np.inf)))
    return int(track.frames[deepest]), float(depth[deepest])


def flight_size_ratio(
    track: LaunchTrack, flight: FlightAnalysis, camera, diameter_mm: float, release_index: int
) -> float:
    """How large the meteor reads in flight before the box, against the size its arcs' height implies,
    relative to the same ratio at rest (the detector's own scale); NaN without enough sightings."""
    if flight.rest_index is None:
        return float("nan")
    positions = flight.positions
    usable = np.isfinite(positions).all(axis=1) & np.isin(track.flags, (SEEN, PARTIAL)) & np.isfinite(track.diameters)
    in_flight = usable & flight_before_box(track, flight, release_index)
    at_rest = usable & (np.arange(len(track.frames)) >= flight.rest_index)
    if np.count_nonzero(in_flight) < 3 or np.count_nonzero(at_rest) < 2:
        return float("nan")
    ratio = track.diameters / camera.apparent_diameter_px(np.nan_to_num(positions), diameter_mm)
    return float(np.median(ratio[in_flight]) / np.median(ratio[at_rest]))


def _rest_surface(camera, rig: Rig, pose, rest_px: np.ndarray, rest_diam: float, scale_prior: float):
    """(surface kind, table xy) of a resting meteor and the alternatives: every (kind, xy) the
    geometry allows.

    The geometry decides first (a meteor resting over the box's floor cannot be on the table; one
    resting on a wall top has its centre over the wall), the apparent size breaks the remaining ties
    (the rim is higher than the floor) but only weakly: the alternatives stay possible places."""
    radius = rig.meteor.diameter_mm / 2
    options = []
    heights = (radius, rig.box.floor_height_mm + radius, rig.box.rim_height_mm + radius)
    for z, kind in zip(heights, ("table", "floor", "rim"), strict=True):
        xy = camera.pixel_to_plane(rest_px.reshape(1, 2), z)[0, :2]
        sd = outline_signed_mm(rig, pose, xy)
        call = classify_point(rig, pose, xy)
        predicted = float(camera.apparent_diameter_px(np.array([[xy[0], xy[1], z]]), rig.meteor.diameter_mm)[0])
        ratio = rest_diam / predicted if rest_diam > 0 else None
        size_err = abs(np.log(ratio / scale_prior)) if ratio else 0.0
        if kind == "table":
            consistent = sd < radius * 0.3
        elif kind == "floor":
            consistent = call.region not in ("rim", "outside")
        else:
            consistent = call.region == "rim" or abs(sd) < RIM_BAND_MM
        options.append((size_err + (0.0 if consistent else 1.0), kind, xy, consistent))
    _, kind, xy, _ = min(options, key=lambda o: o[0])
    alternatives = [(o[1], o[2]) for o in options if o[3]] or [(kind, xy)]
    return (kind, xy), alternatives


# -- the rulings that the uncertain decisions allow --------------------------------------------------

Place = tuple[str, str, "str | None"]  # (region, landing, dinosaur) of a possible rest
Ruling = tuple[str, "str | None", bool]  # (outcome, dinosaur, valid)


def ruling_of(herd_ok: bool, enough: bool, place: Place) -> Ruling:
    """The rules: released behind the line and enough table bounces make it valid; the place decides."""
    _region, landing, dinosaur = place
    valid = bool(herd_ok and enough)
    outcome = landing if valid and landing in ("dinosaur", "water") else "void"
    return outcome, (dinosaur if outcome == "dinosaur" else None), valid


def possible_rulings(
    herd: Iterable[bool], enough: Iterable[bool], places: Iterable[Place]
) -> tuple[set[Ruling], list[str]]:
    """Every ruling the alternatives allow, and the decisions whose alternatives change the ruling.

    A decision is named when, with the other decisions held at any of their alternatives, its own
    alternatives give more than one ruling. `herd` and `enough` are sets of booleans, `places` of
    (region, landing, dinosaur).
    """
    options = {"herd_line": sorted(set(herd)), "bounces": sorted(set(enough)), "region": sorted(set(places), key=str)}
    names = list(options)
    rulings = {ruling_of(*combo) for combo in itertools.product(*options.values())}
    deciding = []
    for i, name in enumerate(names):
        others = [options[n] for n in names if n != name]
        for rest in itertools.product(*others):
            seen = set()
            for alternative in options[name]:
                combo = list(rest)
                combo.insert(i, alternative)
                seen.add(ruling_of(*combo))
            if len(seen) > 1:
                deciding.append(name)
                break
    return rulings, deciding


def possible_places(rig: Rig, pose, xy: np.ndarray, on_rim: bool, spread_mm: float) -> set[Place]:
    """Regions of the rest point and of 8 points `spread_mm` around it (a rest near a border)."""
    places = set()
    offsets = [(0.0, 0.0)] + [(np.cos(a), np.sin(a)) for a in np.linspace(0, 2 * np.pi, 8, endpoint=False)]
    for dx, dy in offsets:
        call = classify_point(rig, pose, np.asarray(xy) + spread_mm * np.array([dx, dy]), on_rim=on_rim)
        places.add((call.region, call.landing, call.dinosaur))
    return places


def table_bounces_after_entry(impacts: Iterable[FlightImpact]) -> int:
    """The table bounces after the judged box entry, which would count had the entry been only a pass
    over the outline; none when a sure bounce on the box (floor, wall or rim) came before the first of
    them: the meteor was over the box then, the entry was real (a meteor coming to rest on the rim
    after a wall bounce hops there, and the hops read as table bounces). On 800 cached dev tracks this
    disputes 4 fewer launches and changes no call."""
    after = [imp for imp in impacts if imp.bounce and not imp.before_box]
    for imp in after:
        if imp.surface == "table":
            return sum(1 for later in after if later.surface == "table")
        if not imp.doubtful and not imp.maybe_table:
            return 0
    return 0


def regained_reason(found_frame: int, unseen_frames: int) -> str:
    """Why a launch whose meteor the tracker lost and found again is disputed, in a player's words."""
    if unseen_frames <= 0:  # found elsewhere the frame after a sighting: the tracker had followed something else
        return f"meteor found elsewhere at frame {found_frame}: what was followed before may not have been the meteor"
    frames = "frame" if unseen_frames == 1 else "frames"
    return f"meteor lost from view for {unseen_frames} {frames}, found again at frame {found_frame}"


def _bracketed_guess(fit_frame: int | None, frames: np.ndarray, throw_start: int, free_start: int) -> int:
    """The sighting to report when the release fit is untrusted: the fit's frame when it lies between
    the throw's start and the first hand-free sighting (the release is known to be there), else the
    sighting `BRACKET_RELEASE_FRACTION` of the way from the one to the other. The meteor fit's frame
    is right far more often than either end of the bracket."""
    if fit_frame is None or not frames[throw_start] <= fit_frame <= frames[free_start]:
        fit_frame = frames[throw_start] + BRACKET_RELEASE_FRACTION * (frames[free_start] - frames[throw_start])
    return max(throw_start, int(np.searchsorted(frames, fit_frame, side="right")) - 1)


def _meteor_fit_against_the_hand(est, track: LaunchTrack, camera, diameter_mm: float, size_scale: float):
    """The meteor's own release fit (the hand left out) when `est` was timed by the launcher's hand
    and that fit, usable by the error model, puts the release more than `HAND_DISAGREE_FRAMES` away
    (for a fit known to be late: earlier than the hand, or later by more than its window allows); else
    None. The hand's clock is right to a frame in nine readings of ten, but not always: one 5 frames
    early can call a foul release (−8 mm) well clear of the line."""
    if "hand" not in est.reason_kinds:
        return None
    alone = estimate_release(replace(track, hand_direction=None), camera, diameter_mm, size_scale=size_scale, reuse=est)
    spread = release_spread(alone)
    if spread is None or not np.isfinite(alone.t_release_s):
        return None
    hand_earlier_frames = (alone.t_release_s - est.t_release_s) * est.fps
    tolerated_earlier = spread.late_frames if spread.typical_late_frames else 0
    if -HAND_DISAGREE_FRAMES <= hand_earlier_frames <= tolerated_earlier + HAND_DISAGREE_FRAMES:
        return None
    return alone


def _fit_before_the_first_impact(
    est, flight: FlightAnalysis, track: LaunchTrack, camera, diameter_mm: float, size_scale: float
):
    """The release fit ended at the flight's first impact, when `est`'s arc ran past it and the fit so
    ended explains its clear sightings better and is usable by the error model; else None.

    The release fit grows its arc forwards until the track stops following one; a bounce the arc can
    bend round leaves sightings after it in the fit, and their misfit makes the fit rough (a wide
    window). Of 42 rough 60 fps dev fits, 19 ended 1–8 frames after the labelled first impact.
    Refitted to the impact the flight's arcs find, on 1200 cached dev launches: 16 fewer disputes,
    3 fewer wrong calls, no confident wrong one."""
    if not flight.impacts:
        return None
    after_impact = int(np.searchsorted(flight.times, flight.impacts[0].time, side="right"))
    if est.fit_stop_index <= after_impact:
        return None
    refit = estimate_release(
        track, camera, diameter_mm, first_impact_index=after_impact, size_scale=size_scale, reuse=est
    )
    if release_spread(refit) is None or (np.isfinite(est.rms_px) and not refit.rms_px < est.rms_px):
        return None
    return refit


def _fit_at_the_expected_scale(est, track: LaunchTrack, camera, diameter_mm: float, size_scale: float):
    """The release fit with the detector's size scale held at `size_scale` (the expected one, the prior)
    when `est`'s own scale strays more than `SCALE_STRAY` from it and that fit is usable by the error
    model; else None. Seen from above, depth is weak: a fit can trade the scale for a wrong height."""
    if not abs(est.size_scale - size_scale) > SCALE_STRAY:
        return None
    pinned = estimate_release(
        track, camera, diameter_mm, size_scale=size_scale, size_scale_sigma=PINNED_SCALE_SIGMA, reuse=est
    )
    return pinned if release_spread(pinned) is not None else None


def _image_speed_px(frames: np.ndarray, px: np.ndarray, first: int, last: int) -> float:
    """The median image speed (px per frame) over the sightings in frames [first, last]; NaN if fewer than 2."""
    inside = (frames >= first) & (frames <= last)
    if np.count_nonzero(inside) < 2:
        return float("nan")
    steps = np.hypot(*np.diff(px[inside], axis=0).T) / np.diff(frames[inside])
    return float(np.median(steps))


def _ground(camera, pixel: np.ndarray, z: float) -> np.ndarray:
    return camera.pixel_to_plane(np.asarray(pixel, dtype=np.float64).reshape(1, 2), z)[0, :2]


def _over_box_floor(camera, rig: Rig, pose, pixel: np.ndarray, radius_mm: float):
    """The region (`classify_point`) of a sighting placed on the box floor, when it lies inside the box's
    outline there; None otherwise."""
    xy = _ground(camera, pixel, rig.box.floor_height_mm + radius_mm)
    call = classify_point(rig, pose, xy)
    return call if call.region not in ("outside", "rim") else None


def _over_box(px: np.ndarray, camera, rig: Rig, pose, radius_mm: float) -> np.ndarray:
    """Per sighting: its ground point (the meteor taken on the table) lies inside the box outline."""
    inside = np.zeros(len(px), dtype=bool)
    known = np.isfinite(px).all(axis=1)
    if known.any():
        ground = camera.pixel_to_plane(px[known], radius_mm)[:, :2]
        inside[known] = [outline_signed_mm(rig, pose, xy) > 0.0 for xy in ground]
    return inside


def judge_launch(track: LaunchTrack, rig: Rig, calibration, config, frame_index: int) -> tuple[Verdict, Analysis]:
    camera = calibration.camera
    pose = calibration.box_pose
    herd = herd_line_in_use(rig, calibration)
    radius = rig.meteor.diameter_mm / 2
    mode = config.launch_mode
    k = config.dispute_sigmas
    required = required_table_bounces(mode)
    always: list[str] = []  # reasons that dispute the verdict whatever the rulings
    notes: list[str] = []
    analysis = Analysis()
    missing = list(calibration.markers_missing)
    # a label's true calibration (`SimpleCalibration`, for development) has no marker solve to doubt
    doubt = calibration_doubt(calibration, rig) if isinstance(calibration, Calibration) else None
    if track.flight_unseen:
        always.append("launch not seen: the meteor was first found in the box, already landed")
    for found_frame, unseen_frames in track.regained:
        # the sightings before the loss may have been of something else the tracker followed (a hand)
        always.append(regained_reason(found_frame, unseen_frames))
    if doubt:
        always.append(f"markers missing: {missing}: {doubt}")
    elif missing:
        notes.append(f"markers missing: {missing} (calibrated from the others)")

    ok = (track.flags != COASTED) & np.isfinite(track.diameters) & np.isfinite(track.px).all(axis=1)
    track = replace(track, over_box=_over_box(track.px, camera, rig, pose, radius))
    ok_idx = np.flatnonzero(ok)
    frames = track.frames[ok]
    px = track.px[ok]
    diam = track.diameters[ok]
    flags = track.flags[ok]
    start_frame = int(track.frames[0]) if len(track.frames) else frame_index
    if len(px) < 6:
        verdict = Verdict(
            outcome="void",
            valid=False,
            reasons=["no free flight found"],
            region="outside",
            landing="outside",
            launch_mode=mode,
            bounces_before_box=0,
            release=None,
            herd_line_ok=False,
            entered_box_frame=None,
            rest=None,
            disputed=True,
            dispute_reasons=[*always, "no free flight found in the track"],
            start_frame=start_frame,
            verdict_frame=frame_index,
            evidence=LaunchEvidence(
                **track_evidence(track), markers_missing=len(missing), calibration_doubtful=bool(doubt),
                always_disputed=True, herd_line_known=herd is not None,
            ),
        )
        return verdict, analysis
    px_per_mm = float(np.median(camera.apparent_diameter_px(camera.pixel_to_plane(px[:1], radius), 1.0)))
    times = times_of(frames, track.fps)

    # -- 1. rest: the final stillness and the surface it rests on -------------------------------------
    rest_index = len(px)
    if not track.lost and len(px) > 3:
        tolerance = max(0.9, 1.2 * config.rest_speed_mm_s * config.rest_seconds * px_per_mm)
        rest_index = rest_start(px, tolerance, flags)
    rest_surface = None
    rest_alternatives = []
    # the detector's size scale in flight. A rest's own ratio does not tell it: on dev launches the
    # in-flight ratio (measured / true apparent diameter) spread 0.81-0.99 (10th-90th percentile), and
    # 0.79-1.06 once divided by the launch's rest ratio (blur and the cards under the meteor change it)
    size_scale = config.size_scale_prior
    if not track.lost and rest_index < len(px):
        whole = sizes_by_turns(list(range(rest_index, len(px))), diam)[-1]  # a piece read by turns left out
        rest_px = np.median(px[whole], axis=0)
        rest_diam = float(np.median(diam[whole]))
        rest_surface, rest_alternatives = _rest_surface(camera, rig, pose, rest_px, rest_diam, size_scale)

    # the first hand-free sightings: a run of three clear ones after the throw starts
    diameter_px = float(np.median(diam))
    # the hold's last sighting: the same hold the release fit starts from (one held by a hand the touch
    # ring saw, when there is one: a meteor sliding to a stop in the box is no hold)
    hold = held_still_before_throw(px, times, rest_index, diameter_px, in_hand=flags == HAND,
                                   over_box=track.over_box[ok])
    throw_start = hold[1] - 1 if hold is not None else 0
    if throw_start == 0:
        throw_start = _first_departure(px, rest_index, diameter_px)
    free_start = throw_start + 1
    while free_start < rest_index - 3 and not _clear_run_at(flags, free_start):
        free_start += 1
    free_start = min(free_start, len(px) - 1)
    # no run of clear sightings before the rest: the sighting the search stopped at may be in the hand,
    # and is then no bound on the release (a meteor in the hand to its last sighting, then lost)
    free_seen = _clear_run_at(flags, free_start)
    analysis.free_start_frame = int(frames[free_start])
    analysis.throw_start_frame = int(frames[throw_start])

    # -- 2. release ---------------------------------------------------------------------------------
    est = estimate_release(track, camera, rig.meteor.diameter_mm, size_scale=size_scale)
    for first_pass in (True, False):  # a second pass when the fit is redone to end at the first impact
        analysis.release = est
        if est.reliable and np.all(np.isfinite(est.v_r)) and np.hypot(*est.v_r[:2]) > 100.0:
            direction = est.v_r[:2]
        else:
            end = min(len(px) - 1, max(free_start + 1, rest_index))
            direction = _ground(camera, px[end], radius) - _ground(camera, px[free_start], radius)
        cands = [c for c in est.candidates if c.probability >= CANDIDATE_MIN_P]
        if est.reliable and est.frame is not None and cands:
            release_index = int(np.searchsorted(track.frames, est.frame))
        else:
            release_index = int(ok_idx[free_start])

        # -- 3. bounces -----------------------------------------------------------------------------
        start_state = (est.t_release_s, est.p_r, est.v_r) if est.reliable else None
        flight = segment_flight(
            track,
            camera,
            rig,
            pose,
            release_index,
            rig.meteor.diameter_mm,
            start_state,
            exposure_half_frames=config.exposure_half_frames,
            dispute_sigmas=k,
        )
        if not first_pass:
            break
        refit = _fit_before_the_first_impact(est, flight, track, camera, rig.meteor.diameter_mm, size_scale)
        if refit is None:
            break
        est = refit

    def signed(xy) -> np.ndarray:
        return np.asarray(herd_line_signed(rig, pose, np.asarray(xy).reshape(-1, 2), herd, direction))

    herd_set: set[bool] = {True, False}
    herd_range = None  # (low, high) mm: where the true release may lie across the herd line, when windowed
    release = None
    release_margin = None
    best_signed = None
    analysis.flight = flight
    analysis.positions = flight.positions

    def fit_height_at(index: int) -> float:
        """The release fit's height (mm) of the meteor's centre at sighting `index`."""
        z = est.flight_position(est.frame_time_s(float(frames[index])))[0, 2]
        return float(np.clip(z, radius, 800.0))

    def height_at(index: int) -> tuple[float, float]:
        """The meteor's centre height (mm) at sighting `index` and its one sigma: from the release fit's
        flight, else the flight's arcs, else the apparent size of that sighting and the next few."""
        if est.reliable and est.frame is not None:
            return fit_height_at(index), 10.0
        if np.isfinite(flight.positions[ok_idx[index], 2]):
            return float(np.clip(flight.positions[ok_idx[index], 2], radius, 800.0)), FLIGHT_HEIGHT_MM
        near = slice(index, min(index + 4, len(px)))
        sizes = camera.sphere_from_apparent_size(px[near], diam[near] / size_scale, rig.meteor.diameter_mm)
        return float(np.clip(np.median(sizes[:, 2]), radius, 600.0)), config.release_height_sigma_mm

    # the first hand-free sighting: released no later, so the release is no nearer the box
    z_free, dz = height_at(free_start)
    # the arcs alone, without the release fit's point: a second opinion on the fit's height, which can be
    # grossly wrong (some 300 mm off, a foul called valid). Where the two disagree by more than
    # `ARCS_DISAGREE_MM` the herd call allows both heights
    # the same check for an unreliable fit whose window still places the release at the fit's own height
    # (a meteor hidden round the release can be fitted 300 mm too high); its flight is the arcs alone already
    arcs_z = None
    arcs_gap_mm = None  # the fit's height minus the arcs' alone at the first free sighting they place (evidence)
    err_spread = release_spread(est)  # None: no fit the error model can use (no window)
    first_arc = None  # the flight's first arc alone, when its heights and the fit's disagree
    if est.frame is not None and (start_state is not None or err_spread is not None):
        arcs_alone = flight if start_state is None else segment_flight(
            track, camera, rig, pose, release_index, rig.meteor.diameter_mm, None,
            exposure_half_frames=config.exposure_half_frames, dispute_sigmas=k,
        )
        # compared at the first free sighting the arcs place (one between their stretches has no height)
        alone_z = arcs_alone.positions[ok_idx, 2]
        placed = [i for i in range(free_start, min(free_start + ARCS_LOOKAHEAD, len(px))) if np.isfinite(alone_z[i])]
        if placed:
            z_alone, z_fit = float(alone_z[placed[0]]), fit_height_at(placed[0])
            arcs_gap_mm = z_fit - z_alone
            if abs(z_alone - z_fit) > ARCS_DISAGREE_MM:
                arcs_z = np.clip(arcs_alone.positions[:, 2], radius, 800.0)
                first_arc = next((st for st in arcs_alone.stretches if st.kind == FLIGHT), None)
                notes.append(
                    f"the release fit puts the meteor {z_fit - radius:.0f} mm up at frame {frames[placed[0]]}, "
                    f"the flight's arcs alone {z_alone - radius:.0f} mm: both heights allowed"
                )
    def signed_at_heights(index: int) -> list[float]:
        """The herd-line distance of sighting `index` at its height and k sigmas either side (and at the
        arcs' height, when they disagree with the fit's), the height itself second."""
        z, sigma = height_at(index)
        heights = [max(radius, z - k * sigma), z, z + k * sigma]
        if arcs_z is not None and np.isfinite(arcs_z[ok_idx[index]]):
            z_arcs = float(arcs_z[ok_idx[index]])  # z_alone, clipped as the window's heights are
            heights += [max(radius, z_arcs - k * FLIGHT_HEIGHT_MM), z_arcs + k * FLIGHT_HEIGHT_MM]
        return [float(signed(_ground(camera, px[index], h))[0]) for h in heights]

    late = float("nan")
    if herd is not None:
        late_all = signed_at_heights(free_start)
        late = late_all[1]
        late_lo = min(late_all)
        # the touch ring may see the hand let go a frame early: fingers behind a meteor about to leave
        # cover little of the ring round it, and that sighting, still behind the line, would make a foul a
        # certain valid launch. A release is certain by the hand-free sightings only if the next one is
        # behind the line too
        let_go_lo = min(late_lo, *signed_at_heights(min(free_start + 1, len(px) - 1)))

    def release_window(fit, spread):
        """The frames the true release may lie in round `fit`'s estimate (`spread`), the herd-line
        distance of the fit's position at each, its sigma, and the k-sigma bounds (the sighting itself,
        at the fitted height, widens them).

        The meteor moves towards the box from the hold on (push and flight alike), so where the
        fitted throw crosses towards the box its herd-line distance only falls: a release at a frame
        is no nearer the box than the meteor at any later window frame, and no farther than at any
        earlier one. A frame's bounds are tightened by theirs; the window's range is then that of its
        ends (the growing sigma of the fitted push before the estimate no longer lowers the low bound
        there)."""
        ks = np.arange(fit.frame - spread.late_frames, fit.frame + spread.early_frames + 1)
        pts = fit.model_position((ks + fit.exposure_fraction / 2) / fit.fps)
        values = signed(pts[:, :2])
        sigmas = np.hypot(CALIBRATION_MM, window_sigma_mm(spread, fit.frame - ks))
        lo, hi = values - k * sigmas, values + k * sigmas
        if first_arc is not None:
            # a release at frame k puts the meteor on its free flight at k: the arcs' own flight, carried
            # back, places each window frame at the arcs' heights (arc times count from the sighting
            # `segment_flight` started at, `release_index`)
            on_arc = signed(first_arc.position((ks - track.frames[release_index]) / fit.fps)[:, :2])
            lo, hi = np.minimum(lo, on_arc - k * sigmas), np.maximum(hi, on_arc + k * sigmas)
        for j, frame in enumerate(ks):
            at = np.flatnonzero(track.frames == frame)
            if len(at) and track.flags[at[0]] != COASTED and np.isfinite(track.px[at[0]]).all():
                heights_here = [float(max(pts[j, 2], radius))]
                if arcs_z is not None and np.isfinite(arcs_z[at[0]]):
                    heights_here.append(float(arcs_z[at[0]]))
                for z in heights_here:
                    seen = float(signed(_ground(camera, track.px[at[0]], z))[0])
                    lo[j], hi[j] = min(lo[j], seen - k * sigmas[j]), max(hi[j], seen + k * sigmas[j])
        if np.all(np.diff(values) <= 0.0):  # the fitted throw does cross towards the box
            lo = np.maximum.accumulate(lo[::-1])[::-1]  # no nearer the box than any later frame allows
            hi = np.minimum.accumulate(hi)  # no farther than any earlier frame allows
        return ks, values, sigmas, lo, hi

    window = None  # (frames, signed, sigma) of the frames the true release may lie in
    window_at_both_heights = False  # ... placed at the arcs' heights too, when those disagree with the fit's
    if herd is not None and err_spread is not None:
        ks, values, sigmas, lo, hi = release_window(est, err_spread)
        window_at_both_heights = arcs_z is None or first_arc is not None
        window = (ks, values, sigmas)
        best_frame = est.frame - err_spread.typical_late_frames
        second_opinions = []  # (another fit, why its window counts too)
        rival = _meteor_fit_against_the_hand(est, track, camera, rig.meteor.diameter_mm, size_scale)
        if rival is not None:
            # the hand's clock has heavy tails: where the meteor's own fit disagrees, both windows count
            frames_apart = abs(rival.t_release_s - est.t_release_s) * est.fps
            why = f"the hand's release time and the meteor's own fit disagree by {frames_apart:.1f} frames"
            second_opinions.append((rival, why + ": both windows allowed"))
        pinned = _fit_at_the_expected_scale(est, track, camera, rig.meteor.diameter_mm, size_scale)
        if pinned is not None:
            why = f"the release fit's detector size scale {est.size_scale:.2f} strays from the expected"
            second_opinions.append((pinned, f"{why} {size_scale:.2f}: the fit held at that scale's window allowed too"))
        for other, why in second_opinions:
            _, _, _, other_lo, other_hi = release_window(other, release_spread(other))
            lo, hi = np.concatenate([lo, other_lo]), np.concatenate([hi, other_hi])
            notes.append(why)
        if free_seen and est.frame > frames[free_start]:
            # the fit has the hand still pushing after the meteor was seen clear of it: its clock may be
            # late by more than its window allows, so the release may lie anywhere back to the hold's last
            # sighting (a meteor hidden for a few frames after leaving the hand can be fitted that late)
            held = signed_at_heights(throw_start)
            lo, hi = np.append(lo, min(held)), np.append(hi, max(held))
            window_at_both_heights = False  # the hold, in the hand: no arcs there
            notes.append(
                f"the release fit's frame {est.frame} comes after the first sighting clear of the hand"
                f" ({frames[free_start]}): releases back to the hold's last sighting ({frames[throw_start]}) allowed"
            )
    if herd is None:
        herd_set = {True}
        notes.append("no herd line known: the release is not checked")
    elif window is not None:
        # the herd signs over the frames the error model allows (`vision.release.release_spread`)
        low, high = herd_range = (float(np.min(lo)), float(np.max(hi)))
        herd_set = {high >= 0, low >= 0}
        best_signed = float(values[ks == best_frame][0])
        release_margin = Margin(
            margin_mm=abs(best_signed),
            uncertainty_mm=max(best_signed - low, high - best_signed) / max(k, 1e-9),
        )
        if not est.reliable:
            notes.append(
                f"release estimate unreliable ({est.reason}): frames {ks[0]}–{ks[-1]} allowed ({err_spread.group} fit)"
            )
    else:  # no fit, or one outside the error model: its frame candidates are not to be trusted
        why = est.reason or f"clear-sighting RMS {est.rms_px:.1f} px, {est.free_frames} clear flight sightings"
        notes.append(f"release estimate unreliable ({why}): bracketed by the first hand-free sighting")
    let_go = free_seen and _hand_seen_holding(flags, throw_start, free_start)
    hand_timed = "hand" in est.reason_kinds  # the release timed by the hand letting go (`vision.hand`)
    if herd is not None and let_go_lo - k * BRACKET_SIGMA_MM >= 0 and let_go:
        # even the latest possible release is clearly behind the line: certain, unless the release fit
        # says the meteor was still held beyond the line (then the hand-free sighting was not free)
        agrees = True in herd_set and (best_signed is None or best_signed >= 0)
        herd_set = {True} if agrees else {True, False}
        if release_margin is None:
            release_margin = Margin(margin_mm=let_go_lo, uncertainty_mm=BRACKET_SIGMA_MM)
    if herd is not None and release_margin is None:
        release_margin = Margin(margin_mm=abs(late), uncertainty_mm=float(np.hypot(BRACKET_SIGMA_MM, dz)))
    if window is not None:
        q = est.model_position(est.frame_time_s(float(best_frame)))[0]
        release = JudgedRelease(
            frame=int(best_frame),
            table_mm=(float(q[0]), float(q[1])),
            height_mm=float(q[2]),
            herd_line_signed_mm=best_signed,
        )
    elif herd is None and est.frame is not None and cands and est.reliable:
        c = next((c for c in cands if c.frame == est.frame), cands[0])
        release = JudgedRelease(
            frame=c.frame, table_mm=c.table_mm, height_mm=float(c.height_mm), herd_line_signed_mm=best_signed
        )
    else:
        guess = _bracketed_guess(est.frame, frames, throw_start, free_start)
        xy = _ground(camera, px[guess], z_free)
        guess_signed = None if herd is None else max(float(signed(xy)[0]), late)
        release = JudgedRelease(
            frame=int(frames[guess]),
            table_mm=(float(xy[0]), float(xy[1])),
            height_mm=float(z_free),
            herd_line_signed_mm=guess_signed,
        )
        best_signed = guess_signed
    if arcs_z is not None and herd is not None and not (window is not None and window_at_both_heights):
        # the fit's height is in doubt: only a window placed at the arcs' heights too bounds the release
        # (a release well behind the line can have a window lying wholly over it at the fit's height).
        # Without a window, or with one reaching back into the hold, the release is unsure
        herd_set = {True, False}
    hold_seen = let_go or hand_timed
    release_unseen = herd is not None and not hold_seen and herd_set == {False}
    if release_unseen:
        # no hand seen on the meteor before its flight: the flight may have begun unseen, earlier and so
        # farther behind the line (the meteor flies towards the box). A foul is then not certain; a
        # release found behind the line stays behind it
        herd_set = {True, False}
    herd_ok = (best_signed is None or best_signed >= 0) if len(herd_set) > 1 else next(iter(herd_set))
    analysis.release_index = release_index
    over_box = release is not None and outline_signed_mm(rig, pose, np.asarray(release.table_mm)) > -radius
    if over_box:
        always.append("release judged over the box: the throw's start may have been missed")
        if len(herd_set) > 1:
            # nobody throws from over the box: that is the first sighting of a flight begun unseen, and
            # nothing seen puts its release beyond the line, so no foul is called (the call stays disputed)
            herd_ok = True

    if not flight.stretches:
        always.append("no free flight found in the track")
    judged_bounces = []
    for imp in flight.impacts:
        if not imp.bounce:
            continue
        judged_bounces.append(
            JudgedBounce(
                frame=imp.frame,
                table_mm=imp.table_mm,
                surface=imp.surface,  # type: ignore[arg-type]
                before_box=imp.before_box,
                confidence=0.5 if imp.doubtful else 1.0,
            )
        )
    analysis.bounce_indices = [int(np.searchsorted(track.frames, b.frame)) for b in judged_bounces]
    count = flight.bounces_before_box
    enough_set = {flight.count_min >= required, flight.count_max >= required}
    enough = count >= required if len(enough_set) > 1 else next(iter(enough_set))
    bounce_margin = Margin(
        margin_mm=float(abs(count - required + 0.5) - 0.5), uncertainty_mm=float(flight.count_max - flight.count_min)
    )
    # stretches of the flight before the box that nobody saw may hide table bounces: the count is
    # then only a lower bound
    unseen = []
    carried_in = _hand_seen_on(flags[:HAND_SEEN_FRAMES])  # moving in the hand, not in flight
    if throw_start == 0 and not carried_in and _image_speed_px(frames, px, int(frames[0]), int(frames[5])) > MOVING_PX:
        unseen.append("the track starts in flight")
    elif not hold_seen:
        # no hand seen on the meteor before it flew: what looked like its hold may have been the meteor
        # slowing in a flight that began unseen (in a bounce, on the rim)
        unseen.append("no hand seen holding the meteor before its flight")
    end_frame = flight.entered_box_frame
    if end_frame is None:
        end_frame = int(frames[rest_index]) if rest_index < len(px) else int(track.frames[-1]) + 1
    seen_from = min(int(track.frames[release_index]), int(frames[throw_start]))
    seen_frames = frames[(frames >= seen_from) & (frames <= end_frame)]
    gaps = np.diff(seen_frames) - 1 if len(seen_frames) > 1 else np.zeros(0)
    if len(gaps) and int(gaps.max()) >= MAX_UNSEEN_FRAMES:
        unseen.append(f"meteor unseen for {int(gaps.max())} frames before the box")
    elif len(gaps) and gaps.sum() > 0:
        notes.append(f"meteor unseen for {int(gaps.sum())} frame(s) in flight (bridged by the arcs)")
    hand_gap = not est.reliable and frames[free_start] - frames[throw_start] >= MAX_UNSEEN_FRAMES
    fit_spans_the_gap = err_spread is not None and track.fps >= FIT_SPANS_HAND_GAP_MIN_FPS
    if hand_gap and not fit_spans_the_gap:
        unseen.append("the flight between the hand and the first clear sighting")
    elif hand_gap:
        notes.append("the release fit's arc spans the flight between the hand and the first clear sighting")
    if track.lost and flight.entered_box_frame is None:
        unseen.append("meteor left the view before reaching the box")
    elif track.lost:
        # over the box by the arcs, then out of the picture: the entry may have been a pass over the
        # outline (heights are weak), and table bounces after it, seen or not, would count (the arcs may
        # have it over the box at what was a table bounce)
        unseen.append("meteor left the view after the arcs had it over the box")
    size_ratio = flight_size_ratio(track, flight, camera, rig.meteor.diameter_mm, release_index)
    if size_ratio < FLIGHT_SIZE_MIN:
        unseen.append(f"in flight the meteor reads {size_ratio:.0%} of the size its arcs' height implies")
    flight_start = int(track.frames[release_index])
    if flight.entered_box_frame is not None:
        free_before_box = (frames >= flight_start) & (frames < flight.entered_box_frame) & (flags != HAND)
        if np.count_nonzero(free_before_box) < ENTRY_SIGHTINGS_MIN:
            unseen.append(
                f"the flight's arcs put the meteor over the box after {np.count_nonzero(free_before_box)} "
                "sighting(s) of it in flight"
            )
    speed_before = _image_speed_px(frames, px, flight_start - 3, flight_start)
    speed_after = _image_speed_px(frames, px, flight_start, flight_start + 3)
    if speed_before > 0 and speed_after / speed_before < SLOWDOWN_RATIO:
        unseen.append(f"the meteor slows to {speed_after / speed_before:.0%} of its speed as the flight starts")
    sunk = sunk_sighting(track, flight, radius, release_index)
    if sunk is not None:
        unseen.append(f"the arcs put the meteor {sunk[1]:.0f} mm into the table at frame {sunk[0]}, no bounce near")
    if unseen:
        enough_set.add(True)
        notes.append("table bounce count is a lower bound: " + "; ".join(unseen))
    # table bounces after the judged box entry of a meteor that does not end in the box: the entry
    # may have been a pass over the outline, and those bounces may then count
    ends_outside = rest_surface is None or outline_signed_mm(rig, pose, np.asarray(rest_surface[1])) < 0
    later_table = table_bounces_after_entry(flight.impacts)
    after_entry = ""  # those bounces, when they may count
    if flight.entered_box_frame is not None and ends_outside and later_table:
        after_entry = f"{later_table} table bounce(s) after a box entry that did not end in the box"
        if count + later_table >= required:
            enough_set.add(True)
        notes.append(after_entry)

    # -- 1b. the place ------------------------------------------------------------------------------
    rest = None
    region_call = None
    region_margin = None
    places: set[Place]
    if rest_surface is not None:
        kind, xy = rest_surface
        region_call = classify_point(rig, pose, xy, on_rim=(kind == "rim"))
        sigma_rest = float(np.hypot(CALIBRATION_MM, 0.3 / px_per_mm))
        region_margin = Margin(margin_mm=region_call.margin_mm, uncertainty_mm=sigma_rest)
        places = set()
        for alt_kind, alt_xy in rest_alternatives:
            places |= possible_places(rig, pose, alt_xy, alt_kind == "rim", k * sigma_rest)
        rest = JudgedRest(
            frame=int(frames[rest_index]), table_mm=(float(xy[0]), float(xy[1])), box_mm=region_call.box_mm
        )
        if track.ended_early:
            always.append("the clip ended before the meteor was still for long")
    else:
        places = {("outside", "outside", None)}
        last = px[-1]
        w, h = track.frame_size
        edge = 3 * float(np.median(diam))
        at_edge = last[0] < edge or last[1] < edge or last[0] > w - edge or last[1] > h - edge
        gap = -outline_signed_mm(rig, pose, _ground(camera, last, radius))
        if not track.lost:
            always.append("no rest found")
        elif not at_edge:
            always.append("meteor lost from view inside the picture")
            in_box = None if flight.entered_box_frame is None else _over_box_floor(camera, rig, pose, last, radius)
            if in_box is not None:
                # it came into the box and was never seen to leave: judged where it was last seen there
                region_call = in_box
                places = {(in_box.region, in_box.landing, in_box.dinosaur)}
                notes.append(f"meteor last seen over the box floor in {in_box.region}: judged there")
        elif gap < EDGE_FAR_FROM_BOX_MM:
            always.append(f"meteor left the picture {gap:.0f} mm from the box")
        else:
            notes.append(f"meteor left the picture {gap:.0f} mm from the box: outside")

    # -- 4. the ruling and the disputes that matter ---------------------------------------------------
    rulings, deciding = possible_rulings(herd_set, enough_set, places)
    analysis.rulings = rulings
    dispute = list(always)
    detail = {
        "herd_line": f"release {best_signed if best_signed is not None else float('nan'):+.0f} mm from the herd line"
        + (
            " (no hand seen holding the meteor: its flight may have begun earlier, farther behind the line)"
            if release_unseen
            else " (the release fit's height and the flight's arcs' disagree: release unsure)"
            if arcs_z is not None
            else f" ({herd_range[0]:+.0f} to {herd_range[1]:+.0f} mm possible)"
            if herd_range is not None
            else f" (±{release_margin.uncertainty_mm if release_margin else 0:.0f} mm, release unsure)"
        ),
        "bounces": f"table bounces before the box {flight.count_min}–{'?' if unseen else flight.count_max}, "
        f"{mode} needs {required}"
        + (f" (unseen: {'; '.join(unseen)})" if unseen else "")
        + (f" ({'; '.join(flight.doubtful_reasons)})" if flight.doubtful_reasons else "")
        + (f" ({after_entry}: the entry may have been a pass over the outline)" if after_entry else ""),
        "region": f"rests {region_margin.margin_mm if region_margin else 0:.1f} mm from a region border",
    }
    if len(rulings) > 1:
        dispute += [detail[name] for name in deciding]
    uncertain = {
        "herd_line": len(herd_set) > 1,
        "bounces": len(enough_set) > 1 or flight.count_ambiguous,
        "region": len(places) > 1,
    }
    for name, unsure in uncertain.items():
        if unsure and not (len(rulings) > 1 and name in deciding):
            notes.append(detail[name] + ": cannot change the ruling")

    reasons: list[str] = []
    if not herd_ok:
        reasons.append("released over the herd line")
    if not enough:
        reasons.append(
            "no table bounce before the box" if count == 0 else f"{count} table bounce(s) but {mode} needs {required}"
        )
    if region_call is None:
        place = ("outside", "outside", None)
    else:
        place = (region_call.region, region_call.landing, region_call.dinosaur)
    outcome, dinosaur, valid = ruling_of(herd_ok, enough, place)
    margins = {"bounces": bounce_margin}
    if release_margin is not None:
        margins["herd_line"] = release_margin
    if region_margin is not None:
        margins["region"] = region_margin
    evidence = LaunchEvidence(
        **track_evidence(track),
        **flight_evidence(flight),
        px_per_mm=px_per_mm,
        markers_missing=len(missing),
        calibration_doubtful=bool(doubt),
        always_disputed=bool(always),
        herd_line_known=herd is not None,
        release_fit_reliable=est.reliable,
        release_fit_group=err_spread.group if err_spread is not None else None,
        release_fit_reasons=list(est.reason_kinds),
        release_fit_rms_px=est.rms_px,
        release_fit_free_frames=est.free_frames,
        release_fit_hidden_frames=est.hidden_frames,
        release_fit_covered_sightings=len(est.covered_indices),
        release_time_sigma_frames=est.sigma_s * est.fps,
        release_size_scale_stray=est.size_scale - size_scale,
        release_window_late_frames=err_spread.late_frames if err_spread is not None else None,
        release_window_early_frames=err_spread.early_frames if err_spread is not None else None,
        release_second_opinions=len(second_opinions) if window is not None else 0,
        hand_timed=hand_timed,
        hand_meteor_disagree_frames=(rival.t_release_s - est.t_release_s) * est.fps
        if window is not None and rival is not None
        else None,
        arcs_fit_height_gap_mm=arcs_gap_mm,
        throw_to_free_frames=int(frames[free_start] - frames[throw_start]),
        hand_free_seen=free_seen,
        hand_seen_letting_go=let_go,
        release_height_mm=release.height_mm if release is not None else None,
        release_speed_px_per_frame=speed_after,
        release_blur_diameters=speed_after / diameter_px if diameter_px > 0 else None,
        release_slowdown_ratio=speed_after / speed_before if speed_before > 0 else None,
        herd_signed_mm=best_signed,
        herd_low_mm=herd_range[0] if herd_range is not None else None,
        herd_high_mm=herd_range[1] if herd_range is not None else None,
        herd_first_free_signed_mm=late if herd is not None else None,
        herd_first_free_low_mm=let_go_lo if herd is not None else None,
        herd_first_free_height_sigma_mm=dz,
        herd_margin_mm=release_margin.margin_mm if release_margin is not None else None,
        herd_uncertainty_mm=release_margin.uncertainty_mm if release_margin is not None else None,
        herd_call_unsure=uncertain["herd_line"],
        release_over_box=over_box,
        bounces_required=required,
        bounces_counted=count,
        bounce_count_lower_bound=bool(unseen),
        bounce_unseen_reasons=unseen,
        flight_gap_frames_max=int(gaps.max()) if len(gaps) else 0,
        flight_sightings_before_box=int(np.count_nonzero(free_before_box))
        if flight.entered_box_frame is not None
        else None,
        flight_size_ratio=size_ratio,
        flight_sunk_mm=sunk[1] if sunk is not None else None,
        table_bounces_after_entry=later_table,
        bounces_call_unsure=uncertain["bounces"],
        rest_found=rest_surface is not None,
        rest_surface=rest_surface[0] if rest_surface is not None else None,
        rest_sightings=len(px) - rest_index if rest_surface is not None else None,
        rest_alternatives=len(rest_alternatives),
        region_margin_mm=region_margin.margin_mm if region_margin is not None else None,
        region_uncertainty_mm=region_margin.uncertainty_mm if region_margin is not None else None,
        region_places=len(places),
        region_call_unsure=uncertain["region"],
        left_picture_from_box_mm=gap if rest_surface is None else None,
    )
    verdict = Verdict(
        outcome=outcome,  # type: ignore[arg-type]
        dinosaur=dinosaur,
        valid=valid,
        reasons=reasons,
        region=place[0],
        landing=place[1],  # type: ignore[arg-type]
        launch_mode=mode,
        bounces_before_box=count,
        bounces=judged_bounces,
        release=release,
        herd_line_ok=herd_ok,
        entered_box_frame=flight.entered_box_frame,
        rest=rest,
        disputed=bool(dispute),
        dispute_reasons=dispute,
        margins=margins,
        notes=notes,
        start_frame=start_frame,
        verdict_frame=frame_index,
        evidence=evidence,
        ruling_probability=ruling_probability(evidence.model_dump()),
    )
    return verdict, analysis
