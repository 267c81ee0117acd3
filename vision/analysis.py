"""One launch, decided from its buffered pixel track: release, impacts, box entry, rest, verdict.

Runs once per launch when the meteor comes to rest (or is lost): the 3D arcs and contacts of
`vision.trajectory`, the impacts of `vision.bounces`, the geometry of `vision.landing`, and the
rules: released behind the herd line, enough table bounces before the box for the launch mode,
and the resting place decides the outcome. Every decision carries a margin and an uncertainty;
a margin inside `dispute_sigmas` uncertainties makes the verdict disputed, with the reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from calibration.rig import Rig
from vision.bounces import Impact, kink_strength, pixel_segments
from vision.landing import classify_point, herd_line_signed, herd_normal, outline_signed_mm
from vision.trajectory import BALLISTIC, Segment, build_geometry, fit_release, fit_segment
from vision.truth import required_table_bounces
from vision.verdict import JudgedBounce, JudgedRelease, JudgedRest, Margin, Verdict

RELEASE_CHI2 = 4.0  # residual allowance (chi²) for the earliest release the free arc still explains
HAND_SIGMA = 2.5  # centroid noise of a sighting touching the hand, relative to a clear one
RELEASE_MAX_LAG_S = 0.2  # the hand touches the freed meteor at most this long
RELEASE_FRAME_SIGMA = 3.0  # one sigma of the release frame (measured on dev seeds: ±2–5 frames)
CALIBRATION_MM = 1.5  # one sigma of a table point from the calibration (issue 4's figures)


@dataclass
class LaunchTrack:
    frames: np.ndarray
    px: np.ndarray
    diameters: np.ndarray
    flags: np.ndarray
    fps: float
    frame_size: tuple[int, int]
    lost: bool = False
    ended_early: bool = False


@dataclass
class Analysis:
    positions: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))  # per track frame
    segments: list[Segment] = field(default_factory=list)
    impacts: list[Impact] = field(default_factory=list)
    release_index: int | None = None
    bounce_indices: list[int] = field(default_factory=list)
    geo: object = None


def _rest_start(px: np.ndarray, flags: np.ndarray, tolerance_px: float) -> int:
    """First index of the final stillness: walking back while within tolerance of the final position."""
    final = np.median(px[-5:], axis=0)
    index = len(px) - 1
    while index > 0 and flags[index - 1] != 2 and np.hypot(*(px[index - 1] - final)) <= tolerance_px:
        index -= 1
    return index


def times_of(frames: np.ndarray, fps: float) -> np.ndarray:
    return (frames - frames[0]) / fps if len(frames) else np.zeros(0)


def _throw_start(px: np.ndarray, times: np.ndarray, stop: int, still_px: float = 0.8, min_run: int = 5) -> int:
    """Index where the throw begins: the end of the last still (held) run that a big move follows.

    While held the meteor barely moves; the throw then carries it tens of pixels within a quarter
    second. Runs of stillness later (a slow roll before the rest) are not followed by such a move.
    """
    if stop < 2:
        return 0
    steps = np.hypot(*np.diff(px[:stop], axis=0).T)
    best, run = 0, 0
    for index, step in enumerate(steps):
        run = run + 1 if step < still_px else 0
        if run >= min_run:
            end = index + 1
            horizon = np.searchsorted(times, times[end] + 0.25)
            ahead = px[end : min(horizon, stop)]
            if len(ahead) and np.max(np.hypot(*(ahead - px[end]).T)) > 40.0:
                best = end
    return best


def _noise_levels(px: np.ndarray, diam: np.ndarray, config) -> tuple[float, float]:
    """Centroid and diameter noise of this track (robust, from second and first differences)."""
    sigma_px, sigma_size = config.sigma_px, config.size_sigma_px
    if len(px) >= 6:
        second = np.diff(px, n=2, axis=0).reshape(-1)
        mad = float(np.median(np.abs(second - np.median(second))))
        sigma_px = max(sigma_px, 1.4826 * mad / np.sqrt(6.0))
        first = np.diff(diam)
        mad = float(np.median(np.abs(first - np.median(first))))
        sigma_size = max(sigma_size, 1.4826 * mad / np.sqrt(2.0))
    return sigma_px, sigma_size


def _surface_checker(rig: Rig, pose):
    """surface_check(index, xy N×2) -> bool N: is a contact on surface `index` (table, floor, rim) possible there."""
    import cv2

    outline = np.asarray(rig.box.outline_mm, dtype=np.float32).reshape(-1, 1, 2)
    radius = rig.meteor.diameter_mm / 2

    def check(index: int, xy: np.ndarray) -> np.ndarray:
        box_xy = pose.table_to_box(xy)
        sd = np.array([cv2.pointPolygonTest(outline, (float(x), float(y)), True) for x, y in box_xy])
        if index == 0:
            return sd < radius * 0.3
        if index == 1:
            return sd > radius * 0.5
        return sd > -radius

    return check


def _rest_surface(camera, rig: Rig, pose, rest_px: np.ndarray, rest_diam: float, scale_prior: float):
    """(surface kind, table xy) of a resting meteor, and measured/predicted apparent size there.

    The geometry decides first (a meteor resting over the box's floor cannot be on the table), the
    apparent size breaks the remaining ties (the rim is higher than the floor)."""
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
            consistent = sd > -radius and (call.region == "rim" or call.margin_mm < radius)
        options.append((size_err + (0.0 if consistent else 1.0), kind, xy, ratio))
    _, kind, xy, ratio = min(options, key=lambda o: o[0])
    return (kind, xy), ratio


def _release_segment(segments: list[Segment], geo_times: np.ndarray) -> int:
    """Index of the segment the release starts: the first ballistic arc of the free flight.

    Before it the hand carries the meteor. The free flight is the longest run of physically
    plausible stretches ending at the rest; walking back from the first impact, the release arc
    is the last ballistic arc before it whose start is not preceded by a plausible impact.
    """
    first_ballistic = None
    for k, seg in enumerate(segments):
        if seg.kind == BALLISTIC and seg.stop - seg.start >= 3:
            first_ballistic = k
            break
    return first_ballistic if first_ballistic is not None else 0


def judge_launch(track: LaunchTrack, rig: Rig, calibration, config, frame_index: int) -> tuple[Verdict, Analysis]:
    camera = calibration.camera
    pose = calibration.box_pose
    herd = getattr(calibration, "herd_line_mm", None) or rig.herd_line_mm
    radius = rig.meteor.diameter_mm / 2
    floor_z = rig.box.floor_height_mm + radius
    rim_z = rig.box.rim_height_mm + radius
    mode = config.launch_mode
    k = config.dispute_sigmas
    dispute: list[str] = []
    reasons: list[str] = []
    analysis = Analysis()
    missing = list(getattr(calibration, "markers_missing", []) or [])

    ok = (track.flags != 2) & np.isfinite(track.diameters)
    frames = track.frames[ok]
    px = track.px[ok]
    diam = track.diameters[ok]
    flags = track.flags[ok]
    px_per_mm = float(np.median(camera.apparent_diameter_px(camera.pixel_to_plane(px[:1], radius), 1.0)))
    start_frame = int(track.frames[0]) if len(track.frames) else frame_index

    # -- rest: the final stillness --------------------------------------------------------------
    rest_index = len(px)
    if not track.lost and len(px) > 3:
        tolerance = max(0.9, 1.2 * config.rest_speed_mm_s * config.rest_seconds * px_per_mm)
        rest_index = _rest_start(px, flags, tolerance)
    flight_stop = min(len(px), rest_index + 1)

    # -- where it rests, on which surface; the size scale of this launch's sightings -----------------
    rest_surface = None
    size_scale = config.size_scale_prior
    if not track.lost and rest_index < len(px):
        rest_px = np.median(px[rest_index:], axis=0)
        rest_diam = float(np.median(diam[rest_index:]))
        rest_surface, ratio = _rest_surface(camera, rig, pose, rest_px, rest_diam, size_scale)
        if ratio is not None and 0.75 < ratio < 1.25:
            size_scale = ratio
    diam = diam / size_scale

    # -- the free flight: the throw starts when the held meteor stops being still; the free
    # flight proper at the first clear (hand-free) run of sightings after that
    throw_start = _throw_start(px, times_of(frames, track.fps), rest_index)
    free_start = throw_start + 1
    while free_start < rest_index - 3 and not all(f in (0, 1) for f in flags[free_start : free_start + 3]):
        free_start += 1
    if flight_stop - free_start < 4:
        free_start = max(0, flight_stop - 4)
    throw_start = min(throw_start, free_start)

    # -- impacts: kinks of the pixel track over the free flight ------------------------------------
    times = (frames - frames[0]) / track.fps
    fps = track.fps
    noisy = (flags == 1) | (flags == 3)
    sigma_px, sigma_size = _noise_levels(px[free_start:flight_stop], diam[free_start:flight_stop], config)
    sigma = np.where(flags == 3, sigma_px * HAND_SIGMA, np.where(noisy, sigma_px * config.hand_sigma_factor, sigma_px))
    size_rel = np.hypot(sigma_size / np.maximum(diam, 1.0), config.size_bias_rel)
    size_rel = np.where(flags == 3, 10.0, size_rel)  # a meteor partly hidden by the hand: its size says nothing
    geo_all = build_geometry(
        camera,
        px[:flight_stop],
        diam[:flight_stop],
        times[:flight_stop],
        rig.meteor.diameter_mm,
        sigma_px=sigma[:flight_stop],
        size_rel=size_rel[:flight_stop],
        contact_heights=(radius, floor_z, rim_z),
    )
    analysis.geo = geo_all
    analysis.free_start_frame = int(frames[free_start])
    analysis.throw_start_frame = int(frames[throw_start])
    ok_idx = np.flatnonzero(ok)
    free_t = times[free_start:flight_stop]
    free_px = px[free_start:flight_stop]
    pieces = pixel_segments(free_t, free_px, sigma[free_start:flight_stop], config.kink_penalty)
    pieces = [(p0 + free_start, p1 + free_start) for p0, p1 in pieces]
    kinks = []  # (index of first frame after, time, ground xy at the table, surface, strength)
    for left, right in zip(pieces, pieces[1:], strict=False):
        strength = kink_strength(times, px, left, right) / px_per_mm  # mm/s of image-plane velocity change
        t_k = 0.5 * (times[left[1] - 1] + times[right[0]])
        tl = times[left[0] : left[1]]
        coeffs = [np.polyfit(tl, px[left[0] : left[1], k], min(2, len(tl) - 1)) for k in range(2)]
        pixel = np.array([[np.polyval(c, t_k) for c in coeffs]])
        ground = camera.pixel_to_plane(pixel, radius)[0, :2]
        sd = outline_signed_mm(rig, pose, ground)
        if sd < -radius * 0.5:
            surface = "table"
        else:
            floor_xy = camera.pixel_to_plane(pixel, floor_z)[0, :2]
            inner = outline_signed_mm(rig, pose, floor_xy)
            surface = (
                "box_floor"
                if classify_point(rig, pose, floor_xy).region not in ("rim", "outside")
                else ("box_rim" if inner > 0 else "box_wall")
            )
        kinks.append((right[0], t_k, ground, surface, strength, sd))

    # -- box entry: the first frame with the centre over the outline (above the rim to get in) -----
    entered_frame = None
    entered_time = None
    rim_xy = camera.pixel_to_plane(px[free_start:flight_stop], rim_z)[:, :2]
    for j, xy in enumerate(rim_xy):
        if outline_signed_mm(rig, pose, xy) > 0:
            entered_frame = int(frames[free_start + j])
            entered_time = float(times[free_start + j])
            break

    # -- release: the change point between the hand's push and the free arc -----------------------
    release = None
    herd_ok = True
    release_margin = None
    first_stop = pieces[0][1] if pieces else flight_stop
    landing = None
    if kinks and kinks[0][3] == "table":
        landing = (kinks[0][1], radius, 3.0)
    if first_stop - free_start >= 3:
        # the throw is a smooth push (a cubic), then the free arc: the release is the change point,
        # searched from the start of the throw to the first hand-free sighting
        window_start = max(throw_start, free_start - config.release_lookback)
        t_lo = times[window_start] + 1.0 / fps
        t_hi = max(t_lo, times[free_start] + 0.5 / fps)
        taus = np.arange(t_lo, t_hi + 1e-9, 0.25 / fps)
        if landing is not None:
            # the first landing's time is known to a frame from the kink: the best of a few around it
            options = []
            for shift in np.linspace(-1.0, 1.0, 5) / fps:
                trial = (landing[0] + shift, radius, 1.0)
                fitted = fit_release(geo_all, window_start, first_stop, taus, trial)
                options.append((float(np.min(fitted[1])), trial, fitted))
            _, landing, (tau, rss_curve, _, arc) = min(options, key=lambda o: o[0])
        else:
            tau, rss_curve, _, arc = fit_release(geo_all, window_start, first_stop, taus, landing)
        if arc is None or not np.isfinite(arc.params).all():
            arc = fit_segment(geo_all, free_start, first_stop, BALLISTIC)
        frame0 = float(frames[0])
        offset = config.exposure_half_frames
        # the frames between the release and the first hand-free sighting are ballistic too (only
        # partly hidden): a later change point merely lets the push model soak up the hand's bias.
        # The release is the earliest change point the free arc still explains within noise.
        allowed = rss_curve <= rss_curve.min() + RELEASE_CHI2
        tau = float(taus[int(np.argmax(allowed))])
        tau, _, _, arc_early = fit_release(geo_all, window_start, first_stop, np.array([tau]), landing)
        if arc_early is not None and np.isfinite(arc_early.params).all():
            arc = arc_early
        plausible = taus[rss_curve <= rss_curve.min() + 2 * RELEASE_CHI2]
        frame_candidates = sorted({int(np.ceil(frame0 + t * fps + offset - 1e-9)) for t in plausible})
        release_frame = int(np.ceil(frame0 + tau * fps + offset - 1e-9))
        t_rel = (release_frame - frame0) / fps
        p_arc = arc.position(t_rel)[0]
        # the release pixel comes straight from the track; its height from the arc when that is
        # plausible, else from the apparent size; both with honest uncertainties
        rel_pixel = np.array([np.interp(t_rel, times, px[:, 0]), np.interp(t_rel, times, px[:, 1])])
        arc_ok = radius * 0.5 <= p_arc[2] <= 600.0
        if arc_ok:
            z_rel = float(p_arc[2])
        else:
            near = slice(free_start, min(free_start + 4, flight_stop))
            sizes = camera.sphere_from_apparent_size(px[near], diam[near], rig.meteor.diameter_mm)
            z_rel = float(np.clip(np.median(sizes[:, 2]), radius, 500.0))
        sigma_z = config.release_height_sigma_mm * (1.0 if arc_ok else 2.0)
        p_rel = camera.pixel_to_plane(rel_pixel.reshape(1, 2), z_rel)[0]
        lever = camera.pixel_to_plane(rel_pixel.reshape(1, 2), z_rel + sigma_z)[0, :2] - p_rel[:2]
        step = (
            camera.pixel_to_plane(
                np.array(
                    [[np.interp(t_rel + 1.0 / fps, times, px[:, 0]), np.interp(t_rel + 1.0 / fps, times, px[:, 1])]]
                ),
                z_rel,
            )[0, :2]
            - p_rel[:2]
        )
        frame_sigma = RELEASE_FRAME_SIGMA + 0.1 * max(0, len(frame_candidates) - 1)
        analysis.release_index = int(np.searchsorted(track.frames, release_frame))
        positions = np.full((len(track.frames), 3), np.nan)
        span = slice(window_start, first_stop)
        positions[ok_idx[span]] = arc.position(times[span])
        analysis.positions = positions
        signed = herd_line_signed(rig, pose, p_rel[:2], herd)
        if signed is not None:
            normal = herd_normal(rig, pose, herd)
            uncertainty = float(
                np.sqrt(
                    (lever @ normal) ** 2
                    + (frame_sigma * (step @ normal)) ** 2
                    + CALIBRATION_MM**2
                    + (sigma_px / px_per_mm) ** 2
                )
            )
            herd_ok = signed >= 0
            release_margin = Margin(margin_mm=abs(signed), uncertainty_mm=uncertainty)

            # bounds that need no release frame: the meteor crosses the line towards the box, so the
            # release lies between the first hand-free sighting (latest) and the earliest plausible
            # release (earliest); when both bounds agree the call is sure whatever the frame
            def signed_at(index: int) -> float:
                z_here = float(np.clip(arc.position(times[index])[0][2], radius, 600.0))
                xy = camera.pixel_to_plane(px[index].reshape(1, 2), z_here)[0, :2]
                return float(herd_line_signed(rig, pose, xy, herd))

            lag = max(1, int(round(RELEASE_MAX_LAG_S * fps)))
            late = signed_at(free_start)
            early = signed_at(max(window_start, free_start - lag))
            bound_sigma = (
                float(np.hypot(CALIBRATION_MM, 2.0 * sigma_px / px_per_mm)) + 0.05 * config.release_height_sigma_mm
            )
            if late - k * bound_sigma >= 0:
                herd_ok = True
                release_margin = Margin(margin_mm=max(abs(signed), late), uncertainty_mm=bound_sigma)
            elif early + k * bound_sigma >= 0 and not herd_ok:
                # the earliest plausible release is behind the line: a foul call rests on the frame
                dispute.append(f"release {signed:+.0f} mm from the herd line, the frame uncertain")
            elif abs(signed) < k * uncertainty:
                dispute.append(f"release {signed:+.0f} mm from the herd line (±{uncertainty:.0f} mm)")
        # sanity: a launch is released well away from the box and starts with a free arc
        box_gap = -outline_signed_mm(rig, pose, p_rel[:2])
        if box_gap < config.min_release_box_gap_mm or first_stop - free_start < 4:
            dispute.append("the release was not seen clearly (hidden by the hand or too close to the box)")
        release = JudgedRelease(
            frame=release_frame,
            table_mm=(float(p_rel[0]), float(p_rel[1])),
            height_mm=float(z_rel - radius),
            herd_line_signed_mm=signed,
        )
    else:
        dispute.append("no free flight found in the track")

    # a meteor hidden (coasted) between the throw and its first impact: the early flight is unseen
    first_seen_stop = int(frames[min(first_stop, len(frames) - 1)])
    hidden = (track.frames >= frames[throw_start]) & (track.frames <= first_seen_stop) & (track.flags == 2)
    if np.any(hidden):
        dispute.append(f"meteor hidden for {int(hidden.sum())} frame(s) between release and first impact")

    # -- bounces ---------------------------------------------------------------------------------
    judged_bounces = []
    table_before = 0
    doubtful = []
    for _index, t_k, ground, surface, strength, sd in kinks:
        frame = int(np.floor(frames[0] + t_k * fps + config.exposure_half_frames))
        before = entered_time is None or t_k < entered_time
        weak = strength < config.kink_min_mm_s
        judged_bounces.append(
            JudgedBounce(
                frame=frame,
                table_mm=(float(ground[0]), float(ground[1])),
                surface=surface,  # type: ignore[arg-type]
                before_box=before,
                confidence=float(min(1.0, strength / (2 * config.kink_min_mm_s))),
            )
        )
        if surface == "table" and before:
            if not weak:
                table_before += 1
            if (
                strength < 2 * config.kink_min_mm_s
                or sd > -2.0 * radius
                or (entered_time is not None and entered_time - t_k < 1.5 / fps)
            ):
                doubtful.append(frame)
    analysis.bounce_indices = [int(ok_idx[kk[0]]) for kk in kinks]
    required = required_table_bounces(mode)
    enough = table_before >= required
    bounce_margin = Margin(
        margin_mm=float(abs(table_before - required + 0.5) - 0.5), uncertainty_mm=float(len(doubtful))
    )
    if doubtful:
        dispute.append(f"doubtful bounce(s) at frame(s) {doubtful}")
    elif table_before >= 3:
        dispute.append(f"{table_before} table bounces: small hops are easily miscounted")

    # -- rest and region -------------------------------------------------------------------------
    rest = None
    region_call = None
    region_margin = None
    if rest_surface is not None:
        kind, xy = rest_surface
        region_call = classify_point(rig, pose, xy, on_rim=(kind == "rim"))
        sigma_rest = float(np.hypot(CALIBRATION_MM, 0.3 / px_per_mm))
        region_margin = Margin(margin_mm=region_call.margin_mm, uncertainty_mm=sigma_rest)
        if region_call.margin_mm < k * sigma_rest:
            dispute.append(f"rests {region_call.margin_mm:.1f} mm from a region border")
        rest = JudgedRest(
            frame=int(frames[rest_index]),
            table_mm=(float(xy[0]), float(xy[1])),
            box_mm=region_call.box_mm,
        )
        if track.ended_early:
            dispute.append("the clip ended before the meteor was still for long")
    elif track.lost:
        last = px[-1] if len(px) else np.array([0.0, 0.0])
        w, h = track.frame_size
        margin = 3 * float(np.median(diam)) if len(diam) else 20.0
        at_edge = last[0] < margin or last[1] < margin or last[0] > w - margin or last[1] > h - margin
        if not at_edge:
            dispute.append("meteor lost from view inside the picture")

    if missing:
        dispute.append(f"markers missing: {missing}")

    # -- rules -----------------------------------------------------------------------------------
    if not herd_ok:
        reasons.append("released over the herd line")
    if not enough:
        if table_before == 0:
            reasons.append("no table bounce before the box")
        else:
            reasons.append(f"{table_before} table bounce(s) but {mode} needs {required}")
    valid = herd_ok and enough
    if region_call is None:
        region, landing, dinosaur = "outside", "outside", None
    else:
        region, landing, dinosaur = region_call.region, region_call.landing, region_call.dinosaur
    outcome = landing if valid and landing in ("dinosaur", "water") else "void"
    margins = {"bounces": bounce_margin}
    if release_margin is not None:
        margins["herd_line"] = release_margin
    if region_margin is not None:
        margins["region"] = region_margin
    # a dispute matters only if it could change the outcome
    verdict = Verdict(
        outcome=outcome,  # type: ignore[arg-type]
        dinosaur=dinosaur if outcome == "dinosaur" else None,
        valid=valid,
        reasons=reasons,
        region=region,
        landing=landing,  # type: ignore[arg-type]
        launch_mode=mode,
        bounces_before_box=table_before,
        bounces=judged_bounces,
        release=release,
        herd_line_ok=herd_ok,
        entered_box_frame=entered_frame,
        rest=rest,
        disputed=bool(dispute),
        dispute_reasons=dispute,
        margins=margins,
        start_frame=start_frame,
        verdict_frame=frame_index,
    )
    return verdict, analysis
