"""The two endless responses, bounded: Server-Sent Events (`/api/events`) and the camera's MJPEG stream.

A client bounds a stream itself (`?seconds=`, `?max_events=`, `?max_frames=`); the server may bound
every stream's length (`STREAM_MAX_SECONDS`, default none: the pages keep theirs open), ends an MJPEG
stream when the camera has given no new frame for `STREAM_IDLE_SECONDS` (default 120), and keeps at
most `MAX_STREAMS` streams open at once (default 32): one more gets 503 with `Retry-After`, so that
many phones or an API fuzzer cannot take every thread of the server.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterator

from flask import Blueprint, Flask, Response, current_app, jsonify

from web import context, schemas
from web.api import BadRequest, parse_query

bp = Blueprint("streams", __name__)

MAX_STREAMS = 32
STREAM_IDLE_SECONDS = 120.0
KEEP_ALIVE_SECONDS = 15.0
MJPEG_FRAME_GAP_SECONDS = 0.04  # at most ~25 frames per second per viewer


class StreamsFull(BadRequest):
    def __init__(self, limit: int):
        super().__init__(f"{limit} streams are open already (the server's limit): close a page or try again later",
                         None, 503)


class StreamGate:
    """Counts open streams; `enter()` gives a slot to release once (when the stream ends or is closed)."""

    def __init__(self, limit: int):
        self.limit = limit
        self._slots = threading.BoundedSemaphore(limit)

    def enter(self) -> StreamSlot:
        if not self._slots.acquire(blocking=False):
            raise StreamsFull(self.limit)
        return StreamSlot(self._slots)


class StreamSlot:
    def __init__(self, slots: threading.BoundedSemaphore):
        self._slots = slots
        self._lock = threading.Lock()
        self._held = True

    def release(self) -> None:
        with self._lock:
            if self._held:
                self._held = False
                self._slots.release()


def init_streams(app: Flask) -> None:
    app.extensions["meteors_streams"] = StreamGate(int(app.config.get("MAX_STREAMS", MAX_STREAMS)))

    @app.errorhandler(StreamsFull)
    def streams_full(error: StreamsFull):
        return jsonify({"error": error.message, "field": None}), 503, {"Retry-After": "5"}


def _deadline(asked_seconds: float | None) -> float:
    """When the stream ends (time.monotonic()): the client's `seconds`, capped by STREAM_MAX_SECONDS."""
    limits = [s for s in (asked_seconds, current_app.config.get("STREAM_MAX_SECONDS")) if s]
    return time.monotonic() + min(limits) if limits else float("inf")


def _bounded(body: Iterator, mimetype: str, headers: dict[str, str], on_end: Callable[[], None] = lambda: None
             ) -> Response:
    """A streamed response holding a slot of the gate until it ends or the client goes away; then `on_end`.

    The body needs no request context (it captured what it reads), so none is held while it runs.
    """
    slot = current_app.extensions["meteors_streams"].enter()

    def end() -> None:
        slot.release()
        on_end()

    def guarded() -> Iterator:
        try:
            yield from body
        finally:
            end()

    response = Response(guarded(), mimetype=mimetype, headers=headers)
    response.call_on_close(end)  # also when the body never started
    return response


@bp.get("/api/events")
def events():
    query = parse_query(schemas.EventsQuery)
    deadline = _deadline(query.seconds)
    hub = context().hub
    q = hub.subscribe(query.after)  # now, so nothing published before the body starts is missed

    def stream() -> Iterator[str]:
        sent = 0
        yield "retry: 2000\n\n"
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = q.get(timeout=min(left, KEEP_ALIVE_SECONDS))
            except queue.Empty:
                yield ": keep-alive\n\n"
                continue
            yield hub.format(message)
            sent += 1
            if query.max_events and sent >= query.max_events:
                return

    try:
        return _bounded(stream(), "text/event-stream", {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
                        on_end=lambda: hub.unsubscribe(q))
    except StreamsFull:
        hub.unsubscribe(q)
        raise


@bp.get("/api/live/stream.mjpg")
def mjpeg():
    query = parse_query(schemas.StreamQuery)
    live = context().live
    if live is None:
        raise BadRequest("the camera is off (serve with --camera or --video)", None, 404)
    deadline = _deadline(query.seconds)
    idle_seconds = float(current_app.config.get("STREAM_IDLE_SECONDS", STREAM_IDLE_SECONDS))

    def frames() -> Iterator[bytes]:
        seq, sent, last_new = -1, 0, time.monotonic()
        while time.monotonic() < deadline:
            new_seq, jpeg = live.wait_frame(seq, timeout=max(0.0, min(2.0, deadline - time.monotonic())))
            now = time.monotonic()
            if new_seq != seq:
                seq, last_new = new_seq, now
            elif now - last_new >= idle_seconds:
                return  # the camera has stopped: a reload asks again
            yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode() + b"\r\n\r\n"
            yield jpeg + b"\r\n"
            sent += 1
            if query.max_frames and sent >= query.max_frames:
                return
            time.sleep(MJPEG_FRAME_GAP_SECONDS)

    return _bounded(frames(), "multipart/x-mixed-replace; boundary=frame", {"Cache-Control": "no-cache"})
