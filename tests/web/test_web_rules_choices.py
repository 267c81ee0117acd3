"""The rules choices on the dashboard and the API: house rules for the rulebook's open cases, and the
players' choices (the Bolide's extra launch, which Herd cards a hit discards, the Hatchling pile order)."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from web_helpers import PLAYERS, answer, csrf_of, drive_until, mixed_pile, new_game, state

from web import context

# ---- house rules --------------------------------------------------------------------------------


def test_a_game_created_with_house_rules_keeps_and_shows_them(client) -> None:
    game_id = new_game(client, autoplay=False, house_rules={"food_supply": "unlimited"})
    rules = {case["name"]: case for case in state(client, game_id)["house_rules"]}
    assert set(rules) == {"food_supply", "velociraptors_all_tied", "herbivore_group", "era_1_cards_in_era_2"}
    assert (rules["food_supply"]["reading"], rules["food_supply"]["house_rule"]) == ("unlimited", True)
    assert (rules["herbivore_group"]["reading"], rules["herbivore_group"]["house_rule"]) == ("any_three", False)
    page = client.get(f"/game/{game_id}").get_data(as_text=True)
    assert 'id="house-rules"' in page and "<b>unlimited</b> <span class=\"badge\">house rule</span>" in page
    context(client.application).games._games.clear()  # a restart replays the game from its stored config
    assert context(client.application).games.engine_game(game_id).state.rules.food_limited is False


def test_a_bad_house_rule_names_the_field(client) -> None:
    response = client.post("/api/games", json={"players": PLAYERS, "house_rules": {"food_supply": "endless"}})
    assert response.status_code == 400 and response.json["field"] == "house_rules.food_supply"


def test_the_new_game_form_offers_every_open_case_with_the_default_selected(client) -> None:
    page = client.get("/game/new").get_data(as_text=True)
    for name, default in (("food_supply", "limited"), ("velociraptors_all_tied", "majority_and_minority"),
                          ("herbivore_group", "any_three"), ("era_1_cards_in_era_2", "rebuild_the_deck")):
        assert f'name="house_rule.{name}"' in page
        assert f'<option value="{default}" selected>' in page
    form = {"player": ["Ann", "Bob"], "seat": ["0", "1"], "dealer": "seeded", "seed": "5",
            "house_rule.herbivore_group": "one_of_each", "house_rule.food_supply": "limited",
            "csrf_token": csrf_of(client)}
    created = client.post("/game/new", data=form)
    game_id = int(created.headers["Location"].rsplit("/", 1)[1])
    rules = {case["name"]: case["reading"] for case in state(client, game_id)["house_rules"]}
    assert rules["herbivore_group"] == "one_of_each" and rules["food_supply"] == "limited"


# ---- the players' choices ------------------------------------------------------------------------


def test_the_bolide_launch_is_offered_with_taking_it_as_default_and_can_be_declined(client) -> None:
    game_id = new_game(client, autoplay=False)
    item, data = drive_until(client, game_id, lambda item, data: item["kind"] == "choose_bolide_launch")
    assert (item["options"], item["default"], item["seat"]) == ([True, False], True, data["view"]["bolide"])
    assert item["labels"] == ["take the Bolide's extra launch", "decline it"]
    page = client.get(f"/game/{game_id}").get_data(as_text=True)
    assert 'data-kind="choose_bolide_launch"' in page and "decline it" in page
    herd = data["view"]["herd"]
    after = answer(client, game_id, option=False)
    assert after["view"]["launch_count"] == 0 or after["view"]["launch"]["bolide"] is False
    revealed = after["view"]["herd"][len(herd):]
    assert after["view"]["herd"][: len(herd)] == herd and len(revealed) <= 1  # a Meteor icon's card at most


def test_the_launcher_picks_the_herd_cards_a_hit_discards(client) -> None:
    game_id = new_game(client, autoplay=False)
    item, data = drive_until(client, game_id, lambda item, data: item["kind"] == "choose_herd_discards", hits=True)
    assert item["count"] == 1 and len(item["options"]) >= 2 and item["default"] == item["options"][:1]
    page = client.get(f"/game/{game_id}").get_data(as_text=True)
    assert 'data-kind="choose_herd_discards"' in page and "Herd place 1 from the deck" in page
    furthest = item["options"][-1]
    after = answer(client, game_id, option=furthest)
    herd = [card["card"] for card in after["view"]["herd"]]
    assert furthest not in herd and item["options"][0] in herd


def test_hatchlings_are_stacked_in_the_order_sent(client) -> None:
    game_id = new_game(client, autoplay=False)
    item, data = drive_until(client, game_id, mixed_pile)
    key, gains = next((key, gains) for key, gains in item["detail"]["gains"].items() if len(set(gains)) >= 2)
    option = [] if key == "egg_icon" else key.split("+")
    order = sorted(gains, key=lambda dinosaur: (gains.index(dinosaur) % 2, dinosaur), reverse=True)
    page = client.get(f"/game/{game_id}").get_data(as_text=True)
    assert 'name="stack_order"' in page
    before = len(data["view"]["players"][item["seat"]]["hatchlings"])
    wrong = client.post(f"/api/games/{game_id}/commands", json={"option": option, "stack_order": ["dodo"]})
    assert wrong.status_code == 400 and wrong.json["field"].startswith("stack_order")
    after = answer(client, game_id, option=option, stack_order=order)
    while after["view"]["phase"] == "egg":
        after = answer(client, game_id, option_index=0)
    pile = after["view"]["players"][item["seat"]]["hatchlings"]
    assert pile[before:][::-1] == order  # top of the pile first


def test_the_decide_form_sends_a_pile_order(client) -> None:
    game_id = new_game(client, autoplay=False)
    item, data = drive_until(client, game_id, mixed_pile)
    key, gains = next((key, gains) for key, gains in item["detail"]["gains"].items() if len(set(gains)) >= 2)
    option = [] if key == "egg_icon" else key.split("+")
    order = list(reversed(gains))
    before = len(data["view"]["players"][item["seat"]]["hatchlings"])
    response = client.post(f"/game/{game_id}/decide", data={
        "csrf_token": csrf_of(client, f"/game/{game_id}"), "pending_index": "0", "option": json.dumps(option),
        "stack_order": ", ".join(order)})
    assert response.status_code == 302
    after = state(client, game_id)
    while after["view"]["phase"] == "egg":
        after = answer(client, game_id, option_index=0)
    assert after["view"]["players"][item["seat"]]["hatchlings"][before:][::-1] == order


def test_a_pile_order_with_another_decision_is_refused(client) -> None:
    game_id = new_game(client, autoplay=False)
    response = client.post(f"/api/games/{game_id}/commands", json={"option_index": 0, "stack_order": ["trex"]})
    assert response.status_code == 400 and response.json["field"] == "stack_order"


# ---- games recorded before the choices existed ---------------------------------------------------


@pytest.mark.parametrize("seed", [11, 12])
def test_a_game_recorded_without_the_new_choices_replays_to_the_same_table(client, seed: int) -> None:
    """A game's stored commands without its Bolide and Herd answers (as the dashboard recorded them
    before it offered them) replay to the same table when those choices keep their defaults."""
    games = context(client.application).games
    store = games.store
    game_id = client.post("/api/games", json={"players": PLAYERS, "seed": seed}).json["id"]
    for _ in range(60):  # default answers throughout, hits where the Herd holds a type twice
        data = state(client, game_id)
        item = data["pending"][0]
        if item["kind"] == "resolve_launch":
            counts = Counter(card["dinosaur"] for card in data["view"]["herd"])
            twice = [dinosaur for dinosaur, count in counts.items() if count >= 2]
            body = {"outcome": "dinosaur", "dinosaur": twice[0]} if twice else {"outcome": "water"}
            client.post(f"/api/games/{game_id}/launch", json=body)
        else:
            answer(client, game_id, option=item["default"] if item["default"] is not None else item["options"][0])
    recorded = store.events(game_id)
    new_kinds = {"choose_bolide_launch", "choose_herd_discards"}
    answered = [event for event in recorded if event["payload"].get("command", {}).get("kind") in new_kinds]
    assert {event["payload"]["command"]["kind"] for event in answered} == new_kinds
    old_id = store.create_game("recorded before", store.game(game_id)["config"], autoplay=False)
    for event in recorded:
        if event not in answered:
            store.append_event(old_id, event["kind"], event["payload"], event["who"])
    assert state(client, old_id)["view"] == state(client, game_id)["view"]
    assert state(client, old_id)["pending"] == state(client, game_id)["pending"]
