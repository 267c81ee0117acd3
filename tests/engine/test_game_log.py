"""The game is its event log: replay, JSON, undo/redo, amendments, views."""

from __future__ import annotations

import json

import pytest

from engine import ChooseOceanLevel, Game, GameConfig, ResolveLaunch, SeededDealer, SelectDinosaur, replay
from engine.events import is_input
from engine.simulation import default_config, play_random_game


def test_log_starts_with_the_configuration_and_replays_to_the_state() -> None:
    game = play_random_game(default_config(4, 9))
    assert game.events[0].kind == "game_started"
    assert replay(game.events) == game.state


def test_json_round_trip_rebuilds_the_same_game() -> None:
    game = play_random_game(default_config(3, 2))
    again = Game.from_json(game.to_json())
    assert again.events == game.events and again.state == game.state
    assert json.loads(game.to_json())["format"] == "meteors-judge/game-log/1"


def test_same_seed_same_game_and_different_seed_different_game() -> None:
    assert play_random_game(default_config(3, 5)).events == play_random_game(default_config(3, 5)).events
    assert play_random_game(default_config(3, 5)).events != play_random_game(default_config(3, 6)).events


def test_undo_with_a_held_dealer_counts_decisions_only() -> None:
    game = Game.new(GameConfig(players=("A", "B")), dealer=SeededDealer(4))
    before = game.state
    game.apply(SelectDinosaur(seat=0, card=game.state.player(0).hand[0]))
    removed = game.undo(1)
    assert game.state == before and [event.kind for event in removed] == ["dinosaur_selected"]
    game.redo(removed)
    assert game.state.player(0).selected is not None


def test_amendment_keeps_original_and_amended_verdicts_and_replays() -> None:
    game = play_random_game(default_config(3, 8))
    game.dealer = None
    launch = game.launches()[0]
    new_outcome = "void" if launch.outcome != "void" else "water"
    game.amend_launch(0, new_outcome)
    amended = next(event for event in game.events if event.kind == "launch_amended")
    assert amended.original.outcome == launch.outcome and amended.outcome == new_outcome
    record = game.launches()[0]
    assert record.amended and record.original_outcome == launch.outcome and record.outcome == new_outcome
    assert replay(game.events) == game.state


def test_amending_a_verdict_to_a_hit_pays_the_food_now() -> None:
    game = Game.new(GameConfig(players=("A", "B")), dealer=SeededDealer(4))
    for player in game.state.players:
        game.apply(SelectDinosaur(seat=player.seat, card=player.hand[0]))
    while game.pending()[0].kind != "choose_ocean_level":
        item = game.pending()[0]
        if item.kind == "choose_bolide_launch":
            game.apply({"kind": "choose_bolide_launch", "seat": item.seat, "take": True})
        else:
            game.apply({"kind": "discard_dinosaur", "seat": item.seat, "card": item.options[0]})
    launcher = game.state.launch.launcher
    game.apply(ChooseOceanLevel(level=1))
    food = game.state.player(launcher).food
    game.apply(ResolveLaunch(outcome="void"))
    game.amend_launch(0, "dinosaur", "trex")
    assert game.state.player(launcher).food >= food + 1


def test_view_summarises_the_table_for_a_dashboard() -> None:
    game = Game.new(GameConfig(players=("Carlo", "Gianna", "Marco"), hard_mode=True), dealer=SeededDealer(1))
    view = game.view()
    assert (view.phase, view.era, view.turn, view.first_player) == ("selection", 1, 1, 0)
    assert [player.hand_size for player in view.players] == [4, 4, 4]
    assert len(view.herd) == 6 and view.ocean_level == 1
    assert {item.kind for item in view.pending} == {"select_dinosaur"}
    json.loads(view.model_dump_json())


@pytest.mark.parametrize("players", [2, 5])
def test_undo_everything_returns_to_setup(players: int) -> None:
    game = play_random_game(default_config(players, 1), max_decisions=12)
    game.dealer = None
    inputs = [event for event in game.events if is_input(event)]
    removed = game.undo(len(inputs))
    assert len(game.events) == 1 and removed == inputs
