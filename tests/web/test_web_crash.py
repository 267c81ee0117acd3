"""A real `meteors-judge serve` killed with SIGKILL while two referees write (launches, overrules of
earlier launches, withdrawals, undos), restarted on the same data folder, and checked: every acknowledged
write is there, no override is half-written, every counted row equals the engine's record, and SQLite's
integrity check passes."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import threading
from http.client import HTTPException
from pathlib import Path

from web_helpers import PLAYERS, assert_counted_rows_equal_engine, call, start_server, stop_server

SEED = 40
ROUNDS = 8


class Acknowledged:
    """The writes the server answered 2xx to, so they must survive a crash."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.launches: dict[int, dict] = {}  # launch id -> machine outcome
        self.overrides: dict[int, int] = {}  # override id -> launch id
        self.withdrawn: set[int] = set()  # override ids

    def count(self) -> int:
        with self.lock:
            return len(self.launches) + len(self.overrides) + len(self.withdrawn)


def _launcher(url: str, game_id: int, rng: random.Random, acked: Acknowledged, stop: threading.Event) -> None:
    """Records launch outcomes, answers the decisions an undo brings back, and now and then undoes a step,
    until stopped, the game is over or the server dies."""
    try:
        while not stop.is_set():
            status, data = call(f"{url}/api/games/{game_id}")
            if data["over"]:
                return
            if rng.random() < 0.1:
                call(f"{url}/api/games/{game_id}/undo", "POST", {"steps": 1})
                continue
            if data["current_launch"] is None:
                call(f"{url}/api/games/{game_id}/commands", "POST", {"option_index": 0})
                continue
            outcome = rng.choice(["void", "water", "dinosaur"])
            body = {"outcome": outcome, "dinosaur": "trex" if outcome == "dinosaur" else None}
            status, answer = call(f"{url}/api/games/{game_id}/launch", "POST", body)
            if status == 201:
                with acked.lock:
                    acked.launches[answer["launch"]["id"]] = answer["launch"]["machine_outcome"]
    except (OSError, HTTPException):
        return  # the server was killed mid-request: that write was never acknowledged


def _overruler(url: str, rng: random.Random, acked: Acknowledged, stop: threading.Event) -> None:
    """Overrules earlier launches (confirmed) and withdraws overrides until stopped or the server dies."""
    try:
        while not stop.is_set():
            with acked.lock:
                launches, overrides = sorted(acked.launches), sorted(set(acked.overrides) - acked.withdrawn)
            if overrides and rng.random() < 0.3:
                override_id = rng.choice(overrides)
                status, _ = call(f"{url}/api/overrides/{override_id}/withdraw", "POST", {"reason": "crash test"})
                if status == 200:
                    with acked.lock:
                        acked.withdrawn.add(override_id)
            elif launches:
                launch_id = rng.choice(launches)
                body = {"outcome": rng.choice(["void", "water"]), "reason": "crash test", "confirm": True}
                status, answer = call(f"{url}/api/launches/{launch_id}/overrides", "POST", body)
                if status == 201:
                    with acked.lock:
                        acked.overrides[answer["overrides"][-1]["id"]] = launch_id
            else:
                stop.wait(0.01)
    except (OSError, HTTPException):
        return


def _check(url: str, game_id: int, acked: Acknowledged) -> None:
    status, data = call(f"{url}/api/games/{game_id}")
    assert status == 200
    assert_counted_rows_equal_engine(data)
    rows = {row["id"]: row for row in data["launches"]}
    for launch_id, machine in acked.launches.items():
        assert rows[launch_id]["machine_outcome"] == machine, f"acknowledged launch {launch_id} lost"
    overrides = {o["id"]: o for row in rows.values() for o in row["overrides"]}
    for override_id, launch_id in acked.overrides.items():
        assert overrides[override_id]["launch_id"] == launch_id, f"acknowledged override {override_id} lost"
    for override_id in acked.withdrawn:
        assert overrides[override_id]["status"] == "withdrawn", f"acknowledged withdrawal of {override_id} lost"
    # no half-written override: each retired one has the record that retired it, each record its target retired
    retired_by = {o["target_id"]: o for o in overrides.values() if o["target_id"] and o["status"] != "refused"}
    for override in overrides.values():
        if override["status"] in ("overruled", "withdrawn"):
            assert override["id"] in retired_by, f"override {override['id']} {override['status']} by nothing"
    for target_id, record in retired_by.items():
        expected = "withdrawn" if record["action"] == "withdraw" else "overruled"
        assert overrides[target_id]["status"] == expected, (target_id, record)
    # the call shown on each counted row is its latest active override (or the machine's)
    for row in rows.values():
        active = [o for o in row["overrides"] if o["status"] == "active" and o["outcome"]]
        assert row["outcome"] == (active[-1]["outcome"] if active else row["machine_outcome"])


def test_sigkill_during_writes_loses_nothing_acknowledged(tmp_path: Path):
    data = tmp_path / "data"
    rng = random.Random(SEED)
    acked = Acknowledged()
    earlier = 0  # writes acknowledged in games that ended
    process, url = start_server(data)
    try:
        status, game = call(f"{url}/api/games", "POST", {"players": PLAYERS, "seed": 3, "autoplay": True})
        assert status == 201
        game_id = game["id"]
        for _ in range(ROUNDS):
            stop = threading.Event()
            launcher_rng, overruler_rng = random.Random(rng.random()), random.Random(rng.random())
            writers = [threading.Thread(target=_launcher, args=(url, game_id, launcher_rng, acked, stop)),
                       threading.Thread(target=_overruler, args=(url, overruler_rng, acked, stop))]
            for writer in writers:
                writer.start()
            target = acked.count() + rng.randint(3, 12)
            while acked.count() < target and all(writer.is_alive() for writer in writers):
                stop.wait(0.005)
            os.killpg(process.pid, signal.SIGKILL)  # both writers are mid-request, or about to be
            process.wait(10)
            stop.set()
            for writer in writers:
                writer.join(30)
            process, url = start_server(data)
            _check(url, game_id, acked)
            status, game_data = call(f"{url}/api/games/{game_id}")
            if game_data["over"]:  # a new game, with its own acknowledged writes
                status, game = call(f"{url}/api/games", "POST", {"players": PLAYERS, "seed": 4, "autoplay": True})
                game_id = game["id"]
                earlier += acked.count()
                acked = Acknowledged()
    finally:
        stop_server(process)
    assert earlier + acked.count() >= ROUNDS  # writes were acknowledged between the kills
    database = sqlite3.connect(data / "meteors.sqlite3")
    assert database.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    database.close()
