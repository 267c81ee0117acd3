"""The dashboard's JSON API and pages through Flask's test client."""

from __future__ import annotations

import json
import threading

import pytest
from web_helpers import PLAYERS, csrf_of, herd_type, new_game, play_to_the_end, state

from web import context, create_app


def test_every_page_renders(client):
    game_id = new_game(client)
    client.post(f"/api/games/{game_id}/launch", json={"outcome": "water"})
    for path in ("/live", "/game", f"/game/{game_id}", "/game/new", "/launches", "/launches?all=1", "/launches/1",
                 "/calibration", f"/game/{game_id}/scores", "/referee", "/api-docs"):
        response = client.get(path, follow_redirects=True)
        assert response.status_code == 200, path
    assert client.get("/").status_code == 302
    assert client.get("/launches/999").status_code == 404
    assert client.get("/game/999").status_code == 404


def test_openapi_documents_every_api_route(app, client):
    spec = client.get("/api/openapi.json").json
    assert spec["openapi"].startswith("3.")
    documented = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith("/api/") or rule.endpoint == "static":
            continue
        path = rule.rule.replace("<int:", "{").replace(">", "}").replace("{number}", "{n}")
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (path, method.lower()) in documented, (path, method)
    assert "Override" in spec["components"]["schemas"]


def test_create_game_and_state(client):
    game_id = new_game(client, autoplay=False)
    data = state(client, game_id)
    assert [p["name"] for p in data["view"]["players"]] == [p["name"] for p in PLAYERS]
    assert len(data["view"]["herd"]) == 6
    assert data["pending"][0]["kind"] == "select_dinosaur"
    assert client.get("/api/games").json["active"] == game_id


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": [{"name": "Solo"}]}, "players"),
        ({"players": [{"name": ""}, {"name": "B"}]}, "players.0.name"),
        ({"players": PLAYERS, "seed": "abc"}, "seed"),
        ({"players": PLAYERS, "dealer": "casino"}, "dealer"),
        ({"players": PLAYERS, "colour": "red"}, "colour"),
        ({"players": [{"name": "A", "seat": 0}, {"name": "B", "seat": 0}]}, "players.seat"),
        ([1, 2], "body"),
    ],
)
def test_bad_game_bodies_name_the_field(client, body, field):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400
    assert response.json["field"] == field, response.json
    assert response.json["error"]


def test_api_refuses_non_json_bodies(client):
    assert client.post("/api/games", data="players=2").status_code == 415
    response = client.post("/api/games", data="not json", content_type="application/json")
    assert response.status_code == 400 and response.json["field"] == "body"


def test_decisions_by_option_and_refusals(client):
    game_id = new_game(client, autoplay=False)
    pending = state(client, game_id)["pending"][0]
    response = client.post(f"/api/games/{game_id}/commands", json={"option_index": 0})
    assert response.status_code == 200
    assert response.json["view"]["players"][pending["seat"]]["selected"] is True
    assert client.post(f"/api/games/{game_id}/commands", json={"option_index": 99}).json["field"] == "option_index"
    both = client.post(f"/api/games/{game_id}/commands", json={"option_index": 0, "option": "I-01"})
    assert both.status_code == 400 and both.json["field"] == "option"
    illegal = client.post(f"/api/games/{game_id}/commands", json={"option": "NOT-A-CARD"})
    assert illegal.status_code == 409 and "refused by the rules" in illegal.json["error"]
    undo = client.post(f"/api/games/{game_id}/undo", json={"steps": 1})
    assert undo.status_code == 200 and undo.json["view"]["players"][pending["seat"]]["selected"] is False
    assert client.post(f"/api/games/{game_id}/undo", json={"steps": 0}).json["field"] == "steps"
    assert client.post("/api/games/999/commands", json={"option_index": 0}).status_code == 404


def test_manual_launch_applies_to_the_game(client):
    game_id = new_game(client)
    before = state(client, game_id)
    launcher = before["current_launch"]["launcher"]
    missing = client.post(f"/api/games/{game_id}/launch", json={"outcome": "dinosaur"})
    assert missing.status_code == 400 and missing.json["field"] == "dinosaur"
    assert client.post(f"/api/games/{game_id}/launch", json={"outcome": "lava"}).json["field"] == "outcome"
    response = client.post(f"/api/games/{game_id}/launch",
                           json={"outcome": "dinosaur", "dinosaur": herd_type(client, game_id)})
    assert response.status_code == 201
    launch = response.json["launch"]
    assert launch["source"] == "manual" and launch["engine_launch"] == before["current_launch"]["index"]
    food_after = {p["seat"]: p["food"] for p in response.json["state"]["view"]["players"]}
    assert food_after[launcher] >= before["view"]["players"][launcher]["food"] + 2  # hit + at least one discard


def _void_launch(client, game_id: int) -> tuple[dict, dict]:
    before = state(client, game_id)
    launch = client.post(f"/api/games/{game_id}/launch", json={"outcome": "void"}).json["launch"]
    return before, launch


def test_override_amends_the_game_and_keeps_every_call(client):
    game_id = new_game(client)
    target = herd_type(client, game_id)
    before, launch = _void_launch(client, game_id)
    launcher = before["current_launch"]["launcher"]
    food_void = state(client, game_id)["view"]["players"][launcher]["food"]
    herd_void = [c["card"] for c in state(client, game_id)["view"]["herd"]]

    response = client.post(f"/api/launches/{launch['id']}/overrides",
                           json={"region": target, "valid": True, "reason": "it rests in the space", "who": "Ada"})
    assert response.status_code == 201
    detail = response.json
    assert detail["outcome"] == {"outcome": "dinosaur", "dinosaur": target}
    assert detail["machine_outcome"] == {"outcome": "void", "dinosaur": None}
    assert detail["overridden"] and detail["overrides"][0]["who"] == "Ada"
    assert detail["overrides"][0]["created"]
    amended = state(client, game_id)["view"]
    assert amended["players"][launcher]["food"] > food_void or [c["card"] for c in amended["herd"]] != herd_void

    first = detail["overrides"][0]["id"]
    overrule = client.post(f"/api/launches/{launch['id']}/overrides",
                           json={"outcome": "water", "reason": "it was the water", "overrules": first})
    assert overrule.status_code == 201
    statuses = [o["status"] for o in overrule.json["overrides"]]
    assert statuses == ["overruled", "active"] and overrule.json["outcome"]["outcome"] == "water"
    again = client.post(f"/api/launches/{launch['id']}/overrides",
                        json={"outcome": "void", "reason": "again", "overrules": first})
    assert again.status_code == 409 and again.json["field"] == "overrules"

    second = overrule.json["overrides"][1]["id"]
    withdrawn = client.post(f"/api/overrides/{second}/withdraw", json={"reason": "my mistake"})
    assert withdrawn.status_code == 200
    assert withdrawn.json["outcome"] == {"outcome": "void", "dinosaur": None}
    assert state(client, game_id)["view"]["players"][launcher]["food"] == food_void
    assert client.post(f"/api/overrides/{second}/withdraw", json={"reason": "twice"}).status_code == 409

    audit = client.get(f"/api/launches/{launch['id']}").json["audit"]
    assert {"override", "withdraw override", "manual launch"} <= {a["action"] for a in audit}
    page = client.get(f"/launches/{launch['id']}").get_data(as_text=True)
    assert "Ada" in page and "withdrawn" in page and "overruled" in page


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"outcome": "void"}, "reason"),
        ({"reason": "no change at all"}, "outcome"),
        ({"region": "lava_pit", "reason": "where?"}, "region"),
        ({"bounces_before_box": -1, "reason": "negative"}, "bounces_before_box"),
        ({"outcome": "void", "reason": "ghost", "overrules": 999}, "overrules"),
        ({"outcome": "dinosaur", "reason": "which one?"}, "dinosaur"),
    ],
)
def test_bad_overrides_name_the_field(client, body, field):
    game_id = new_game(client)
    _, launch = _void_launch(client, game_id)
    response = client.post(f"/api/launches/{launch['id']}/overrides", json=body)
    assert response.status_code == 400, response.json
    assert response.json["field"] == field


def test_dispute_is_recorded_and_shown(client):
    game_id = new_game(client)
    _, launch = _void_launch(client, game_id)
    response = client.post(f"/api/launches/{launch['id']}/dispute", json={"reason": "it bounced twice", "who": "Marco"})
    assert response.status_code == 200 and response.json["disputes"][0]["who"] == "Marco"
    assert client.post("/api/launches/999/dispute", json={}).status_code == 404


def test_two_overrides_at_once_are_both_kept_in_order(app):
    client = app.test_client()
    game_id = new_game(client)
    _, launch = _void_launch(client, game_id)
    barrier = threading.Barrier(2)
    results: list[int] = []

    def send(outcome: str) -> None:
        own = app.test_client()
        barrier.wait()
        response = own.post(f"/api/launches/{launch['id']}/overrides", json={"outcome": outcome, "reason": outcome})
        results.append(response.status_code)

    threads = [threading.Thread(target=send, args=(o,)) for o in ("water", "void")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [201, 201]
    detail = client.get(f"/api/launches/{launch['id']}").json
    assert len(detail["overrides"]) == 2
    assert detail["outcome"] == detail["overrides"][-1]["outcome"]  # the later one is in force
    engine_launch = context(app).games.engine_game(game_id).launches()[launch["engine_launch"]]
    assert engine_launch.outcome == detail["outcome"]["outcome"] and engine_launch.amended


def test_restart_recovers_game_launches_and_overrides(data_dir):
    app = create_app({"DATA_DIR": data_dir, "TESTING": True})
    client = app.test_client()
    game_id = new_game(client)
    _, launch = _void_launch(client, game_id)
    client.post(f"/api/launches/{launch['id']}/overrides", json={"outcome": "water", "reason": "it splashed"})
    before = state(client, game_id)
    ctx = context(app)
    # an event written but not applied when the server died: the restart applies it
    assert before["pending"][0]["kind"] == "resolve_launch"
    ctx.store.append_event(game_id, "launch", {"outcome": "void"}, "crash-test")
    ctx.store.close()

    again = create_app({"DATA_DIR": data_dir, "TESTING": True}).test_client()
    after = state(again, game_id)
    assert after["launches"] == before["launches"]
    assert after["events"] == before["events"] + 1
    assert again.get("/api/games").json["active"] == game_id
    assert after["launches"][0]["outcome"] == {"outcome": "water", "dinosaur": None}


def test_token_rule_off_loopback(remote_app):
    client = remote_app.test_client()
    assert client.get("/api/games").status_code == 200  # watching needs nothing
    refused = client.post("/api/games", json={"players": PLAYERS})
    assert refused.status_code == 403 and refused.json["field"] == "token"
    wrong = client.post("/api/games", json={"players": PLAYERS}, headers={"X-Referee-Token": "guess"})
    assert wrong.status_code == 403
    ok = client.post("/api/games", json={"players": PLAYERS}, headers={"X-Referee-Token": "let-me-referee"})
    assert ok.status_code == 201
    # a browser signs in once on the Referee page, then its forms work
    token = csrf_of(client, "/referee")
    assert client.post("/referee", data={"csrf_token": token, "token": "nope"}).status_code == 302
    assert client.post("/api/games", json={"players": PLAYERS}).status_code == 403
    client.post("/referee", data={"csrf_token": token, "token": "let-me-referee"})
    assert client.post("/api/games", json={"players": PLAYERS}).status_code == 201


def test_loopback_needs_no_token(client):
    assert client.post("/api/games", json={"players": PLAYERS}).status_code == 201


def test_forms_need_the_csrf_token(client):
    form = {"player": ["Ann", "Bob"], "seat": ["0", "1"], "dealer": "seeded", "seed": "5"}
    refused = client.post("/game/new", data=form)
    assert refused.status_code == 403 and refused.json["field"] == "csrf_token"
    assert client.post("/game/new", data={**form, "csrf_token": "forged"}).status_code == 403
    created = client.post("/game/new", data={**form, "csrf_token": csrf_of(client)})
    assert created.status_code == 302 and "/game/" in created.headers["Location"]
    bad_header = client.post("/api/games", json={"players": PLAYERS}, headers={"X-CSRF-Token": "forged"})
    assert bad_header.status_code == 403


def test_form_decision_and_override_flow(client):
    game_id = new_game(client, autoplay=False)
    token = csrf_of(client, f"/game/{game_id}")
    option = state(client, game_id)["pending"][0]["options"][0]
    response = client.post(f"/game/{game_id}/decide",
                           data={"csrf_token": token, "pending_index": "0", "option": json.dumps(option)})
    assert response.status_code == 302
    assert state(client, game_id)["view"]["players"][0]["selected"]


def test_clip_files_only_from_the_data_folder(app, client, data_dir):
    (data_dir / "clips" / "launch_00001").mkdir(parents=True)
    (data_dir / "clips" / "launch_00001" / "00000.jpg").write_bytes(b"\xff\xd8jpeg")
    (data_dir.parent / "outside.txt").write_text("secret")
    assert client.get("/files/clips/launch_00001/00000.jpg").status_code == 200
    for path in ("/files/../outside.txt", "/files/clips/../../outside.txt", "/files/clips/..%2f..%2foutside.txt",
                 "/files/%2e%2e/outside.txt", "/files/meteors.sqlite3", "/files/secret_key",
                 "/files/clips/../secret_key", "/files//etc/passwd", "/files/clips/launch_00001/missing.jpg"):
        response = client.get(path, follow_redirects=True)
        assert response.status_code == 404, path
        assert b"secret" not in response.data.replace(b"secret_key", b"")
    assert client.get("/api/launches/1/snapshot.jpg").status_code == 404


def test_upload_size_limit_and_rig_validation(client):
    big = json.dumps({"padding": "x" * (2 * 1024 * 1024)})
    too_big = client.post("/api/rig", data=big, content_type="application/json")
    assert too_big.status_code == 413 and "too large" in too_big.json["error"]
    from web import DEFAULT_RIG

    rig = json.loads(DEFAULT_RIG.read_text())
    assert client.post("/api/rig", json=rig).status_code == 200
    rig["meteor"]["diameter_mm"] = -3
    bad = client.post("/api/rig", json=rig)
    assert bad.status_code == 400 and "meteor.diameter_mm" in bad.json["error"]


def test_queries_are_validated(client):
    assert client.get("/api/launches?limit=0").json["field"] == "limit"
    assert client.get("/api/launches?game_id=abc").json["field"] == "game_id"
    assert client.get("/api/launches?bogus=1").json["field"] == "bogus"
    assert client.get("/api/events?max_events=-1").status_code == 400
    assert client.get("/api/launches?limit=5").status_code == 200


def test_server_sent_events_reach_every_browser(app):
    hub = context(app).hub
    done = threading.Event()
    bodies: list[str] = []

    def watch() -> None:
        response = app.test_client().get("/api/events?max_events=1&seconds=5")
        assert response.mimetype == "text/event-stream"
        bodies.append(response.get_data(as_text=True))

    watchers = [threading.Thread(target=watch) for _ in range(2)]  # two phones at the table
    for watcher in watchers:
        watcher.start()

    def publish() -> None:
        while not done.is_set():
            hub.publish("game", {"game_id": 42})
            done.wait(0.05)

    publisher = threading.Thread(target=publish)
    publisher.start()
    for watcher in watchers:
        watcher.join(10)
    done.set()
    publisher.join()
    assert len(bodies) == 2
    for body in bodies:
        assert "event: game" in body and '"game_id": 42' in body


def test_camera_off_endpoints(client):
    assert client.get("/api/live/frame.jpg").status_code == 404
    assert client.get("/api/live/stream.mjpg").status_code == 404
    assert client.get("/api/calibration").json["camera"] is False
    assert client.get("/api/calibration/frame.jpg").mimetype == "image/jpeg"
    assert client.post("/api/calibration/meteor", json={"x": 1, "y": 1}).status_code == 409
    assert client.post("/api/calibration/herd-line", json={"points_px": [[1, 1], [1, 1]]}).json["field"] == "points_px"
    assert client.post("/api/calibration/solve", json={}).status_code == 409
    assert client.post("/api/calibration/solve").status_code == 409  # no body: no content type needed


def test_final_scores_with_each_category(client):
    game_id = new_game(client)
    final = play_to_the_end(client, game_id)
    scores = final["scores"]
    assert {p["name"] for p in scores["players"]} == {p["name"] for p in PLAYERS}
    assert scores["winner_names"]
    page = client.get(f"/game/{game_id}/scores").get_data(as_text=True)
    for heading in ("Hatchling points", "herbivore triples", "Velociraptor majority", "Food at the end", "Total"):
        assert heading in page
    assert client.get("/api/games").json["games"][0]["status"] == "over"
    refused = client.post(f"/api/games/{game_id}/launch", json={"outcome": "void"})
    assert refused.status_code == 409


def test_table_dealer_reports_reveals(client):
    game_id = new_game(client, autoplay=False, dealer="table")
    pending = state(client, game_id)["pending"][0]
    assert pending["actor"] == "dealer" and pending["kind"] == "deal_hand" and pending["count"] == 4
    wrong = client.post(f"/api/games/{game_id}/commands", json={"option": pending["options"][:3]})
    assert wrong.status_code == 409
    response = client.post(f"/api/games/{game_id}/commands", json={"option": pending["options"][:4]})
    assert response.status_code == 200
    assert response.json["view"]["players"][pending["seat"]]["hand_count"] == 4
    assert "Choose 4" in client.get(f"/game/{game_id}").get_data(as_text=True)


def test_override_of_an_undone_launch_is_refused_and_marked(client):
    game_id = new_game(client)
    _, launch = _void_launch(client, game_id)
    events = client.get(f"/api/games/{game_id}").json["events"]
    assert events > 0
    # undo back past the launch's verdict: the engine has nothing to amend any more
    def resolved() -> bool:
        records = state(client, game_id)["engine_launches"]
        return any(r["index"] == launch["engine_launch"] and r["outcome"] for r in records)

    while resolved():
        assert client.post(f"/api/games/{game_id}/undo", json={"steps": 1}).status_code == 200
    refused = client.post(f"/api/launches/{launch['id']}/overrides", json={"outcome": "water", "reason": "late"})
    assert refused.status_code == 409
    detail = client.get(f"/api/launches/{launch['id']}").json
    assert [o["status"] for o in detail["overrides"]] == ["refused"]
    assert detail["outcome"] == {"outcome": "void", "dinosaur": None}


def test_form_mistakes_are_shown_on_the_page(client):
    game_id = new_game(client)
    _, launch = _void_launch(client, game_id)
    token = csrf_of(client, f"/launches/{launch['id']}")
    response = client.post(f"/launches/{launch['id']}/override", data={"csrf_token": token, "outcome": "water"},
                           headers={"Referer": f"/launches/{launch['id']}"}, follow_redirects=True)
    assert response.status_code == 200
    assert "reason" in response.get_data(as_text=True) and 'class="flash error"' in response.get_data(as_text=True)
    ok = client.post(f"/launches/{launch['id']}/override",
                     data={"csrf_token": token, "region": "outside", "reason": "it rolled out", "who": "Ada"})
    assert ok.status_code == 302
    assert client.get(f"/api/launches/{launch['id']}").json["overrides"][0]["who"] == "Ada"
