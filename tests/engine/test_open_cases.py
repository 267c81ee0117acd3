"""The cases the rulebook leaves open: each read one way by default (the data file's `[open_cases]`)
and the other way as a house rule; and the paths taken when the Dinosaur deck or a supply runs out."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import Game, GameConfig, OpenCases, SeededDealer
from engine.data import load_game_data
from engine.flow import next_step
from engine.launch import FACILITATED_STYLE
from engine.scoring import final_result, herbivore_groups
from engine.state import GameState, LaunchState
from tests.engine.table_builder import CARLO, GIANNA, MARCO, build_table, events_of, pending_of, play

PACKAGED = Path(__file__).parents[2] / "engine" / "data" / "game_data.toml"
UNLIMITED_FOOD = OpenCases(food_supply="unlimited")


def test_the_data_file_names_every_open_case_with_the_engines_reading_as_default() -> None:
    data = load_game_data()
    assert data.open_cases == OpenCases()
    assert data.open_cases.model_dump() == {
        "food_supply": "limited",
        "velociraptors_all_tied": "majority_and_minority",
        "herbivore_group": "any_three",
        "era_1_cards_in_era_2": "rebuild_the_deck",
    }
    assert "open_cases" in data.assumptions


def test_a_data_file_can_change_an_open_cases_default_and_a_game_can_override_it(tmp_path: Path) -> None:
    custom = tmp_path / "house.toml"
    custom.write_text(PACKAGED.read_text().replace('herbivore_group = "any_three"', 'herbivore_group = "one_of_each"'))
    pile = {CARLO: ["brontosaurus"] * 3}
    from_file = build_table(phase="scoring", hatchlings=pile, data=load_game_data(custom))
    assert final_result(from_file).players[CARLO].herbivore_food == 0
    overridden = build_table(phase="scoring", hatchlings=pile, data=load_game_data(custom), house_rules=OpenCases())
    assert final_result(overridden).players[CARLO].herbivore_food == 1


def test_house_rules_travel_in_the_game_log() -> None:
    config = GameConfig(players=("A", "B"), house_rules=OpenCases(herbivore_group="one_of_each"))
    game = Game.new(config, dealer=SeededDealer(3))
    again = Game.from_json(game.to_json())
    assert again.state.rules.open_cases.herbivore_group == "one_of_each"


# ---- Food supply ---------------------------------------------------------------------------------


def tide_table(house_rules: OpenCases | None) -> GameState:
    """Carlo's launch lands in the water; Gianna and Marco played Tide icons; 3 Food left."""
    state = build_table(
        phase="meteor",
        played={CARLO: ("brontosaurus", "meteor"), GIANNA: ("pterodactyl", "tide"), MARCO: ("trex", "tide")},
        food={CARLO: 29},
        house_rules=house_rules,
    )
    launch = LaunchState(index=0, launcher=CARLO, bolide=True, stage="effects", ocean_level=1, outcome="water")
    return state.model_copy(update={"launch": launch})


@pytest.mark.parametrize(
    ("house_rules", "tide_food", "supply_left"),
    [
        (None, [(GIANNA, 2), (MARCO, 1)], 0),  # limited: paid from the launcher's left while it lasts
        (UNLIMITED_FOOD, [(GIANNA, 2), (MARCO, 2)], -1),  # unlimited: one token more than the box holds
    ],
)
def test_the_food_supply_running_out_during_a_tide_bonus(house_rules, tide_food, supply_left) -> None:
    state, log = play(tide_table(house_rules))
    (water,) = events_of(log, "water_landed")
    assert [(gain.seat, gain.food) for gain in water.tide_food] == tide_food
    assert [state.player(seat).food for seat in (GIANNA, MARCO)] == [food for _, food in tide_food]
    assert state.food_supply == supply_left


@pytest.mark.parametrize(
    ("house_rules", "food"),
    [
        (None, (1, 29, 0)),  # Carlo takes the last 2 Food for his groups; Marco's +3 finds none
        (UNLIMITED_FOOD, (1, 29, 3)),
    ],
)
def test_the_food_supply_running_out_at_scoring(house_rules, food) -> None:
    """2 Food left; Carlo (first player) has two herbivore groups, Marco the most Velociraptors;
    Carlo and Gianna, with none, lose one Food each."""
    state = build_table(
        phase="scoring",
        hatchlings={CARLO: ["brontosaurus"] * 6, MARCO: ["velociraptor"]},
        food={GIANNA: 30},
        house_rules=house_rules,
    )
    state, log = play(state)
    assert tuple(result.food for result in state.result.players) == food
    assert state.food_supply == 32 - sum(food)


# ---- scoring -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "food"),
    [("majority_and_minority", (3, 3, 3)), ("neither", (1, 1, 1))],
)
def test_every_player_tied_on_velociraptors(rule, food) -> None:
    state = build_table(
        phase="scoring",
        hatchlings={seat: ["velociraptor"] for seat in (CARLO, GIANNA, MARCO)},
        food={seat: 1 for seat in (CARLO, GIANNA, MARCO)},
        house_rules=OpenCases(velociraptors_all_tied=rule),
    )
    assert tuple(result.food for result in final_result(state).players) == food


def test_a_partial_velociraptor_tie_is_no_open_case() -> None:
    state = build_table(
        phase="scoring",
        hatchlings={CARLO: ["velociraptor"], GIANNA: ["velociraptor"]},
        food={MARCO: 1},
        house_rules=OpenCases(velociraptors_all_tied="neither"),
    )
    assert tuple(result.food for result in final_result(state).players) == (3, 3, 0)


@pytest.mark.parametrize(
    ("pile", "any_three", "one_of_each"),
    [
        (["brontosaurus"] * 3, 1, 0),
        (["brontosaurus", "stegosaurus", "triceratops"] * 2 + ["brontosaurus"], 2, 2),
        (["brontosaurus", "brontosaurus", "stegosaurus", "triceratops", "triceratops", "triceratops"], 2, 1),
        (["pterodactyl", "trex", "velociraptor"], 0, 0),
    ],
)
def test_a_group_of_three_herbivores_any_three_or_one_of_each(pile, any_three, one_of_each) -> None:
    assert herbivore_groups(tuple(pile), "any_three") == any_three
    assert herbivore_groups(tuple(pile), "one_of_each") == one_of_each
    state = build_table(phase="scoring", hatchlings={CARLO: pile}, house_rules=OpenCases(herbivore_group="one_of_each"))
    assert final_result(state).players[CARLO].herbivore_food == one_of_each


# ---- the Dinosaur deck running out ---------------------------------------------------------------


def empty_deck(state: GameState, discard: tuple[str, ...]) -> GameState:
    """The deck is empty and `discard` is the discard pile; every other card is out of the game."""
    rest = tuple(card for card in (*state.deck, *state.era2_deck) if card not in discard)
    return state.model_copy(update={"deck": (), "era2_deck": (), "discard": discard, "removed": rest})


def launch_at_reveal(house_rules: OpenCases | None = None, era: int = 1, **table) -> GameState:
    state = build_table(phase="meteor", era=era, house_rules=house_rules, **table)
    return state.model_copy(update={"launch": LaunchState(index=0, launcher=CARLO, bolide=True)})


def test_the_deck_is_rebuilt_from_the_discards_when_a_launch_needs_a_card() -> None:
    state = launch_at_reveal()
    discard = state.deck[:3]
    state, log = play(empty_deck(state, discard))
    (rebuilt,) = events_of(log, "deck_rebuilt")
    assert rebuilt.cards == tuple(sorted(discard)) and rebuilt.removed == ()
    assert state.deck == tuple(sorted(discard)) and state.discard == ()
    (decision,) = pending_of(state)
    assert decision.kind == "reveal_herd_card" and decision.options == state.deck


def test_with_no_card_anywhere_the_launch_uses_the_facilitated_mode() -> None:
    state, log = play(empty_deck(launch_at_reveal(), ()))
    assert [event.kind for event in log] == ["launch_card_unavailable"]
    mode = state.launch.mode
    assert (mode.dinosaur, mode.difficulty, mode.min_bounces) == (None, "facilitated", 1)
    assert mode.instructions.startswith(FACILITATED_STYLE)
    assert pending_of(state)[0].kind == "choose_ocean_level"


def test_the_no_card_policy_never_rebuilds_the_deck(tmp_path: Path) -> None:
    custom = tmp_path / "no_card.toml"
    custom.write_text(PACKAGED.read_text().replace('"reshuffle_discards"\n', '"no_card"\n', 1))
    data = load_game_data(custom)
    assert data.supply.dinosaur_deck_exhausted == "no_card"
    state = launch_at_reveal(data=data)
    state, log = play(empty_deck(state, state.deck[:3]))
    assert [event.kind for event in log] == ["launch_card_unavailable"]
    assert len(state.discard) == 3 and state.deck == ()


def end_of_era_two_turn(house_rules: OpenCases | None) -> tuple[GameState, str, str]:
    """Era II, end of a turn, a Herd of 5 to refill, an empty deck; the discards hold an Era I card
    (discarded from in front of a player during Era II) and an Era II card."""
    hands = {seat: [("stegosaurus", None)] * 2 for seat in (CARLO, GIANNA, MARCO)}
    state = build_table(phase="end_of_turn", era=2, hands=hands, herd=[("trex", None)] * 5, house_rules=house_rules)
    era_1, era_2 = state.deck[0], state.era2_deck[0]
    return empty_deck(state, (era_1, era_2)), era_1, era_2


def test_era_one_cards_discarded_in_era_two_come_back_when_the_deck_is_rebuilt_by_default() -> None:
    state, era_1, era_2 = end_of_era_two_turn(None)
    state, log = play(state)
    (rebuilt,) = events_of(log, "deck_rebuilt")
    assert rebuilt.cards == tuple(sorted((era_1, era_2))) and rebuilt.removed == ()
    assert pending_of(state)[0].options == tuple(sorted((era_1, era_2)))


def test_era_one_cards_discarded_in_era_two_can_be_removed_from_the_game() -> None:
    state, era_1, era_2 = end_of_era_two_turn(OpenCases(era_1_cards_in_era_2="removed_from_game"))
    state, log = play(state)
    (rebuilt,) = events_of(log, "deck_rebuilt")
    assert (rebuilt.cards, rebuilt.removed) == ((era_2,), (era_1,))
    assert era_1 in state.removed and state.discard == () and state.deck == (era_2,)


def test_with_only_era_one_discards_left_and_the_house_rule_the_herd_stays_short() -> None:
    state, era_1, era_2 = end_of_era_two_turn(OpenCases(era_1_cards_in_era_2="removed_from_game"))
    state, log = play(state.model_copy(update={"discard": (era_1,), "removed": (*state.removed, era_2)}))
    assert events_of(log, "deck_rebuilt") == [] and events_of(log, "turn_started")
    assert len(state.herd) == 5 and state.discard == (era_1,)
    assert next_step(state)[0].kind == "select_dinosaur"
