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
from vision.bounces import Impact, find_impacts
from vision.landing import classify_point, herd_line_signed, herd_normal, outline_signed_mm, surface_of_impact
from vision.trajectory import BALLISTIC, Segment, build_geometry, fit_release, segment_track
from vision.truth import required_table_bounces
from vision.verdict import JudgedBounce, JudgedRelease, JudgedRest, Margin, Verdict

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
    for z, kind in ((radius, "table"), (rig.box.floor_height_mm + radius, "floor"), (rig.box.rim_height_mm + radius, "rim")):
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

    # -- the free flight: after the last frame the hand touched the meteor ------------------------
    hand_end = -1
    for index in range(min(rest_index, len(flags)) - 1, -1, -1):
        if flags[index] == 3:
            hand_end = index
            break
    free_start = hand_end + 1
    if flight_stop - free_start < 4:
        free_start = max(0, flight_stop - 4)

    # -- 3D: arcs and contacts over the free flight up to the rest ------------------------------
    times = (frames - frames[0]) / track.fps
    noisy = (flags == 1) | (flags == 3)
    sigma_px, sigma_size = _noise_levels(px[free_start:flight_stop], diam[free_start:flight_stop], config)
    sigma = np.where(noisy, sigma_px * 4.0, sigma_px)
    size_rel = np.hypot(np.where(noisy, 3.0, 1.0) * sigma_size / np.maximum(diam, 1.0), config.size_bias_rel)
    geo_all = build_geometry(
        camera, px[:flight_stop], diam[:flight_stop], times[:flight_stop], rig.meteor.diameter_mm,
        sigma_px=sigma[:flight_stop], size_rel=size_rel[:flight_stop], contact_heights=(radius, floor_z, rim_z),
    )
    geo = build_geometry(
        camera, px[free_start:flight_stop], diam[free_start:flight_stop], times[free_start:flight_stop],
        rig.meteor.diameter_mm, sigma_px=sigma[free_start:flight_stop],
        size_rel=size_rel[free_start:flight_stop], contact_heights=(radius, floor_z, rim_z),
    )
    segments = [
        Segment(seg.start + free_start, seg.stop + free_start, seg.kind, seg.params, seg.cov, seg.rss, seg.z_contact)
        for seg in segment_track(geo, penalty=config.segment_penalty, surface_check=_surface_checker(rig, pose))
    ]
    analysis.segments = segments
    release_seg = _release_segment(segments, geo_all.times)
    flight = segments[release_seg:]
    impacts = find_impacts(geo_all, flight)
    for impact in impacts:
        impact.surface = surface_of_impact(rig, pose, impact.position, radius)
    analysis.impacts = impacts

    positions = np.full((len(track.frames), 3), np.nan)
    ok_idx = np.flatnonzero(ok)
    for seg in segments:
        positions[ok_idx[seg.start : seg.stop]] = seg.position(geo_all.times[seg.start : seg.stop])
    analysis.positions = positions

    # -- release: the change point between the hand's push and the free arc -----------------------
    release = None
    herd_ok = True
    release_margin = None
    if flight and flight[0].kind == BALLISTIC:
        first = flight[0]
        window_start = max(0, first.start - config.release_lookback)
        fps = track.fps
        t_lo = geo_all.times[window_start] + 1.0 / fps
        t_hi = geo_all.times[min(first.start + 2, first.stop - 1)]
        taus = np.arange(t_lo, max(t_hi, t_lo) + 1e-9, 0.1 / fps)
        tau, rss_curve, _, arc = fit_release(geo_all, window_start, first.stop, taus)
        if arc is None or not np.isfinite(arc.params).all():
            arc = first
        frame0 = float(frames[0])
        offset = config.exposure_half_frames
        plausible = taus[rss_curve <= rss_curve.min() + 4.0]
        frame_candidates = sorted({int(np.ceil(frame0 + t * fps + offset - 1e-9)) for t in plausible})
        release_frame = int(np.ceil(frame0 + tau * fps + offset - 1e-9))
        t_rel = (release_frame - frame0) / fps
        p_rel = arc.position(t_rel)[0]
        analysis.release_index = int(np.searchsorted(track.frames, release_frame))
        signed = herd_line_signed(rig, pose, p_rel[:2], herd)
        if signed is not None:
            normal = herd_normal(rig, pose, herd)
            cov = arc.position_cov(t_rel)[:2, :2]
            sigma_fit = float(np.sqrt(max(0.0, normal @ cov @ normal)))
            others = [
                herd_line_signed(rig, pose, arc.position((f - frame0) / fps)[0, :2], herd) for f in frame_candidates
            ]
            spread = max([abs(o - signed) for o in others] + [0.0])
            uncertainty = float(np.sqrt(sigma_fit**2 + CALIBRATION_MM**2) + spread)
            herd_ok = signed >= 0
            release_margin = Margin(margin_mm=abs(signed), uncertainty_mm=uncertainty)
            if any((o >= 0) != herd_ok for o in others) or abs(signed) < k * np.hypot(sigma_fit, CALIBRATION_MM):
                dispute.append(f"release {signed:+.0f} mm from the herd line (±{uncertainty:.0f} mm)")
        release = JudgedRelease(
            frame=release_frame,
            table_mm=(float(p_rel[0]), float(p_rel[1])),
            height_mm=float(p_rel[2] - radius),
            herd_line_signed_mm=signed,
        )
    else:
        dispute.append("no free flight found in the track")
    geo = geo_all
    analysis.geo = geo_all

    # -- box entry: the first frame with the centre over the outline ---------------------------
    entered_frame = None
    entered_time = None
    if flight:
        for seg in flight:
            t_grid = geo.times[seg.start : seg.stop]
            for j, t in enumerate(t_grid):
                p = seg.position(t)[0]
                if outline_signed_mm(rig, pose, p[:2]) > 0:
                    entered_frame = int(frames[seg.start + j])
                    entered_time = float(t)
                    break
            if entered_frame is not None:
                break

    # -- bounces ---------------------------------------------------------------------------------
    judged_bounces = []
    table_before = 0
    doubtful = []
    for impact in impacts:
        frame = int(frames[impact.index])
        before = entered_time is None or impact.time < entered_time
        judged_bounces.append(
            JudgedBounce(
                frame=frame,
                table_mm=(float(impact.position[0]), float(impact.position[1])),
                surface=impact.surface,  # type: ignore[arg-type]
                before_box=before,
                confidence=float(min(1.0, impact.evidence / (4 * config.segment_penalty))),
            )
        )
        if impact.surface == "table" and before:
            table_before += 1
            if impact.evidence < 2 * config.segment_penalty:
                doubtful.append(frame)
    analysis.bounce_indices = [int(ok_idx[i.index]) for i in impacts]
    required = required_table_bounces(mode)
    enough = table_before >= required
    bounce_margin = Margin(margin_mm=float(abs(table_before - required + 0.5) - 0.5), uncertainty_mm=float(len(doubtful)))
    if doubtful and table_before in (required, required - 1 + len(doubtful)) and table_before - len(doubtful) < required:
        dispute.append(f"doubtful bounce(s) at frame(s) {doubtful}")

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
