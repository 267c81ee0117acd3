"""Helpers shared by the dashboard tests."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

PLAYERS = [{"name": "Carlo"}, {"name": "Gianna"}, {"name": "Marco"}]


def csrf_of(client, path: str = "/game/new") -> str:
    page = client.get(path).get_data(as_text=True)
    return re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)


def new_game(client, autoplay: bool = True, **extra) -> int:
    response = client.post("/api/games", json={"players": PLAYERS, "seed": 11, "autoplay": autoplay, **extra})
    assert response.status_code == 201, response.json
    return response.json["id"]


def state(client, game_id: int) -> dict:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200
    return response.json


def herd_type(client, game_id: int) -> str:
    """A dinosaur type in the Herd now (the launch card's type is always there during a launch)."""
    view = state(client, game_id)["view"]
    return view["launch"]["dinosaur"] if view["launch"] and view["launch"]["dinosaur"] else view["herd"][0]["dinosaur"]


def play_to_the_end(client, game_id: int, outcomes: tuple[str, ...] = ("void", "water")) -> dict:
    """Autoplay game: record launch outcomes by hand until the game is over."""
    for number in range(200):
        data = state(client, game_id)
        if data["over"]:
            return data
        outcome = outcomes[number % len(outcomes)]
        response = client.post(f"/api/games/{game_id}/launch", json={"outcome": outcome})
        assert response.status_code == 201, response.json
    raise AssertionError("the game did not end")


def start_server(data: Path, *extra: str, timeout_s: float = 60.0,
                 banner: list[str] | None = None) -> tuple[subprocess.Popen, str]:
    """A real `meteors-judge serve` process on a free port (loopback unless `extra` says --host); returns it and
    its address once its banner is printed (its lines go to `banner` when given: the referee token is there)."""
    command = [sys.executable, "-m", "cli.main", "serve", "--port", "0", "--data", str(data), *extra]
    # stderr (a line per request) goes to a file: a pipe nobody reads fills after ~64 KiB and then blocks the
    # server's every request (the browser tests hung that way on a busy machine, where they poll for longer)
    log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (lives as long as the server: stop_server closes it)
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=log, text=True,
                               start_new_session=True)
    process.log = log
    url = None
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        if banner is not None:
            banner.append(line)
        match = re.search(r"dashboard: (https?://\S+)", line)
        if match:
            url = match.group(1).rstrip("/")
        if url and line.startswith("Ctrl-C to stop"):  # the banner's last line
            threading.Thread(target=process.stdout.read, daemon=True).start()  # and whatever it prints later
            return process, url
    process.kill()
    process.wait(5)
    log.seek(0)
    raise AssertionError(f"serve did not start: {log.read()}")


def stop_server(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)
    process.log.close()


def call(url: str, method: str = "GET", body: dict | None = None, timeout_s: float = 30.0,
         headers: dict[str, str] | None = None) -> tuple[int, dict]:
    """One JSON request to a served dashboard: (status, body); HTTP errors are answers too."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout_s) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def assert_counted_rows_equal_engine(data: dict) -> None:
    """In a game's state: every counted row holds its own engine launch with the engine's verdict, no engine
    launch has two counted rows, and every row that does not count says why."""
    records = {r["index"]: r for r in data["engine_launches"]}
    counted = [row for row in data["launches"] if row["counted"]]
    slots = [row["engine_launch"] for row in counted]
    assert len(slots) == len(set(slots)), f"an engine launch claimed by two rows: {slots}"
    for row in counted:
        record = records[row["engine_launch"]]
        assert (record["outcome"], record["dinosaur"]) == (row["outcome"]["outcome"], row["outcome"]["dinosaur"])
    for row in data["launches"]:
        assert row["counted"] or row["not_counted_reason"], row


def answer(client, game_id: int, **body) -> dict:
    response = client.post(f"/api/games/{game_id}/commands", json=body)
    assert response.status_code == 200, response.json
    return response.json


def drive_until(client, game_id: int, wanted, hits: bool = False) -> tuple[dict, dict]:
    """Answer every decision plainly (first option, ocean level 1, Bolide launch taken, launches void, or a
    hit on a type the Herd holds twice when `hits`) until `wanted(item, data)`; returns that item and state."""
    for _ in range(400):
        data = state(client, game_id)
        assert not data["over"], "the game ended first"
        item = data["pending"][0]
        if wanted(item, data):
            return item, data
        if item["kind"] == "resolve_launch":
            counts = Counter(card["dinosaur"] for card in data["view"]["herd"])
            twice = [dinosaur for dinosaur, count in counts.items() if count >= 2]
            body = {"outcome": "dinosaur", "dinosaur": twice[0]} if hits and twice else {"outcome": "void"}
            assert client.post(f"/api/games/{game_id}/launch", json=body).status_code == 201
        elif item["kind"] == "choose_bolide_launch":
            answer(client, game_id, option=True)
        else:
            answer(client, game_id, option_index=0)
    raise AssertionError("the decision never came")


def mixed_pile(item: dict, data: dict) -> bool:
    return item["kind"] == "take_hatchlings" and any(len(set(gains)) >= 2 for gains in item["detail"]["gains"].values())


def all_at_once(requests: list) -> list:
    """Run each callable in its own thread, released together by a barrier; their results, in any order."""
    barrier = threading.Barrier(len(requests))
    results: list = []

    def run(request) -> None:
        barrier.wait()
        results.append(request())

    threads = [threading.Thread(target=run, args=(request,)) for request in requests]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results
