"""In a real browser: Playwright drives Debian's Chromium against `meteors-judge serve` on a bundled clip.

The live page shows the judge's verdict, the referee disputes it and overrules it on the launch page,
and the game page shows the amended Food and Herd. A screenshot of each page goes to test-artifacts/.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = pytest.mark.browser


def _clip(tmp_path_factory) -> Path:
    """The bundled default clip, or (before the sample videos exist) one generated the same way."""
    bundled = ROOT / "sample_videos" / "clip_000.mp4"
    if bundled.exists() and bundled.with_suffix(".json").exists():
        return bundled
    try:
        from footage.generate import generate
    except ImportError:
        pytest.skip("no bundled clip and no footage generator")
    out = tmp_path_factory.mktemp("clips")
    generate(str(out), 1, seed=0, workers=1, progress=False)
    return out / "clip_000.mp4"


def _get(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run `sh scripts/ensure-chromium.sh`")
    pytest.importorskip("playwright")
    clip = _clip(tmp_path_factory)
    data = tmp_path_factory.mktemp("served") / "data"
    # the game is created first (a restart then finds it), so the clip's first verdict resolves its launch
    from web_helpers import new_game, play_to_the_end

    from web import context, create_app

    app = create_app({"DATA_DIR": data})
    client = app.test_client()
    finished = new_game(client)
    play_to_the_end(client, finished, outcomes=("water", "void", "void"))
    game = client.post("/api/games", json={"name": "Browser test", "players": [
        {"name": "Carlo"}, {"name": "Gianna"}, {"name": "Marco"}], "seed": 5, "autoplay": True}).json["id"]
    context(app).store.close()

    command = [sys.executable, "-m", "cli.main", "serve", "--video", str(clip), "--rig", str(clip.with_suffix(".json")),
               "--no-loop", "--port", "0", "--data", str(data)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    url = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and url is None:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        match = re.search(r"dashboard: (http://\S+)", line)
        if match:
            url = match.group(1).rstrip("/")
    if url is None:
        process.kill()
        pytest.fail(f"serve did not start: {process.stderr.read()}")
    yield {"url": url, "game": game, "finished": finished, "data": data}
    os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _wait_for(condition, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.25)
    raise AssertionError("timed out")


def test_verdict_dispute_overrule_and_amended_game(served, browser):
    url, game_id = served["url"], served["game"]
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)

    # Live: the stream and the judge's verdict (pushed by Server-Sent Events, or already there)
    page.goto(f"{url}/live")
    page.wait_for_selector("#conn.ok")  # the Server-Sent Events stream is open
    page.wait_for_selector("#verdict-card", timeout=60_000)
    launch_id = int(page.get_attribute("#verdict-card", "data-launch"))
    assert page.locator("#verdict-card .badge").first.inner_text()
    # wait until the clip is saved and the video has ended, so the game stays still while we overrule
    launch = _wait_for(lambda: (d := _get(f"{url}/api/launches/{launch_id}")).get("clip_dir") and d, 60)
    _wait_for(lambda: _get(f"{url}/api/status")["live"]["state"] == "ended", 60)
    page.wait_for_timeout(500)
    _shot(page, "live")
    # the judge's events, newest on top, unnumbered (a numbered list read 1 for the latest event)
    assert page.locator("ul#judge-log").count() == 1
    logged = [int(re.match(r"frame (\d+)", text).group(1)) for text in page.locator("#judge-log li").all_inner_texts()]
    assert len(logged) >= 2 and logged == sorted(logged, reverse=True)

    before = _get(f"{url}/api/games/{game_id}")
    record = next(r for r in before["engine_launches"] if r["index"] == launch["engine_launch"])
    launcher = record["launcher"]

    # Dispute from the verdict card: the browser asks why, then opens the launch's replay page
    page.once("dialog", lambda dialog: dialog.accept("it bounced on the rim, not the table"))
    page.locator(f'#verdict-card button.dispute[data-launch="{launch_id}"]').click()
    page.wait_for_url(re.compile(rf"/launches/{launch_id}$"))
    page.wait_for_selector("canvas#replay")
    page.click("#next")
    page.click("#next")
    assert "frame" in page.inner_text("#frame-no")
    assert "Disputed" in page.inner_text("body")

    # Overrule: a hit on the revealed card's dinosaur if the machine said otherwise, else void
    machine = launch["machine_outcome"]
    if machine["outcome"] == "dinosaur":
        page.select_option('#override-form select[name="valid"]', "no")
        expected = {"outcome": "void", "dinosaur": None}
    else:
        region = record["card_dinosaur"]
        page.select_option('#override-form select[name="region"]', region)
        page.select_option('#override-form select[name="valid"]', "yes")
        expected = {"outcome": "dinosaur", "dinosaur": region}
    page.fill('#override-form input[name="reason"]', "the replay shows it clearly")
    page.fill('#override-form input[name="who"]', "Ada")
    page.click("#override-submit")
    page.wait_for_selector("text=overruled by referee")
    calls = page.inner_text("#calls")
    assert "Ada" in calls and "the replay shows it clearly" in calls and "machine verdict" in calls
    _shot(page, "launch")

    after = _get(f"{url}/api/games/{game_id}")
    assert _get(f"{url}/api/launches/{launch_id}")["outcome"] == expected
    food_before = [p["food"] for p in before["view"]["players"]]
    food_after = [p["food"] for p in after["view"]["players"]]
    herd_before = [c["card"] for c in before["view"]["herd"]]
    herd_after = [c["card"] for c in after["view"]["herd"]]
    assert food_after != food_before or herd_after != herd_before
    assert food_after[launcher] != food_before[launcher]

    # Game: the page shows the amended Food and Herd
    page.goto(f"{url}/game/{game_id}")
    shown_food = [int(t) for t in page.locator("#players .food-count").all_inner_texts()]
    assert shown_food == food_after
    shown_herd = [li.get_attribute("title") for li in page.locator("#herd li.dino").all()]
    assert shown_herd == herd_after
    _shot(page, "game")

    for name, path in (("launches", "/launches"), ("calibration", "/calibration"),
                       ("scores", f"/game/{served['finished']}/scores"), ("new_game", "/game/new")):
        page.goto(f"{url}{path}")
        page.wait_for_load_state("load")
        if name == "calibration":
            page.wait_for_selector("#cal-figures table")
            # click two points on the frame to set the herd line; the figures then say it came from the user
            page.click("#mode-herd")
            box = page.locator("#calframe").bounding_box()
            page.mouse.click(box["x"] + box["width"] * 0.30, box["y"] + box["height"] * 0.15)
            page.mouse.click(box["x"] + box["width"] * 0.28, box["y"] + box["height"] * 0.85)
            page.wait_for_selector("text=herd line set")
            assert "from user" in page.inner_text("#cal-figures")
            page.wait_for_timeout(300)
        _shot(page, name)
    page.close()

