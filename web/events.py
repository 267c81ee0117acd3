"""A tiny publish/subscribe hub behind the Server-Sent Events stream: every browser gets every event.

The hub also keeps the latest judge events (`history`), so a page opened after a launch shows what
the judge saw, and a browser that subscribes `after` an event id it already shows gets every later
event exactly once (no gap between the page's render and its stream, no repeat).
"""

from __future__ import annotations

import json
import queue
import threading
from collections import deque
from typing import Any

#: the kinds of event the hub remembers for pages opened later (the Live page's judge log), and replays to a
#: stream that starts `after` an id: a verdict given between a page's render and its stream's start is not lost
REMEMBERED_KINDS = ("judge", "verdict")


class EventHub:
    def __init__(self, backlog: int = 200, history: int = 200):
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue] = []
        self._last_id = 0
        self._history: deque[tuple[int, str, str]] = deque(maxlen=history)
        self.backlog = backlog

    def subscribe(self, after: int | None = None) -> queue.Queue:
        """A queue of the events to come; with `after`, first the remembered events newer than that id."""
        q: queue.Queue = queue.Queue(maxsize=self.backlog)
        with self._lock:
            if after is not None:
                for message in list(self._history)[-self.backlog:]:
                    if message[0] > after:
                        q.put_nowait(message)
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def publish(self, kind: str, data: Any) -> None:
        with self._lock:  # ids, history and delivery in one order
            self._last_id += 1
            message = (self._last_id, kind, json.dumps(data, default=str))
            if kind in REMEMBERED_KINDS:
                self._history.append(message)
            subscribers = list(self._subscribers)
        for q in subscribers:
            try:
                q.put_nowait(message)
            except queue.Full:  # a stalled browser: drop its oldest event rather than block the judge
                try:
                    q.get_nowait()
                    q.put_nowait(message)
                except (queue.Empty, queue.Full):
                    pass

    def history(self, kind: str, limit: int = 40) -> tuple[list[dict], int]:
        """The latest remembered events of `kind` (oldest first, each with its `id`) and the last id given out."""
        with self._lock:
            last_id = self._last_id
            messages = [m for m in self._history if m[1] == kind][-limit:]
        return [{"id": event_id, **json.loads(data)} for event_id, _, data in messages], last_id

    @staticmethod
    def format(message: tuple[int, str, str]) -> str:
        event_id, kind, data = message
        return f"id: {event_id}\nevent: {kind}\ndata: {data}\n\n"
