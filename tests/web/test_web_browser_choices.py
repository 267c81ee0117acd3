"""In a real browser: the Game page offers the players' choices, and a click answers them.

The dashboard is served over HTTP from a thread (werkzeug), Debian's Chromium driven by Playwright.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from web_helpers import drive_until, mixed_pile, new_game, state
from werkzeug.serving import make_server

from web import context, create_app

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

pytestmark = pytest.mark.browser


@pytest.fixture
def dashboard(tmp_path: Path):
    """The dashboard on a free loopback port, its test client (to set the table up) and its address."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run `sh scripts/ensure-chromium.sh`")
    pytest.importorskip("playwright")
    app = create_app({"DATA_DIR": tmp_path / "data"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield app.test_client(), f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    thread.join()
    context(app).store.close()


@pytest.fixture
def page():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium.new_page()
        chromium.close()


def click_and_wait(page, selector: str) -> None:
    with page.expect_navigation():
        page.click(selector)


def test_the_game_page_offers_and_answers_the_bolide_herd_and_pile_choices(dashboard, page) -> None:
    client, url = dashboard
    game_id = new_game(client, autoplay=False)
    item, _ = drive_until(client, game_id, lambda item, data: item["kind"] == "choose_bolide_launch")
    page.goto(f"{url}/game/{game_id}")
    decision = page.locator('[data-kind="choose_bolide_launch"]')
    assert decision.locator("button.primary").inner_text() == "take the Bolide's extra launch"  # the default
    click_and_wait(page, '[data-kind="choose_bolide_launch"] button:has-text("decline it")')
    assert page.locator('[data-kind="choose_bolide_launch"]').count() == 0
    commands = [event["payload"]["command"] for event in context(client.application).store.events(game_id)
                if event["kind"] == "command"]
    assert commands[-1] == {"kind": "choose_bolide_launch", "seat": item["seat"], "take": False}

    item, _ = drive_until(client, game_id, lambda item, data: item["kind"] == "choose_herd_discards", hits=True)
    page.goto(f"{url}/game/{game_id}")
    buttons = page.locator('[data-kind="choose_herd_discards"] button')
    assert buttons.count() == len(item["options"]) and "Herd place" in buttons.first.inner_text()
    click_and_wait(page, '[data-kind="choose_herd_discards"] button >> nth=-1')
    herd = [card["card"] for card in state(client, game_id)["view"]["herd"]]
    assert item["options"][-1] not in herd and item["options"][0] in herd

    item, data = drive_until(client, game_id, mixed_pile)
    key, gains = next((key, gains) for key, gains in item["detail"]["gains"].items() if len(set(gains)) >= 2)
    before = len(data["view"]["players"][item["seat"]]["hatchlings"])
    order = list(reversed(gains))
    page.goto(f"{url}/game/{game_id}")
    egg = page.locator(".decision").first  # the decision `drive_until` stopped at: pending[0]
    egg.locator('input[name="stack_order"]').fill(", ".join(order))
    label = "take them (Egg icon)" if key == "egg_icon" else " + ".join(key.split("+"))
    with page.expect_navigation():
        egg.locator(f'button:has-text("{label}")').first.click()
    after = state(client, game_id)
    while after["view"]["phase"] == "egg":
        after = client.post(f"/api/games/{game_id}/commands", json={"option_index": 0}).json
    assert after["view"]["players"][item["seat"]]["hatchlings"][before:][::-1] == order
