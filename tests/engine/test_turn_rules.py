"""Setup, turn order, launches, Herd upkeep, eras and scoring rules beyond the worked examples."""

from __future__ import annotations

import pytest
from table_builder import CARLO, GIANNA, MARCO, build_table, events_of, pending_of, play

from engine.commands import ChooseBolideLaunch, ChooseOceanLevel, ResolveLaunch, SelectDinosaur, TakeHatchlings
from engine.config import GameConfig, Variants
from engine.dealer import SeededDealer, SeenCard, TableDealer
from engine.flow import water_landing
from engine.game import Game, advance, apply_command
from engine.scoring import final_result
from engine.simulation import DEFAULT_NAMES
from engine.state import LaunchState


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_deals_four_cards_each_and_a_herd_of_six(players: int) -> None:
    game = Game.new(GameConfig(players=DEFAULT_NAMES[:players], first_player=players - 1), dealer=SeededDealer(1))
    state = game.state
    assert (state.phase, state.era, state.turn, state.bolide) == ("selection", 1, 1, players - 1)
    assert all(len(player.hand) == 4 for player in state.players)
    assert len(state.herd) == 6
    assert len(state.deck) == 35 - 4 * players - 6
    assert len(state.era2_deck) == 36
    assert state.food_supply == 32 and len(state.wave_pool) == 8
    assert sum(state.hatchling_supply.values()) == 110


def test_selection_is_simultaneous_and_hidden_until_everyone_has_chosen() -> None:
    game = Game.new(GameConfig(players=("A", "B", "C")), dealer=SeededDealer(3))
    assert {item.seat for item in game.pending()} == {0, 1, 2}
    game.apply(SelectDinosaur(seat=2, card=game.state.player(2).hand[0]))
    assert {item.seat for item in game.pending()} == {0, 1}
    assert game.view().players[2].has_selected and game.view().players[2].played is None


def test_meteor_launches_bolide_first_then_meteor_icons_clockwise_from_first_player() -> None:
    """Gianna is first player and also plays a Meteor: she launches twice, then Carlo (clockwise)."""
    state = build_table(
        first_player=GIANNA,
        hands={
            CARLO: [("brontosaurus", "meteor")],
            GIANNA: [("pterodactyl", "meteor")],
            MARCO: [("stegosaurus", "meteor")],
        },
    )
    state, log = play(state, *[SelectDinosaur(seat=p.seat, card=p.hand[0]) for p in state.players])
    (phase,) = events_of(log, "meteor_phase_started")
    assert [(slot.seat, slot.bolide) for slot in phase.launches] == [
        (GIANNA, True),
        (GIANNA, False),
        (MARCO, False),
        (CARLO, False),
    ]


def test_hit_discards_only_cards_of_the_type_hit_up_to_the_ocean_level() -> None:
    state = build_table(
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("pterodactyl", "egg")], MARCO: [("stegosaurus", "egg")]},
        herd=[("velociraptor", None), ("trex", None), ("velociraptor", None), ("trex", None)],
    )
    dealer = TableDealer([SeenCard(dinosaur="brontosaurus", icon="tide")])
    state, log = play(
        state,
        *[SelectDinosaur(seat=p.seat, card=p.hand[0]) for p in state.players],
        ChooseBolideLaunch(seat=CARLO),
        ChooseOceanLevel(level=3),
        ResolveLaunch(outcome="dinosaur", dinosaur="velociraptor"),
        dealer=dealer,
    )
    (hit,) = events_of(log, "target_hit")
    assert len(hit.discarded) == 2 and hit.food == 3  # only two Velociraptors were in the Herd
    assert state.count_type(state.herd, "trex") == 2


def test_hit_with_no_card_of_that_type_still_earns_one_food() -> None:
    state = build_table(
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("pterodactyl", "egg")], MARCO: [("stegosaurus", "egg")]}
    )
    state, log = play(
        state,
        *[SelectDinosaur(seat=p.seat, card=p.hand[0]) for p in state.players],
        ChooseBolideLaunch(seat=CARLO),
        ChooseOceanLevel(level=2),
        ResolveLaunch(outcome="dinosaur", dinosaur="trex"),
        dealer=TableDealer([SeenCard(dinosaur="brontosaurus", icon="tide")]),
    )
    assert events_of(log, "target_hit")[0].food == 1 and state.player(CARLO).food == 1


def test_food_gains_stop_when_the_supply_is_empty() -> None:
    state = build_table(
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("pterodactyl", "egg")], MARCO: [("stegosaurus", "egg")]},
        herd=[("trex", None), ("trex", None)],
        food={GIANNA: 31},
    )
    state, log = play(
        state,
        *[SelectDinosaur(seat=p.seat, card=p.hand[0]) for p in state.players],
        ChooseBolideLaunch(seat=CARLO),
        ChooseOceanLevel(level=2),
        ResolveLaunch(outcome="dinosaur", dinosaur="trex"),
        dealer=TableDealer([SeenCard(dinosaur="brontosaurus", icon="tide")]),
    )
    assert events_of(log, "target_hit")[0].food == 1
    assert state.food_supply == 0 and state.player(CARLO).food == 1


def test_water_reveals_at_most_all_eight_wave_tokens() -> None:
    state = build_table(
        players=("A", "B", "C", "D", "E"),
        played={seat: (None, "tide") for seat in range(5)},
        phase="meteor",
    )
    state = state.model_copy(
        update={
            "launch": LaunchState(index=0, launcher=0, bolide=True, stage="effects", ocean_level=3, outcome="water")
        }
    )
    landing = water_landing(state)
    assert landing.waves_to_reveal == 8  # 3 + 5 Tide icons
    assert [gain.seat for gain in landing.tide_food] == [1, 2, 3, 4]  # opponents only


def test_end_of_turn_passes_hands_and_bolide_clockwise_and_trims_the_herd_from_the_deck_end() -> None:
    state = build_table(
        phase="end_of_turn",
        hands={CARLO: [("trex", None)] * 2, GIANNA: [("stegosaurus", None)] * 2, MARCO: [("pterodactyl", None)] * 2},
        herd=[("brontosaurus", None)] * 2 + [("triceratops", None)] * 6,
    )
    hands = [p.hand for p in state.players]
    oldest = state.herd[:2]
    state, log = advance(state)
    assert [p.hand for p in state.players] == [hands[MARCO], hands[CARLO], hands[GIANNA]]
    assert state.bolide == GIANNA
    assert events_of(log, "herd_trimmed")[0].cards == oldest
    assert state.count_type(state.herd, "triceratops") == 6
    assert (state.phase, state.turn) == ("selection", 2)


def test_end_of_turn_refills_the_herd_away_from_the_deck() -> None:
    state = build_table(
        phase="end_of_turn",
        hands={CARLO: [("trex", None)] * 2, GIANNA: [("stegosaurus", None)] * 2, MARCO: [("pterodactyl", None)] * 2},
        herd=[("brontosaurus", None)] * 4,
    )
    herd = state.herd
    state, _ = play(state, dealer=SeededDealer(5))
    assert len(state.herd) == 6 and state.herd[:4] == herd


def test_era_one_ends_on_the_last_card_and_era_two_is_dealt() -> None:
    state = build_table(
        phase="end_of_turn",
        turn=3,
        hands={CARLO: [("trex", None)], GIANNA: [("stegosaurus", None)], MARCO: [("pterodactyl", None)]},
        in_front={CARLO: [("brontosaurus", None)]},
        herd=[("triceratops", None)] * 3,
    )
    state, log = play(state, dealer=SeededDealer(2))
    (ended,) = events_of(log, "era_ended")
    assert len(ended.removed) == 35 - 1  # everything from Era I but Carlo's dinosaur in front
    assert (state.era, state.turn, state.phase) == (2, 1, "selection")
    assert all(len(p.hand) == 4 and p.hand[0].startswith("II-") for p in state.players)
    assert len(state.herd) == 6 and len(state.player(CARLO).in_front) == 1


def test_two_types_variant_pairs_two_different_types() -> None:
    state = build_table(
        phase="egg",
        variants=Variants(two_hatchling_types=True),
        played={CARLO: ("trex", "meteor")},
        in_front={CARLO: [("brontosaurus", None)]},
        herd=[("trex", None), ("brontosaurus", None)],
        hands={seat: [("stegosaurus", None)] * 2 for seat in (CARLO, GIANNA, MARCO)},
    )
    state, _ = advance(state)
    (decision,) = pending_of(state)
    assert ("brontosaurus", "trex") in decision.options and all(len(option) == 2 for option in decision.options)
    state, _ = apply_command(state, TakeHatchlings(seat=CARLO, types=("brontosaurus", "trex"), stack_order=("trex",)))
    assert state.player(CARLO).hatchlings == ("brontosaurus", "trex")


@pytest.mark.parametrize(
    ("raptors", "food", "expected_food"),
    [
        ((3, 1, 1), (0, 2, 0), (3, 1, 0)),  # majority +3; minority -1, never below 0
        ((2, 2, 0), (0, 0, 1), (3, 3, 0)),  # shared majority
        ((1, 1, 1), (1, 1, 1), (3, 3, 3)),  # everyone ties: both bonuses apply (+3 - 1)
    ],
)
def test_velociraptor_majority_and_minority(raptors, food, expected_food) -> None:
    state = build_table(
        phase="scoring",
        hatchlings={seat: ["velociraptor"] * count for seat, count in enumerate(raptors)},
        food=dict(enumerate(food)),
    )
    assert tuple(result.food for result in final_result(state).players) == expected_food


@pytest.mark.parametrize(
    ("piles", "food", "winners"),
    [
        # 6 + 4*(2+2) = 22 against 2 + 4*(3+2) = 22: a tie on score, Gianna has more Food
        ((["trex", "trex", "velociraptor"], ["pterodactyl", "velociraptor"], ["velociraptor"]), (2, 3, 0), (GIANNA,)),
        ((["trex", "velociraptor"], ["trex", "velociraptor"], ["velociraptor"]), (1, 1, 0), (CARLO, GIANNA)),
    ],
)
def test_winner_ties_broken_by_food_then_shared(piles, food, winners) -> None:
    state = build_table(phase="scoring", hatchlings=dict(enumerate(piles)), food=dict(enumerate(food)))
    result = final_result(state)
    assert result.winners == winners
    scores = {result.players[seat].score for seat in winners}
    assert len(scores) == 1 and scores.pop() == max(player.score for player in result.players)
