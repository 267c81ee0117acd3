"""The pages in plain words: verdict cards, the Scores table, exports, hidden hands, the judge's history."""

from __future__ import annotations

import csv
import io
import json
import re

from web_helpers import new_game, play_to_the_end, state

from web import context


def _verdict(signed_mm: float, bounces: int, mode: str = "standard") -> dict:
    return {
        "outcome": "water", "dinosaur": None, "valid": signed_mm >= 0 and bounces >= 1, "reasons": [],
        "region": "water_center", "landing": "water", "launch_mode": mode, "bounces_before_box": bounces,
        "bounces": [], "release": {"frame": 10, "table_mm": [0, 0], "height_mm": 90, "herd_line_signed_mm": signed_mm},
        "herd_line_ok": signed_mm >= 0, "entered_box_frame": 15,
        "rest": {"frame": 20, "table_mm": [1, 1], "box_mm": [0, 0]}, "disputed": False, "dispute_reasons": [],
        "margins": {"herd_line": {"margin_mm": abs(signed_mm), "uncertainty_mm": 4.0},
                    "bounces": {"margin_mm": 0, "uncertainty_mm": 0}},
        "start_frame": 10, "verdict_frame": 25,
    }


def _judged(app, signed_mm: float, bounces: int) -> int:
    return context(app).games.record_launch("water", None, "judge", "judge", verdict=_verdict(signed_mm, bounces))


def test_verdict_card_says_the_herd_line_and_bounces_in_words(app, client):
    over = _judged(app, -12.4, 1)
    behind = _judged(app, 40.2, 0)
    card = client.get(f"/launches/{over}/card").get_data(as_text=True)
    assert "12 mm over the line ✘" in card and "1 bounce, needs 1 ✔" in card
    assert "bounce(s)" not in card
    # the judge's margins and σ are still there, folded away
    fold = re.search(r"<details class=\"figures\">(.*?)</details>", card, re.S)
    assert fold and "± (1σ)" in fold.group(1) and "0 bounces" in fold.group(1)
    card = client.get(f"/launches/{behind}/card").get_data(as_text=True)
    assert "40 mm behind the line ✔" in card and "0 bounces, needs 1 ✘" in card
    live = client.get("/live").get_data(as_text=True)
    assert f'data-launch="{behind}"' in live and "40 mm behind the line" in live
    assert client.get("/launches/999/card").status_code == 404


def test_live_page_serves_the_judge_history_and_the_stream_goes_on_from_it(app, client):
    hub = context(app).hub
    for frame in (3, 4, 5):
        hub.publish("judge", {"kind": "state", "frame": frame, "message": "in_flight"})
    hub.publish("game", {"game_id": 1})  # not remembered: the log is the judge's
    page = client.get("/live").get_data(as_text=True)
    history = json.loads(re.search(r'<script id="judge-history" type="application/json">(.*?)</script>',
                                   page, re.S).group(1))
    assert [e["frame"] for e in history] == [3, 4, 5]
    after = int(re.search(r'data-events-after="(\d+)"', page).group(1))
    assert after == 4 and "waiting for the judge" not in page
    hub.publish("judge", {"kind": "verdict", "frame": 9, "message": "water"})
    stream = client.get(f"/api/events?after={history[1]['id']}&max_events=2").get_data(as_text=True)
    frames = [json.loads(line[6:])["frame"] for line in stream.splitlines() if line.startswith("data: ")]
    assert frames == [5, 9]  # the remembered event after the given id, then the new one: none twice, none lost


def test_scores_table_adds_up_and_says_why_the_game_ended(client):
    game_id = new_game(client)
    play_to_the_end(client, game_id)
    page = client.get(f"/game/{game_id}/scores").get_data(as_text=True)
    assert "every hand was down to its last card" in page
    rows = re.findall(r'<td class="hatchling-points">(-?\d+)</td>\s*<td class="food-before">(-?\d+)</td>'
                      r'<td class="herbivore">([+-]\d+)</td><td class="raptor">([+-]\d+)</td>'
                      r'<td class="food-end">(\d+)</td>\s*<td class="food-points">(\d+)</td>'
                      r'<td class="total"><b>(-?\d+)</b>', page)
    assert len(rows) == 3
    for points, before, herbivore, raptor, food, food_points, total in (map(int, r) for r in rows):
        assert before + herbivore + raptor == food
        assert food_points == 4 * food and points + food_points == total


def test_exports_hold_the_log_and_the_scores(client):
    game_id = new_game(client)
    final = play_to_the_end(client, game_id)
    exported = client.get(f"/api/games/{game_id}/export.json")
    assert exported.status_code == 200 and "attachment" in exported.headers["Content-Disposition"]
    data = exported.json
    assert data["over"] and data["winners"] == final["scores"]["winner_names"]
    assert len(data["log"]) == final["events"] and len(data["launches"]) == len(final["launches"])
    assert {row["name"] for row in data["scores"]} == {p["name"] for p in final["scores"]["players"]}

    log = list(csv.DictReader(io.StringIO(client.get(f"/api/games/{game_id}/log.csv").get_data(as_text=True))))
    assert len(log) == final["events"] and {row["kind"] for row in log} >= {"command", "launch"}
    assert json.loads(log[0]["detail"])  # the input itself, as JSON
    scores = list(csv.DictReader(io.StringIO(client.get(f"/api/games/{game_id}/scores.csv").get_data(as_text=True))))
    by_name = {p["name"]: p for p in final["scores"]["players"]}
    for row in scores:
        assert int(row["score"]) == by_name[row["name"]]["score"]
        assert int(row["hatchling_points"]) + int(row["food_points"]) == int(row["score"])
    assert sum(row["winner"] == "True" for row in scores) == len(final["scores"]["winners"])
    missing = client.get("/api/games/99/scores.csv")
    assert missing.status_code == 404 and "no game 99" in missing.json["error"]
    assert f"/api/games/{game_id}/scores.csv" in client.get(f"/game/{game_id}/scores").get_data(as_text=True)


def test_a_digital_deck_hides_each_hand_behind_a_reveal(client):
    game_id = new_game(client, autoplay=False)
    pending = state(client, game_id)["pending"]
    assert [p["kind"] for p in pending] == ["select_dinosaur"] * 3
    page = client.get(f"/game/{game_id}").get_data(as_text=True)
    hands = re.findall(r'<details class="hand" data-seat="(\d)"><summary>(.*?)</summary>(.*?)</details>', page, re.S)
    assert [int(seat) for seat, _, _ in hands] == [0, 1, 2]
    for (_, summary, inside), item in zip(hands, pending, strict=True):
        assert item["seat_name"] in summary and "reveal" in summary
        assert all(label in inside for label in item["labels"])  # the cards are inside the fold only
    outside = re.sub(r'<details class="hand".*?</details>', "", page, flags=re.S)
    assert not any(label in outside for item in pending for label in item["labels"])


def test_real_cards_are_not_hidden(client):
    game_id = new_game(client, autoplay=False, dealer="table")
    assert '<details class="hand"' not in client.get(f"/game/{game_id}").get_data(as_text=True)


def test_calibration_page_gives_a_plain_verdict(client):
    from web.calibrate import calibration_verdict

    info = client.get("/api/calibration").json
    assert not info["verdict"]["good"] and info["verdict"]["text"].startswith("calibration bad: not calibrated")
    good = calibration_verdict(True, {"markers_missing": [], "quality": {"reprojection_median_px": 0.8}},
                               [[0, 0], [1, 0]])
    assert good == {"good": True, "reasons": [], "text": "calibration good"}
    bad = calibration_verdict(True, {"markers_missing": [7], "quality": {"reprojection_median_px": 4.2}}, None)
    assert bad["text"] == ("calibration bad: marker 7 not seen; the markers fit the rig poorly (4.2 px median "
                           "error, at most 3 px is good); no herd line: releases cannot be judged")


def test_webm_is_made_in_the_background_and_says_how_far_it_has_got(app, client, data_dir):
    import time

    import cv2
    import numpy as np

    launch_id = _judged(app, 40.0, 1)
    folder = data_dir / "clips" / "launch_test"
    folder.mkdir(parents=True)
    for number in range(40):
        frame = np.full((240, 320, 3), 6 * number, np.uint8)
        cv2.imwrite(str(folder / f"{number:05d}.jpg"), frame)
    context(app).store.update_launch(launch_id, clip_dir="clips/launch_test", clip_frames=40, clip_fps=30.0)

    seen = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = client.get(f"/api/launches/{launch_id}/clip.webm/progress").json
        seen.append(job)
        assert job["total"] == 40 and job["error"] is None and 0 <= job["done"] <= 40
        if job["state"] == "ready":
            break
        assert job["state"] == "making"
        time.sleep(0.05)
    assert seen[-1] == {"state": "ready", "done": 40, "total": 40, "error": None,
                        "url": f"/api/launches/{launch_id}/clip.webm"}
    done = [job["done"] for job in seen]
    assert done == sorted(done)  # it only goes forward
    assert (folder / "clip.webm").read_bytes()[:4] == b"\x1a\x45\xdf\xa3"
    assert client.get(f"/api/launches/{launch_id}/clip.webm").status_code == 200
    assert client.get("/api/launches/999/clip.webm/progress").status_code == 404
