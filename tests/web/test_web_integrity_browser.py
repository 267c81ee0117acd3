"""In a real browser (Playwright + Debian chromium) against `meteors-judge serve`: a throw that did not
count is shown as such, an earlier launch is overruled only after its preview and the game is amended as
previewed, and a disputed call holds the game until the referee confirms it. Screenshots go to
test-artifacts/."""

from __future__ import annotations

import re

import pytest
from test_web_browser import _shot
from test_web_pages import _verdict
from web_helpers import CHROMIUM, PLAYERS, call, start_server, stop_server

from web import context, create_app

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from pathlib import Path

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run `sh scripts/ensure-chromium.sh`")
    pytest.importorskip("playwright")
    data = tmp_path_factory.mktemp("integrity") / "data"
    app = create_app({"DATA_DIR": data})
    client, games = app.test_client(), context(app).games
    waiting = client.post("/api/games", json={"name": "Waiting", "players": PLAYERS, "seed": 11}).json["id"]
    throw = games.record_launch("water", None, "judge", "judge", verdict=_verdict(30.0, 1))
    rewind = client.post("/api/games", json={"name": "Rewind", "players": PLAYERS, "seed": 11,
                                             "autoplay": True}).json["id"]
    earlier = client.post(f"/api/games/{rewind}/launch", json={"outcome": "void"}).json["launch"]["id"]
    later = client.post(f"/api/games/{rewind}/launch", json={"outcome": "water"}).json["launch"]["id"]
    held_game = client.post("/api/games", json={"name": "Review", "players": PLAYERS, "seed": 5,
                                                "autoplay": True}).json["id"]
    disputed = {**_verdict(-4.0, 1), "outcome": "void", "disputed": True,
                "dispute_reasons": ["the release is within 4 mm of the herd line"]}
    held = games.record_launch("void", None, "judge", "judge", verdict=disputed)
    context(app).store.close()
    process, url = start_server(data)
    yield {"url": url, "waiting": waiting, "throw": throw, "rewind": rewind, "earlier": earlier, "later": later,
           "held_game": held_game, "held": held}
    stop_server(process)


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    yield page
    page.close()


def test_a_throw_that_did_not_count_is_shown_as_such(served, page):
    url, throw = served["url"], served["throw"]
    reason = call(f"{url}/api/launches/{throw}")[1]["not_counted_reason"]
    assert reason.startswith("judged while the game waited for Carlo")
    page.goto(f"{url}/launches/{throw}")
    card = page.locator("#verdict-card")
    assert card.locator(".badge.notcounted").inner_text() == "not counted"
    assert reason in card.locator(".not-counted").inner_text()
    _shot(page, "launch_not_counted")
    page.goto(f"{url}/game/{served['waiting']}")
    row = page.locator("#game-launches tr", has_text=reason)
    assert row.locator(".badge.notcounted").count() == 1
    page.goto(f"{url}/launches?all=1")
    row = page.locator(f'#launch-list tr[data-launch="{throw}"]')
    assert "not-counted" in row.get_attribute("class") and reason in row.inner_text()
    _shot(page, "launches_not_counted")


def test_an_earlier_launch_is_overruled_after_its_preview(served, page):
    url, game_id, earlier, later = served["url"], served["rewind"], served["earlier"], served["later"]
    page.goto(f"{url}/launches/{earlier}")
    page.click("#override-form details summary")
    page.select_option('#override-form select[name="outcome"]', "water")
    page.fill('#override-form input[name="reason"]', "it splashed into the water")
    page.fill('#override-form input[name="who"]', "Ada")
    page.click("#override-submit")
    page.wait_for_selector("#override-preview")
    assert f"#{later}" in page.inner_text("#preview-stop")
    rows = page.locator("#preview-players tr").all()[1:]
    shown = {}
    for row in rows:
        cells = row.locator("td").all_inner_texts()
        food, herd, hatchlings = (cell.split(" → ")[1] for cell in cells[1:])
        shown[cells[0]] = (int(food), [] if herd == "none" else herd.split(", "), int(hatchlings))
    assert call(f"{url}/api/launches/{earlier}")[1]["overrides"] == []  # nothing changed before the confirm
    _shot(page, "overrule_preview")

    page.click("#confirm-overrule")
    page.wait_for_url(re.compile(rf"/launches/{earlier}$"))
    page.wait_for_selector("text=overruled by referee")
    players = call(f"{url}/api/games/{game_id}")[1]["view"]["players"]
    assert {p["name"]: (p["food"], [c["dinosaur"] for c in p["dinosaurs"]], p["hatchling_count"])
            for p in players} == shown
    assert not call(f"{url}/api/launches/{later}")[1]["counted"]
    _shot(page, "overrule_confirmed")


def test_a_disputed_call_holds_the_game_until_confirmed(served, page):
    from playwright.sync_api import expect

    url, game_id, held = served["url"], served["held_game"], served["held"]
    call(f"{url}/api/games/{game_id}/activate", "POST", {})
    page.goto(f"{url}/live")
    banner = page.locator("#not-counting")
    banner.wait_for(state="visible")
    assert f"review launch #{held}" in banner.inner_text()
    _shot(page, "live_held")
    status, refused = call(f"{url}/api/games/{game_id}/commands", "POST", {"option_index": 0})
    assert status == 409 and refused["held_by"] == held
    page.goto(f"{url}/game/{game_id}")
    assert f"review launch #{held}" in page.locator("#not-counting").inner_text()
    _shot(page, "game_held")

    page.goto(f"{url}/launches")
    page.click("#filter-review")
    page.wait_for_url("**/launches?review=1")  # the filter is a link: wait for the filtered page
    rows = page.locator("#launch-list tr[data-launch]")
    expect(rows).to_have_count(1)
    assert rows.first.get_attribute("data-launch") == str(held)
    assert "within 4 mm of the herd line" in rows.first.locator(".judge-reason").inner_text()
    _shot(page, "launches_needs_review")
    rows.first.locator("button.confirm").click()
    page.wait_for_selector("text=No call waits for review.")
    state = call(f"{url}/api/games/{game_id}")[1]
    assert state["held_by"] is None and state["current_launch"] is not None  # the game went on to the next launch
    page.goto(f"{url}/live")
    assert page.locator("#not-counting").is_hidden()
