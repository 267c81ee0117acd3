"""The detector on synthetic frames with known answers."""

import cv2
import numpy as np

from vision.detector import MeteorDetector, kept_as_it_is_now

TABLE_BGR = (60, 100, 140)
METEOR_RGB = (245, 135, 20)


def _table(width=640, height=360, seed=0, colour_bgr=TABLE_BGR):
    rng = np.random.default_rng(seed)
    frame = np.zeros((height, width, 3), np.uint8)
    frame[:] = colour_bgr
    noise = rng.normal(0, 3, (height, width, 1))
    return np.clip(frame + noise, 0, 255).astype(np.uint8)


def _disc(frame, x, y, diameter, colour_rgb=METEOR_RGB):
    out = frame.copy()
    cv2.circle(
        out,
        (int(round(x * 16)), int(round(y * 16))),
        int(round(diameter / 2 * 16)),
        colour_rgb[::-1],
        -1,
        cv2.LINE_AA,
        4,
    )
    return out


def _detector(frame):
    detector = MeteorDetector((frame.shape[1], frame.shape[0]), METEOR_RGB, (10.0, 40.0), scale=2)
    small = detector.reduce(frame)
    detector.update_background(small, None, 1.0)
    detector.update_full_background(frame, None, 1.0)
    return detector


def _detect(detector, frame):
    small = detector.reduce(frame)
    found = detector.candidates(small)
    assert found, "no candidate"
    x, y, area, _, _ = max(found, key=lambda c: c[2])
    return detector.refine(frame, x, y, area)


def test_finds_centroid_and_diameter_of_a_disc():
    table = _table()
    detector = _detector(table)
    detection = _detect(detector, _disc(table, 300.3, 170.6, 20.0))
    assert abs(detection.x - 300.3) < 0.5 and abs(detection.y - 170.6) < 0.5
    assert abs(detection.diameter_px - 20.0) < 2.0
    assert detection.elongation < 1.2


def test_ignores_a_shadow_and_finds_nothing_on_the_bare_table():
    table = _table()
    detector = _detector(table)
    shadowed = table.copy()
    cv2.circle(shadowed, (200, 200), 14, tuple(int(c * 0.55) for c in TABLE_BGR), -1)
    assert detector.candidates(detector.reduce(shadowed)) == []
    assert detector.candidates(detector.reduce(table)) == []


def test_motion_blurred_streak_centre_is_mid_exposure_and_size_survives():
    table = _table()
    detector = _detector(table)
    accumulated = np.zeros(table.shape, np.float32)
    steps = 12
    for k in range(steps):  # the meteor sweeps 30 px to the right during the exposure
        accumulated += _disc(table, 280 + 30 * (k + 0.5) / steps, 150, 18.0).astype(np.float32)
    streak = (accumulated / steps).astype(np.uint8)
    detection = _detect(detector, streak)
    assert abs(detection.x - 295.0) < 1.0 and abs(detection.y - 150.0) < 0.7
    assert detection.elongation > 1.5
    assert abs(detection.diameter_px - 18.0) < 3.0


def test_window_search_finds_the_same_blob_as_the_whole_frame():
    table = _table()
    detector = _detector(table)
    frame = _disc(table, 420.4, 95.2, 16.0)
    whole = detector.candidates(detector.reduce(frame))
    near = detector.candidates_near(frame, 415.0, 100.0, detector.search_reach(12.0))
    assert len(whole) == 1 and len(near) == 1
    assert np.allclose(whole[0][:3], near[0][:3])
    # a window far from the meteor sees nothing
    assert detector.candidates_near(frame, 100.0, 300.0, 30.0) == []


def test_window_search_drops_blobs_cut_by_the_window():
    table = _table()
    detector = _detector(table)
    frame = _disc(table, 300.0, 180.0, 30.0)
    # a window whose right edge runs through the disc
    assert detector.candidates_near(frame, 300.0 - 40.0, 180.0, 35.0) == []


def test_change_gate_sees_a_meteor_and_ignores_noise():
    table = _table()
    detector = _detector(table)
    assert detector.changed(table)  # nothing remembered yet
    detector.remember_scene(table)
    assert not detector.changed(_table(seed=1))  # sensor noise only
    assert detector.changed(_disc(table, 203.0, 101.0, 12.0))


def test_background_blend_spares_the_meteor_disc():
    table = _table()
    detector = _detector(table)
    before = detector.full_background.copy()
    bright = np.full_like(table, 250)
    detector.update_full_background(bright, (320.0, 180.0, 20.0), 0.5)
    after = detector.full_background
    assert np.array_equal(after[180, 320], before[180, 320])  # inside the disc: untouched
    assert np.all(after[10, 10] > before[10, 10])  # elsewhere: blended
    # the same pixels as an explicit cv2.circle mask would keep
    keep = np.full(table.shape[:2], 255, np.uint8)
    cv2.circle(keep, (320, 180), 24, 0, -1)
    expected = before.copy()
    cv2.accumulateWeighted(bright, expected, 0.5, mask=keep)
    assert np.array_equal(after, expected)


def test_the_frozen_background_is_one_read_only_copy_until_the_background_next_changes():
    table = _table()
    detector = _detector(table)
    frozen = detector.frozen_full_background()
    assert frozen is detector.frozen_full_background()  # the hand's and the shadow's watchers share it
    assert not frozen.flags.writeable and frozen is not detector.full_background
    assert kept_as_it_is_now(frozen) is frozen  # frozen: kept as it is
    writable = detector.full_background
    assert kept_as_it_is_now(writable) is not writable and np.array_equal(kept_as_it_is_now(writable), writable)
    detector.update_full_background(np.full_like(table, 250), None, 0.5)
    assert np.array_equal(frozen, table.astype(np.float32))  # the table as it was when frozen
    assert not np.array_equal(detector.frozen_full_background(), frozen)  # a fresh copy of the new one


def test_refine_in_the_candidate_box_matches_the_large_window():
    table = _table()
    frame = _disc(table, 300.3, 170.6, 22.0)
    results = []
    for box_given in (False, True):
        detector = _detector(table)
        found = detector.candidates(detector.reduce(frame))
        x, y, area, _, label = max(found, key=lambda c: c[2])
        detection = detector.refine(frame, x, y, area, detector.last_boxes[label] if box_given else None)
        results.append((detection.x, detection.y, detection.diameter_px, detection.area_px, detection.partial))
    assert results[0] == results[1]


def test_refine_falls_back_to_the_large_window_when_the_box_is_too_small():
    table = _table()
    detector = _detector(table)
    frame = _disc(table, 300.0, 180.0, 30.0)
    whole = detector.refine(frame, 300.0, 180.0, 700.0)
    detector = _detector(table)
    # a box far smaller than the blob: its window cuts the blob, so the large window is used
    small_box = detector.refine(frame, 300.0, 180.0, 700.0, (296, 176, 304, 184))
    assert not small_box.partial
    assert (small_box.x, small_box.y, small_box.diameter_px) == (whole.x, whole.y, whole.diameter_px)


def test_small_search_window_falls_back_when_a_blob_is_cut():
    table = _table()
    detector = _detector(table)
    frame = _disc(table, 330.0, 180.0, 30.0)
    large = detector.search_reach(12.0)
    # a window sized for a 4 px meteor cuts the 30 px disc: the search repeats in the large window
    near = detector.candidates_near(frame, 302.0, 180.0, detector.search_reach(12.0, 4.0), large)
    assert len(near) == 1 and abs(near[0][0] - 330.0) < 2.0
    assert detector.candidates_near(frame, 302.0, 180.0, detector.search_reach(12.0, 4.0)) == []


GREY_TABLE_BGR = (96, 96, 91)


def _streak(table, x0, x1, y, diameter, steps=24):
    """The meteor swept from x0 to x1 during the exposure: the mean of its positions."""
    accumulated = np.zeros(table.shape, np.float32)
    for k in range(steps):
        accumulated += _disc(table, x0 + (x1 - x0) * (k + 0.5) / steps, y, diameter).astype(np.float32)
    return (accumulated / steps).astype(np.uint8)


def test_a_fast_streak_too_faint_for_the_colour_test_is_found_by_its_alpha():
    # a 14 px meteor swept 40 px on a grey table: each pixel holds at most a third of the meteor's colour
    table = _table()
    table[:] = GREY_TABLE_BGR
    detector = _detector(table)
    frame = _streak(table, 280.0, 320.0, 150.0, 14.0)
    assert detector.candidates(detector.reduce(frame)) == []  # washed out for the colour test
    found = detector.faint_candidates_near(frame, 305.0, 152.0, 60.0, max_area_px=4000.0)
    assert len(found) == 1
    x, y, _area, _frac, label = found[0]
    detection = detector.refine_faint(frame, x, y, detector.last_boxes[label])
    assert detection.faint
    assert abs(detection.x - 300.0) < 1.0 and abs(detection.y - 150.0) < 1.0
    assert abs(detection.diameter_px - 14.0) < 2.0  # the alpha sum is the disc's area, blur or not
    assert detection.elongation > 2.0
    # a streak far larger than the tracked meteor's speed allows is not it
    assert detector.faint_candidates_near(frame, 305.0, 152.0, 60.0, max_area_px=200.0) == []


def test_the_faint_search_ignores_shadows_and_the_bare_table():
    table = _table()
    table[:] = GREY_TABLE_BGR
    detector = _detector(table)
    shadowed = table.copy()
    cv2.ellipse(shadowed, (300, 150), (30, 8), 0, 0, 360, tuple(int(c * 0.6) for c in GREY_TABLE_BGR), -1)
    assert detector.faint_candidates_near(shadowed, 300.0, 150.0, 60.0, max_area_px=4000.0) == []
    assert detector.faint_candidates_near(table, 300.0, 150.0, 60.0, max_area_px=4000.0) == []


def _touch(detector, frame, detection, sweep=(0.0, 0.0)):
    detector.candidates(detector.reduce(frame))  # `touching` reads the last search's mask
    return detector.touching(detection.x, detection.y, detection.diameter_px, sweep)


def test_a_streaks_washed_out_ends_are_not_a_hand_but_a_hand_beside_it_is():
    table = _table()
    detector = _detector(table)
    frame = _streak(table, 280.0, 310.0, 150.0, 18.0)  # 30 px in one frame
    detection = _detect(detector, frame)
    assert _touch(detector, frame, detection) > 0.2  # a ring round a still meteor crosses the streak
    assert _touch(detector, frame, detection, (30.0, 0.0)) < 0.05
    hand = frame.copy()
    cv2.rectangle(hand, (275, 162), (320, 200), (150, 170, 215), -1)  # skin under the streak
    assert _touch(detector, hand, detection, (30.0, 0.0)) > 0.2


def test_a_palm_near_the_meteor_is_seen_through_a_lighting_drift():
    table = _table()
    detector = _detector(table)
    brighter = np.clip(table.astype(np.float32) * 1.04, 0, 255).astype(np.uint8)  # the room's light drifts
    alone = _disc(brighter, 300.0, 180.0, 16.0)
    assert detector.hand_nearby(alone, 300.0, 180.0, 16.0) < 0.01
    held = alone.copy()
    palm = tuple(int(c) + 12 for c in TABLE_BGR)  # skin only a little off the table's colour
    cv2.circle(held, (300 - 50, 180), 24, palm, -1)  # the palm, three diameters behind the meteor
    assert detector.hand_nearby(held, 300.0, 180.0, 16.0) > 0.05
    # the touch ring right round the meteor does not see that skin
    detector.candidates(detector.reduce(held))
    assert detector.touching(300.0, 180.0, 16.0) < 0.2


BROWN_TABLE_RGB = (120, 90, 60)
DARK_BROWN_METEOR_RGB = (60, 48, 24)  # 4.8° from the table's hue: the hue test cannot tell them apart


def _brown_table_and_detector():
    table = _table(colour_bgr=BROWN_TABLE_RGB[::-1])
    detector = MeteorDetector((table.shape[1], table.shape[0]), DARK_BROWN_METEOR_RGB, (10.0, 40.0), scale=2)
    detector.update_background(detector.reduce(table), None, 1.0)
    detector.update_full_background(table, None, 1.0)
    return table, detector


def test_a_meteor_of_the_tables_hue_is_found_by_how_it_changes_the_table():
    table, detector = _brown_table_and_detector()
    frame = _disc(table, 300.3, 170.6, 20.0, DARK_BROWN_METEOR_RGB)
    found = detector.candidates(detector.reduce(frame))
    assert len(found) == 1
    x, y, area, _frac, label = found[0]
    detection = detector.refine(frame, x, y, area, detector.last_boxes[label])
    assert abs(detection.x - 300.3) < 0.5 and abs(detection.y - 170.6) < 0.5
    assert abs(detection.diameter_px - 20.0) < 2.0
    assert detector.candidates(detector.reduce(table)) == []


def test_on_a_table_of_the_meteors_hue_a_shadow_is_not_taken_for_the_meteor():
    table, detector = _brown_table_and_detector()
    shadowed = table.copy()
    darker = tuple(int(c * 0.5) for c in BROWN_TABLE_RGB[::-1])  # as dark as the meteor, the table's hue
    cv2.circle(shadowed, (300, 170), 10, darker, -1)
    cv2.ellipse(shadowed, (420, 120), (40, 12), 30, 0, 360, darker, -1)
    assert detector.candidates(detector.reduce(shadowed)) == []


def test_a_one_pixel_speck_on_a_table_of_the_meteors_hue_is_no_meteor_and_no_error():
    # OpenCV takes a one-pixel picture for a scalar beside a number: the tests must still answer per pixel
    table, detector = _brown_table_and_detector()
    frame = table.copy()
    frame[170, 300] = DARK_BROWN_METEOR_RGB[::-1]
    assert detector.refine(frame, 300.0, 170.0, 1.0) is None
    speck, under = frame[170:171, 300:301], detector.full_background[170:171, 300:301]
    mask, alpha = detector.alpha_mask(speck, under, 0.8)
    assert mask.shape == alpha.shape == (1, 1)
    assert detector.colour_mask(speck, under).shape == (1, 1)
