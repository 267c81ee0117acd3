"""Helpers shared by the dashboard tests."""

from __future__ import annotations

import re

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
