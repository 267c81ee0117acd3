"""Each worked example of the rulebook, set up exactly as the example tells it."""

from __future__ import annotations

import pytest
from table_builder import CARLO, GIANNA, MARCO, build_table, events_of, pending_of, play

from engine.commands import (
    ChooseBolideLaunch,
    ChooseHerdDiscards,
    ChooseOceanLevel,
    DiscardDinosaur,
    ResolveLaunch,
    SelectDinosaur,
    TakeHatchlings,
)
from engine.dealer import SeenCard, SeenWaves, TableDealer
from engine.errors import IllegalCommand
from engine.events import FoodGain, ReturnedHatchling
from engine.game import advance, apply_command


def select_all(state, picks: dict[int, int] | None = None) -> list[SelectDinosaur]:
    """Everyone selects the first card of their hand (or the given index)."""
    picks = picks or {}
    return [SelectDinosaur(seat=p.seat, card=p.hand[picks.get(p.seat, 0)]) for p in state.players]


def test_carlo_trex_discards_his_earlier_brontosaurus_and_opponents_return_their_top_hatchling() -> None:
    """Carlo plays a T-Rex: he discards the Brontosaurus of the previous turn, the others their top
    Hatchling; Gianna has none and discards nothing."""
    state = build_table(
        turn=2,
        hands={
            CARLO: [("trex", "trex"), ("stegosaurus", "egg")],
            GIANNA: [("triceratops", "egg")],
            MARCO: [("pterodactyl", "egg")],
        },
        in_front={CARLO: [("brontosaurus", "meteor")]},
        hatchlings={MARCO: ["velociraptor", "pterodactyl"]},
    )
    brontosaurus = state.player(CARLO).in_front[0]
    trex = state.player(CARLO).hand[0]

    state, log = play(state, *select_all(state))

    assert [(e.seat, e.card, e.reason) for e in events_of(log, "dinosaur_discarded")] == [(CARLO, brontosaurus, "trex")]
    assert events_of(log, "trex_roared")[0].returned == (ReturnedHatchling(seat=MARCO, dinosaur="pterodactyl"),)
    assert state.player(CARLO).in_front == (trex,)
    assert brontosaurus in state.discard
    assert state.player(GIANNA).hatchlings == ()
    assert state.player(MARCO).hatchlings == ("velociraptor",)
    assert state.hatchling_supply["pterodactyl"] == 18  # returned to its deck
    assert state.phase == "meteor"


def test_trex_player_chooses_which_earlier_dinosaur_to_discard_never_the_trex_just_played() -> None:
    state = build_table(
        turn=3,
        hands={CARLO: [("trex", "trex")], GIANNA: [("triceratops", "egg")], MARCO: [("pterodactyl", "egg")]},
        in_front={CARLO: [("brontosaurus", "meteor"), ("stegosaurus", "egg")]},
    )
    trex = state.player(CARLO).hand[0]
    state, _ = play(state, *select_all(state))
    (decision,) = pending_of(state)
    assert (decision.kind, decision.seat, decision.detail["reason"]) == ("discard_dinosaur", CARLO, "trex")
    assert trex not in decision.options and len(decision.options) == 2
    with pytest.raises(IllegalCommand, match="cannot be discarded"):
        apply_command(state, DiscardDinosaur(seat=CARLO, card=trex))
    state, _ = apply_command(state, DiscardDinosaur(seat=CARLO, card=decision.options[1]))
    assert state.player(CARLO).in_front == (decision.options[0], trex)


def gianna_and_marco_launch_table():
    """Marco holds the Bolide (first player); Gianna plays a Pterodactyl with the Meteor icon;
    three Triceratops are in the Herd."""
    return build_table(
        first_player=MARCO,
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("pterodactyl", "meteor")], MARCO: [("stegosaurus", "egg")]},
        herd=[
            ("triceratops", None),
            ("brontosaurus", "tide"),
            ("triceratops", None),
            ("stegosaurus", "meteor"),
            ("triceratops", None),
            ("trex", "tide"),
        ],
    )


def test_gianna_hits_triceratops_at_ocean_level_2_discards_two_of_three_and_takes_three_food() -> None:
    state = gianna_and_marco_launch_table()
    dealer = TableDealer([SeenCard(dinosaur="pterodactyl", icon="egg"), SeenCard(dinosaur="stegosaurus", icon="tide")])
    state, log = play(
        state,
        *select_all(state),
        ChooseBolideLaunch(seat=MARCO),  # Marco launches first: he holds the Bolide card
        ChooseOceanLevel(level=1),
        ResolveLaunch(outcome="void"),
        ChooseOceanLevel(level=2),  # Gianna's Meteor icon
        ResolveLaunch(outcome="dinosaur", dinosaur="triceratops"),
        dealer=dealer,
    )
    (decision,) = pending_of(state)  # three Triceratops, ocean level 2: Gianna picks which two go
    triceratops = tuple(card for card in state.herd if state.rules.dinosaur(card) == "triceratops")
    assert (decision.kind, decision.seat, decision.count) == ("choose_herd_discards", GIANNA, 2)
    assert decision.options == triceratops and decision.default == triceratops[:2]  # nearest the deck
    state, more = play(state, ChooseHerdDiscards(seat=GIANNA, cards=decision.default))
    log += more
    launches = events_of(log, "launch_started")
    assert [(e.launcher, e.bolide) for e in launches] == [(MARCO, True), (GIANNA, False)]
    (hit,) = events_of(log, "target_hit")
    assert (hit.seat, hit.dinosaur, len(hit.discarded), hit.food) == (GIANNA, "triceratops", 2, 3)
    assert state.player(GIANNA).food == 3
    assert state.count_type(state.herd, "triceratops") == 1
    assert state.count_type(state.discard, "triceratops") == 2
    assert state.food_supply == 32 - 3


def test_marco_void_launch_has_no_effect() -> None:
    state = gianna_and_marco_launch_table()
    dealer = TableDealer([SeenCard(dinosaur="pterodactyl", icon="egg")])
    herd_before = state.herd
    state, log = play(
        state,
        *select_all(state),
        ChooseBolideLaunch(seat=MARCO),
        ChooseOceanLevel(level=3),
        ResolveLaunch(outcome="void"),
        dealer=dealer,
    )
    assert [e.kind for e in log if e.kind in ("target_hit", "water_landed")] == []
    assert all(player.food == 0 for player in state.players)
    assert state.herd[:-1] == herd_before  # only the card revealed for the launch joined the Herd
    assert state.discard == ()
    assert state.launch is not None and state.launch.launcher == GIANNA  # Gianna's launch is next


def test_carlo_water_landing_gives_marco_tide_food_and_reveals_four_wave_tokens() -> None:
    """Ocean level 3 plus Marco's Tide icon: 4 Wave tokens; the 3rd shows a Dinosaur, the 4th an Egg."""
    state = build_table(
        hands={CARLO: [("brontosaurus", "meteor")], GIANNA: [("pterodactyl", "egg")], MARCO: [("trex", "tide")]},
        in_front={CARLO: [("stegosaurus", "egg")]},
        hatchlings={CARLO: ["triceratops", "brontosaurus"]},
    )
    stegosaurus = state.player(CARLO).in_front[0]
    dealer = TableDealer(
        [SeenCard(dinosaur="velociraptor", icon="egg"), SeenWaves(faces=("empty", "empty", "dinosaur", "egg"))]
    )
    state, log = play(
        state,
        *select_all(state),
        ChooseBolideLaunch(seat=CARLO),
        ChooseOceanLevel(level=3),
        ResolveLaunch(outcome="water"),
        dealer=dealer,
    )
    (water,) = events_of(log, "water_landed")
    assert water.tide_food == (FoodGain(seat=MARCO, food=2),)
    assert water.waves_to_reveal == 4
    assert state.player(MARCO).food == 2
    assert state.player(CARLO).hatchlings == ("triceratops",)  # the Egg token: top Hatchling returned
    (decision,) = pending_of(state)  # the Dinosaur token: Carlo chooses one of his dinosaurs
    assert (decision.kind, decision.seat, decision.detail["reason"]) == ("discard_dinosaur", CARLO, "wave")

    state, log = play(state, DiscardDinosaur(seat=CARLO, card=stegosaurus))
    assert stegosaurus in state.discard
    assert len(state.player(CARLO).in_front) == 1
    assert len(state.wave_pool) == 8 and state.wave_revealed == ()  # turned face down and shuffled
    assert events_of(log, "launch_finished")


def test_gianna_egg_icon_gives_one_hatchling_per_dinosaur_in_front() -> None:
    """Gianna plays a Stegosaurus with the Egg icon and gets Brontosaurus, Pterodactyl and
    Stegosaurus Hatchlings, stacked in the order she wants."""
    state = build_table(
        phase="egg",
        played={GIANNA: ("stegosaurus", "egg")},
        in_front={GIANNA: [("brontosaurus", None), ("pterodactyl", None)]},
    )
    state, _ = advance(state)
    (decision,) = pending_of(state)
    assert (decision.kind, decision.seat, decision.options) == ("take_hatchlings", GIANNA, ((),))
    state, log = apply_command(state, TakeHatchlings(seat=GIANNA, stack_order=("stegosaurus",)))
    (hatched,) = events_of(log, "hatchlings_hatched")
    assert [(gain.seat, sorted(gain.hatchlings)) for gain in hatched.gains] == [
        (GIANNA, ["brontosaurus", "pterodactyl", "stegosaurus"])
    ]
    assert state.player(GIANNA).top_hatchling == "stegosaurus"


def test_marco_pairs_three_velociraptors_with_the_two_in_the_herd_for_two_hatchlings() -> None:
    """Marco (no Egg icon) has 3 Velociraptors and 1 Pterodactyl; the Herd has 2 Velociraptors. Gianna
    pairs with the same Herd Velociraptors: a Herd card serves several players."""
    state = build_table(
        phase="egg",
        played={MARCO: ("velociraptor", "meteor"), GIANNA: ("triceratops", "meteor")},
        in_front={
            MARCO: [("velociraptor", None), ("velociraptor", None), ("pterodactyl", None)],
            GIANNA: [("velociraptor", None)],
        },
        herd=[("velociraptor", None), ("brontosaurus", None), ("velociraptor", None)],
        hands={seat: [("trex", None), ("trex", None)] for seat in (CARLO, GIANNA, MARCO)},
    )
    state, _ = advance(state)
    marco = next(item for item in pending_of(state) if item.seat == MARCO)
    assert marco.detail["hatchlings"]["velociraptor"] == 2
    assert marco.detail["hatchlings"]["pterodactyl"] == 0
    state, _ = apply_command(state, TakeHatchlings(seat=MARCO, types=("velociraptor",)))
    state, log = apply_command(state, TakeHatchlings(seat=GIANNA, types=("velociraptor",)))
    assert state.player(MARCO).hatchlings == ("velociraptor", "velociraptor")
    assert state.player(GIANNA).hatchlings == ("velociraptor",)
    assert state.count_type(state.herd, "velociraptor") == 2  # pairing does not use Herd cards up


def test_carlo_end_game_scoring() -> None:
    """Carlo: 2 Brontosaurus, 1 Stegosaurus, 1 Triceratops (+1 Food for the group) and the fewest
    Velociraptors (-1 Food); Gianna also has the fewest but no Food to lose. Carlo's 3 Food = 12 points."""
    state = build_table(
        phase="scoring",
        hatchlings={
            CARLO: ["brontosaurus", "brontosaurus", "stegosaurus", "triceratops", "velociraptor"],
            GIANNA: ["velociraptor"],
            MARCO: ["velociraptor", "velociraptor", "pterodactyl"],
        },
        food={CARLO: 3},
    )
    state, _ = advance(state)
    assert state.phase == "game_over" and state.result is not None
    carlo, gianna, marco = state.result.players
    assert (carlo.herbivore_food, carlo.velociraptor_food, carlo.food) == (1, -1, 3)
    assert carlo.score == 4 * 1 + 12
    assert (gianna.velociraptor_food, gianna.food, gianna.score) == (0, 0, 0)
    assert (marco.velociraptor_food, marco.food, marco.score) == (3, 3, 2 + 12)
    assert state.result.winners == (CARLO,)
    assert state.player(CARLO).food == 3 and state.player(MARCO).food == 3
