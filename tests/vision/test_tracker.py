"""The Kalman tracker: bridges a short occlusion, refuses to jump to another object."""

from vision.tracker import KalmanTracker


def _feed(tracker, points):
    for x, y in points:
        tracker.predict()
        tracker.update(x, y)


def test_bridges_an_occlusion_and_reacquires_inside_the_gate():
    tracker = KalmanTracker()
    tracker.start(100.0, 100.0)
    _feed(tracker, [(100.0 + 10 * i, 100.0 + 2 * i) for i in range(1, 12)])
    for i in range(12, 16):  # four frames hidden behind the hand
        x, y, _ = tracker.predict()
        assert abs(x - (100 + 10 * i)) < 3.0 and abs(y - (100 + 2 * i)) < 3.0
        assert not tracker.miss()
    x, y, gate = tracker.predict()
    assert tracker.in_gate(100 + 10 * 16, 100 + 2 * 16)
    tracker.update(100 + 10 * 16, 100 + 2 * 16)
    assert tracker.active and tracker.missed == 0


def test_a_bounce_hidden_in_a_gap_does_not_swing_the_track_backwards():
    tracker = KalmanTracker()
    tracker.start(0.0, 300.0)
    _feed(tracker, [(60.0 * i, 300.0) for i in range(1, 8)])  # 60 px a frame, then unseen
    for _ in range(3):
        tracker.predict()
        tracker.miss()
    # it bounced in the gap (frame 8) and goes on at 25 px a frame: found at frame 11
    x_found = 60.0 * 8 + 25.0 * 3
    tracker.predict()
    tracker.update(x_found, 300.0)
    x_next, _, _ = tracker.predict()
    assert x_next > x_found  # still moving forwards
    assert abs(x_next - (x_found + 25.0)) < 12.0


def test_refuses_a_jump_to_another_object():
    tracker = KalmanTracker()
    tracker.start(200.0, 200.0)
    _feed(tracker, [(200.0 + 5 * i, 200.0) for i in range(1, 10)])
    tracker.predict()
    assert not tracker.in_gate(200.0 + 5 * 10, 320.0)  # a meteor-coloured card 120 px away
    assert tracker.in_gate(200.0 + 5 * 10 + 2, 201.0)


def test_loses_the_track_after_too_many_misses():
    tracker = KalmanTracker(max_missed=3)
    tracker.start(0.0, 0.0)
    lost = [tracker.predict() and tracker.miss() for _ in range(4)]
    assert lost[-1] and not tracker.active


def test_closed_form_filter_matches_the_matrix_kalman_filter():
    import numpy as np

    tracker = KalmanTracker()
    f = np.eye(6)
    f[0, 2] = f[1, 3] = f[2, 4] = f[3, 5] = 1.0
    f[0, 4] = f[1, 5] = 0.5
    h = np.zeros((2, 6))
    h[0, 0] = h[1, 1] = 1.0
    q = np.diag([0.25, 0.25, 1.0, 1.0, 1.0, 1.0]) * tracker.jerk_px**2
    x = np.array([50.0, 80.0, 0, 0, 0, 0])
    p = np.diag([4.0, 4.0, 400.0, 400.0, 25.0, 25.0])
    tracker.start(50.0, 80.0)
    for i in range(1, 30):
        tracker.predict()
        x, p = f @ x, f @ p @ f.T + q
        if i % 7 == 3:
            continue  # a missed frame: predict only
        z, noise = np.array([50.0 + 6 * i, 80.0 + 0.4 * i * i]), 0.5 if i % 2 else 1.5
        gain = p @ h.T @ np.linalg.inv(h @ p @ h.T + np.eye(2) * noise**2)
        x, p = x + gain @ (z - h @ x), (np.eye(6) - gain @ h) @ p
        tracker.update(float(z[0]), float(z[1]), noise)
    assert np.allclose(tracker.x, x, atol=1e-9) and np.allclose(tracker.P, p, atol=1e-9)


def _coast_after_a_push(tracker: KalmanTracker, frames_unseen: int) -> float:
    """A meteor pushed from rest (4 px/frame²), seen for ten frames, let go in the first frame unseen at
    44 px a frame: how far the tracker's last prediction lies from it after `frames_unseen` frames."""
    tracker.start(0.0, 100.0)
    _feed(tracker, [(2.0 * i * i, 100.0) for i in range(1, 11)])
    for _ in range(frames_unseen):
        x, _, _ = tracker.predict()
        tracker.miss()
    return abs(x - (242.0 + 44.0 * (frames_unseen - 1)))


def test_coasting_holds_the_acceleration_to_free_flight():
    unbounded = _coast_after_a_push(KalmanTracker(), 6)
    bounded = _coast_after_a_push(KalmanTracker(max_coast_accel_px=0.5), 6)
    assert unbounded > 40.0  # the push carried on: the prediction runs off ahead of the meteor
    assert bounded < 10.0
