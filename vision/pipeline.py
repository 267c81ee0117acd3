"""The streaming launch judge: frames in, events out, the same code for a camera and a file.

    judge = LaunchJudge(rig, calibration=None, config=JudgeConfig(launch_mode="standard"), fps=60.0)
    for index, frame in read_frames(path):
        for event in judge.process(frame, index): ...
    events = judge.finish()

States: `calibrating` (until the markers give a calibration) → `waiting` (no meteor moving) →
`in_hand` (the meteor is seen and tracked, carried by the hand) → `in_flight` (released: moving on
its own) → `at_rest` (still for 0.2 s: the verdict is given) → `waiting` again once the meteor is
picked up or gone. Per frame the work is the detector's (downscaled colour mask, one small
full-resolution window) and a 6×6 Kalman step; the 3D analysis (arcs, impacts, release, rest) runs
once per launch, on the buffered pixel track, when the meteor comes to rest.
"""

from __future__ import annotations

import bisect
import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from calibration.geometry import BoxPose
from calibration.rig import Rig
from vision import unjudged
from vision.backtrack import BacktrackSettings, KeptFrames, frames_to_keep, walk_back, walk_into_hold
from vision.box_follow import BoxFollower
from vision.box_rest import BoxRestSettings, FloorBlob, FloorChanges, new_against_all
from vision.decision import LaunchDecision
from vision.detector import FAINT_MIN_SWEEP, Detection, MeteorDetector, streak_area_max_px
from vision.hand import HandWatch, hand_reach_box
from vision.heat_flight import FlyingPeaks, HeatFlightSettings
from vision.heatmap import FRAMES as HEATMAP_FRAMES
from vision.heatmap import best_peaks_px, peak_in_window, reduce_frame
from vision.landing import herd_line_in_use, herd_line_signed, outline_signed_mm
from vision.likeness import shipped_model as likeness_model
from vision.release import G_MM_S2
from vision.shadow import ShadowWatch
from vision.track import COASTED, HAND, PARTIAL, SEEN, LaunchTrack, sizes_by_turns
from vision.tracker import KalmanTracker
from vision.verdict import Verdict

EventKind = Literal["calibrated", "state", "release", "bounce", "entered_box", "rest", "verdict", "warning"]
State = Literal["calibrating", "waiting", "in_hand", "in_flight", "at_rest"]

HAND_TOUCH = 0.2  # a sighting whose ring a hand covers more than this is touching the hand
# a still meteor with more of the ring of `MeteorDetector.hand_nearby` changed is in a hand (14 generated
# clips: 0.09–0.28 round the 10 held meteors, at most 0.001 round meteors at rest)
HAND_NEARBY = 0.05
# box searches in a row (`JudgeConfig.search_every` frames apart) that must find the same meteor lying in
# the box, far from the one held, before its launch counts as missed
UNSEEN_LAUNCH_SEARCHES = 3
# pictures of the box from before a launch kept beside the background as a hold begins: those of the
# first frames with no launch under way, which a spell that judged nothing leaves in place
BEFORE_LAUNCH_KEPT = 2
VANISH_SIGHTINGS = 2  # a held meteor lost within this many sightings of leaving its hold may be flung
SHADOW_MIN_MOVE_PX = 2.0  # a sighting's shadow is measured once the meteor moves this far per frame
PUSH_GROWTH = 1.1  # a push speeds the held meteor up by more than this factor per frame
SLID_OUT_SIGHTINGS = 4  # the last sightings whose speed tells a meteor that slid out of view
EARLY_REST_MIN_FRAMES = 6  # an early rest spans at least this many sightings (at 30 fps: no earlier than a full rest)
# a faint streak (`MeteorDetector.faint_candidates_near`) is looked for only when the tracked meteor
# moves at least `FAINT_MIN_SWEEP` diameters per frame; its diameter must be in this range of the
# meteor's, and a long one must point within this angle of the tracked motion
FAINT_SIZE_RATIO = (0.6, 1.6)
FAINT_MAX_TURN_DEG = 30.0
# a meteor seen free of any hand this many of its diameters (on the table) from where it stopped, or was
# first seen, moved as a launch does: a grip's wobble or a hand's jitter stays within one
LAUNCH_DIAMETERS = 5.0
FOUND_AFTER_LOSS_SECONDS = 3.0  # a meteor found lying still this soon after a launch was lost is that launch's
PICKUP_SECONDS = 3.0  # a track starting this soon after the meteor was picked up from its rest is the carry back


def _contains(streak: Detection, part: Detection) -> bool:
    """Whether a sighting lies on a streak: within half its length along its axis, half its width across."""
    dx, dy = part.x - streak.x, part.y - streak.y
    angle = streak.axis_rad or 0.0
    along = abs(dx * math.cos(angle) + dy * math.sin(angle))
    across = abs(-dx * math.sin(angle) + dy * math.cos(angle))
    return along <= 0.5 * streak.diameter_px * streak.elongation and across <= 0.5 * streak.diameter_px + 2.0


def _flown_blob(
    blobs: list[tuple[float, float, float, int]],
    last_points: list[tuple[float, float]],
    steps_px: tuple[float, float],
    disc_area_px: float,
) -> tuple[float, float, float, int] | None:
    """Of `blobs` (x, y, area, label), the one nearest the meteor's disc area that lies a flight's step
    (between the two `steps_px`) from one of `last_points`, where the last search found moving blobs."""
    low, high = steps_px
    best, best_miss = None, math.inf
    for blob in blobs:
        x, y, area, _label = blob
        if not any(low <= math.hypot(x - px, y - py) <= high for px, py in last_points):
            continue
        miss = abs(math.log(area / disc_area_px))
        if miss < best_miss:
            best, best_miss = blob, miss
    return best


@dataclass
class JudgeConfig:
    launch_mode: Literal["standard", "hard_velociraptor"] = "standard"
    scale: int = 4  # detection works on a frame this many times smaller
    calibrate_every: int = 3  # frames between calibration attempts while calibrating ...
    calibrate_every_max: int = 24  # ... doubling after each failure up to this: a scene that never
    # calibrates (markers covered, a rig for another table) cost a whole-frame marker search every 3 frames
    marker_check_every: int = 300  # frames between full table-marker checks (a bump triggers one at once)
    rest_seconds: float = 0.2  # stillness that makes a rest (the label's definition)
    rest_speed_mm_s: float = 12.0  # below this the meteor counts as still (label: 5, plus our noise)
    early_rest_seconds: float = 0.1  # a shorter stillness that ends a flight when the meteor is clearly still ...
    early_rest_floor_px: float = 0.4  # ... within this much of its latest position, at least (see `_rest_decided`)
    lost_seconds: float = 0.35  # a meteor unseen this long in flight is lost
    flung_wait_seconds: float = 1.5  # a meteor flung from the hand out of the tracker's reach is looked
    # for this long where it lands
    gone_out_of_view_seconds: float = 0.05  # a meteor that slid out of view (see `_slid_out_of_view`) and
    slid_out_speed_mm_s: float = 300.0  # was no faster than this is lost after this long unseen
    regain_seconds: float = 0.5  # a meteor lost in flight is looked for this long over the whole picture
    # (the tracker may have followed something else) before its launch is judged lost
    flick_mm_s: float = 2000.0  # never found again, it was thrown if the tracker's predictions reached this
    # speed (an assumption: a hand carrying the meteor away does not accelerate it so hard)
    sigma_px: float = 0.5  # centroid noise of a clear sighting
    size_scale_prior: float = 0.95  # measured / true apparent diameter of the meteor in flight
    dispute_sigmas: float = 2.0  # a margin inside this many uncertainties is disputed
    min_launch_px: float = 40.0  # a launch moves the meteor at least this far (pixels)
    background_rate: float = 0.03  # background blend per two frames
    background_every: int = 16  # frames between small-background updates (each reduces the whole frame)
    full_background_every: int = 16  # frames between full-resolution background updates (half a period after)
    search_every: int = 8  # while nothing is tracked and nothing changes, frames between whole-frame searches
    flying_search_every: int = 2  # while a meteor is held still, frames between searches for one flying elsewhere
    flying_min_sweep: float = 0.3  # a blob moving at least this many meteor diameters per frame is flying ...
    flying_max_speed_mm_s: float = 10000.0  # ... and no faster than this, ...
    flying_min_size: float = 0.5  # ... and at least this share of the meteor's diameter across, ...
    flying_min_moving: float = 0.5  # ... with at least this share of its pixels changed from the background
    release_height_sigma_mm: float = 60.0  # one sigma of the release height
    exposure_half_frames: float = 0.35  # a sighting is the middle of the exposure: this far into its frame
    max_track_frames: int = 1800
    # how much a blob looks like the meteor (`vision.likeness`): outside a hold, a whole-frame search starts
    # on its most meteor-like blob, and in flight a blob less meteor-like than this is not taken for it
    use_likeness: bool = True
    min_likeness_in_flight: float = 0.05
    # wherever a track is followed and the colour test finds nothing in its gate, the learned detector
    # (`vision.heatmap`) looks in a window round the prediction; its peak is the meteor at this probability
    # or more and this many meteor diameters from the prediction or fewer (farther peaks are seldom on it)
    use_heatmap: bool = True
    heatmap_min_probability: float = 0.7
    heatmap_reach_diameters: float = 3.0
    # a meteor unseen in flight is looked for by the learned detector over the whole picture too, taken where
    # its peaks in frames in a row move as a flight does (`vision.heat_flight`; None: not looked for)
    heat_flight: HeatFlightSettings | None = field(default_factory=HeatFlightSettings)
    # while the tracker coasts in flight, its acceleration is held to this many g at the picture's largest scale
    coast_max_accel_g: float = 0.5
    follow_box: bool = True  # move the background's picture of the box with a bumped or tapped box
    # a meteor lost in flight, or never seen, is also looked for lying in the box, as a change from the box
    # before the launch
    box_rest: BoxRestSettings = field(default_factory=BoxRestSettings)
    # a flight picked up late is followed backwards through the last frames kept (`vision.backtrack`)
    backtrack: BacktrackSettings = field(default_factory=BacktrackSettings)


@dataclass
class JudgeEvent:
    kind: EventKind
    frame: int
    message: str
    verdict: Verdict | None = None


@dataclass
class TrackView:
    """The current launch's track, for overlays: numpy arrays, one entry per frame."""

    frames: np.ndarray
    px: np.ndarray  # N×2
    diameters: np.ndarray
    heights: np.ndarray  # mm above the table (NaN where unknown)
    ground: np.ndarray  # N×2 table mm under the meteor (NaN where unknown)
    flags: np.ndarray  # 0 seen, 1 partial, 2 coasted
    release_index: int | None = None
    bounce_indices: list[int] = field(default_factory=list)


@dataclass
class SimpleCalibration:
    """A calibration given directly (e.g. from a label's `camera` and `box_pose`), for development."""

    camera: Any
    box_pose: Any
    herd_line_mm: Any = None
    meteor_rgb: tuple[int, int, int] | None = None
    frame_size: tuple[int, int] = (0, 0)
    markers_seen: list[int] = field(default_factory=list)
    markers_missing: list[int] = field(default_factory=list)


def calibration_from_label(label) -> SimpleCalibration:
    """The true calibration of a labelled clip (for tests and development only: eval must not use it)."""
    return SimpleCalibration(
        camera=label.camera,
        box_pose=label.box_pose,
        herd_line_mm=label.scene.herd_line_mm,
        meteor_rgb=label.scene.meteor.rgb,
        frame_size=tuple(label.frame_size),
    )


class LaunchJudge:
    """Judge every launch in a stream of frames."""

    def __init__(self, rig: Rig, calibration=None, config: JudgeConfig | None = None, fps: float = 60.0,
                 on_decision: Callable[[LaunchDecision, Verdict], None] | None = None) -> None:
        self.rig = rig
        self.config = config or JudgeConfig()
        self.on_decision = on_decision  # told each launch's decision inputs and the verdict they gave
        self.fps = float(fps) if fps and fps > 0 else 30.0
        self.calibration = None
        self.state: State = "calibrating"
        self.detector: MeteorDetector | None = None
        self.tracker = KalmanTracker()
        self.verdicts: list[Verdict] = []
        self._calibration_error: str | None = None
        self._next_calibration_frame = 0  # while calibrating: the next frame to try
        self._calibration_interval = max(1, self.config.calibrate_every)
        self._tracker_cal = None
        self._calibration_tracker = None  # follows a bumped camera and hidden markers once calibrated
        self._gravity_px = math.inf  # gravity's image acceleration, px per frame² (known once calibrated)
        self._unsafe_reason: str | None = None  # why calls are unsafe now (too few markers), if they are
        self._launch_unsafe: str | None = None  # the first unsafe reason seen during the launch in progress
        self._lost_judged = False  # the last launch was judged while lost: it may be seen again in flight
        self._hand = HandWatch()
        self._shadow = ShadowWatch()
        # the last frames (index, BGR) while a launch may be under way, for `_walk_back_if_picked_up_late`
        # (made at the first frame, whose size and the detector's scale set how many are kept, and how)
        self._kept_frames: KeptFrames | None = None
        self._reset_track()
        self._last_frame = -1
        self._watched_from: int | None = None  # the first frame watched calibrated
        self._followed: tuple[int, int] | None = None  # the first and last frames a meteor was held or flying
        self._warned = False  # a warning was given: the footage is not silent about what went unjudged
        self._frame_size: tuple[int, int] | None = None
        self._pending_calibration = calibration
        self._since_search = 0  # frames since the last whole-frame search (while nothing is tracked)
        self._track_size: float | None = None  # the tracked meteor's last apparent length (px)
        self._rest_anchor: tuple[float, float] | None = None
        self._gone_frames = 0
        self._picked_up_at: int | None = None  # the frame the meteor last left its judged rest
        self._lost_launch: tuple[int, str] | None = None  # (frame, where) a meteor moving as a launch was lost
        # that launch's track, kept to be judged as lost if its meteor is not found (`_judged_lost_moving`):
        # (frame lost, the track, why it is disputed)
        self._lost_moving: tuple[int, LaunchTrack, str] | None = None
        self._box_follower: BoxFollower | None = None
        self._latest_bgr: np.ndarray | None = None  # the frame being judged (the box is found again at a rest)
        # the pictures as the launch in progress began, the box follower then and its warp (see `_box_before_launch`)
        self._before_launch: tuple[tuple[np.ndarray, ...], BoxFollower | None, np.ndarray | None] | None = None
        self._before_launch_verdicts = 0  # how many verdicts had been given when those pictures were taken
        self._rest_unseen = False  # at rest where the box search found it lying (`_still_lying_where_judged`)
        self._disturbed: list[tuple[int, tuple[int, int, int, int]]] = []  # (frame, a hand-sized change's box)
        self._uncovered_at: list[tuple[float, float]] = []  # where blobs a hand-sized change uncovered lie
        # (box pose, `_box_floor_view` at it)
        self._floor_view: tuple[BoxPose, tuple[np.ndarray, float]] | None = None
        # (follower warp, the pictures moved by it)
        self._before_launch_moved: tuple[np.ndarray, tuple[np.ndarray, ...]] | None = None

    # ------------------------------------------------------------------ public API

    def process(self, frame_bgr: np.ndarray, frame_index: int) -> list[JudgeEvent]:
        """Judge one frame; the events it completes. The judge keeps the last frames it was given (see
        `BacktrackSettings`): a caller must not write into a frame once it has passed it."""
        events: list[JudgeEvent] = []
        self._last_frame = frame_index
        if self.calibration is None:
            if self._frame_size is None:
                self._frame_size = (frame_bgr.shape[1], frame_bgr.shape[0])
            if self._pending_calibration is not None:
                self._set_calibration(self._pending_calibration, frame_index, events)
                self._pending_calibration = None
            elif frame_index >= self._next_calibration_frame:
                self._try_calibrate(frame_bgr, frame_index, events)
            if self.calibration is None:
                return events
        self._follow_calibration(frame_bgr, frame_index, events)
        self._latest_bgr = frame_bgr
        self._step(frame_bgr, frame_index, events)
        self._note_watched(frame_index, events)
        return events

    def _note_watched(self, frame_index: int, events: list[JudgeEvent]) -> None:
        """Keep what `finish` says when the footage judged nothing: the frames watched, those a meteor was
        followed in, and whether a warning was given."""
        if self._watched_from is None:
            self._watched_from = frame_index
        if self.state in ("in_hand", "in_flight"):
            self._followed = (frame_index if self._followed is None else self._followed[0], frame_index)
        self._warned = self._warned or any(event.kind == "warning" for event in events)

    def finish(self) -> list[JudgeEvent]:
        """End of stream: decide a launch still in progress (the meteor lost, or never still long enough)."""
        events: list[JudgeEvent] = []
        lying = self._lying_unseen  # a blob lying still in the box up to the last frame
        if self.state == "waiting":
            self._judged_lost_moving(self._last_frame, events, ended=True)
        elif self.state in ("in_hand", "in_flight") and len(lying) >= self._early_rest_frames() and \
                lying[-1][0] == self._last_frame:
            self._judge_lying_unseen(self._last_frame, events, final=True)
        elif self.state == "in_flight" and (self._launch_moved() or self._flight_unseen):
            lost = not self.tracker.active or self.tracker.missed > 0
            self._decide_unless_lying_in_box(self._last_frame, events, lost=lost, final=True)
        elif self.state == "in_hand" and not self.tracker.active and (
            self._flung_away() or self._vanished_leaving_hold()
        ):
            self._decide_unless_lying_in_box(self._last_frame, events, lost=True, final=True)
        elif self.state == "in_hand" and (
            doubt := self._stopped_after_moving(ended=True) or self._held_in_box_at_end()
        ):
            self._restore_put_down()
            self._decide(self._last_frame, events, lost=False, final=True, doubt=doubt)
        elif self.state in ("in_hand", "in_flight") and self._frames:
            events.append(JudgeEvent("warning", self._last_frame, self._unjudged_at_end()))
        self._warned = self._warned or any(event.kind == "warning" for event in events)
        if self._watched_from is not None and not self.verdicts and not self._warned:
            # footage that judged no launch says so: a launch the judge never saw is not a silent one
            message = unjudged.nothing_judged(self._watched_from, self._last_frame, self._followed)
            events.append(JudgeEvent("warning", self._last_frame, message))
        return events

    def _unjudged_at_end(self) -> str:
        """What a warning says of the launch under way when the footage ends and it cannot be judged."""
        seen = self._sighting_indices() or [len(self._frames) - 1]
        where = self._where(self._px[2 * seen[-1]], self._px[2 * seen[-1] + 1])
        if self.state == "in_flight":
            return unjudged.in_flight_at_end(self._released_at, where)
        return unjudged.still_held_at_end(self._frames[0], where)

    def _where(self, x_px: float, y_px: float) -> str:
        return unjudged.place_words(self.rig, self.calibration, x_px, y_px)

    def sighting(self, frame_index: int) -> tuple[float, float] | None:
        """Where the track saw the meteor in `frame_index` (pixels), if the last frame judged saw it there
        (not a coasted guess)."""
        if not self._frames or self._frames[-1] != frame_index or math.isnan(self._diam[-1]):
            return None
        return self._px[-2], self._px[-1]

    def current_track(self) -> TrackView:
        frames = np.asarray(self._frames, dtype=np.int64)
        n = len(frames)
        px = np.asarray(self._px, dtype=np.float64).reshape(n, 2)
        heights = np.full(n, np.nan)
        ground = np.full((n, 2), np.nan)
        view = TrackView(frames, px, np.asarray(self._diam, float), heights, ground, np.asarray(self._flags, np.int8))
        if self._analysis is not None and 0 < len(self._analysis.positions) <= n:
            m = len(self._analysis.positions)
            heights[:m] = self._analysis.positions[:, 2]
            ground[:m] = self._analysis.positions[:, :2]
            view.release_index = self._analysis.release_index
            view.bounce_indices = list(self._analysis.bounce_indices)
        return view

    # ------------------------------------------------------------------ calibration

    def _try_calibrate(self, frame_bgr: np.ndarray, frame_index: int, events: list[JudgeEvent]) -> None:
        try:
            from calibration.solve import CalibrationError, calibrate_frame, find_rig_markers
        except ImportError as error:  # pragma: no cover - calibration package incomplete
            if self._calibration_error is None:
                self._calibration_error = str(error)
                events.append(JudgeEvent("warning", frame_index, f"no calibration available: {error}"))
            return
        try:
            markers = find_rig_markers(frame_bgr, self.rig)
            calibration = calibrate_frame(frame_bgr, self.rig, detections=markers)
        except CalibrationError as error:
            if self._calibration_error != str(error):
                events.append(JudgeEvent("warning", frame_index, f"calibration failed: {error}"))
            self._calibration_error = str(error)
            self._next_calibration_frame = frame_index + self._calibration_interval
            self._calibration_interval = min(2 * self._calibration_interval, max(1, self.config.calibrate_every_max))
            return
        self._set_calibration(calibration, frame_index, events)
        self._note_calibration_status(self._calibration_tracker.start(frame_bgr, frame_index, markers), frame_index,
                                      events)

    def _set_calibration(self, calibration, frame_index: int, events: list[JudgeEvent]) -> None:
        self.calibration = calibration
        rgb = getattr(calibration, "meteor_rgb", None) or self.rig.meteor.rgb or (200, 80, 40)
        width, height = self._frame_size or tuple(getattr(calibration, "frame_size", (1280, 720)))
        camera = calibration.camera
        radius = self.rig.meteor.diameter_mm / 2
        # plausible apparent diameters: anywhere over the visible table, from resting to hand height
        grid = np.stack(np.meshgrid(np.linspace(0, width, 5), np.linspace(0, height, 4)), -1).reshape(-1, 2)
        low = camera.pixel_to_plane(grid, radius)
        high = camera.pixel_to_plane(grid, 500.0)
        sizes = camera.apparent_diameter_px(np.vstack([low, high]), self.rig.meteor.diameter_mm)
        resting = sizes[: len(low)]
        # integer power-of-two reductions take OpenCV's fast INTER_AREA path; keep the meteor ≥ ~3 px
        scale = 1
        while scale * 2 <= self.config.scale and resting.min() / (scale * 2) >= 3.0:
            scale *= 2
        self.detector = MeteorDetector(
            (width, height), tuple(int(v) for v in rgb), (0.7 * sizes.min(), 1.3 * sizes.max()), scale
        )
        self._px_per_mm = float(np.median(camera.apparent_diameter_px(low, 1.0)))
        # gravity's image acceleration (px per frame²) at the largest scale in view
        largest_px_per_mm = float(np.max(camera.apparent_diameter_px(np.vstack([low, high]), 1.0)))
        self._gravity_px = G_MM_S2 * largest_px_per_mm / (self.fps * self.fps)
        self._place_box_follower()
        from calibration.tracking import CalibrationTracker

        # the box is refreshed before each launch (`_refresh_box`): its per-frame patch watch is not needed
        self._calibration_tracker = CalibrationTracker(
            calibration, self.rig, every=self.config.marker_check_every, watch_box=False
        )
        missing = list(getattr(calibration, "markers_missing", []) or [])
        message = "calibrated" + (f"; markers missing: {missing}" if missing else "")
        events.append(JudgeEvent("calibrated", frame_index, message))
        self._set_state("waiting", frame_index, events)

    def _refresh_box(self, frame_bgr: np.ndarray, frame_index: int, events: list[JudgeEvent]) -> None:
        """Find the box again from its markers (it moves before every launch); the camera is checked too."""
        from calibration.solve import CalibrationError

        try:
            self._calibration_tracker.refresh_box(frame_bgr, frame_index)
        except (CalibrationError, ValueError) as error:
            events.append(JudgeEvent("warning", frame_index, f"box pose not refreshed: {error}"))
            return
        self.calibration = self._calibration_tracker.calibration
        self._place_box_follower()
        self._note_calibration_status(self._calibration_tracker.status, frame_index, events)

    def _place_box_follower(self) -> None:
        """Follow the box from where the calibration puts it now."""
        self._box_follower = None
        if self.config.follow_box and self.detector is not None:
            self._box_follower = BoxFollower(self.rig, self.calibration.box_pose, self.calibration.camera,
                                             self.detector)

    def _follow_box(self, frame_bgr: np.ndarray) -> None:
        """A bumped or tapped box: its picture in the background moves with it (`vision/box_follow.py`)."""
        if self._box_follower is None or self.state not in ("waiting", "in_hand", "in_flight"):
            return
        meteor = None
        if self.tracker.active and self.tracker.x is not None:
            size = self._track_size or 20.0
            meteor = (float(self.tracker.x[0]), float(self.tracker.x[1]), 0.75 * size + 4.0)
        if self._box_follower.follow(frame_bgr, self.detector, meteor):
            self.detector.forget_scene()

    def _find_box_at_rest(self, frame_index: int) -> None:
        """The box moved during the launch (tapped in a hard-mode T-Rex launch, or bumped): find it again
        from its markers where the meteor lies still, so that the rest is placed in the box where it is.
        Where its markers cannot be read now, the pose found before the launch stays."""
        from calibration.solve import CalibrationError

        follower = self._box_follower
        if follower is None or follower.moves == 0 or self._latest_bgr is None:  # a new follower each time it is found
            return
        try:
            self._calibration_tracker.refresh_box(self._latest_bgr, frame_index)
        except (CalibrationError, ValueError):
            return
        self.calibration = self._calibration_tracker.calibration
        self._place_box_follower()

    def _follow_calibration(self, frame_bgr: np.ndarray, frame_index: int, events: list[JudgeEvent]) -> None:
        """Cheap per-frame watch of the markers: a bumped camera is followed, hidden markers make calls unsafe."""
        status = self._calibration_tracker.update(frame_bgr, frame_index)
        if not status.checked:
            return
        if status.camera_moved:
            self.calibration = status.calibration
            # the picture moved under the background model: learn it again, and doubt a launch under way
            self.detector.background = None
            if self.state in ("in_hand", "in_flight") and self._launch_unsafe is None:
                self._launch_unsafe = "the camera moved during the launch"
            events.append(JudgeEvent("calibrated", frame_index, "the camera moved: calibration follows the markers"))
        self._note_calibration_status(status, frame_index, events)

    def _note_calibration_status(self, status, frame_index: int, events: list[JudgeEvent]) -> None:
        reason = None if status.safe else status.reason
        if reason != self._unsafe_reason:
            message = f"calibration unsafe: {reason}" if reason else "markers visible again: calls are safe"
            events.append(JudgeEvent("warning", frame_index, message))
            self._unsafe_reason = reason
        if reason and self.state in ("in_hand", "in_flight") and self._launch_unsafe is None:
            self._launch_unsafe = reason

    # ------------------------------------------------------------------ per frame

    def _reset_track(self) -> None:
        self._frames: list[int] = []
        self._px: list[float] = []
        self._diam: list[float] = []
        self._flags: list[int] = []
        self._shadow_px: list[float] = []  # x, y of each sighting's shadow (NaN where not measured)
        self._box: list[float] | None = None  # x min, x max, y min, y max of the track
        self._analysis = None
        self._launch_unsafe = self._unsafe_reason
        self._still_count = 0
        self._unseen = 0
        self._flight_unseen = False  # the meteor was found lying in the box, its launch missed
        self._released_at: int | None = None  # the frame the meteor was judged released (the flight's start)
        self._regain_deadline: int | None = None  # lost in flight: the frame the search for it ends
        self._flying_peaks = FlyingPeaks(self.config.heat_flight)  # the heat map's peaks while a flight is unseen
        self._regained: list[tuple[int, int]] = []  # (frame, frames unseen before) each time it was found again
        self._in_box_elsewhere: tuple[float, float, int] | None = None  # (x, y, searches in a row)
        # the last search for a meteor flying elsewhere: (frame, [(x, y) of each moving blob])
        self._flying_elsewhere: tuple[int, list[tuple[float, float]]] | None = None
        self._found_flying: int | None = None  # the frame this track started from a meteor found flying
        self._walked_back_from: int | None = None  # the first sighting of the last flight followed backwards
        self._lying_unseen: list[tuple[int, FloorBlob]] = []  # lost in flight: a blob lying still in the box since
        self._hand.reset()
        self._shadow.reset()
        # where a hand the touch ring did not see holds the meteor (see `_hand_seen_nearby`)
        self._unseen_hand_hold: tuple[float, float] | None = None
        # the flight dropped when the meteor was taken for carried into view and put down (`_hold_again`):
        # (frames, px, diameters, flags, shadow px) of the sightings before the hold, judged if no throw follows
        self._put_down: tuple[list[int], list[float], list[float], list[int], list[float]] | None = None

    def _set_state(self, state: State, frame_index: int, events: list[JudgeEvent], message: str = "") -> None:
        if state != self.state:
            if state == "waiting" and len(self.verdicts) > self._before_launch_verdicts:
                # after a verdict, the picture at the first frame of waiting is taken (`_advance_state`); after
                # a spell that judged nothing (a hand, a card, a meteor the tracker lost), the pictures from
                # before it stay: the meteor of a launch the tracker never saw may lie in the box by now
                self._before_launch = None
            self.state = state
            events.append(JudgeEvent("state", frame_index, message or state))
            # unseen in flight, the meteor flies free; unseen in a hand, the hand may still push it
            free = state == "in_flight" and math.isfinite(self._gravity_px)
            self.tracker.max_coast_accel_px = self.config.coast_max_accel_g * self._gravity_px if free else math.inf

    def _step(self, frame_bgr: np.ndarray, frame_index: int, events: list[JudgeEvent]) -> None:
        detector = self.detector
        assert detector is not None
        cfg = self.config
        small: np.ndarray | None = None  # the whole reduced frame, made only on the frames that need it
        first = detector.background is None
        if first:
            small = detector.reduce(frame_bgr)
            detector.update_background(small, None, 1.0)
            detector.update_full_background(frame_bgr, None, 1.0)
        else:
            self._follow_box(frame_bgr)
        detection: Detection | None = None
        tracker = self.tracker
        started = False
        self._keep_frame(frame_index, frame_bgr)
        if tracker.active:
            px, py, gate = tracker.predict()
            # the tracker never leaves its gate: only a window round the prediction is searched,
            # sized for the tracked meteor (a larger one when a blob does not fit)
            size = self._track_size
            in_flight = self.state == "in_flight"  # where a blob's likeness is read (with its motion)
            candidates = detector.candidates_near(
                frame_bgr, px, py, detector.search_reach(gate, size), detector.search_reach(gate), in_flight
            )
            detector.forget_scene()
            best, best_d, best_index = None, math.inf, -1
            for index, (cx, cy, area, _frac, label) in enumerate(candidates):
                d = math.hypot(cx - px, cy - py)
                if d < best_d:
                    best, best_d, best_index = (cx, cy, area, label), d, index
            if best is not None and in_flight and self._unlike_the_meteor(candidates, best_index):
                best = None  # something else in the gate: the meteor is lost, or hidden
            if best is not None and best_d <= gate + math.sqrt(best[2]) * 0.5:
                box = detector.last_boxes.get(best[3])
                detection = detector.refine(frame_bgr, best[0], best[1], best[2], box)
                if detection is not None and not tracker.in_gate(detection.x, detection.y):
                    detection = None
            if detection is None:
                detection = self._faint_streak(frame_bgr, px, py, gate)
                if detection is None:
                    detection = self._heat_sighting(frame_index, px, py)
                if detection is None:
                    detection = self._flung_meteor_flying(frame_bgr, frame_index)
                    if detection is not None:
                        tracker.start(detection.x, detection.y)
                        started = True
                        self._note_regained(frame_index)
            elif self._only_part_of(detection) and self._touch(detection) <= HAND_TOUCH:
                streak = self._faint_streak(frame_bgr, px, py, gate)
                if streak is not None and _contains(streak, detection):
                    detection = streak
        if detection is None:
            # nothing in the gate, or nothing tracked: in flight, the learned detector looks over the whole picture
            flying = self._heat_flight_found(frame_index)
            if flying is not None:
                detection, velocity_px = flying
                if not (tracker.active and tracker.in_gate(detection.x, detection.y)):
                    tracker.start(detection.x, detection.y, velocity_px)
                    started = True
                    self._note_regained(frame_index)
        if not tracker.active and detection is None:
            # nothing tracked: the whole frame is searched when something changed since the last
            # fruitless search (a strided sample tells), and every `search_every` frames anyway
            candidates = []
            self._since_search += 1
            if first or self._since_search >= cfg.search_every or detector.changed(frame_bgr):
                small = detector.reduce(frame_bgr) if small is None else small
                candidates = detector.candidates(small)
                self._since_search = 0
                if candidates:
                    detector.forget_scene()
                else:
                    detector.remember_scene(frame_bgr)
            best = None
            # in a hold the meteor is partly hidden in the hand, unlike the free meteors the model learned
            likeness = self._likeness(candidates) if self.state not in ("waiting", "in_hand") else None
            for index, (cx, cy, area, frac, label) in enumerate(candidates):
                score = area * (0.3 + frac) if likeness is None else float(likeness[index])
                if best is None or score > best[3]:
                    best = (cx, cy, area, score, label)
            if best is not None:
                detection = detector.refine(frame_bgr, best[0], best[1], best[2], detector.last_boxes.get(best[4]))
                if detection is not None:
                    tracker.start(detection.x, detection.y)
                    started = True
                    if self.state in ("in_hand", "in_flight") and self._frames:
                        self._note_regained(frame_index)

        if detection is not None:
            if not started:
                doubtful = detection.partial or detection.faint
                tracker.update(detection.x, detection.y, cfg.sigma_px * (3.0 if doubtful else 1.0))
            self._unseen = 0
            self._track_size = detection.diameter_px * detection.elongation
            if self._touch(detection) > HAND_TOUCH or self._hand_seen_nearby(frame_bgr, detection):
                flag = HAND
            else:
                flag = PARTIAL if detection.partial or detection.faint else SEEN
            self._record(frame_index, detection.x, detection.y, detection.diameter_px, flag)
            if flag != HAND:
                self._measure_shadow(frame_bgr, frame_index, detection)
        elif tracker.active:
            lost = tracker.miss()
            self._unseen += 1
            if lost:
                self._track_size = None
            if not lost and tracker.x is not None:
                self._record(frame_index, float(tracker.x[0]), float(tracker.x[1]), np.nan, COASTED)
        else:
            self._unseen += 1

        # background: slow, and never under the meteor; each update reads the whole frame, so they
        # are rare, and the small and the full-resolution one fall on different frames
        if not first:
            every = cfg.background_every if cfg.background_every > 0 else 1
            if frame_index % every == 0:
                exclude = None
                if detection is not None:
                    exclude = (detection.x, detection.y, detection.diameter_px * 1.5 + 8)
                small = detector.reduce(frame_bgr) if small is None else small
                # background_rate is per two frames: the same time constant at any cadence
                rate = 1.0 - (1.0 - cfg.background_rate) ** (every / 2.0)
                detector.update_background(small, exclude, rate)
            full_every = cfg.full_background_every if cfg.full_background_every > 0 else 1
            if (frame_index + full_every // 2) % full_every == 0:
                exclude = None
                if tracker.x is not None:
                    d = detection.diameter_px * detection.elongation if detection is not None else 40.0
                    exclude = (float(tracker.x[0]), float(tracker.x[1]), d * 1.5 + 10)
                # 0.25 per eight frames: the same time constant at any cadence
                detector.update_full_background(frame_bgr, exclude, 1.0 - 0.75 ** (full_every / 8.0))

        self._advance_state(frame_bgr, frame_index, detection, events)

    def _likeness(self, candidates: list) -> np.ndarray | None:
        """How meteor-like each candidate of the detector's last search is (`vision.likeness`; None: no
        model, not calibrated, or `JudgeConfig.use_likeness` off)."""
        model = likeness_model() if self.config.use_likeness else None
        if model is None or not candidates or self.calibration is None:
            return None
        return model.probabilities(self.detector.likeness_features(candidates, self.meteor_disc_area_px()))

    def _unlike_the_meteor(self, candidates: list, index: int) -> bool:
        """Whether candidate `index` of the last search is less meteor-like than `min_likeness_in_flight`, which
        a sighting of the flying meteor seldom is (see docs/judge.md)."""
        likeness = self._likeness(candidates)
        return likeness is not None and likeness[index] < self.config.min_likeness_in_flight

    def meteor_disc_area_px(self) -> float:
        """The area (pixels) of the meteor's disc lying on the table, as the calibrated camera sees it."""
        diameter = self._meteor_diameter_px()
        return math.pi * diameter * diameter / 4.0

    def _faint_streak(self, frame_bgr: np.ndarray, x: float, y: float, gate: float) -> Detection | None:
        """The tracked meteor as a faint streak inside its gate, when motion blur washed out its colour."""
        detector = self.detector
        assert detector is not None
        diameters = self._recent_diameters()
        if not diameters:
            return None
        diameter = statistics.median(diameters)
        speed = self.tracker.speed_px
        if speed < FAINT_MIN_SWEEP * diameter:
            return None  # too slow to blur: its colour would have passed the colour test
        reach = gate + diameter + speed / 2 + 2 * detector.scale
        detection = detector.nearest_faint_streak(frame_bgr, x, y, reach, streak_area_max_px(diameter, speed), gate)
        if detection is None or not self.tracker.in_gate(detection.x, detection.y):
            return None
        upper = diameters[(3 * len(diameters)) // 4]  # the upper quartile
        return detection if self._is_the_streak(detection, diameter, upper) else None

    def _heat_sighting(self, frame_index: int, x: float, y: float) -> Detection | None:
        """The meteor in this frame where the learned detector's peak round the prediction (x, y) (full-res px)
        is likely and near enough (`_heat_near`), unless it is the meteor's trace in the earlier frames the
        network also sees (`_left_behind_at`)."""
        detection = self._heat_near(frame_index, x, y, math.inf)
        if detection is None or self._left_behind_at((detection.x, detection.y), (x, y), frame_index):
            return None
        return detection

    def _heat_near(self, frame_index: int, x: float, y: float, reach_px: float) -> Detection | None:
        """The meteor in kept frame `frame_index` where the learned detector's peak in a window round (x, y)
        (full-res px) has at least `JudgeConfig.heatmap_min_probability` and lies within `reach_px` and
        `heatmap_reach_diameters` meteor diameters of it: its size the calibrated meteor's, its centre doubtful
        (`partial`). None without that frame and the `vision.heatmap.FRAMES` - 1 before it kept."""
        if not self.config.use_heatmap or self.detector is None:
            return None
        frames = self._kept_run_to(frame_index)
        if frames is None:
            return None
        peak = peak_in_window(frames, (x, y), self.detector.meteor_rgb, self.detector.scale)
        if peak is None or peak[2] < self.config.heatmap_min_probability:
            return None
        diameter = self._meteor_diameter_px()
        if math.hypot(peak[0] - x, peak[1] - y) > min(reach_px, self.config.heatmap_reach_diameters * diameter):
            return None
        return self._heat_detection(peak[0], peak[1])

    def _heat_detection(self, x: float, y: float) -> Detection:
        """A sighting of the learned detector at (x, y) (full-res px): the heat map gives no size, so the
        calibrated meteor's, and its centre is doubtful (`partial`)."""
        diameter = self._meteor_diameter_px()
        return Detection(x, y, diameter, 1.0, self.meteor_disc_area_px(), partial=True)

    def _heat_flight_found(self, frame_index: int) -> tuple[Detection, tuple[float, float]] | None:
        """The meteor unseen in flight, where the learned detector's peaks over the whole picture in this
        frame and those just before it move as a flight does (`vision.heat_flight`,
        `HeatFlightSettings.frames_in_a_row`), with its image velocity (px per frame)."""
        settings = self.config.heat_flight
        looked_for = self.state == "in_flight" and self.config.use_heatmap and settings is not None
        frames = self._kept_run_to(frame_index) if looked_for else None
        if frames is None or self.detector is None:
            self._flying_peaks.clear()
            return None
        scale = self.detector.scale
        reduced = [reduce_frame(frame, scale) for frame in frames]
        self._flying_peaks.add(frame_index, best_peaks_px(reduced, self.detector.meteor_rgb, scale,
                                                          settings.peaks_per_frame))
        diameter = self._meteor_diameter_px()
        flight = self._flying_peaks.flight(diameter)
        if flight is None:
            return None
        self._flying_peaks.clear()
        x, y, vx, vy = flight
        # its centre finer than a reduced pixel, from the heat map in a window round it
        detection = self._heat_near(frame_index, x, y, diameter) or self._heat_detection(x, y)
        return detection, (vx, vy)

    def _kept_run_to(self, frame_index: int) -> list[np.ndarray] | None:
        """The kept frames `frame_index` - `vision.heatmap.FRAMES` + 1 to `frame_index`, oldest first (what the
        heat map reads); None unless all are kept."""
        if self._kept_frames is None:
            return None
        return self._kept_frames.run_to(frame_index, HEATMAP_FRAMES)

    def _left_behind_at(self, peak: tuple[float, float], prediction: tuple[float, float], frame_index: int) -> bool:
        """Whether the heat map's `peak` is where the meteor was in the earlier frames the network also sees,
        and has since left: a sighting there lies closer to the peak than the prediction does, and a meteor
        diameter or more from the prediction (a still meteor's peak is no trace)."""
        since_frame = frame_index - HEATMAP_FRAMES + 1
        to_prediction = math.dist(peak, prediction)
        diameter = self._meteor_diameter_px()
        for back in range(len(self._frames) - 1, -1, -1):
            if self._frames[back] < since_frame:
                return False
            earlier = (self._px[2 * back], self._px[2 * back + 1])
            if (self._flags[back] != COASTED and math.dist(peak, earlier) < to_prediction
                    and math.dist(earlier, prediction) >= diameter):
                return True
        return False

    def _measure_shadow(self, frame_bgr: np.ndarray, frame_index: int, detection: Detection) -> None:
        """The last sighting's shadow, while the meteor moves in a launch (a still one's tells no height)."""
        if self.state not in ("in_hand", "in_flight") or len(self._px) < 4 or self.detector is None:
            return
        moved = math.hypot(self._px[-2] - self._px[-4], self._px[-1] - self._px[-3])
        if moved < SHADOW_MIN_MOVE_PX:
            return
        found = self._shadow.measure(
            frame_bgr, frame_index, self.detector.scale, detection.x, detection.y, detection.diameter_px
        )
        if found is not None:
            self._shadow_px[-2:] = (found.x_px, found.y_px)

    def _touch(self, detection: Detection) -> float:
        """How much of the ring round the sighting (round its streak when moving) a hand covers."""
        x = self.tracker.x
        sweep = (x[2], x[3]) if x is not None else (0.0, 0.0)
        return self.detector.touching(detection.x, detection.y, detection.diameter_px, sweep)

    def _only_part_of(self, detection: Detection) -> bool:
        """A sighting far smaller than the tracked meteor: the colour test passed only the most
        saturated part of a blurred streak (its centroid is then off along the streak)."""
        diameter = self._recent_diameter()
        return diameter is not None and detection.diameter_px < FAINT_SIZE_RATIO[0] * diameter

    def _recent_diameters(self) -> list[float]:
        """The tracked meteor's apparent diameters (px) in its last sightings, sorted."""
        return sorted(d for d in self._diam[-8:] if math.isfinite(d))

    def _recent_diameter(self) -> float | None:
        """The tracked meteor's apparent diameter (px): the median of its last sightings."""
        diameters = self._recent_diameters()
        return float(statistics.median(diameters)) if diameters else None  # np.median costs 10× on 8 values

    def _is_the_streak(self, detection: Detection, median_px: float, upper_px: float) -> bool:
        """A faint blob is the tracked meteor's streak when it holds about one meteor's worth of colour
        (motion blur spreads the disc's area, it does not add to it) and, when long, lies along the motion.

        One meteor's worth is judged against the last sightings' sizes: no less than `FAINT_SIZE_RATIO`'s
        low end of their median, no more than its high end of their upper quartile. A meteor pushed in
        the hand or blurred often shows only part of itself, so the median can be well under its size
        (sightings of 6–9 px in the hand before the release, streaks of 16–20 px after it: refusing the
        streaks hid a table bounce)."""
        low, high = FAINT_SIZE_RATIO
        if not low * median_px <= detection.diameter_px <= high * upper_px:
            return False
        x = self.tracker.x
        if detection.elongation < 1.5 or detection.axis_rad is None or x is None:
            return True
        heading = math.atan2(x[3], x[2])
        return abs(math.cos(detection.axis_rad - heading)) >= math.cos(math.radians(FAINT_MAX_TURN_DEG))

    def _record(self, frame_index: int, x: float, y: float, diameter: float, flag: int) -> None:
        if not self._frames and self.detector is not None:
            self._shadow.start(self.detector.background, self.detector.frozen_full_background())
        self._shadow_px.extend((math.nan, math.nan))
        self._frames.append(frame_index)
        self._px.extend((x, y))
        self._diam.append(diameter)
        self._flags.append(flag)
        box = self._box
        if box is None:
            self._box = [x, x, y, y]
        else:  # the track's bounding box, kept as it grows (no array per frame)
            if x < box[0]:
                box[0] = x
            elif x > box[1]:
                box[1] = x
            if y < box[2]:
                box[2] = y
            elif y > box[3]:
                box[3] = y
        if len(self._frames) > self.config.max_track_frames:
            self._keep_last(self.config.max_track_frames)

    def _keep_last(self, count: int) -> None:
        """Forget all but the last `count` sightings of the track (its box shrinks to them)."""
        drop = len(self._frames) - count
        del self._frames[:drop], self._diam[:drop], self._flags[:drop]
        del self._px[: 2 * drop], self._shadow_px[: 2 * drop]
        self._fit_box()

    def _fit_box(self) -> None:
        """The track's bounding box, measured again over all its sightings."""
        xs, ys = self._px[0::2], self._px[1::2]
        self._box = [min(xs), max(xs), min(ys), max(ys)]

    def _note_regained(self, frame_index: int) -> None:
        """The meteor of the launch in progress, lost by the tracker, is found again: the analysis is told
        how long it was unseen (the sightings before may even have been of something else)."""
        seen = [frame for frame, flag in zip(self._frames, self._flags, strict=True) if flag != COASTED]
        last_seen = seen[-1] if seen else self._frames[-1]
        self._regained.append((frame_index, frame_index - last_seen - 1))
        self._regain_deadline = None

    def _launch_moved(self) -> bool:
        if len(self._frames) < 4 or self._box is None:
            return False
        x0, x1, y0, y1 = self._box
        return (x1 - x0) + (y1 - y0) > self.config.min_launch_px

    def _advance_state(self, frame_bgr, frame_index: int, detection: Detection | None, events) -> None:
        cfg = self.config
        rest_frames = max(3, int(round(cfg.rest_seconds * self.fps)))
        if self.state == "waiting":
            if self._judged_lost_moving(frame_index, events, ended=False):
                return
            if self._before_launch is None or self._before_launch[1] is not self._box_follower:
                self._remember_before_launch(frame_bgr.copy())  # none yet, or the box was placed anew
            if detection is not None and self.tracker.hits >= 3:
                self._refresh_box(frame_bgr, frame_index, events)
                before = self.detector.frozen_full_background()
                self._hand.begin(before)
                waiting_began = self._box_before_launch()  # the frame as waiting began, its box moved to now
                self._remember_before_launch(before, *(waiting_began or ())[-BEFORE_LAUNCH_KEPT:])
                self._set_state("in_hand", frame_index, events, "meteor in hand")
                self._walk_back_into_hold()
            elif not self.tracker.active and self._frames:
                self._reset_track()
            elif not self.tracker.active:
                # a meteor the colour test never saw may still land in the box: a launch not seen at all
                self._judged_lying_in_box(frame_bgr, frame_index, rest_frames, events)
            return
        if self.state == "in_hand":
            self._hand.remember(frame_index, frame_bgr, self._hand_reach_box(frame_index))
            found = self._meteor_lying_in_box_elsewhere(frame_bgr, frame_index)
            if found is not None:
                # what the tracker holds is not the meteor (a camouflaged meteor, a ghost of the arm the
                # background had learned): judge the meteor found, its launch unseen, disputed
                self._reset_track()
                self._flight_unseen = True
                self.tracker.reset()
                self.tracker.start(*found)
                self._set_state("in_flight", frame_index, events, "meteor found in the box: its launch was not seen")
                return
            flying = self._held_thing_flying_elsewhere(frame_bgr, frame_index)
            if flying is not None and (led := self._flight_leading_to(flying, frame_index)) is not None:
                # the track followed the meteor out of the hand, then slipped onto the hand: keep the hold
                # and the flight's start, which time the release, and follow the meteor found
                self._drop_from(self._frames[led] + 1)
                self._follow_found_flying(flying, frame_index)
                self._released_at = self._frames[led]
                self._set_state("in_flight", frame_index, events, "in flight (found again past the hand)")
                released = JudgeEvent("release", self._frames[led], "meteor released (frame refined at the verdict)")
                events.append(released)
                return
            if flying is not None:
                # what the tracker holds is not the meteor (a hand, a card, a ghost the background learned):
                # follow the meteor flying elsewhere as a track first seen in flight
                self._reset_track()
                self._follow_found_flying(flying, frame_index)
                self._found_flying = frame_index
                self._set_state("in_flight", frame_index, events, "meteor found flying: its release was not seen")
                return
            if self.tracker.active and self._judged_lying_away_from_hold(frame_bgr, frame_index, rest_frames, events):
                return
            if not self.tracker.active:
                # held still, then flung away and lost before it ever looked free of the hand (seen
                # leaving the hold, or only predicted to, faster than the tracker could follow): keep the
                # track and look for the meteor where it lands. Never found again, it is a lost launch
                # (judged, and disputed, rather than silently dropped) if it was seen thrown, flung at a
                # flick's speed or vanished inside the picture as it left the hold; else it is forgotten,
                # like a meteor a hand carries out of sight over the picture's edge
                thrown = self._thrown_from_hold()
                vanished = self._vanished_leaving_hold()
                if thrown or vanished or self._thrown_from_hold(predicted=True):
                    if self._judged_lying_in_box(frame_bgr, frame_index, rest_frames, events):
                        return
                    if frame_index - self._frames[-1] <= cfg.flung_wait_seconds * self.fps:
                        return
                    if thrown or vanished or self._flung_away():
                        self._decide_unless_lying_in_box(frame_index, events, lost=True)
                        return
                self._warn_if_lost_moving(frame_index, events)
                self._reset_track()
                self._set_state("waiting", frame_index, events)
                return
            free = len(self._flags) >= 3 and all(f in (SEEN, PARTIAL) for f in self._flags[-3:])
            still = free and self._is_still(rest_frames)
            if still and self._landed_in_box_unseen(frame_bgr, detection):
                self._flight_unseen = True
                self._decide(frame_index, events, lost=False)
                return
            if still and self._thrown_from_hold():
                # held, flung too fast to follow, and now lying still far from the hold: a launch seen
                # only in pieces, judged (and disputed) rather than never noticed
                self._decide_unless_lying_in_box(frame_index, events, lost=False)
                return
            if still and self._put_down is not None and (doubt := self._stopped_after_moving(ended=False)):
                # seen flying, taken for carried into view and put down, and now lying still free of any
                # hand past the herd line: no hand holds it after all, the flight was the launch. Judged,
                # disputed, rather than held until the end of the footage for a mere pause in a flight
                # first seen in a hand
                self._restore_put_down()
                self._decide(frame_index, events, lost=False, doubt=doubt)
                return
            if still and (doubt := self._found_after_loss(frame_index)):
                self._flight_unseen = True
                self._decide(frame_index, events, lost=False, doubt=doubt)
                return
            # after a launch judged as lost, a meteor seen again in mid-flight is that same launch, not a
            # new one: the next launch must start from a meteor held still
            held_first = not self._lost_judged or self._thrown_from_hold()
            if free and self._launch_moved() and self._moving_fast(4) and held_first:
                self._lost_judged = False
                self._put_down = None  # thrown from the hold: what came before it was a carry
                self._start_hand_watch()
                self._released_at = frame_index
                self._set_state("in_flight", frame_index, events, "in flight")
                events.append(JudgeEvent("release", frame_index, "meteor released (frame refined at the verdict)"))
            return
        if self.state == "in_flight":
            self._walk_back_if_picked_up_late()
            hold_frames = self._hold_frames()
            if self._held_in_hand(hold_frames) and self._carried_into_view():
                self._hold_again(frame_index, hold_frames, events)
                return
            self._hand.follow(frame_index, frame_bgr)
            unseen_limit = max(3, int(cfg.lost_seconds * self.fps))
            if self._unseen >= max(2, round(cfg.gone_out_of_view_seconds * self.fps)) and self._slid_out_of_view():
                self._decide_unless_lying_in_box(frame_index, events, lost=True)
                return
            unseen = self._unseen > 0 or not self.tracker.active
            if unseen and self._judged_lying_in_box(frame_bgr, frame_index, rest_frames, events):
                return
            if self._unseen > unseen_limit or not self.tracker.active:
                if self._regain_deadline is None:
                    # the tracker may have followed something else: look for the meteor over the whole
                    # picture for a while before the launch is judged lost
                    self._regain_deadline = frame_index + max(1, round(cfg.regain_seconds * self.fps))
                    self.tracker.reset()
                # while a meteor-sized blob is new in the box (still, or still moving there), it is given up
                # to `flung_wait_seconds` past the search's end to come to rest
                waited = frame_index - self._regain_deadline
                if waited >= 0 and (not self._lying_unseen or waited >= cfg.flung_wait_seconds * self.fps):
                    self._decide_unless_lying_in_box(frame_index, events, lost=True)
                return
            if detection is not None and self._flags[-1] != HAND and self._rest_decided(rest_frames):
                if not self._thrown_from_hold() and (
                    self._hand_nearby_outside_the_box(frame_bgr, detection) or self._carried_in_and_set_down(detection)
                ):
                    # still, but a hand holds it (its skin too like the table for the touch ring), and it
                    # was never seen leaving a hold: carried into view, or uncovered by the fingers in it
                    self._hold_again(frame_index, rest_frames, events)
                    self._unseen_hand_hold = (detection.x, detection.y)
                    self._flags = [HAND] * len(self._flags)  # all that is kept is the hold
                    return
                if self._never_left_the_release():
                    why = "no flight after the release: waiting for the throw"
                    self._hold_again(frame_index, rest_frames, events, why)
                    return
                self._decide_unless_lying_in_box(frame_index, events, lost=False)
            return
        if self.state == "at_rest":
            # wait until the meteor is picked up (moves away) or disappears
            if self._rest_unseen:
                # found lying by its change, which the colour test does not see: it lies there while that
                # change stays, whatever meteor-coloured thing the detector finds elsewhere
                self._gone_frames = 0 if self._still_lying_where_judged(frame_bgr) else self._gone_frames + 1
            elif detection is None:
                self._gone_frames += 1
            else:
                self._gone_frames = 0
                ax, ay = self._rest_anchor or (detection.x, detection.y)
                if math.hypot(detection.x - ax, detection.y - ay) > 3 * detection.diameter_px:
                    self._leave_rest(frame_index, events, "meteor picked up")
                    return
            if self._gone_frames > int(0.5 * self.fps):
                self._leave_rest(frame_index, events, "meteor gone")

    def _leave_rest(self, frame_index: int, events: list[JudgeEvent], why: str) -> None:
        """The meteor judged at rest was picked up or is gone: wait for the next launch."""
        self._picked_up_at = frame_index
        self._rest_unseen = False
        self._reset_track()
        self.tracker.reset()
        self._set_state("waiting", frame_index, events, why)

    def _still_lying_where_judged(self, frame_bgr: np.ndarray) -> bool:
        """Whether the meteor found lying in the box by its change (`_judge_lying_unseen`) is still there: a
        blob new against the pictures before its launch within half a diameter of its judged rest."""
        return self._rest_anchor is not None and self._new_in_box_at(frame_bgr, *self._rest_anchor)

    def _new_in_box_at(self, frame_bgr: np.ndarray, x_px: float, y_px: float) -> bool:
        """Whether a blob new against the pictures as the launch began (`_box_before_launch`,
        `vision.box_rest.new_against_all`) lies within half a meteor diameter of this pixel."""
        pictures = self._box_before_launch()
        if pictures is None:
            return False
        floor_px, diameter = self._box_floor_view()
        blobs = new_against_all(frame_bgr, pictures, floor_px, diameter, self.config.box_rest).blobs
        return any(math.hypot(blob.x - x_px, blob.y - y_px) <= 0.5 * diameter for blob in blobs)

    def _meteor_lying_in_box_elsewhere(self, frame_bgr: np.ndarray, frame_index: int) -> tuple[float, float] | None:
        """A meteor-sized, meteor-coloured blob lying inside the box, far from the meteor being held, in
        `UNSEEN_LAUNCH_SEARCHES` box searches in a row: where it is, else None. Searched every
        `JudgeConfig.search_every` frames, only over the box."""
        following = self.tracker.active and self._frames and self.calibration is not None
        if frame_index % self.config.search_every or not following:
            return None
        if self._lost_judged:
            return None  # the meteor of the launch just judged as lost, found where it landed: judged already
        detector = self.detector
        window = self._box_window_px()
        if detector is None or window is None:
            return None
        held_x, held_y = self._px[-2], self._px[-1]
        pose, camera = self.calibration.box_pose, self.calibration.camera
        found = None
        size = 10.0
        for cx, cy, _area, _frac, _label in detector.candidates_near(frame_bgr, *window):
            ground = self._on_box_floor(np.array([[cx, cy]]))[0]
            # the meteor's own size there, not the tracked blob's (a ghost's size is anything)
            size = float(camera.apparent_diameter_px(ground[None], self.rig.meteor.diameter_mm)[0])
            if math.hypot(cx - held_x, cy - held_y) >= 8 * size and outline_signed_mm(self.rig, pose, ground[:2]) > 0 \
                    and not self._at_judged_rest(cx, cy, size):
                found = (cx, cy)
                break
        last = self._in_box_elsewhere
        if found is None:
            self._in_box_elsewhere = None
            return None
        same = last is not None and math.hypot(found[0] - last[0], found[1] - last[1]) <= 0.5 * size
        count = last[2] + 1 if same else 1
        self._in_box_elsewhere = (found[0], found[1], count)
        return found if count >= UNSEEN_LAUNCH_SEARCHES else None

    def _at_judged_rest(self, x_px: float, y_px: float, diameter_px: float) -> bool:
        """Whether a meteor lying at this pixel lies within a diameter of where the last launch was judged
        at rest: that launch's meteor, still lying there, not the meteor of a new launch."""
        if self._rest_anchor is None:
            return False
        return math.hypot(x_px - self._rest_anchor[0], y_px - self._rest_anchor[1]) <= diameter_px

    def _remember_before_launch(self, background: np.ndarray | None, *frames: np.ndarray) -> None:
        """Keep pictures of the scene with no launch under way to compare the box with (`_box_before_launch`),
        with the box follower and its warp as they are now: the background (or a frame) first, then any
        earlier frames that tell a real change from one the background learned wrong (an arm's ghost). A
        frame of the hold's start would not do: the tracker may take up something held after the meteor
        has landed."""
        follower = self._box_follower
        self._before_launch = None if background is None else (
            (background, *frames), follower, None if follower is None else follower.warp.copy())
        self._before_launch_moved = None
        self._before_launch_verdicts = len(self.verdicts)
        self._disturbed = []
        self._uncovered_at = []

    def _judged_lying_in_box(self, frame_bgr: np.ndarray, frame_index: int, rest_frames: int,
                             events: list[JudgeEvent]) -> bool:
        """Search the box for the lost meteor lying there (`_lying_in_box_unseen`); once a blob has lain
        still for `rest_frames`, judge the launch by it. Returns whether it was judged."""
        if self._lying_in_box_unseen(frame_bgr, frame_index) and len(self._lying_unseen) >= rest_frames:
            self._judge_lying_unseen(frame_index, events)
            return True
        return False

    def _judged_lying_away_from_hold(self, frame_bgr: np.ndarray, frame_index: int, rest_frames: int,
                                     events: list[JudgeEvent]) -> bool:
        """While the tracker follows something held, a meteor-sized blob lying still in the box for
        `rest_frames`, `LAUNCH_DIAMETERS` or more from it, is the meteor of a launch the colour test did not
        see (what is held is a hand, a card, a ghost): that launch is judged by the blob, disputed.
        Returns whether it was judged."""
        if not self._lying_in_box_unseen(frame_bgr, frame_index):
            return False
        blob = self._lying_unseen[-1][1]
        held_x, held_y = self._px[-2], self._px[-1]
        if math.hypot(blob.x - held_x, blob.y - held_y) < LAUNCH_DIAMETERS * self._meteor_diameter_px():
            self._lying_unseen = []
            return False
        if len(self._lying_unseen) < rest_frames:
            return False
        lying = self._lying_unseen
        self._reset_track()
        self.tracker.reset()
        self._lying_unseen = lying
        self._judge_lying_unseen(frame_index, events)
        return True

    def _decide_unless_lying_in_box(self, frame_index: int, events: list[JudgeEvent], lost: bool,
                                    final: bool = False) -> None:
        """Judge the launch, unless the meteor lies in the box while the track's last sighting is outside it.

        One meteor cannot lie in two places: a meteor found lying in the box (`_meteor_lying_in_box_now`) is
        the launch's. A track at rest outside the box holds something else (a card, a hand, a marker's
        corner) from the last time the tracker found something again, or from where that thing stopped,
        whichever came first: those sightings are dropped. The launch is then judged by the meteor in the
        box, as one lost in flight and found lying there; with nothing of the track left, as a launch not
        seen."""
        lying = None
        seen = self._sighting_indices()
        last_seen = self._px[2 * seen[-1] : 2 * seen[-1] + 2] if seen else None
        if self.calibration is not None and last_seen and not any(self._over_the_box([last_seen])):
            lying = self._meteor_lying_in_box_now(frame_index, away_from_track=not lost)
        if lying is None:
            self._decide(frame_index, events, lost=lost, final=final)
            return
        if not lost:
            # what the tracker holds at rest, since it stopped or was last found again, is something else
            start = self._still_since(self._frames, self._px)
            if self._regained:
                start = min(start, self._regained[-1][0])
            if start <= self._frames[0]:
                self._reset_track()
            else:
                self._drop_from(start)
                self._regained = [(frame, unseen) for frame, unseen in self._regained if frame < start]
        self.tracker.reset()
        self._lying_unseen = lying
        self._judge_lying_unseen(frame_index, events, final=final)

    def _meteor_lying_in_box_now(self, frame_index: int, away_from_track: bool) -> list[tuple[int, FloorBlob]] | None:
        """A meteor-sized blob lying still on the box floor in the last `UNSEEN_LAUNCH_SEARCHES` frames kept, up
        to this one: new against the pictures as the launch began, free of any hand in this frame, not the
        last launch's meteor at its judged rest, and, if `away_from_track`, `LAUNCH_DIAMETERS` or more from
        the track's last sighting. Its sightings, oldest first, else None."""
        before = self._box_before_launch()
        frames = self._kept_frames.run_to(frame_index, UNSEEN_LAUNCH_SEARCHES) if self._kept_frames else None
        if before is None or frames is None:
            return None
        floor_px, diameter = self._box_floor_view()
        tracked_x, tracked_y = self._px[-2], self._px[-1]
        far = LAUNCH_DIAMETERS * self._meteor_diameter_px() if away_from_track else 0.0
        changes = new_against_all(frames[-1], before, floor_px, diameter, self.config.box_rest)
        away = [blob for blob in changes.blobs if math.hypot(blob.x - tracked_x, blob.y - tracked_y) >= far]
        candidates = self._landed_blobs(frames[-1], FloorChanges(away, changes.disturbances), diameter)
        if not candidates:
            return None
        # the earlier frames' blobs, found once for every candidate
        settings = self.config.box_rest
        earlier = [new_against_all(frame, before, floor_px, diameter, settings).blobs for frame in frames[:-1]]
        for blob in candidates:
            sightings = []
            for there in earlier:
                seen = [other for other in there if math.hypot(other.x - blob.x, other.y - blob.y) <= 0.25 * diameter]
                if not seen:
                    break
                sightings.append(seen[0])
            if len(sightings) == len(earlier):
                first = frame_index - len(sightings)
                return [(first + i, seen) for i, seen in enumerate([*sightings, blob])]
        return None

    def _lying_in_box_unseen(self, frame_bgr: np.ndarray, frame_index: int) -> bool:
        """Follow a meteor-sized blob lying still on the box floor, changed from the box before the launch
        (`vision/box_rest.py`), while the meteor is lost or not seen at all: `_lying_unseen` holds its
        sightings on consecutive frames at one place, free of any hand, and not what was there before (the
        last launch's meteor at its judged rest, floor a hand uncovered). Returns whether it was seen on
        this frame."""
        before = self._box_before_launch()
        if before is None:
            self._lying_unseen = []
            return False
        floor_px, diameter = self._box_floor_view()
        changes = new_against_all(frame_bgr, before, floor_px, diameter, self.config.box_rest)
        recent = frame_index - self.config.box_rest.disturbance_seconds * self.fps
        self._disturbed = [(frame, rect) for frame, rect in self._disturbed if frame >= recent]
        blobs = self._landed_blobs(frame_bgr, changes, diameter)
        self._disturbed.extend((frame_index, rect) for rect in changes.disturbances)
        lying = self._lying_unseen
        if lying and lying[-1][0] == frame_index - 1:
            first = lying[0][1]
            same = [blob for blob in blobs if math.hypot(blob.x - first.x, blob.y - first.y) <= 0.25 * diameter]
            if same:
                lying.append((frame_index, same[0]))
                return True
        if not blobs:
            self._lying_unseen = []
            return False
        # a new blob: the one nearest where the meteor was last seen (with no track, the largest)
        nearest = blobs[0]
        if self._frames:
            seen = self._sighting_indices() or [len(self._frames) - 1]
            last_x, last_y = self._px[2 * seen[-1]], self._px[2 * seen[-1] + 1]
            nearest = min(blobs, key=lambda blob: math.hypot(blob.x - last_x, blob.y - last_y))
        self._lying_unseen = [(frame_index, nearest)]
        return True

    def _landed_blobs(self, frame_bgr: np.ndarray, changes: FloorChanges, diameter_px: float) -> list[FloorBlob]:
        """The blobs new on the box floor that may be a meteor landed there: not the last launch's meteor at its
        judged rest, not floor a hand uncovered, and free of any hand."""
        return [blob for blob in changes.blobs
                if not self._at_judged_rest(blob.x, blob.y, diameter_px)
                and not self._uncovered(blob, changes.disturbances, diameter_px)
                and self.detector.hand_nearby(frame_bgr, blob.x, blob.y, diameter_px) <= HAND_NEARBY]

    def _uncovered(self, blob: FloorBlob, disturbances: list[tuple[int, int, int, int]], diameter_px: float) -> bool:
        """Whether `blob` was uncovered rather than put there: inside a hand- or arm-sized change of the last
        `disturbance_seconds` (`_disturbed`) that has gone from there now (a hand that took the meteor away
        from where the picture before shows it, or left a print of the floor looking new), or where such a
        blob was seen before. A meteor landing in the box arrives free of any hand. A large change that
        lasts (the edges of a box moved a little more than its follower saw) uncovers nothing."""
        if any(math.hypot(blob.x - x, blob.y - y) <= 0.5 * diameter_px for x, y in self._uncovered_at):
            return True
        margin = diameter_px / 2

        def inside(rect: tuple[int, int, int, int]) -> bool:
            x0, y0, x1, y1 = rect
            return x0 - margin <= blob.x <= x1 + margin and y0 - margin <= blob.y <= y1 + margin

        if any(inside(rect) for rect in disturbances):
            return False
        if any(inside(rect) for _, rect in self._disturbed):
            self._uncovered_at.append((blob.x, blob.y))
            return True
        return False

    def _box_floor_view(self) -> tuple[np.ndarray, float]:
        """Where the box is in the picture for the search of its floor, as the calibration places it: the
        polygon a lying meteor's centre stays in (N×2 px) and the meteor's diameter there (px). Made once
        per box pose."""
        pose, camera = self.calibration.box_pose, self.calibration.camera
        if self._floor_view is not None and self._floor_view[0] is pose:
            return self._floor_view[1]
        floor_mm = self._lying_on_floor_mm()
        corners = pose.box_to_table(np.asarray(self.rig.box.outline_mm, dtype=np.float64))
        floor_px = camera.project(np.column_stack([corners, np.full(len(corners), floor_mm)]))
        centre = np.array([[*pose.box_to_table(np.zeros((1, 2)))[0], floor_mm]])
        diameter = float(camera.apparent_diameter_px(centre, self.rig.meteor.diameter_mm)[0])
        self._floor_view = (pose, (floor_px, diameter))
        return self._floor_view[1]

    def _drop_from(self, frame_index: int) -> None:
        """Forget the track's entries from `frame_index` on."""
        keep = bisect.bisect_left(self._frames, frame_index)
        del self._frames[keep:], self._diam[keep:], self._flags[keep:]
        del self._px[2 * keep :], self._shadow_px[2 * keep :]

    def _box_before_launch(self) -> tuple[np.ndarray, ...] | None:
        """The pictures as the launch in progress began, their box moved to where the box is now; None when
        there are none, or the box was placed anew since (calibrated again)."""
        if self._before_launch is None or self.calibration is None:
            return None
        pictures, follower, warp = self._before_launch
        if follower is not self._box_follower:
            return None
        if follower is None:
            return pictures
        # the follower replaces its warp with a new array at each move: the moved pictures are made once a move
        if self._before_launch_moved is None or self._before_launch_moved[0] is not follower.warp:
            moved = tuple(follower.moved_since(picture, warp) for picture in pictures)
            self._before_launch_moved = (follower.warp, moved)
        return self._before_launch_moved[1]

    def _judge_lying_unseen(self, frame_index: int, events: list[JudgeEvent], final: bool = False) -> None:
        """Judge the launch by the blob found lying still in the box (`_lying_in_box_unseen`): the launch
        lost in flight, or, with no track, a launch not seen at all."""
        found_at = self._lying_unseen[0][0]
        if self._frames:
            self._drop_from(found_at)  # the tracker's predictions while it coasted, on the frames the blob lay
            self._note_regained(found_at)
            doubt = (f"meteor lost in flight and found lying in the box at frame {found_at}: "
                     "how it got there was not seen")
        else:
            self._flight_unseen = True
            doubt = f"meteor found lying in the box at frame {found_at}: its launch was not seen"
        for frame, blob in self._lying_unseen:
            self._record(frame, blob.x, blob.y, blob.diameter_px, SEEN)
        self._decide(frame_index, events, lost=False, final=final, doubt=doubt)
        self._rest_unseen = True

    def _meteor_flying_elsewhere(
        self, frame_bgr: np.ndarray, frame_index: int, away_from: tuple[float, float]
    ) -> Detection | None:
        """A meteor-sized, meteor-coloured blob flying free of any hand, at least `LAUNCH_DIAMETERS` of the
        meteor's diameter from `away_from` (full-res px): a moving blob of two whole-frame searches in a
        row (`JudgeConfig.flying_search_every` frames apart) that moved between them as a flight does,
        the one nearest the meteor's size. None otherwise, and on frames between searches."""
        cfg = self.config
        if frame_index % cfg.flying_search_every:
            return None
        detector = self.detector
        diameter = self._meteor_diameter_px()
        small = detector.reduce(frame_bgr)
        moving = [
            (cx, cy, area, label)
            for cx, cy, area, frac, label in detector.candidates(small)
            if frac >= cfg.flying_min_moving
            and math.hypot(cx - away_from[0], cy - away_from[1]) >= LAUNCH_DIAMETERS * diameter
        ]
        last = self._flying_elsewhere
        self._flying_elsewhere = (frame_index, [(cx, cy) for cx, cy, _area, _label in moving])
        if last is None or frame_index - last[0] > cfg.flying_search_every or not moving:
            return None
        frames = frame_index - last[0]
        fastest_px = cfg.flying_max_speed_mm_s / self.fps * self._px_per_mm * frames
        steps_px = (cfg.flying_min_sweep * diameter * frames, fastest_px)
        best = _flown_blob(moving, last[1], steps_px, self.meteor_disc_area_px())
        if best is None:
            return None
        cx, cy, area, label = best
        detection = detector.refine(frame_bgr, cx, cy, area, detector.last_boxes.get(label))
        if detection is None or detection.diameter_px < cfg.flying_min_size * diameter:
            return None
        nearest = min(last[1], key=lambda p: math.hypot(detection.x - p[0], detection.y - p[1]))
        sweep = ((detection.x - nearest[0]) / frames, (detection.y - nearest[1]) / frames)
        if detector.touching(detection.x, detection.y, detection.diameter_px, sweep) > HAND_TOUCH:
            return None
        return detection

    def _follow_found_flying(self, flying: Detection, frame_index: int) -> None:
        """Track the meteor found flying elsewhere from its sighting in this frame."""
        self.tracker.reset()
        self.tracker.start(flying.x, flying.y)
        self._record(frame_index, flying.x, flying.y, flying.diameter_px, SEEN)
        self._track_size = flying.diameter_px * flying.elongation

    def _flight_leading_to(self, flying: Detection, frame_index: int) -> int | None:
        """The latest sighting of the track that was already the meteor flying to `flying`, found now away
        from what the tracker holds: from the sighting before it, it moved at about the speed and heading
        that carry it to `flying` by this frame. None when no sighting of the last second leads there
        (the track never followed the meteor out of the hand)."""
        diameter = self._meteor_diameter_px()
        oldest = bisect.bisect_left(self._frames, frame_index - self.fps)
        seen = self._sighting_indices(oldest)
        for earlier, later in reversed(list(zip(seen, seen[1:], strict=False))):
            step = self._frames[later] - self._frames[earlier]
            gap = frame_index - self._frames[later]
            if step > 3 or gap < 1:
                continue
            x, y = self._px[2 * later], self._px[2 * later + 1]
            gap_v = ((flying.x - x) / gap, (flying.y - y) / gap)
            speed = math.hypot(*gap_v)
            if speed < self.config.flying_min_sweep * diameter:
                continue
            track_v = ((x - self._px[2 * earlier]) / step, (y - self._px[2 * earlier + 1]) / step)
            if math.hypot(track_v[0] - gap_v[0], track_v[1] - gap_v[1]) <= 0.35 * speed + 1.5 * diameter / gap:
                return later
        return None

    def _keep_frame(self, frame_index: int, frame_bgr: np.ndarray) -> None:
        """Keep the frame for a walk back while a launch may be under way; forget the kept ones otherwise."""
        if self._kept_frames is None:
            scale = self.detector.scale
            count, decoded = frames_to_keep(self.config.backtrack, self.fps, frame_bgr.nbytes, scale)
            self._kept_frames = KeptFrames(count, decoded, scale)
        if self.state in ("waiting", "in_hand", "in_flight"):
            self._kept_frames.append(frame_index, frame_bgr)
        else:
            self._kept_frames.clear()

    def _late_flight_start(self) -> int | None:
        """The index of the first sighting of the track's latest run of clear sightings (two or more, each
        at most two frames after the last), when that run began after a gap: the track starts there, or
        before it the meteor was unseen or something else was followed. None otherwise (the run went on
        from sightings touching the hand: the tracker followed the meteor out of it)."""
        flags, frames = self._flags, self._frames
        if len(frames) < 2 or flags[-1] not in (SEEN, PARTIAL):
            return None
        start = len(frames) - 1
        while start > 0 and flags[start - 1] in (SEEN, PARTIAL) and frames[start] - frames[start - 1] <= 2:
            start -= 1
        if len(frames) - start < 2:
            return None
        if start > 0 and flags[start - 1] == HAND and frames[start] - frames[start - 1] == 1:
            return None
        return start

    def _walk_back_if_picked_up_late(self) -> None:
        """A flight picked up after a gap is followed backwards through the frames kept
        (`vision.backtrack`), to the hand or to where it meets the track; what is found replaces what the
        track holds from there on: the gap's predictions, and sightings of something else the tracker
        followed while the meteor flew (a sighting far from the walk's in the same frame is not the meteor)."""
        start = self._late_flight_start()
        if start is None or self._frames[start] == self._walked_back_from or not self._kept_frames:
            return
        first_frame = self._frames[start]
        self._walked_back_from = first_frame
        before = next((i for i in range(start - 1, -1, -1) if self._flags[i] != COASTED), None)
        frames = self._kept_frames.before(first_frame)
        sizes = [d for d in self._diam[start : start + 4] if math.isfinite(d)]
        if not frames or not sizes:
            return
        diameter = statistics.median(sizes)
        if diameter < self.config.flying_min_size * self._meteor_diameter_px():
            return  # a run of specks, not the whole meteor: no size to walk back by
        first = (first_frame, self._px[2 * start], self._px[2 * start + 1])
        second = (self._frames[start + 1], self._px[2 * start + 2], self._px[2 * start + 3])
        if math.dist(first[1:], second[1:]) < self.config.flying_min_sweep * diameter * (second[0] - first[0]):
            return  # not flying: the gap of a slow or still meteor is no flight's
        ended_at: str | None = None  # what ended the walk at its last sighting: "hand" or "track"
        touching_run: list[int] = []  # the walk's latest sightings in a row touching the hand (frames) ...
        touched: set[int] = set()  # ... and all it found touching it

        def reached_start(frame_index: int, frame_bgr: np.ndarray, detection: Detection) -> bool:
            nonlocal ended_at
            # (the detector's last colour search was round this sighting: its touch ring reads that frame)
            touching = self.detector.touching(detection.x, detection.y, detection.diameter_px) > HAND_TOUCH
            meets_track = any(math.dist((detection.x, detection.y), sighting) <= diameter
                              for sighting in self._sightings_to_join(before, frame_index))
            if touching:
                touching_run.append(frame_index)
                touched.add(frame_index)
            else:
                touching_run.clear()
            if touching and (meets_track or len(touching_run) >= self.config.backtrack.touches_to_stop):
                ended_at = "hand"
            elif meets_track:
                ended_at = "track"
            return ended_at is not None

        found = walk_back(self.detector, frames, first, second, diameter, reached_start, self.config.backtrack,
                          self._heat_near)
        if found:
            # the earliest touching run is where the walk met the hold; a touch after it is a hand following
            # the meteor through, whose fingers pull the sighting's centroid off the meteor: left out
            held = set(touching_run)
            sightings = [(index, d.x, d.y, d.diameter_px, HAND if index in held else PARTIAL if d.partial or d.faint
                          else SEEN) for index, d in reversed(found) if index in held or index not in touched]
            self._insert_before(start, sightings, joined=ended_at == "track")
            self._walked_back_from = found[-1][0]

    def _walk_back_into_hold(self) -> None:
        """The meteor the track first found as the hand started to move it may have been held still before,
        taken into the background the detector learned: that hold, found in the frames kept
        (`vision.backtrack.walk_into_hold`), goes before the track, and the release is timed from it. Its
        sightings are partial (fingers may cover the meteor), not in the hand: the touch ring did not see
        the hand, and a first free-looking sighting after the hold is no proof the hand let go."""
        seen = self._sighting_indices()
        if not seen or not self._kept_frames:
            return
        first = seen[0]
        if self._over_the_box([(self._px[2 * first], self._px[2 * first + 1])])[0]:
            return  # a meteor held in the box, then taken out: nobody throws from over the box
        frames = self._kept_frames.before(self._frames[0])
        start = (self._frames[first], self._px[2 * first], self._px[2 * first + 1])
        found = walk_into_hold(self.detector, frames, start, self._meteor_diameter_px(), self.config.backtrack)
        if found:
            hold = [(index, d.x, d.y, d.diameter_px, PARTIAL) for index, d in reversed(found)]
            self._insert_before(0, hold, joined=False)

    def _over_the_box(self, pixels) -> list[bool]:
        """Whether each pixel (x, y) lies over the box: its ray meets a meteor's height on the box floor
        inside the box's outline."""
        ground = self._on_box_floor(np.asarray(pixels, dtype=np.float64).reshape(-1, 2))[:, :2]
        return [outline_signed_mm(self.rig, self.calibration.box_pose, point) > 0 for point in ground]

    def _sightings_to_join(self, before: int | None, frame_index: int) -> list[tuple[float, float]]:
        """Where a walk back in frame `frame_index` meets the track: the last sighting before the gap (index
        `before`), and the track's sighting in that frame (none when only predicted)."""
        joins = [] if before is None else [(self._px[2 * before], self._px[2 * before + 1])]
        at = bisect.bisect_left(self._frames, frame_index)
        if at < len(self._frames) and self._frames[at] == frame_index and self._flags[at] != COASTED:
            joins.append((self._px[2 * at], self._px[2 * at + 1]))
        return joins

    def _insert_before(self, start: int, sightings: list[tuple[int, float, float, float, int]], joined: bool) -> None:
        """Put `sightings` (frame, x, y, diameter, flag; in time order, all before sighting `start`) into
        the track in place of what it holds from the first of their frames to `start`. When they are
        `joined` to the sightings before them (the walk met the track where the tracker lost the meteor),
        the meteor was not lost there after all; else what the tracker followed before may have been
        something else, and its loss stands."""
        earliest = sightings[0][0]
        first_frame = self._frames[start]
        tail = (self._frames[start:], self._px[2 * start :], self._diam[start:], self._flags[start:],
                self._shadow_px[2 * start :])
        self._drop_from(earliest)
        for frame, x, y, diameter, flag in sightings:
            self._frames.append(frame)
            self._px.extend((x, y))
            self._diam.append(diameter)
            self._flags.append(flag)
            self._shadow_px.extend((math.nan, math.nan))
        frames, px, diam, flags, shadow_px = tail
        self._frames += frames
        self._px += px
        self._diam += diam
        self._flags += flags
        self._shadow_px += shadow_px
        self._fit_box()
        if joined:
            self._regained = [(frame, unseen) for frame, unseen in self._regained if frame != first_frame]
        if self._found_flying == first_frame:
            self._found_flying = earliest

    def _flying_search_allowed(self) -> bool:
        """Whether a meteor flying elsewhere is looked for: while one is held and tracked, until the meteor
        has been seen flying (a hold after a flight may be its landing or its pick-up)."""
        return (
            self.state == "in_hand" and self.tracker.active and len(self._flags) >= 4
            and self._put_down is None and not self._lost_judged
        )

    def _held_thing_flying_elsewhere(self, frame_bgr: np.ndarray, frame_index: int) -> Detection | None:
        """A meteor flying elsewhere while what the tracker holds stays still in its sight: the meteor the
        tracker lost to what it holds (a hand, a card, a ghost). Not while what is held moves fast or
        is only predicted (the tracker following a throw)."""
        if not self._flying_search_allowed() or COASTED in self._flags[-3:] or self._moving_fast(4):
            return None
        return self._meteor_flying_elsewhere(frame_bgr, frame_index, (self._px[-2], self._px[-1]))

    def _flung_meteor_flying(self, frame_bgr: np.ndarray, frame_index: int) -> Detection | None:
        """The held meteor, lost by the tracker as it left the hand (it only predicts now), found flying
        away from its last sighting: the same launch, found again before the tracker gives up."""
        if not self._flying_search_allowed() or self._flags[-1] != COASTED:
            return None
        seen = self._sighting_indices(max(0, len(self._frames) - self.tracker.max_missed - 1))
        if not seen:
            return None
        last = seen[-1]
        return self._meteor_flying_elsewhere(frame_bgr, frame_index, (self._px[2 * last], self._px[2 * last + 1]))

    def _box_window_px(self) -> tuple[float, float, float] | None:
        """(x, y, reach) of the search window (`MeteorDetector.candidates_near`, full-res px) holding the
        box outline from the floor to the rim, as far as it is in the picture."""
        pose, camera = self.calibration.box_pose, self.calibration.camera
        corners = pose.box_to_table(np.asarray(self.rig.box.outline_mm, dtype=np.float64))
        heights = (self.rig.box.floor_height_mm, self.rig.box.rim_height_mm)
        points = np.vstack([np.column_stack([corners, np.full(len(corners), h)]) for h in heights])
        pixels = camera.project(points)
        width, height = self._frame_size or (1280, 720)
        x0, y0 = np.clip(pixels.min(axis=0), 0, [width, height])
        x1, y1 = np.clip(pixels.max(axis=0), 0, [width, height])
        if x1 - x0 < 8 or y1 - y0 < 8:
            return None
        return float(x0 + x1) / 2, float(y0 + y1) / 2, float(max(x1 - x0, y1 - y0)) / 2

    def _start_hand_watch(self) -> None:
        """The meteor flies: measure the hand over the buffered frames, from the oldest clear sighting."""
        oldest = self._frames[-1] - self._hand.buffer_frames + 2
        held = self._sighting_indices(bisect.bisect_left(self._frames, oldest))
        if len(held) < 2:
            return
        first = held[0]
        held_px = np.array(self._px[2 * first : 2 * first + 2])
        now_px = np.array(self._px[-2:])
        diameter = float(np.nanmedian([self._diam[i] for i in held[: max(1, len(held) // 2)]]))
        if not np.isfinite(diameter):
            return
        self._hand.start(now_px - held_px, held_px, self._frames[first], diameter)

    def _hand_reach_box(self, frame_index: int) -> tuple[int, int, int, int] | None:
        """The part of this frame the hand's windows can need: round the meteor's track over the hand's
        buffer (None, the whole frame, when that has no sighting of known size)."""
        first = bisect.bisect_right(self._frames, frame_index - self._hand.buffer_frames)
        sizes = [size for size in self._diam[first:] if math.isfinite(size)]
        if not sizes or self._frame_size is None:
            return None
        px = np.asarray(self._px[2 * first :], dtype=np.float64).reshape(-1, 2)
        return hand_reach_box(px, max(sizes), self._frame_size)

    def _hold_frames(self) -> int:
        """Sightings (0.1 s, at least 3) that make the meteor held still in a hand."""
        return max(3, int(round(0.1 * self.fps)))

    def _grip_tolerance_px(self) -> float:
        """How far a held meteor wanders: a hand's grip jitters more than a meteor lying still (40 % of
        the meteor's size on the table)."""
        still_px = self.config.rest_speed_mm_s * self.config.rest_seconds * self._px_per_mm
        return max(1.5, still_px, 0.4 * self.rig.meteor.diameter_mm * self._px_per_mm)

    def _held_in_hand(self, hold_frames: int) -> bool:
        """Each of the last `hold_frames` sightings touches a hand, and the meteor stays put in its grip."""
        if len(self._flags) < hold_frames or any(f != HAND for f in self._flags[-hold_frames:]):
            return False
        xs, ys = self._px[-2 * hold_frames :: 2], self._px[-2 * hold_frames + 1 :: 2]
        tolerance = self._grip_tolerance_px()
        return max(xs) - min(xs) <= tolerance and max(ys) - min(ys) <= tolerance

    def _hand_seen_nearby(self, frame_bgr: np.ndarray, detection: Detection) -> bool:
        """While a hand the touch ring cannot see holds the meteor, the palm nearby tells it is held:
        while the meteor is still, and while the push speeds it up. Not after: the palm follows the
        meteor for a few frames after the release, so it cannot tell when the hand let go."""
        hold = self._unseen_hand_hold
        if self.state != "in_hand" or hold is None:
            return False
        if math.hypot(detection.x - hold[0], detection.y - hold[1]) > self._grip_tolerance_px():
            # thrown: still in the hand while the push speeds it up (a free meteor's image speed
            # changes little from frame to frame)
            if len(self._px) < 4:
                return False
            step = math.hypot(detection.x - self._px[-2], detection.y - self._px[-1])
            before = math.hypot(self._px[-2] - self._px[-4], self._px[-1] - self._px[-3])
            if step < PUSH_GROWTH * before:
                return False
        return self._hand_nearby(frame_bgr, detection)

    def _hand_nearby(self, frame_bgr: np.ndarray, detection: Detection) -> bool:
        """A hand round the meteor (its palm a few diameters away): see `MeteorDetector.hand_nearby`."""
        return self.detector.hand_nearby(frame_bgr, detection.x, detection.y, detection.diameter_px) > HAND_NEARBY

    def _hand_nearby_outside_the_box(self, frame_bgr: np.ndarray, detection: Detection) -> bool:
        """A hand round a meteor lying outside the box: maybe holding it for a throw. A meteor lying in the
        box is not held for one (a launch starts behind the herd line): the hand is there to pick it up."""
        if self.calibration is not None and self._over_the_box([(detection.x, detection.y)])[0]:
            return False
        return self._hand_nearby(frame_bgr, detection)

    def _landed_in_box_unseen(self, frame_bgr: np.ndarray, detection: Detection | None) -> bool:
        """First seen over the box already, moving there (bouncing, rolling), never touching a hand, and
        now still with no hand near: the meteor of a launch whose flight went unseen (a small meteor
        lobbed into the box at 30 fps can leave streaks too faint to detect; found bouncing on the floor,
        it would be taken as held until the footage ended, and the launch get no verdict at all). A
        meteor lying in the box all along does not move (nor, still, is it detected)."""
        if detection is None or self.calibration is None or len(self._frames) < 4 or HAND in self._flags:
            return False
        if self._lost_judged:
            return False  # the meteor of the launch just judged as lost, found where it landed: judged already
        seen = self._sighting_indices()
        first_x, first_y = self._px[2 * seen[0]], self._px[2 * seen[0] + 1]
        if math.hypot(detection.x - first_x, detection.y - first_y) < self._meteor_diameter_px():
            return False
        if not all(self._over_the_box([(first_x, first_y), (detection.x, detection.y)])):
            return False
        return not self._hand_nearby(frame_bgr, detection)

    def _carried_into_view(self) -> bool:
        """The meteor came into the picture over its edge, moving, and was never seen thrown from a
        hold: the launcher carried it in (a launch needs a release in view, from behind the herd line)."""
        if not self._frames or self._frame_size is None:
            return False
        return self._near_edge(self._px[0], self._px[1]) and not self._thrown_from_hold()

    def _carried_in_and_set_down(self, detection: Detection) -> bool:
        """Carried into view (`_carried_into_view`) and now still on the launcher's side of the herd line:
        held or set down for the launch, not a launch that ended there. A hand may carry the meteor in
        and hold it still behind the line, its palm too like the table for `_hand_nearby`: judged a void
        launch, that phantom would take the launcher's turn in the game before the real throw."""
        if not self._carried_into_view() or self.calibration is None:
            return False
        herd = herd_line_in_use(self.rig, self.calibration)
        if herd is None:
            return False
        camera, pose = self.calibration.camera, self.calibration.box_pose
        point = np.array([[detection.x, detection.y]], dtype=np.float64)
        ground = camera.pixel_to_plane(point, self.rig.meteor.diameter_mm / 2)[0, :2]
        return herd_line_signed(self.rig, pose, ground, herd) > 0.0

    def _slid_out_of_view(self) -> bool:
        """Whether the meteor's last sighting was a slow one cut by the picture's edge (its centre within
        a diameter on the table of it): it rolled or slid out of view, and the tracker followed nothing
        else. Looking for it over the picture (`regain_seconds`) would delay the verdict on a meteor at
        rest half out of the picture by half a second."""
        seen = self._sighting_indices()[-SLID_OUT_SIGHTINGS:]
        if len(seen) < SLID_OUT_SIGHTINGS or self._flags[seen[-1]] != PARTIAL or self._frame_size is None:
            return False
        x, y = self._px[2 * seen[-1]], self._px[2 * seen[-1] + 1]
        if not self._near_edge(x, y, diameters=1.0):
            return False
        first = seen[0]
        moved_px = math.hypot(x - self._px[2 * first], y - self._px[2 * first + 1])
        seconds = (self._frames[seen[-1]] - self._frames[first]) / self.fps
        return moved_px / self._px_per_mm <= self.config.slid_out_speed_mm_s * seconds

    def _sighting_indices(self, start: int = 0) -> list[int]:
        """Indices of the track's sightings from `start` on (the tracker's coasted predictions left out)."""
        return [i for i in range(start, len(self._frames)) if self._flags[i] != COASTED]

    def _meteor_diameter_px(self) -> float:
        """The meteor's diameter on the table, in pixels."""
        return self.rig.meteor.diameter_mm * self._px_per_mm

    def _on_box_floor(self, pixels: np.ndarray) -> np.ndarray:
        """Where the camera rays through `pixels` (N×2) meet the height of a meteor lying on the box floor
        (N×3, table mm)."""
        return self.calibration.camera.pixel_to_plane(pixels, self._lying_on_floor_mm())

    def _lying_on_floor_mm(self) -> float:
        """The height of the centre of a meteor lying on the box floor."""
        return self.rig.box.floor_height_mm + self.rig.meteor.diameter_mm / 2

    def _near_edge(self, x: float, y: float, diameters: float = 2.0) -> bool:
        """Within `diameters` of the meteor's diameters (on the table) of the picture's edge."""
        assert self._frame_size is not None
        width, height = self._frame_size
        margin = diameters * self.rig.meteor.diameter_mm * self._px_per_mm
        return not (margin < x < width - margin and margin < y < height - margin)

    def _hold_again(
        self,
        frame_index: int,
        hold_frames: int,
        events: list[JudgeEvent],
        why: str = "meteor carried into view and put down: waiting for the throw",
    ) -> None:
        """Back to `in_hand`: the launch starts from this hold (what came before it is dropped, and kept
        aside in case no throw follows: see `_stopped_after_moving`)."""
        drop = len(self._frames) - hold_frames
        if self.state == "in_flight" and drop > 0:
            self._put_down = (self._frames[:drop], self._px[: 2 * drop], self._diam[:drop], self._flags[:drop],
                              self._shadow_px[: 2 * drop])
        self._keep_last(hold_frames)
        self._released_at = None
        self._hand.restart()
        self._set_state("in_hand", frame_index, events, why)

    def _free_sightings(self, with_put_down: bool = False) -> list[tuple[int, float, float]]:
        """(frame, x, y) of the track's sightings free of any hand (with the put-down flight before them)."""
        frames, px, flags = self._with_put_down() if with_put_down else (self._frames, self._px, self._flags)
        return [(frames[i], px[2 * i], px[2 * i + 1]) for i in range(len(frames)) if flags[i] in (SEEN, PARTIAL)]

    def _with_put_down(self) -> tuple[list[int], list[float], list[int]]:
        """The track's frames, pixels (x, y interleaved) and flags, after the flight dropped at a put-down
        (`_hold_again`) when there is one."""
        if self._put_down is None:
            return self._frames, self._px, self._flags
        frames, px, _diam, flags, _shadow = self._put_down
        return frames + self._frames, px + self._px, flags + self._flags

    def _still_since(self, frames: list[int], px: list[float]) -> int:
        """The first frame of the run of sightings, up to the last, within the grip's tolerance of it."""
        tolerance = self._grip_tolerance_px()
        stop = len(frames) - 1
        while stop > 0 and math.hypot(px[2 * stop - 2] - px[-2], px[2 * stop - 1] - px[-1]) <= tolerance:
            stop -= 1
        return frames[stop]

    def _launch_reach_px(self) -> float:
        """How far a meteor seen moving has moved as a launch does (`LAUNCH_DIAMETERS`), in pixels."""
        return max(self.config.min_launch_px, LAUNCH_DIAMETERS * self._meteor_diameter_px())

    def _past_herd_line(self, x_px: float, y_px: float) -> bool:
        """A meteor lying at this pixel is not on the launcher's side of the herd line (or no line is known)."""
        herd = herd_line_in_use(self.rig, self.calibration)
        if herd is None:
            return True
        ground = self.calibration.camera.pixel_to_plane(np.array([[x_px, y_px]]), self.rig.meteor.diameter_mm / 2)
        return herd_line_signed(self.rig, self.calibration.box_pose, ground[0, :2], herd) <= 0.0

    def _stopped_after_moving(self, ended: bool) -> str | None:
        """Why a meteor now still, never seen thrown, is judged as a disputed launch; None when it is not.

        It was seen free of any hand (with the flight dropped at a put-down, `_hold_again`) at least
        `_launch_reach_px` from where it lies still, past the herd line: a launch whose throw the
        judge missed (the hand not seen, or taken for one at the rest). Held in a hand at the end of the
        footage counts too (`ended`), and then, while no launch has been judged, on either side of the
        line: before the end a meteor set down on the launcher's side may yet be thrown, but at the end no
        throw comes, and a launch that fell short (or left the picture there, the arm taken for the hand)
        ended on that side. After a judged launch, a thing moved to the launcher's side and held there when
        the footage ends is the meteor carried back, or a hand the tracker followed, not a second launch."""
        if len(self._frames) < 2 or not self._is_still(min(len(self._frames) - 2, self._hold_frames())):
            return None
        last = len(self._frames) - 1
        x, y = self._px[2 * last], self._px[2 * last + 1]
        free = self._free_sightings(with_put_down=True)
        far = max(free, key=lambda sighting: math.hypot(sighting[1] - x, sighting[2] - y), default=None)
        travel_px = 0.0 if far is None else math.hypot(far[1] - x, far[2] - y)
        may_have_fallen_short = ended and not self.verdicts  # see the docstring
        if far is None or travel_px < self._launch_reach_px():
            return None
        if not (may_have_fallen_short or self._past_herd_line(x, y)):
            return None
        frames, px, _flags = self._with_put_down()
        return unjudged.stopped_in_hand(travel_px / self._px_per_mm, far[0], self._still_since(frames, px), ended)

    def _held_in_box_at_end(self) -> str | None:
        """Why a meteor taken for held, still inside the box when the footage ends, is judged as landed
        there; None when it is not. Nobody holds the meteor still in the box: the hand the touch ring
        sees there is the box's own change round it (a bumped box, a dark meteor's shadow). It must be a
        launch's meteor: seen outside the box (a sighting of the track, or of the flight dropped at a
        put-down, beyond the box's outline), found flying or lying in the box while something else was
        held, or lying where the box, as waiting began, showed nothing new (`_arrived_in_box`: the track
        took it up in the box, after a flight it did not see). A meteor lying in the box all along is no
        launch. Still means within the grip's tolerance: at the end of the footage a wobble of a few
        pixels does not move the rest out of its region."""
        if self.calibration is None or len(self._frames) < 2 or not self._is_still(
                min(len(self._frames) - 2, self._hold_frames()), floor_px=self._grip_tolerance_px()):
            return None
        frames, px, _flags = self._with_put_down()
        inside = self._over_the_box(px)
        launched = not all(inside) or self._flight_unseen or self._found_flying is not None or self._arrived_in_box()
        if not inside[-1] or not launched:
            return None
        return unjudged.held_in_box_at_end(self._still_since(frames, px))

    def _arrived_in_box(self) -> bool:
        """Whether the meteor, where it was last seen, is new in the box against the pictures as waiting
        began (`_new_in_box_at`): it was not lying there then."""
        return self._latest_bgr is not None and self._new_in_box_at(self._latest_bgr, self._px[-2], self._px[-1])

    def _restore_put_down(self) -> None:
        """Put the flight dropped at a put-down (`_hold_again`) back before the track, to be judged with it."""
        if self._put_down is None:
            return
        frames, px, diam, flags, shadow = self._put_down
        self._frames[:0], self._px[:0], self._diam[:0], self._flags[:0], self._shadow_px[:0] = (
            frames, px, diam, flags, shadow)
        xs, ys = self._px[0::2], self._px[1::2]
        self._box = [min(xs), max(xs), min(ys), max(ys)]
        self._put_down = None

    def _warn_if_lost_moving(self, frame_index: int, events: list[JudgeEvent]) -> None:
        """A meteor followed in a hand and lost, never judged released: a warning when it had been seen
        free of any hand moving as a launch does (`_launch_reach_px` from its first sighting), unless it
        is the meteor carried back after its launch was judged (picked up from its rest)."""
        free = self._free_sightings()
        if not free or self._lost_judged:
            return
        if self._picked_up_at is not None and self._frames[0] - self._picked_up_at <= PICKUP_SECONDS * self.fps:
            return
        first_frame, x0, y0 = free[0]
        travel_px = max(math.hypot(x - x0, y - y0) for _, x, y in free)
        if travel_px < self._launch_reach_px():
            return
        where = self._where(free[-1][1], free[-1][2])
        self._lost_launch = (frame_index, where)
        travel_mm = travel_px / self._px_per_mm
        message = unjudged.lost_in_hand(first_frame, frame_index, travel_mm, where)
        events.append(JudgeEvent("warning", frame_index, message))
        if not self.verdicts:
            # no launch judged yet: this one, if its meteor is not found, is judged as lost (disputed)
            doubt = unjudged.judged_lost_in_hand(first_frame, frame_index, travel_mm, where)
            self._lost_moving = (frame_index, self._launch_track(lost=True, final=False), doubt)

    def _judged_lost_moving(self, frame_index: int, events: list[JudgeEvent], ended: bool) -> bool:
        """Judge the launch lost moving in a hand (`_warn_if_lost_moving`), disputed, once nothing is
        tracked and its meteor was not found lying within `FOUND_AFTER_LOSS_SECONDS`, or the footage
        ended. Returns whether it was judged."""
        if self._lost_moving is None or self._frames:
            return False
        lost_frame, track, doubt = self._lost_moving
        if not ended and frame_index - lost_frame <= FOUND_AFTER_LOSS_SECONDS * self.fps:
            return False
        self._decide(frame_index, events, lost=True, doubt=doubt, track=track)
        return True

    def _found_after_loss(self, frame_index: int) -> str | None:
        """Why a meteor lying still is judged as the launch lost moving just before (`_warn_if_lost_moving`),
        its flight unseen; None when it is not that launch's meteor: found lying still within
        `FOUND_AFTER_LOSS_SECONDS` of the loss, past the herd line, never touching a hand nor moving since."""
        lost = self._lost_launch
        if lost is None or HAND in self._flags or COASTED in self._flags:
            return None
        if self._frames[0] - lost[0] > FOUND_AFTER_LOSS_SECONDS * self.fps:
            self._lost_launch = None
            return None
        x, y = self._px[-2], self._px[-1]
        lying = self._still_over(list(range(len(self._frames))), 0.5 * self._meteor_diameter_px())
        if not lying or not self._past_herd_line(x, y):
            return None
        return unjudged.found_after_loss(lost[0], lost[1], self._frames[0])

    def _never_left_the_release(self) -> bool:
        """Since it was judged released, what the tracker follows has stayed within a meteor's diameter
        of where it was then: no flight, but a jump at the "release" onto something lying still.
        A tracker holding a hand can jump onto a small blob beside it, which passes for a fast release
        and lies still: a void launch judged while the real meteor, unseen, lands elsewhere."""
        if self._released_at is None or self._flight_unseen:
            return False
        seen = self._sighting_indices(bisect.bisect_left(self._frames, self._released_at))
        return len(seen) >= 2 and self._still_over(seen, self._meteor_diameter_px())

    def _thrown_from_hold(self, predicted: bool = False) -> bool:
        """The track shows a throw: the meteor held still, then seen again beyond a launch's length away
        (with `predicted`, the tracker's own predictions while it coasted count as well)."""
        hold_frames = self._hold_frames()
        n = len(self._frames)
        xs, ys = self._px[0::2], self._px[1::2]
        seen = self._sighting_indices()
        tolerance = self._grip_tolerance_px()
        reach = self.config.min_launch_px
        for k in range(len(seen) - hold_frames):
            anchor = seen[k]
            window = seen[k : k + hold_frames]
            if self._still_over(window, tolerance):
                after = range(window[-1] + 1, n) if predicted else seen[k + hold_frames :]
                return any(math.hypot(xs[i] - xs[anchor], ys[i] - ys[anchor]) > reach for i in after)
        return False

    def _vanished_leaving_hold(self) -> bool:
        """Held still, then lost within `VANISH_SIGHTINGS` sightings of starting to move, its last
        position (sighted or predicted) well inside the picture and at least half a diameter from the
        hold. At 30 fps a flick's first frames can wash the meteor out before the tracker learns its
        speed, and the launch would go unjudged. A hand that closes over the
        meteor and carries it off looks the same to the track: that gives a disputed launch to dismiss,
        not a silently missed one. A meteor carried out over the picture's edge is still forgotten."""
        hold_frames = self._hold_frames()
        seen = self._sighting_indices()
        if len(seen) < hold_frames or self._frame_size is None:
            return False
        xs, ys = self._px[0::2], self._px[1::2]
        last = len(self._frames) - 1
        if self._near_edge(xs[last], ys[last]):
            return False
        tolerance = self._grip_tolerance_px()
        diameter_px = self._meteor_diameter_px()
        for extra in range(min(VANISH_SIGHTINGS, len(seen) - hold_frames) + 1):
            window = seen[len(seen) - hold_frames - extra : len(seen) - extra]
            if self._still_over(window, tolerance):
                anchor = window[0]
                return math.hypot(xs[last] - xs[anchor], ys[last] - ys[anchor]) >= 0.5 * diameter_px
        return False

    def _still_over(self, window: list[int], tolerance_px: float) -> bool:
        """Every sighting of `window` (track indices) within `tolerance_px` of its first: a hold."""
        x0, y0 = self._px[2 * window[0]], self._px[2 * window[0] + 1]
        return all(math.hypot(self._px[2 * i] - x0, self._px[2 * i + 1] - y0) <= tolerance_px for i in window)

    def _flung_away(self) -> bool:
        """Held, then the tracker's predictions raced off at a flick's speed (`JudgeConfig.flick_mm_s`)."""
        return self._thrown_from_hold(predicted=True) and self._predicted_speed_mm_s() >= self.config.flick_mm_s

    def _predicted_speed_mm_s(self) -> float:
        """The fastest step between the tracker's consecutive predictions (coasted frames), on the table."""
        steps = [
            math.hypot(self._px[2 * i] - self._px[2 * i - 2], self._px[2 * i + 1] - self._px[2 * i - 1])
            for i in range(1, len(self._frames))
            if self._flags[i] == COASTED and self._flags[i - 1] == COASTED
        ]
        return max(steps, default=0.0) / self._px_per_mm * self.fps

    def _moving_fast(self, window: int) -> bool:
        if len(self._frames) < window:
            return False
        px = self._px[-2 * window :]
        steps = sorted(math.hypot(px[i + 2] - px[i], px[i + 3] - px[i + 1]) for i in range(0, len(px) - 2, 2))
        half = len(steps) // 2
        median = steps[half] if len(steps) % 2 else 0.5 * (steps[half - 1] + steps[half])
        speed_mm_s = median / self._px_per_mm * self.fps
        return speed_mm_s > 300.0

    def _rest_decided(self, rest_frames: int) -> bool:
        """Whether the flight has ended in a rest: still for the rest's `rest_frames` (0.2 s, the label's
        stillness), or clearly still for `early_rest_seconds`.

        The verdict must come within 0.3 s of the rest, and the launch's analysis takes up to 0.2 s of
        it: waiting out the full 0.2 s made 4 of 190 dev rests wait longer than 0.3 s (60 fps, 11 frames
        of stillness before the verdict). The early rest is held to the rest speed over its shorter time
        with a floor of half the full rule's (0.4 px, not 0.8): with 0.8 a meteor rolling back, nearly
        still as it turned, was called at rest 7 frames early (2.4 mm off); with 0.4 it waits until the
        creep has ended, 3 frames after the labelled rest."""
        if self._is_still(rest_frames):
            return True
        frames = self._early_rest_frames()
        return frames < rest_frames and self._is_still(frames, frames / self.fps, self.config.early_rest_floor_px)

    def _early_rest_frames(self) -> int:
        """How many sightings an early rest (`JudgeConfig.early_rest_seconds`) spans."""
        return max(EARLY_REST_MIN_FRAMES, int(round(self.config.early_rest_seconds * self.fps)))

    def _is_still(self, rest_frames: int, seconds: float | None = None, floor_px: float = 0.8) -> bool:
        """Whether the last `rest_frames` sightings stay within the distance a meteor slower than the
        rest speed covers in `seconds` (default: the rest's `rest_seconds`), and at least `floor_px`
        (the centroid's noise), of the latest.

        Sightings of only part of the meteor (under `FAINT_SIZE_RATIO`'s low end of the window's median
        size: a highlight, a piece cut by a box partition's colour) are left out while most are whole:
        their centroids sit off the meteor's (a 6 px piece 6 px off a 19 px meteor, read every third
        sighting, would delay the verdict by a quarter second).

        A meteor read at two sizes by turns (`sizes_by_turns`) is still too when each size's sightings are."""
        if len(self._frames) < rest_frames + 2:
            return False
        if COASTED in self._flags[-rest_frames:]:
            return False
        px = self._px[-2 * rest_frames :]
        sizes = self._diam[-rest_frames:]
        whole_px = statistics.median(sizes)
        whole = [i for i, size in enumerate(sizes) if not size < FAINT_SIZE_RATIO[0] * whole_px]
        if 2 * len(whole) < rest_frames:
            whole = list(range(rest_frames))
        seconds = self.config.rest_seconds if seconds is None else seconds
        tolerance_px = max(floor_px, self.config.rest_speed_mm_s * seconds * self._px_per_mm)

        def spread_px(group: list[int]) -> float:
            lx, ly = px[2 * group[-1]], px[2 * group[-1] + 1]
            return max(math.hypot(px[2 * i] - lx, px[2 * i + 1] - ly) for i in group)

        spread = spread_px(whole)
        if spread <= tolerance_px:
            return True
        if spread > tolerance_px + whole_px:
            return False  # farther than a piece's centroid can sit from the whole's: moving
        groups = sizes_by_turns(whole, sizes)
        return len(groups) > 1 and all(spread_px(group) <= tolerance_px for group in groups)

    # ------------------------------------------------------------------ the verdict

    def _launch_track(self, lost: bool, final: bool) -> LaunchTrack:
        """The buffered launch as the analysis reads it."""
        return LaunchTrack(
            frames=np.asarray(self._frames, dtype=np.int64),
            px=np.asarray(self._px, dtype=np.float64).reshape(-1, 2),
            diameters=np.asarray(self._diam, dtype=np.float64),
            flags=np.asarray(self._flags, dtype=np.int8),
            fps=self.fps,
            frame_size=self._frame_size or (1280, 720),
            lost=lost,
            ended_early=final,
            hand_frames=np.asarray(self._hand.frames, dtype=np.int64),
            hand_shifts=np.asarray(self._hand.shifts, dtype=np.float64).reshape(-1, 2),
            hand_responses=np.asarray(self._hand.responses, dtype=np.float64),
            hand_direction=self._hand.direction,
            flight_unseen=self._flight_unseen,
            regained=tuple(self._regained),
            shadow_px=np.asarray(self._shadow_px, dtype=np.float64).reshape(-1, 2),
        )

    def _decide(
        self, frame_index: int, events: list[JudgeEvent], lost: bool, final: bool = False, doubt: str | None = None,
        track: LaunchTrack | None = None,
    ) -> None:
        """Judge the buffered launch (or `track`, one kept from before, built with its own `final`); `doubt`,
        when given, is why the verdict must be disputed whatever it says."""
        if track is None:
            track = self._launch_track(lost, final)
        if not lost:
            self._find_box_at_rest(frame_index)
        disputes = []
        unsafe = self._launch_unsafe or self._unsafe_reason
        if unsafe:
            disputes.append(f"markers: {unsafe}")
        if doubt:
            disputes.append(doubt)
        if self._found_flying is not None:
            disputes.append(
                f"release not seen: the meteor was first found flying at frame {self._found_flying}, "
                "while the tracker held something else"
            )
        decision = LaunchDecision(track, self.rig, self.calibration, self.config, frame_index, tuple(disputes))
        verdict, analysis = decision.decide()
        if self.on_decision is not None:
            self.on_decision(decision, verdict)
        self._analysis = analysis
        self.verdicts.append(verdict)
        moments = []  # the launch's moments, told in the order they happened
        if verdict.release is not None:
            moments.append(JudgeEvent("release", verdict.release.frame, "release point measured"))
        for bounce in verdict.bounces:
            moments.append(JudgeEvent("bounce", bounce.frame, f"bounce on {bounce.surface}"))
        if verdict.entered_box_frame is not None:
            moments.append(JudgeEvent("entered_box", verdict.entered_box_frame, "entered the box"))
        if verdict.rest is not None:
            moments.append(JudgeEvent("rest", verdict.rest.frame, f"at rest in {verdict.region}"))
        events.extend(sorted(moments, key=lambda event: event.frame))
        if verdict.rest is not None:
            tail = np.asarray(self._px[-2:])
            self._rest_anchor = (float(tail[0]), float(tail[1]))
        events.append(JudgeEvent("verdict", frame_index, verdict.summary(), verdict))
        self._gone_frames = 0
        self._rest_unseen = False
        self._put_down = None
        self._lost_launch = None
        self._lost_moving = None
        self._lost_judged = lost
        if lost:
            self._reset_track()
            self._analysis = analysis if len(analysis.positions) == 0 else None
            self.tracker.reset()
            self._set_state("waiting", frame_index, events, "meteor lost")
        else:
            self._set_state("at_rest", frame_index, events, "at rest")
