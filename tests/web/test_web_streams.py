"""The event and camera streams end when the client or the server says, and only so many are open at once."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from web import context, create_app

HANG_GUARD_SECONDS = 60  # only so that a stream that never ends fails the test instead of hanging the suite


def _read_in_thread(client, url: str) -> dict:
    """GET a stream to its end in a thread; the caller checks it ended at all (a hang guard, not a timing)."""
    result: dict = {}

    def read() -> None:
        response = client.get(url)
        result["status"] = response.status_code
        result["body"] = response.data

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    thread.join(HANG_GUARD_SECONDS)
    assert not thread.is_alive(), f"{url} never ended"
    return result


@pytest.fixture
def make_app(tmp_path: Path):
    apps = []

    def make(**config):
        app = create_app({"DATA_DIR": tmp_path / f"data{len(apps)}", "TESTING": True, **config})
        apps.append(app)
        return app

    yield make
    for app in apps:
        if context(app).live:
            context(app).live.stop()
        context(app).store.close()


def test_a_client_bounds_the_event_stream_in_seconds(client):
    result = _read_in_thread(client, "/api/events?seconds=0.3")  # no event comes, yet it ends
    assert result["status"] == 200
    assert result["body"].startswith(b"retry: 2000")


def test_the_server_bounds_every_stream(make_app):
    app = make_app(STREAM_MAX_SECONDS=0.3)
    result = _read_in_thread(app.test_client(), "/api/events")  # asks for no end
    assert result["status"] == 200
    longer = _read_in_thread(app.test_client(), "/api/events?seconds=3600")  # nor can a client ask for more
    assert longer["status"] == 200


@pytest.mark.parametrize("query", ["seconds=0", "seconds=-1", "seconds=abc", "seconds=1e9", "max_events=0"])
def test_stream_bounds_are_validated(client, query):
    response = client.get(f"/api/events?{query}")
    assert response.status_code == 400 and response.json["field"] == query.split("=")[0]


def test_concurrent_streams_are_capped(make_app):
    app = make_app(MAX_STREAMS=2)
    client = app.test_client()
    first = client.get("/api/events?seconds=60", buffered=False)
    second = client.get("/api/events?seconds=60", buffered=False)
    assert first.status_code == second.status_code == 200
    full = client.get("/api/events?seconds=60")
    assert full.status_code == 503
    assert full.headers["Retry-After"] and "2 streams" in full.json["error"]
    assert client.get("/api/status").status_code == 200  # the rest of the API still answers
    first.close()  # a phone goes away: its place is free again
    third = client.get("/api/events?seconds=60", buffered=False)
    assert third.status_code == 200
    assert client.get("/api/events?seconds=60").status_code == 503
    second.close()
    third.close()
    for _ in range(5):  # streams that ran to their end give their place back too
        assert _read_in_thread(client, "/api/events?seconds=0.05")["status"] == 200


def test_camera_stream_bounded_by_seconds_and_by_idle(make_app, synthetic_video):
    app = make_app(SOURCE=str(synthetic_video), LOOP=False, REALTIME=False, STREAM_IDLE_SECONDS=0.3)
    live = context(app).live
    client = app.test_client()
    deadline = time.monotonic() + HANG_GUARD_SECONDS
    while live.status.state != "ended" and time.monotonic() < deadline:  # the video plays once, then stops
        time.sleep(0.05)
    assert live.status.state == "ended"
    idle = _read_in_thread(client, "/api/live/stream.mjpg")  # no new frame comes: the stream ends
    assert idle["status"] == 200 and idle["body"].count(b"Content-Type: image/jpeg") >= 1
    bounded = _read_in_thread(client, "/api/live/stream.mjpg?seconds=0.2")
    assert bounded["status"] == 200


def test_camera_stream_counts_towards_the_cap(make_app, synthetic_video):
    app = make_app(SOURCE=str(synthetic_video), LOOP=True, REALTIME=True, MAX_STREAMS=1)
    client = app.test_client()
    held = client.get("/api/live/stream.mjpg?seconds=60", buffered=False)
    assert held.status_code == 200
    assert client.get("/api/live/stream.mjpg?seconds=60").status_code == 503
    assert client.get("/api/events?seconds=60").status_code == 503
    held.close()
    assert client.get("/api/live/stream.mjpg?max_frames=1").status_code == 200


def test_a_verdict_between_the_page_and_its_stream_is_not_lost(client, app):
    """The Live page renders, the judge gives a verdict, then the page's stream starts `after` the render."""
    hub = context(app).hub
    _, rendered_after = hub.history("judge")
    hub.publish("verdict", {"id": 7, "outcome": "water"})
    body = _read_in_thread(client, f"/api/events?after={rendered_after}&max_events=1&seconds=5")["body"]
    assert b"event: verdict" in body and b'"id": 7' in body
