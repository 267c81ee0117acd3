"""Games recorded before the engine offered the Bolide launch, the Herd discards and free pile orders
as choices replay to the same game when those choices keep their defaults.

The reference logs (`data/reference_logs.json.gz`, made by `record_reference_logs.py` on the engine
of commit e9ad86f) hold 60 seeded random games of 2 to 5 players, 20 of them with verdicts amended
after the game. Each game's inputs are re-applied on today's engine, the amendments made again, and
every event must come out as recorded, apart from the choices taken at their defaults.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engine import Game, SeededDealer
from engine.events import EVENT_LIST, is_input

REFERENCE = Path(__file__).parent / "data" / "reference_logs.json.gz"


@cache
def reference_games() -> list[dict[str, Any]]:
    with gzip.open(REFERENCE, "rt", encoding="utf-8") as source:
        return json.load(source)


def events_of(log: dict[str, Any]) -> list[Any]:
    return EVENT_LIST.validate_python(log["events"])


def without_defaults(events: tuple[Any, ...]) -> list[Any]:
    return [event for event in events if not getattr(event, "by_default", False)]


def replayed(recorded: list[Any]) -> Game:
    """A new game from the recorded configuration, fed the recorded inputs, choices at their defaults."""
    started = recorded[0]
    game = Game.new(started.config, data=started.data)
    game.redo([event for event in recorded if is_input(event)])
    return game


@pytest.mark.parametrize("number", range(60))
def test_a_recorded_game_replays_to_the_same_events_and_result(number: int) -> None:
    reference = reference_games()[number]
    played = events_of(reference["played"])
    game = replayed(played)
    assert without_defaults(game.events) == played
    assert game.result == Game(played).result and game.is_over
    game.dealer = SeededDealer(played[0].config.seed)  # the recording's amendments drew from it
    for amendment in reference["amendments"]:
        game.amend_launch(amendment["launch_index"], amendment["outcome"], amendment["dinosaur"])
    assert without_defaults(game.events) == events_of(reference["final"])


def test_the_reference_games_reach_the_new_choices() -> None:
    """The defaults are really exercised: Bolide launches and hits with more copies than the level."""
    taken = [
        event.kind
        for reference in reference_games()
        for event in replayed(events_of(reference["played"])).events
        if getattr(event, "by_default", False)
    ]
    assert taken.count("bolide_launch_chosen") > 300 and taken.count("herd_discards_chosen") > 10
