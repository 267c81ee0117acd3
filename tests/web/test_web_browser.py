"""In a real browser: Playwright drives Debian's Chromium against `meteors-judge serve` on a bundled clip.

The live page shows the judge's verdict, the referee disputes it and overrules it on the launch page,
and the game page shows the amended Food and Herd. A screenshot of each page goes to test-artifacts/.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request
from pathlib import Path

import pytest
from web_helpers import CHROMIUM, ROOT, start_server, stop_server

ARTIFACTS = ROOT / "test-artifacts"

pytestmark = pytest.mark.browser


def _clip(tmp_path_factory) -> Path:
    """The bundled default clip, or (before the sample videos exist) one generated the same way."""
    bundled = ROOT / "tests" / "narrow_clips" / "clip_000.mp4"
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

    try:
        process, url = start_server(data, "--video", str(clip), "--rig", str(clip.with_suffix(".json")), "--no-loop")
    except AssertionError as error:
        pytest.fail(str(error))
    yield {"url": url, "game": game, "finished": finished, "data": data}
    stop_server(process)


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
    # wait until the video has ended and the judge's last launch of this game has its clip, so the game
    # stays still while we overrule; the page then shows that launch's card
    _wait_for(lambda: _get(f"{url}/api/status")["live"]["state"] == "ended", 120)

    def judged_with_clip():
        judged = [d for d in _get(f"{url}/api/launches?game_id={game_id}")["launches"] if d["source"] == "judge"]
        return judged and judged[-1]["clip_dir"] and judged[-1]

    launch = _wait_for(judged_with_clip, 60)
    launch_id = launch["id"]
    page.wait_for_selector(f'#verdict-card[data-launch="{launch_id}"]', timeout=60_000)
    assert page.locator("#verdict-card .badge").first.inner_text()
    page.wait_for_selector(f'#verdict-card[data-launch="{launch_id}"] img.snap')
    page.wait_for_function("() => [...document.images].every((image) => image.complete)")
    _shot(page, "live")
    # the judge's events, newest on top, unnumbered (a numbered list read 1 for the latest event)
    assert page.locator("ul#judge-log").count() == 1
    # (served with the page, so it holds the launch's events however late the page was opened)
    logged = [int(li.get_attribute("data-id")) for li in page.locator("#judge-log li").all()]
    assert len(logged) >= 2 and logged == sorted(logged, reverse=True) and len(set(logged)) == len(logged)
    assert any(re.match(r"frame \d+: verdict", text) for text in page.locator("#judge-log li").all_inner_texts())

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
            assert page.inner_text("#cal-verdict").endswith("Calibration good")
            page.wait_for_timeout(300)
        _shot(page, name)
    page.close()



def _pixel(page, selector: str, x: float, y: float) -> list[int]:
    return page.evaluate("([s, x, y]) => Array.from(document.querySelector(s).getContext('2d')"
                         ".getImageData(Math.round(x), Math.round(y), 1, 1).data.slice(0, 3))", [selector, x, y])


def _magenta(rgb: list[int]) -> bool:
    r, g, b = rgb
    return r > 200 and b > 200 and g < 140


def test_replay_key_frames_bounce_marks_and_release_inset(served, browser):
    from web.words import herd_line_words

    url, game_id = served["url"], served["game"]
    launches = _wait_for(lambda: [launch for launch in _get(f"{url}/api/launches?game_id={game_id}")["launches"]
                                  if launch["clip_dir"]], 60)
    launch = launches[0]
    info = _get(f"{url}/api/launches/{launch['id']}/clip.json")
    verdict = launch["verdict"]
    # the marks were projected with the judge's own calibration when it gave the verdict, and kept with the clip
    saved = json.loads((served["data"] / launch["clip_dir"] / "clip.json").read_text())
    assert saved["marks"] == info["marks"] and len(saved["marks"]["bounces"]) == len(verdict["bounces"])
    page = browser.new_page(viewport={"width": 1366, "height": 1000})
    page.set_default_timeout(30_000)
    page.goto(f"{url}/launches/{launch['id']}")

    # the strip: hold, release, each bounce, box entry, rest, in order, each a jump button
    keys = page.locator("#keyframes button.key")
    names = [button.get_attribute("data-name") for button in keys.all()]
    assert names[:2] == ["hold", "release"] and names[-1] == "rest"
    assert names.count("bounce") == len(verdict["bounces"]) >= 1
    assert ("box" in names) == (verdict["entered_box_frame"] is not None)
    indices = [int(button.get_attribute("data-index")) for button in keys.all()]
    assert indices == sorted(indices)
    assert launch["launcher_name"] in page.inner_text("#launch-who")
    assert "before the box" in page.inner_text("#launch-who")

    # the label names the moment from the verdict: "release" on the release frame, never the live "in_hand"
    for name, words in (("release", "release"), ("rest", "at rest"), ("hold", "held")):
        index = indices[names.index(name)]
        page.click(f'#keyframes button.key[data-name="{name}"]')
        page.wait_for_selector(f'#replay[data-frame="{index}"]')
        assert page.inner_text("#state-label").lower() == words
    page.click('#keyframes button.key[data-name="release"]')
    page.click("#next")
    page.wait_for_selector(f'#replay[data-frame="{indices[1] + 1}"]')
    assert page.inner_text("#state-label").lower() == "in flight"
    _shot(page, "launch_replay")

    # a bounce's mark appears on its own frame (as it happens), not before
    bounce = info["marks"]["bounces"][0]
    at = bounce["frame"] - info["first_frame"]
    ring = (bounce["px"][0] + 12, bounce["px"][1])
    page.click('#keyframes button.key[data-name="bounce"] >> nth=0')
    page.wait_for_selector(f'#replay[data-frame="{at}"]')
    assert _magenta(_pixel(page, "#replay", *ring))
    page.click("#prev")
    page.wait_for_selector(f'#replay[data-frame="{at - 1}"]')
    assert not _magenta(_pixel(page, "#replay", *ring))

    # the zoom on the release: the herd line's signed distance in words, the ground point drawn where it is
    page.wait_for_selector('#inset[data-drawn="1"]')
    signed = verdict["release"]["herd_line_signed_mm"]
    assert page.inner_text("#release-words") == herd_line_words(signed)
    assert re.fullmatch(r"\d+ mm (over|behind) the line", page.inner_text("#release-words"))
    crop = {key: float(page.get_attribute("#inset", f"data-{key}")) for key in ("sx", "sy", "zoom")}
    inset = page.evaluate("[document.querySelector('#inset').width, document.querySelector('#inset').height]")
    release = info["marks"]["release"]
    for point, colour in ((release["ground"], "cyan"), (release["line_foot"], "red"), (release["meteor"], "white")):
        x, y = (point[0] - crop["sx"]) * crop["zoom"], (point[1] - crop["sy"]) * crop["zoom"]
        assert 0 <= x < inset[0] and 0 <= y < inset[1]  # the meteor and both ends of the distance are in the zoom
        r, g, b = _pixel(page, "#inset", x, y)
        expected = {"cyan": r < 90 and g > 170 and b > 200, "red": r > 200 and g < 120, "white": min(r, g, b) > 200}
        assert expected[colour], (colour, r, g, b)
    page.locator("#release-inset").screenshot(path=str(ARTIFACTS / "launch_release_inset.png"))

    # download WebM: the page says how far it has got, then the file arrives
    with page.expect_download(timeout=120_000) as download:
        page.click("#webm")
    page.wait_for_selector("#webm-ready")
    assert Path(download.value.path()).read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # EBML: a WebM
    page.close()


def test_digital_deck_hands_stay_hidden_until_revealed(served, browser):
    request = urllib.request.Request(f"{served['url']}/api/games", method="POST", headers={
        "Content-Type": "application/json"}, data=json.dumps({"name": "Hidden hands", "players": [
            {"name": "Ada"}, {"name": "Ben"}], "seed": 3}).encode())
    with urllib.request.urlopen(request, timeout=10) as response:
        created = json.loads(response.read())
    first = created["state"]["pending"][0]
    page = browser.new_page(viewport={"width": 1366, "height": 900})
    page.set_default_timeout(30_000)
    page.goto(f"{served['url']}/game/{created['id']}")
    hand = page.locator('details.hand[data-seat="0"]')
    cards = hand.locator("button.opt")
    assert cards.count() == len(first["labels"]) == 4
    assert not any(button.is_visible() for button in cards.all())  # nobody else sees Ada's cards
    assert "Ada's hand is hidden" in hand.locator("summary").inner_text()
    _shot(page, "game_hands_hidden")
    hand.locator("summary").click()
    cards.first.wait_for(state="visible")
    assert [button.inner_text() for button in cards.all()] == first["labels"]
    assert not page.locator('details.hand[data-seat="1"] button.opt').first.is_visible()  # Ben's stays hidden
    _shot(page, "game_hand_revealed")
    page.close()

