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
