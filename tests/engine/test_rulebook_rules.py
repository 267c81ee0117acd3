"""The rulebook sentence by sentence: one test (or one table row) per rule the examples leave open."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_builder import CARLO, GIANNA, MARCO, build_table, events_of, pending_of, play

from engine.commands import (
    ChooseBolideLaunch,
    ChooseOceanLevel,
    DiscardDinosaur,
    ResolveLaunch,
    SelectDinosaur,
    TakeHatchlings,
)
from engine.config import Variants
from engine.data import DATA_FILE, load_game_data
from engine.dealer import SeededDealer, SeenCard, SeenWaves, TableDealer
from engine.eggs import pairs_by_type
from engine.flow import water_landing
from engine.game import advance, apply_command
from engine.scoring import final_result, herbivore_groups
from engine.state import LaunchState, Rules

PACKAGED = Path(__file__).resolve().parents[2] / "engine" / "data" / DATA_FILE


def select_first(state) -> list[SelectDinosaur]:
    return [SelectDinosaur(seat=p.seat, card=p.hand[0]) for p in state.players]


# ---- T-Rex phase --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("earlier", "discards"),
    [
        ([], 0),  # "if possible": nothing played before, nothing to discard
        ([("brontosaurus", "meteor")], 1),  # a single candidate is discarded without asking
    ],
)
def test_trex_discards_an_earlier_dinosaur_only_if_possible_and_opponents_still_return_their_top_hatchling(
    earlier, discards
) -> None:
    state = build_table(
        hands={CARLO: [("trex", "trex")], GIANNA: [("triceratops", "egg")], MARCO: [("pterodactyl", "egg")]},
        in_front={CARLO: earlier},
        hatchlings={CARLO: ["trex"], GIANNA: ["brontosaurus", "stegosaurus"], MARCO: ["velociraptor"]},
    )
    trex = state.player(CARLO).hand[0]
    state, log = play(state, *select_first(state))
    assert len(events_of(log, "dinosaur_discarded")) == discards
    assert state.player(CARLO).in_front == (trex,)  # never the T-Rex just played
    assert state.player(CARLO).hatchlings == ("trex",)  # the T-Rex player keeps their own pile
    assert state.player(GIANNA).hatchlings == ("brontosaurus",)
    assert state.player(MARCO).hatchlings == ()
    assert state.phase == "meteor"


def test_several_trex_icons_resolve_clockwise_from_the_first_player_each_hitting_the_other_piles() -> None:
    state = build_table(
        first_player=GIANNA,
        hands={CARLO: [("trex", "trex")], GIANNA: [("brontosaurus", "trex")], MARCO: [("pterodactyl", "egg")]},
        hatchlings={
            CARLO: ["triceratops", "trex"],
            GIANNA: ["stegosaurus", "pterodactyl"],
            MARCO: ["velociraptor"] * 3,
        },
    )
    state, log = play(state, *select_first(state))
    assert [roar.seat for roar in events_of(log, "trex_roared")] == [GIANNA, CARLO]
    assert state.player(CARLO).hatchlings == ("triceratops",)
    assert state.player(GIANNA).hatchlings == ("stegosaurus",)
    assert state.player(MARCO).hatchlings == ("velociraptor",)


def test_icons_of_dinosaurs_played_in_previous_turns_are_never_activated() -> None:
    state = build_table(
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("triceratops", "egg")], MARCO: [("pterodactyl", "egg")]},
        in_front={CARLO: [("trex", "trex"), ("stegosaurus", "meteor")], MARCO: [("velociraptor", "tide")]},
        hatchlings={GIANNA: ["brontosaurus"]},
    )
    state, log = play(state, *select_first(state))
    assert events_of(log, "trex_roared") == []
    assert [slot.bolide for slot in events_of(log, "meteor_phase_started")[0].launches] == [True]
    assert state.tide_icons_played() == 0


# ---- Meteor phase: the revealed card and the launch mode ----------------------------------------


@pytest.mark.parametrize(
    ("era", "hard_mode", "variants", "difficulty", "bounces"),
    [
        (1, False, Variants(), "standard", 1),
        (1, True, Variants(), "standard", 1),  # hard mode only in Era II
        (2, True, Variants(), "hard", 2),  # the hard Velociraptor needs two bounces
        (2, False, Variants(), "standard", 1),
        (2, True, Variants(facilitated_launches=True), "facilitated", 1),
    ],
)
def test_each_launch_reveals_a_card_at_the_far_end_of_the_herd_which_sets_the_launch_mode(
    era, hard_mode, variants, difficulty, bounces
) -> None:
    state = build_table(
        era=era,
        hard_mode=hard_mode,
        variants=variants,
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("pterodactyl", "egg")], MARCO: [("stegosaurus", "egg")]},
        herd=[("triceratops", None), ("trex", None)],
    )
    herd = state.herd
    state, log = play(
        state,
        *select_first(state),
        ChooseBolideLaunch(seat=CARLO),
        dealer=TableDealer([SeenCard(dinosaur="velociraptor", icon="egg")]),
    )
    (revealed,) = events_of(log, "herd_card_revealed")  # revealed even with facilitated launches
    assert state.herd == (*herd, revealed.card)  # the far end: away from the deck
    mode = state.launch.mode
    assert (mode.dinosaur, mode.difficulty, mode.min_bounces) == ("velociraptor", difficulty, bounces)
    (decision,) = pending_of(state)
    assert decision.kind == "choose_ocean_level" and decision.options == (1, 2, 3)


def test_the_launched_card_itself_can_be_hit_and_discarded() -> None:
    state = build_table(
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("pterodactyl", "egg")], MARCO: [("stegosaurus", "egg")]},
        herd=[("velociraptor", None)],
    )
    state, log = play(
        state,
        *select_first(state),
        ChooseBolideLaunch(seat=CARLO),
        ChooseOceanLevel(level=3),
        ResolveLaunch(outcome="dinosaur", dinosaur="velociraptor"),
        dealer=TableDealer([SeenCard(dinosaur="velociraptor", icon="tide")]),
    )
    (hit,) = events_of(log, "target_hit")
    assert (len(hit.discarded), hit.food, state.herd) == (2, 3, ())


# ---- Meteor phase: the water --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("icons", "ocean", "waves", "tide_food"),
    [
        # launcher is seat 0; opponents' Tide icons pay 2 Food, every Tide icon adds a Wave token
        (("egg", "egg", "egg"), 1, 1, []),
        (("egg", "tide", "egg"), 2, 3, [(1, 2)]),
        (("tide", "egg", "egg"), 2, 3, []),  # the launcher's own Tide: a token, no Food
        (("tide", "tide", "tide"), 3, 6, [(1, 2), (2, 2)]),
        (("meteor", "trex", "tide"), 1, 2, [(2, 2)]),
    ],
)
def test_water_pays_opposing_tide_players_and_reveals_ocean_level_plus_every_tide_icon(
    icons, ocean, waves, tide_food
) -> None:
    state = build_table(phase="meteor", played={seat: (None, icon) for seat, icon in enumerate(icons)})
    launch = LaunchState(index=0, launcher=0, bolide=True, stage="effects", ocean_level=ocean, outcome="water")
    landing = water_landing(state.model_copy(update={"launch": launch}))
    assert landing.waves_to_reveal == waves
    assert [(gain.seat, gain.food) for gain in landing.tide_food] == tide_food


def water_table(pile, in_front, ocean: int = 3):
    """Carlo (launcher, played a Meteor) is about to apply a water landing at the given ocean level."""
    state = build_table(
        phase="meteor",
        played={CARLO: ("brontosaurus", "meteor"), GIANNA: ("pterodactyl", "meteor"), MARCO: ("trex", "meteor")},
        in_front={CARLO: in_front},
        hatchlings={CARLO: pile},
        hands={seat: [("stegosaurus", None)] * 2 for seat in (CARLO, GIANNA, MARCO)},
    )
    launch = LaunchState(index=0, launcher=CARLO, bolide=True, stage="effects", ocean_level=ocean, outcome="water")
    return state.model_copy(update={"launch": launch})


@pytest.mark.parametrize(
    ("faces", "pile", "pile_after"),
    [
        (("egg", "empty", "empty"), ["trex", "velociraptor"], ("trex",)),
        (("egg", "egg", "egg"), ["trex", "velociraptor"], ()),  # more Eggs than Hatchlings: the pile empties
        (("egg", "egg", "empty"), [], ()),
        (("empty", "empty", "empty"), ["trex"], ("trex",)),
    ],
)
def test_wave_egg_faces_return_the_launchers_top_hatchlings(faces, pile, pile_after) -> None:
    before = water_table(pile, [])
    state, log = play(before, dealer=TableDealer([SeenWaves(faces=faces)]))
    assert state.player(CARLO).hatchlings == pile_after
    returned = pile[len(pile_after) :]
    assert sum(state.hatchling_supply.values()) == sum(before.hatchling_supply.values()) + len(returned)
    assert all(state.hatchling_supply[kind] > before.hatchling_supply[kind] for kind in returned)  # to their decks
    assert events_of(log, "wave_tokens_reshuffled") and len(state.wave_pool) == 8
    assert state.player(GIANNA).hatchlings == () and state.player(MARCO).hatchlings == ()


def test_wave_dinosaur_faces_each_discard_one_own_dinosaur_of_choice_then_tokens_are_reshuffled() -> None:
    state = water_table([], [("stegosaurus", "egg"), ("triceratops", "tide")])
    played = state.player(CARLO).played
    state, _ = play(state, dealer=TableDealer([SeenWaves(faces=("dinosaur", "dinosaur", "empty"))]))
    (decision,) = pending_of(state)
    assert (decision.kind, decision.seat, len(decision.options)) == ("discard_dinosaur", CARLO, 3)
    assert played in decision.options  # any dinosaur in front, the one just played included
    state, _ = apply_command(state, DiscardDinosaur(seat=CARLO, card=played))
    (decision,) = pending_of(state)
    state, log = apply_command(state, DiscardDinosaur(seat=CARLO, card=decision.options[0]))
    assert len(state.player(CARLO).in_front) == 1 and len(state.discard) == 2
    assert events_of(log, "wave_tokens_reshuffled") and len(state.wave_pool) == 8
    assert state.wave_revealed == ()


def test_wave_dinosaur_faces_beyond_the_dinosaurs_in_front_discard_what_there_is() -> None:
    state = water_table([], [])
    state, log = play(state, dealer=TableDealer([SeenWaves(faces=("dinosaur", "dinosaur", "egg"))]))
    assert [e.forced for e in events_of(log, "dinosaur_discarded")] == [True]  # only the card just played
    assert state.player(CARLO).in_front == ()
    assert events_of(log, "launch_finished")


# ---- Egg phase ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("own", "herd", "pairs"),
    [
        (["velociraptor"] * 3, ["velociraptor"] * 2, 2),  # Marco's example
        (["velociraptor"], ["velociraptor"] * 3, 1),  # one own dinosaur: one pair only
        (["trex"] * 2, ["trex"] * 2, 2),
        (["trex"] * 2, [], 0),
        ([], ["trex"] * 2, 0),
    ],
)
def test_each_pair_is_one_own_dinosaur_with_one_herd_dinosaur_of_the_type(own, herd, pairs) -> None:
    dinosaur = (own or herd)[0]
    state = build_table(
        phase="egg", in_front={CARLO: [(kind, None) for kind in own]}, herd=[(kind, None) for kind in herd]
    )
    assert pairs_by_type(state, CARLO)[dinosaur] == pairs


def test_player_without_any_pair_gets_nothing_and_is_not_asked() -> None:
    state = build_table(
        phase="egg",
        played={CARLO: ("trex", "meteor"), GIANNA: ("brontosaurus", "tide"), MARCO: ("triceratops", "egg")},
        herd=[("brontosaurus", None)],
        hands={seat: [("stegosaurus", None)] * 2 for seat in (CARLO, GIANNA, MARCO)},
    )
    state, log = advance(state)
    (decision,) = pending_of(state)
    assert decision.seat == GIANNA
    state, log = apply_command(state, TakeHatchlings(seat=GIANNA, types=("brontosaurus",)))
    (hatched,) = events_of(log, "hatchlings_hatched")
    assert {gain.seat: gain.hatchlings for gain in hatched.gains} == {
        GIANNA: ("brontosaurus",),
        MARCO: ("triceratops",),
    }


def test_two_types_variant_yields_the_pairs_of_both_types() -> None:
    state = build_table(
        phase="egg",
        variants=Variants(two_hatchling_types=True),
        played={CARLO: ("trex", "meteor")},
        in_front={CARLO: [("trex", None), ("velociraptor", None), ("brontosaurus", None)]},
        herd=[("trex", None), ("trex", None), ("velociraptor", None)],
        hands={seat: [("stegosaurus", None)] * 2 for seat in (CARLO, GIANNA, MARCO)},
    )
    state, _ = advance(state)
    (decision,) = pending_of(state)
    assert decision.detail["hatchlings"]["trex+velociraptor"] == 3
    assert decision.detail["hatchlings"]["brontosaurus+trex"] == 2
    assert all(len(set(option)) == 2 for option in decision.options)  # two different types


# ---- End of turn --------------------------------------------------------------------------------


@pytest.mark.parametrize("herd_size", [3, 5, 6, 7, 10])
def test_end_of_turn_leaves_a_herd_of_six_keeping_the_cards_furthest_from_the_deck(herd_size: int) -> None:
    state = build_table(
        phase="end_of_turn",
        hands={seat: [("trex", None)] * 2 for seat in (CARLO, GIANNA, MARCO)},
        herd=[("brontosaurus", None)] * 3 + [("triceratops", None)] * 4 + [("stegosaurus", None)] * 3,
    )
    state = state.model_copy(update={"herd": state.herd[:herd_size]})
    herd = state.herd
    state, log = play(state, dealer=SeededDealer(9))
    assert len(state.herd) == 6
    if herd_size >= 6:
        assert state.herd == herd[herd_size - 6 :]
        assert [e.card for e in events_of(log, "herd_card_revealed")] == []
    else:
        assert state.herd[:herd_size] == herd
        assert state.herd[herd_size:] == tuple(e.card for e in events_of(log, "herd_card_revealed"))


def test_era_two_ends_on_the_last_card_and_the_game_is_scored() -> None:
    state = build_table(
        phase="end_of_turn",
        era=2,
        turn=3,
        hands={CARLO: [("trex", None)], GIANNA: [("stegosaurus", None)], MARCO: [("pterodactyl", None)]},
        spare_cards=0,
        in_front={CARLO: [("brontosaurus", None)]},
    )
    last_cards = {card for p in state.players for card in p.hand}
    state, log = play(state, dealer=SeededDealer(2))
    assert [e.kind for e in log if e.kind in ("era_ended", "hand_dealt", "turn_started", "game_scored")] == [
        "era_ended",
        "game_scored",
    ]
    assert state.phase == "game_over" and state.result is not None
    assert all(p.hand == () for p in state.players)
    assert last_cards <= set(state.discard)
    assert len(state.player(CARLO).in_front) == 1


# ---- End of game --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pile", "groups"),
    [
        (["brontosaurus", "stegosaurus", "triceratops"], 1),
        (["brontosaurus", "brontosaurus", "brontosaurus"], 1),  # any mix, one type included
        (["brontosaurus", "stegosaurus"], 0),
        (["triceratops"] * 5, 1),  # each Hatchling in only one group
        (["brontosaurus", "stegosaurus", "triceratops"] * 2, 2),
        (["pterodactyl", "trex", "velociraptor", "brontosaurus", "stegosaurus"], 0),  # carnivores do not count
    ],
)
def test_one_food_per_group_of_three_herbivore_hatchlings(pile, groups) -> None:
    assert herbivore_groups(tuple(pile)) == groups
    state = build_table(phase="scoring", hatchlings={CARLO: pile})
    assert final_result(state).players[CARLO].herbivore_food == groups


@pytest.mark.parametrize(
    ("raptors", "food", "expected"),
    [
        ((2, 0, 1), (1, 1, 1), (4, 0, 1)),  # fewest includes zero
        ((0, 0, 1), (2, 0, 5), (1, 0, 8)),  # shared minority; never below zero
        ((0, 0, 0), (0, 2, 0), (2, 4, 2)),  # everyone ties (at zero): both bonuses, read literally
    ],
)
def test_velociraptor_minority_includes_zero_and_never_goes_below_zero(raptors, food, expected) -> None:
    state = build_table(
        phase="scoring",
        hatchlings={seat: ["velociraptor"] * count for seat, count in enumerate(raptors)},
        food=dict(enumerate(food)),
    )
    assert tuple(result.food for result in final_result(state).players) == expected


def test_score_is_hatchling_points_plus_four_per_food_and_velociraptor_hatchlings_score_no_points(
    tmp_path: Path,
) -> None:
    """The note "Velociraptor Hatchlings have already been counted" is a printed rule: a data file
    giving Velociraptor Hatchlings points must not make them count twice."""
    custom = tmp_path / "cards.toml"
    custom.write_text(
        PACKAGED.read_text().replace(
            '{ dinosaur = "velociraptor", count = 16, points = 0 }',
            '{ dinosaur = "velociraptor", count = 16, points = 5 }',
        )
    )
    data = load_game_data(custom)
    assert data.points("velociraptor") == 5
    state = build_table(
        phase="scoring",
        hatchlings={CARLO: ["velociraptor", "velociraptor", "trex"], GIANNA: ["velociraptor", "pterodactyl"]},
        food={CARLO: 1, GIANNA: 2},
    )
    state = state.model_copy(update={"rules": Rules(config=state.rules.config, data=data)})
    carlo, gianna, marco = final_result(state).players
    assert (carlo.hatchling_points, carlo.food, carlo.score) == (3, 4, 3 + 16)
    assert (gianna.hatchling_points, gianna.food, gianna.score) == (2, 2, 2 + 8)
    assert (marco.hatchling_points, marco.food, marco.score) == (0, 0, 0)
