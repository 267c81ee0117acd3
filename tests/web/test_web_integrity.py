"""Launch rows and engine launches never disagree: overrules target the launch the row holds now, each
change is one transaction, rows that no longer count say so and why, earlier launches are overruled only
after a preview, and a disputed machine call holds the game until a referee reviews it."""

from __future__ import annotations

import pytest
from test_web_pages import _verdict
from web_helpers import all_at_once, assert_counted_rows_equal_engine, csrf_of, new_game, state

from web import context
from web.store import StoreError

WATER = {"outcome": "water", "dinosaur": None}
VOID = {"outcome": "void", "dinosaur": None}


def launch(client, game_id: int, outcome: str = "void", **extra) -> dict:
    response = client.post(f"/api/games/{game_id}/launch", json={"outcome": outcome, **extra})
    assert response.status_code == 201, response.json
    return response.json["launch"]


def overrule(client, launch_id: int, **body):
    return client.post(f"/api/launches/{launch_id}/overrides", json={"reason": "the replay shows it", **body})


def assert_rows_equal_engine(app, client, game_id: int) -> None:
    assert_counted_rows_equal_engine(state(client, game_id))


def test_an_overrule_never_changes_the_wrong_launch(app, client):
    """Issue 40's A/B/C: A void, B water; A overruled to water skips B; C takes B's engine launch; an
    overrule of the stale B must not score C."""
    game_id = new_game(client)
    a = launch(client, game_id, "void")
    b = launch(client, game_id, "water")
    assert overrule(client, a["id"], outcome="water", confirm=True).status_code == 201
    b_now = client.get(f"/api/launches/{b['id']}").json
    assert not b_now["counted"] and "overrule of an earlier launch" in b_now["not_counted_reason"]
    c = launch(client, game_id, "void")
    assert c["engine_launch"] == b["engine_launch"]
    assert_rows_equal_engine(app, client, game_id)

    refused = overrule(client, b["id"], outcome="dinosaur", dinosaur="trex", confirm=True)
    assert refused.status_code == 409 and "does not count" in refused.json["error"]
    assert client.get(f"/api/launches/{b['id']}").json["overrides"][0]["status"] == "refused"
    record = next(r for r in state(client, game_id)["engine_launches"] if r["index"] == c["engine_launch"])
    assert record["outcome"] == "void"
    assert_rows_equal_engine(app, client, game_id)

    # overruling A back to void plays B's verdict again and C's stops counting
    assert overrule(client, a["id"], outcome="void", confirm=True).status_code == 201
    rows = {row["id"]: row for row in state(client, game_id)["launches"]}
    assert rows[b["id"]]["counted"] and not rows[c["id"]]["counted"]
    assert_rows_equal_engine(app, client, game_id)


def test_an_overrule_is_one_transaction(app, client, monkeypatch):
    """A failure while writing the amend event leaves no override, no retired override and the same game."""
    game_id = new_game(client)
    a = launch(client, game_id, "void")
    first = overrule(client, a["id"], outcome="water").json["overrides"][0]["id"]
    before = state(client, game_id)
    store = context(app).store
    real_append = store.append_event

    def disk_full(*args, **kwargs):
        real_append(*args, **kwargs)
        raise StoreError("the disk is full: nothing was recorded")

    monkeypatch.setattr(store, "append_event", disk_full)
    response = overrule(client, a["id"], outcome="void", overrules=first)
    assert response.status_code == 507
    response = client.post(f"/api/overrides/{first}/withdraw", json={"reason": "my mistake"})
    assert response.status_code == 507
    monkeypatch.undo()
    detail = client.get(f"/api/launches/{a['id']}").json
    assert [(o["id"], o["status"]) for o in detail["overrides"]] == [(first, "active")]
    after = state(client, game_id)
    assert after["view"] == before["view"] and after["events"] == before["events"]
    assert_rows_equal_engine(app, client, game_id)


def test_an_earlier_launch_is_overruled_only_after_a_preview(app, client):
    game_id = new_game(client)
    a = launch(client, game_id, "void")
    b = launch(client, game_id, "water")
    before = state(client, game_id)
    asked = overrule(client, a["id"], outcome="water")
    assert asked.status_code == 409 and asked.json["field"] == "confirm"
    preview = asked.json["preview"]
    assert state(client, game_id)["view"] == before["view"]  # nothing changed yet
    assert preview["stop_counting"] == [b["id"]] and preview["real_cards"] is None
    names = [p["name"] for p in before["view"]["players"]]
    assert [p["name"] for p in preview["players"]] == names
    for player, shown in zip(before["view"]["players"], preview["players"], strict=True):
        assert shown["food"]["before"] == player["food"]
        assert shown["hatchlings"]["before"] == player["hatchling_count"]
        assert shown["herd"]["before"] == [c["dinosaur"] for c in player["dinosaurs"]]

    assert overrule(client, a["id"], outcome="water", confirm=True).status_code == 201
    after = state(client, game_id)
    for player, shown in zip(after["view"]["players"], preview["players"], strict=True):
        assert (player["food"], player["hatchling_count"]) == (shown["food"]["after"], shown["hatchlings"]["after"])
        assert [c["dinosaur"] for c in player["dinosaurs"]] == shown["herd"]["after"]
    assert [row["id"] for row in after["launches"] if not row["counted"]] == preview["stop_counting"]

    # the latest counted launch is overruled at once: it rewinds nothing
    latest = launch(client, game_id, "void")
    assert overrule(client, latest["id"], outcome="water").status_code == 201


def test_a_real_cards_game_says_what_an_overrule_cannot_redo(client):
    game_id = new_game(client, autoplay=False, dealer="table")
    games = context(client.application).games
    a_id = None
    for _ in range(60):  # answer every decision with its first option until two launches are played
        data = state(client, game_id)
        if data["current_launch"] is not None:
            a_id_now = launch(client, game_id, "void")["id"]
            a_id = a_id or a_id_now
            if len(data["launches"]) >= 1:
                break
            continue
        item = data["pending"][0]
        option = item["options"][: item["count"]] if item["count"] > 1 else item["options"][0]
        assert client.post(f"/api/games/{game_id}/commands", json={"option": option}).status_code == 200
    assert games.latest_counted(game_id) != a_id
    asked = overrule(client, a_id, outcome="water")
    assert asked.status_code == 409
    assert "real cards" in asked.json["preview"]["real_cards"]


def test_undone_launches_do_not_count_and_say_why(app, client):
    game_id = new_game(client)
    a = launch(client, game_id, "void")
    while client.get(f"/api/launches/{a['id']}").json["counted"]:
        assert client.post(f"/api/games/{game_id}/undo", json={"steps": 1}).status_code == 200
    detail = client.get(f"/api/launches/{a['id']}").json
    assert detail["not_counted_reason"] == "the referee undid the game to before this throw"
    assert_rows_equal_engine(app, client, game_id)


def test_a_throw_judged_while_the_game_waits_does_not_count_and_can_be_assigned(app, client):
    game_id = new_game(client, autoplay=False)
    games = context(app).games
    waiting = state(client, game_id)["pending"][0]
    assert waiting["kind"] == "select_dinosaur"
    reason = f"judged while the game waited for {waiting['seat_name']} to choose a dinosaur"
    assert client.get("/api/status").json["throws_not_counting"] == reason.replace(
        "judged while the game waited", "the game waits")
    throw = games.record_launch("water", None, "judge", "judge", verdict=_verdict(30.0, 1))
    detail = client.get(f"/api/launches/{throw}").json
    assert detail["counted"] is False and detail["not_counted_reason"] == reason
    refused = client.post(f"/api/launches/{throw}/assign", json={})
    assert refused.status_code == 409 and "not waiting for a launch" in refused.json["error"]
    assert overrule(client, throw, outcome="void").status_code == 409  # it changes nothing: refused

    while state(client, game_id)["current_launch"] is None:
        item = state(client, game_id)["pending"][0]
        assert client.post(f"/api/games/{game_id}/commands", json={"option_index": 0}).status_code == 200, item
    assert client.get("/api/status").json["throws_not_counting"] is None
    slot = state(client, game_id)["current_launch"]["index"]
    page = client.get(f"/launches/{throw}").get_data(as_text=True)
    assert "Count it for the launch now waiting" in page
    form = {"csrf_token": csrf_of(client, f"/launches/{throw}"), "who": "Ada"}
    assert client.post(f"/launches/{throw}/assign", data=form).status_code == 302
    assigned = client.get(f"/api/launches/{throw}")
    assert assigned.json["counted"] and assigned.json["engine_launch"] == slot
    assert "Count it for the launch now waiting" not in client.get(f"/launches/{throw}").get_data(as_text=True)
    record = next(r for r in state(client, game_id)["engine_launches"] if r["index"] == slot)
    assert record["outcome"] == "water"
    assert client.post(f"/api/launches/{throw}/assign", json={}).status_code == 409
    assert_rows_equal_engine(app, client, game_id)


DISPUTED = {**_verdict(-9.0, 1), "outcome": "void", "disputed": True,
            "dispute_reasons": ["the release is within 9 mm of the herd line"]}


@pytest.mark.parametrize("review", ["confirm", "overrule"])
def test_a_disputed_call_holds_the_game_until_the_referee_reviews_it(app, client, review):
    game_id = new_game(client)
    games = context(app).games
    held = games.record_launch("void", None, "judge", "judge", verdict=DISPUTED)
    detail = client.get(f"/api/launches/{held}").json
    assert detail["counted"] and detail["needs_review"]
    assert detail["judge_reasons"] == DISPUTED["dispute_reasons"]
    data = state(client, game_id)
    assert data["held_by"] == held
    assert data["throws_not_counting"] == f"the game waits for the referee to review launch #{held}"
    assert data["pending"] and data["current_launch"] is None  # autoplay stopped at the next decision
    refused = client.post(f"/api/games/{game_id}/commands", json={"option_index": 0})
    assert refused.status_code == 409 and refused.json["held_by"] == held
    late = games.record_launch("water", None, "judge", "judge", verdict={"outcome": "water"})
    assert not client.get(f"/api/launches/{late}").json["counted"]
    queue = client.get("/api/launches?needs_review=true").json["launches"]
    assert [row["id"] for row in queue] == [held]

    if review == "confirm":
        assert client.post(f"/api/launches/{held}/confirm", json={"who": "Ada"}).status_code == 200
        assert client.get(f"/api/launches/{held}").json["review"] == "confirmed"
    else:
        assert overrule(client, held, outcome="water").status_code == 201
        assert client.get(f"/api/launches/{held}").json["review"] == "overruled"
    data = state(client, game_id)
    assert data["held_by"] is None and data["current_launch"] is not None  # autoplay went on to the next launch
    assert client.get("/api/launches?needs_review=true").json["launches"] == []
    assert client.post(f"/api/launches/{held}/confirm", json={}).status_code == 409
    assert_rows_equal_engine(app, client, game_id)


def test_a_game_without_review_plays_disputed_calls_on(app, client):
    game_id = new_game(client, review_disputed=False)
    held = context(app).games.record_launch("void", None, "judge", "judge", verdict=DISPUTED)
    assert not client.get(f"/api/launches/{held}").json["needs_review"]
    assert state(client, game_id)["current_launch"] is not None


def test_the_launch_page_shows_the_preview_and_asks(client):
    game_id = new_game(client)
    a = launch(client, game_id, "void")
    b = launch(client, game_id, "water")
    token = csrf_of(client, f"/launches/{a['id']}")
    form = {"csrf_token": token, "outcome": "water", "reason": "it splashed", "who": "Ada"}
    asked = client.post(f"/launches/{a['id']}/override", data=form)
    page = asked.get_data(as_text=True)
    assert asked.status_code == 409 and 'id="override-preview"' in page and f'href="/launches/{b["id"]}"' in page
    assert client.get(f"/api/launches/{a['id']}").json["overrides"] == []
    confirmed = client.post(f"/launches/{a['id']}/override", data={**form, "confirm": "true"})
    assert confirmed.status_code == 302
    assert client.get(f"/api/launches/{a['id']}").json["outcome"] == WATER
    assert "This throw does not count" in client.get(f"/launches/{b['id']}").get_data(as_text=True)


@pytest.mark.parametrize("checked", [True, False])
def test_the_new_game_form_sets_the_review_option(client, checked):
    form = {"player": ["Ann", "Bob"], "dealer": "seeded", "csrf_token": csrf_of(client)}
    if checked:
        form["review_disputed"] = "on"
    assert client.post("/game/new", data=form).status_code == 302
    game_id = client.get("/api/games").json["active"]
    assert state(client, game_id)["config"]["review_disputed"] is checked


def test_an_older_database_gets_its_launches_marked_counted_or_not(data_dir):
    """A database from before `counted` existed: opening it adds the column and links every game's rows."""
    import sqlite3

    from web import create_app

    app = create_app({"DATA_DIR": data_dir, "TESTING": True})
    client = app.test_client()
    game_id = new_game(client)
    a = launch(client, game_id, "void")
    b = launch(client, game_id, "water")
    overrule(client, a["id"], outcome="water", confirm=True)
    expected = {row["id"]: (row["counted"], row["not_counted_reason"]) for row in state(client, game_id)["launches"]}
    assert expected[b["id"]][0] is False
    context(app).store.close()
    database = sqlite3.connect(data_dir / "meteors.sqlite3")
    for column in ("counted", "not_counted_reason", "review"):
        database.execute(f"ALTER TABLE launches DROP COLUMN {column}")
    database.commit()
    database.close()

    again = create_app({"DATA_DIR": data_dir, "TESTING": True})
    rows = again.test_client().get(f"/api/launches?game_id={game_id}").json["launches"]
    assert {row["id"]: (row["counted"], row["not_counted_reason"]) for row in rows} == expected
    context(again).store.close()


def test_overrules_sent_at_once_never_give_an_engine_launch_two_rows(app, client):
    """Issue 40: 8 referees overruling launches of one game at the same moment, three times over."""
    import random

    game_id = new_game(client)
    for outcome in ("void", "water", "void", "void", "water", "void"):
        launch(client, game_id, outcome)
    rng = random.Random(40)
    for _ in range(3):
        rows = [row["id"] for row in state(client, game_id)["launches"]]
        targets = [(rng.choice(rows), rng.choice(["void", "water"])) for _ in range(8)]
        codes = all_at_once([
            lambda launch_id=launch_id, outcome=outcome: overrule(app.test_client(), launch_id, outcome=outcome,
                                                                  confirm=True).status_code
            for launch_id, outcome in targets])
        assert len(codes) == len(targets) and set(codes) <= {201, 409}
        assert_rows_equal_engine(app, client, game_id)
