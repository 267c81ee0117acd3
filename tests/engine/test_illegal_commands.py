"""Illegal commands are refused with a clear reason and change nothing."""

from __future__ import annotations

import pytest

from engine import (
    ChooseOceanLevel,
    DiscardDinosaur,
    Game,
    GameConfig,
    IllegalCommand,
    ResolveLaunch,
    RevealHerdCard,
    SeededDealer,
    SelectDinosaur,
    TakeHatchlings,
)
from engine.simulation import play_random_game


def selection_game() -> Game:
    return Game.new(GameConfig(players=("Carlo", "Gianna", "Marco")), dealer=SeededDealer(11))


def launch_game() -> Game:
    """Everyone has selected; the first launcher must now choose the ocean level."""
    game = selection_game()
    for player in game.state.players:
        game.apply(SelectDinosaur(seat=player.seat, card=player.hand[0]))
    while game.pending()[0].kind != "choose_ocean_level":
        item = game.pending()[0]
        if item.kind == "choose_bolide_launch":
            game.apply({"kind": "choose_bolide_launch", "seat": item.seat, "take": True})
        else:
            game.apply(DiscardDinosaur(seat=item.seat, card=item.options[0]))
    return game


def assert_refused(game: Game, command, reason: str) -> None:
    events, state = game.events, game.state
    with pytest.raises(IllegalCommand, match=reason):
        game.apply(command)
    assert game.events == events and game.state == state


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (lambda g: SelectDinosaur(seat=0, card=g.state.player(1).hand[0]), "not in the hand of seat 0"),
        (lambda g: SelectDinosaur(seat=7, card="I-01"), "no seat 7 in a 3-player game"),
        (lambda g: ChooseOceanLevel(level=2), "choose_ocean_level is not expected now"),
        (lambda g: ResolveLaunch(outcome="void"), "resolve_launch is not expected now"),
        (lambda g: TakeHatchlings(seat=0, types=("trex",)), "take_hatchlings is not expected now"),
        (lambda g: RevealHerdCard(card=g.state.deck[0]), "reveal_herd_card is not expected now"),
        ({"kind": "select_dinosaur", "seat": 0}, "malformed command"),
    ],
)
def test_selection_phase_refuses(command, reason: str) -> None:
    game = selection_game()
    assert_refused(game, command(game) if callable(command) else command, reason)


def test_selecting_twice_is_refused() -> None:
    game = selection_game()
    hand = game.state.player(0).hand
    game.apply(SelectDinosaur(seat=0, card=hand[0]))
    assert_refused(game, SelectDinosaur(seat=0, card=hand[1]), "already selected")


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (lambda launcher: ChooseOceanLevel(level=4), "ocean level 4 is out of range 1..3"),
        (lambda launcher: ChooseOceanLevel(level=0), "out of range"),
        (lambda launcher: ChooseOceanLevel(level=2, seat=(launcher + 1) % 3), "cannot do that now"),
        (lambda launcher: ResolveLaunch(outcome="water"), "resolve_launch is not expected now"),
        (lambda launcher: SelectDinosaur(seat=launcher, card="I-01"), "select_dinosaur is not expected now"),
    ],
)
def test_launch_refuses(command, reason: str) -> None:
    game = launch_game()
    launcher = game.state.launch.launcher
    assert_refused(game, command(launcher), reason)


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        (ResolveLaunch(outcome="dinosaur"), "needs the dinosaur type"),
        (ResolveLaunch(outcome="void", launch_index=5), "launch 5 is not the launch in progress"),
    ],
)
def test_verdict_refuses(command, reason: str) -> None:
    game = launch_game()
    game.apply(ChooseOceanLevel(level=2))
    assert_refused(game, command, reason)


def test_verdict_json_with_extra_fields_is_accepted() -> None:
    game = launch_game()
    game.apply(ChooseOceanLevel(level=2))
    verdict = {"outcome": "dinosaur", "dinosaur": "trex", "valid": True, "region": "trex", "bounces_before_box": 1}
    game.apply(ResolveLaunch.model_validate(verdict))
    assert game.launches()[0].outcome == "dinosaur"


def test_commands_after_the_game_are_refused() -> None:
    game = play_random_game(GameConfig(players=("A", "B")), seed=3)
    assert_refused(game, ChooseOceanLevel(level=1), "the game is over")


def test_undo_and_amend_refuse_impossible_requests() -> None:
    game = selection_game()
    with pytest.raises(IllegalCommand, match="nothing to undo"):
        game.undo(1)
    with pytest.raises(IllegalCommand, match="no verdict to amend"):
        game.amend_launch(0, "water")


def test_amending_to_a_hit_without_a_dinosaur_type_is_refused_and_changes_nothing() -> None:
    game = play_random_game(GameConfig(players=("A", "B")), seed=5)
    events, state = game.events, game.state
    with pytest.raises(IllegalCommand, match="needs the dinosaur type"):
        game.amend_launch(0, "dinosaur")
    assert game.events == events and game.state == state
