"""The dashboard as `meteors-judge serve` runs it: what the real server says about itself, and pages under its CSP."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest
from web_helpers import call, start_server, stop_server

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
RIG = ROOT / "tests" / "narrow_clips" / "clip_000.json"  # its meteor colour is known: the page shows a swatch


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    process, url = start_server(tmp_path_factory.mktemp("served") / "data", "--rig", str(RIG))
    yield url
    stop_server(process)


def _headers(url: str) -> dict[str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return dict(response.headers)
    except urllib.error.HTTPError as error:
        return dict(error.headers)


@pytest.mark.parametrize("path", ["/live", "/api/status", "/api/games/99", "/static/app.js"])
def test_the_server_names_itself_without_versions(served, path):
    headers = _headers(served + path)
    assert headers["Server"] == "meteors-judge"
    assert headers["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in headers["Content-Security-Policy"]


@pytest.mark.browser
def test_pages_run_under_the_content_security_policy(served, tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run `sh scripts/ensure-chromium.sh`")
    sync_api = pytest.importorskip("playwright.sync_api")
    status, created = call(served + "/api/games", "POST", {"players": [{"name": "Ann"}, {"name": "Bob"}],
                                                          "seed": 3, "autoplay": True})
    assert status == 201
    game_id = created["id"]
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            refused: list[str] = []
            page.on("console", lambda message: refused.append(message.text)
                    if "Content Security Policy" in message.text else None)
            for path in ("/live", f"/game/{game_id}", "/game/new", "/launches", "/calibration", "/referee",
                         f"/game/{game_id}/scores", "/api-docs"):
                page.goto(served + path)
                page.wait_for_load_state("load")
            page.goto(served + "/calibration")
            swatch = page.locator(".swatch")
            swatch.wait_for()
            assert "rgb" in swatch.evaluate("node => getComputedStyle(node).backgroundColor")
            assert swatch.evaluate("node => getComputedStyle(node).backgroundColor") != "rgba(0, 0, 0, 0)"
            assert refused == [], refused
            # another site cannot frame the dashboard
            with page.expect_console_message(lambda message: "frame-ancestors" in message.text):
                page.set_content(f'<iframe id="f" src="{served}/live"></iframe>')
            assert page.frame_locator("#f").locator("nav").count() == 0
        finally:
            browser.close()
