"""Properties over many random whole games, for every player count (Hypothesis)."""

from __future__ import annotations

from collections import Counter
from typing import get_args

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Game, GameConfig, OpenCases, Variants, replay
from engine.events import is_input
from engine.flow import next_step
from engine.phases import apply_event
from engine.simulation import DEFAULT_NAMES, play_random_game
from engine.state import GameState
from engine.types import DINOSAUR_TYPES

FAST = settings(deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    players = draw(st.integers(min_value=2, max_value=5))
    return GameConfig(
        players=DEFAULT_NAMES[:players],
        seed=draw(st.integers(min_value=0, max_value=2**31)),
        first_player=draw(st.integers(min_value=0, max_value=players - 1)),
        hard_mode=draw(st.booleans()),
        variants=Variants(facilitated_launches=draw(st.booleans()), two_hatchling_types=draw(st.booleans())),
        house_rules=draw(st.none() | house_rules()),
    )


def house_rules() -> st.SearchStrategy[OpenCases]:
    """Any reading of the rulebook's open cases."""
    choices = {name: st.sampled_from(get_args(field.annotation)) for name, field in OpenCases.model_fields.items()}
    return st.builds(OpenCases, **choices)


def card_places(state: GameState) -> Counter[str]:
    places: Counter[str] = Counter()
    for zone in (state.deck, state.era2_deck, state.herd, state.discard, state.removed):
        places.update(zone)
    for player in state.players:
        places.update(player.hand)
        places.update(player.in_front)
        if player.selected is not None:
            places[player.selected] += 1
    return places


def assert_conserved(state: GameState) -> None:
    """Every card, Hatchling, Food and Wave token is in exactly one place; no negative Food."""
    data = state.rules.data
    assert card_places(state) == Counter(card.id for card in data.cards)
    for dinosaur in DINOSAUR_TYPES:
        held = sum(player.hatchlings.count(dinosaur) for player in state.players)
        assert state.hatchling_supply[dinosaur] >= 0
        assert state.hatchling_supply[dinosaur] + held == data.hatchling_counts()[dinosaur]
    assert state.food_supply >= 0 or not state.rules.food_limited
    assert all(player.food >= 0 for player in state.players)
    assert state.food_supply + sum(player.food for player in state.players) == data.supply.food_tokens
    assert sorted((*state.wave_pool, *state.wave_revealed)) == sorted(data.wave_token_ids())


@settings(FAST, max_examples=300)
@given(configs())
def test_random_games_conserve_components_play_two_eras_of_three_turns_and_replay(config: GameConfig) -> None:
    game = play_random_game(config)
    state = None
    for event in game.events:
        state = apply_event(state, event)
        assert_conserved(state)
    assert state == game.state == replay(game.events)
    turns = [(event.era, event.turn) for event in game.events if event.kind == "turn_started"]
    assert turns == [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (2, 3)]
    assert game.is_over and game.result is not None and game.result.winners
    assert all(len(player.hand) == 0 for player in game.state.players)
    again = Game.from_json(game.to_json())
    assert again.events == game.events and again.state == game.state


@settings(FAST, max_examples=100)
@given(configs(), st.integers(min_value=1, max_value=400), st.data())
def test_undo_then_redo_is_the_identity(config: GameConfig, decisions: int, data: st.DataObject) -> None:
    game = play_random_game(config, max_decisions=decisions)
    game.dealer = None  # count chance results as inputs too
    events, state = game.events, game.state
    inputs = sum(1 for event in game.events if is_input(event))
    count = data.draw(st.integers(min_value=1, max_value=inputs))
    removed = game.undo(count)
    assert len(removed) == count
    assert game.state == replay(game.events)
    game.redo(removed)
    assert game.events == events and game.state == state


@settings(FAST, max_examples=100)
@given(configs(), st.integers(min_value=20, max_value=400), st.data())
def test_amending_a_launch_then_amending_it_back_restores_the_state(
    config: GameConfig, decisions: int, data: st.DataObject
) -> None:
    game = play_random_game(config, max_decisions=decisions)
    game.dealer = None
    launches = [launch for launch in game.launches() if launch.outcome is not None]
    if not launches:
        return
    launch = data.draw(st.sampled_from(launches))
    state = game.state
    other = data.draw(st.sampled_from([o for o in ("dinosaur", "water", "void") if o != launch.outcome] + ["dinosaur"]))
    dinosaur = data.draw(st.sampled_from(DINOSAUR_TYPES)) if other == "dinosaur" else None
    game.amend_launch(launch.index, other, dinosaur)
    assert game.state == replay(game.events)
    assert_conserved(game.state)
    game.amend_launch(launch.index, launch.outcome, launch.dinosaur)
    assert game.state == state
    assert replay(game.events) == state


def test_random_play_makes_every_kind_of_choice_the_rulebook_allows() -> None:
    """The simulation declines Bolide launches, discards Herd copies other than the nearest the deck
    and stacks Hatchlings of one type apart, so the properties above cover those choices."""
    declined = away_from_the_deck = mixed_piles = 0
    for seed in range(20):
        game = play_random_game(GameConfig(players=DEFAULT_NAMES[: 2 + seed % 4], seed=seed))
        state = None
        for event in game.events:
            if event.kind == "bolide_launch_chosen" and not event.take:
                declined += 1
            if event.kind == "herd_discards_chosen" and event.cards != next_step(state)[0].default:
                away_from_the_deck += 1
            if event.kind == "hatchlings_hatched":
                mixed_piles += sum(1 for gain in event.gains if stacked_apart(gain.hatchlings))
            state = apply_event(state, event)
    assert declined > 0 and away_from_the_deck > 0 and mixed_piles > 0


def stacked_apart(pile: tuple[str, ...]) -> bool:
    """A type appears in two separate runs of the pile."""
    runs = [dinosaur for position, dinosaur in enumerate(pile) if position == 0 or pile[position - 1] != dinosaur]
    return len(runs) != len(set(runs))
