"""A tiny publish/subscribe hub behind the Server-Sent Events stream: every browser gets every event."""

from __future__ import annotations

import itertools
import json
import queue
import threading
from typing import Any


class EventHub:
    def __init__(self, backlog: int = 200):
        self._lock = threading.Lock()
        self._subscribers: list[queue.Queue] = []
        self._ids = itertools.count(1)
        self.backlog = backlog

    def subscribe(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=self.backlog)
        with self._lock:
            self._subscribers.append(q)
        return q

    def unsubscribe(self, q: queue.Queue) -> None:
        with self._lock:
            if q in self._subscribers:
                self._subscribers.remove(q)

    def publish(self, kind: str, data: Any) -> None:
        message = (next(self._ids), kind, json.dumps(data, default=str))
        with self._lock:
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

    @staticmethod
    def format(message: tuple[int, str, str]) -> str:
        event_id, kind, data = message
        return f"id: {event_id}\nevent: {kind}\ndata: {data}\n\n"
