"""The choices the rulebook leaves to the players: the Hatchling pile in any order, the Bolide's extra
launch taken or declined, and which Herd cards a hit discards."""

from __future__ import annotations

import pytest

from engine import events as ev
from engine.commands import (
    ChooseBolideLaunch,
    ChooseHerdDiscards,
    ChooseOceanLevel,
    ResolveLaunch,
    SelectDinosaur,
    TakeHatchlings,
)
from engine.dealer import SeenCard, TableDealer
from engine.errors import IllegalCommand
from engine.game import apply_command
from engine.phases import apply_event
from engine.types import DinoType
from tests.engine.table_builder import CARLO, GIANNA, MARCO, build_table, events_of, pending_of, play

# ---- the Hatchling pile -------------------------------------------------------------------------


def egg_table():
    """Carlo plays a Stegosaurus with the Egg icon in front of two Brontosaurus: three Hatchlings."""
    return build_table(
        phase="egg",
        played={CARLO: ("stegosaurus", "egg")},
        in_front={CARLO: [("brontosaurus", None), ("brontosaurus", None)]},
        hatchlings={GIANNA: ["pterodactyl"]},
    )


@pytest.mark.parametrize(
    ("stack_order", "pile_top_down"),
    [
        (("brontosaurus", "stegosaurus", "brontosaurus"), ("brontosaurus", "stegosaurus", "brontosaurus")),
        (("stegosaurus",), ("stegosaurus", "brontosaurus", "brontosaurus")),  # a type once: kept together
        (("brontosaurus",), ("brontosaurus", "brontosaurus", "stegosaurus")),
        ((), ("brontosaurus", "brontosaurus", "stegosaurus")),  # unlisted types beneath, standard order
        (("trex", "stegosaurus"), ("stegosaurus", "brontosaurus", "brontosaurus")),  # nothing to place: ignored
    ],
)
def test_hatchlings_are_stacked_in_any_order_the_player_prefers(
    stack_order: tuple[DinoType, ...], pile_top_down: tuple[DinoType, ...]
) -> None:
    state, _ = play(egg_table(), TakeHatchlings(seat=CARLO, stack_order=stack_order))
    assert state.player(CARLO).hatchlings[::-1] == pile_top_down


def test_after_a_trex_takes_the_top_hatchling_the_next_one_in_the_chosen_order_shows() -> None:
    """The order matters: a brontosaurus, stegosaurus, brontosaurus pile shows a stegosaurus once a
    T-Rex has the top card returned (grouped by type it would show a brontosaurus)."""
    order = ("brontosaurus", "stegosaurus", "brontosaurus")
    state, _ = play(egg_table(), TakeHatchlings(seat=CARLO, stack_order=order))
    roar = ev.TRexRoared(seat=GIANNA, returned=(ev.ReturnedHatchling(seat=CARLO, dinosaur="brontosaurus"),))
    assert apply_event(state, roar).player(CARLO).top_hatchling == "stegosaurus"


def test_the_egg_decision_lists_each_options_hatchlings_for_ordering() -> None:
    (decision,) = pending_of(egg_table())
    assert decision.kind == "take_hatchlings"
    assert sorted(decision.detail["gains"]["egg_icon"]) == ["brontosaurus", "brontosaurus", "stegosaurus"]


def test_a_pile_order_listing_a_type_more_often_than_it_comes_is_refused() -> None:
    state, _ = play(egg_table())
    with pytest.raises(IllegalCommand, match="lists stegosaurus 2 times but the choice gives 1"):
        apply_command(state, TakeHatchlings(seat=CARLO, stack_order=("stegosaurus", "brontosaurus", "stegosaurus")))


# ---- the Bolide's extra launch ------------------------------------------------------------------


def bolide_table():
    """Carlo holds the Bolide; Gianna plays a Meteor icon."""
    return build_table(
        hands={CARLO: [("brontosaurus", "egg")], GIANNA: [("pterodactyl", "meteor")], MARCO: [("stegosaurus", "egg")]},
        herd=[("triceratops", None), ("brontosaurus", None), ("brontosaurus", None)]
        + [("stegosaurus", None), ("stegosaurus", None), ("triceratops", None)],
    )


def select_all(state):
    return [SelectDinosaur(seat=player.seat, card=player.hand[0]) for player in state.players]


def test_the_bolide_holder_is_asked_first_with_taking_the_launch_as_the_default() -> None:
    state, _ = play(bolide_table(), *select_all(bolide_table()))
    (decision,) = pending_of(state)
    assert (decision.kind, decision.seat, decision.options, decision.default) == (
        "choose_bolide_launch",
        CARLO,
        (True, False),
        True,
    )


def test_a_declined_bolide_launch_reveals_no_card_and_the_meteor_icons_launch_next() -> None:
    table = bolide_table()
    herd = table.herd
    state, log = play(
        table,
        *select_all(table),
        ChooseBolideLaunch(seat=CARLO, take=False),
        dealer=TableDealer([SeenCard(dinosaur="velociraptor", icon="egg")]),
    )
    (started,) = events_of(log, "launch_started")
    assert (started.launcher, started.bolide, started.launch_index) == (GIANNA, False, 0)
    assert len(events_of(log, "herd_card_revealed")) == 1 and state.herd[:-1] == herd  # Gianna's card only
    assert pending_of(state)[0].kind == "choose_ocean_level" and pending_of(state)[0].seat == GIANNA


def test_only_the_bolide_holder_decides_the_bolide_launch() -> None:
    state, _ = play(bolide_table(), *select_all(bolide_table()))
    with pytest.raises(IllegalCommand, match="cannot do that now"):
        apply_command(state, ChooseBolideLaunch(seat=GIANNA, take=False))


# ---- which Herd cards a hit discards ------------------------------------------------------------


def bolide_hits_triceratops(ocean_level: int):
    """Carlo's Bolide launch hits the Triceratops, two of which are in the Herd (nearest and furthest
    from the deck); a Velociraptor is revealed for the launch."""
    table = bolide_table()
    return play(
        table,
        *select_all(table),
        ChooseBolideLaunch(seat=CARLO),
        ChooseOceanLevel(level=ocean_level),
        ResolveLaunch(outcome="dinosaur", dinosaur="triceratops"),
        dealer=TableDealer([SeenCard(dinosaur="velociraptor", icon="egg")]),
    )


def hit_triceratops(discards: str):
    """The hit at ocean level 1, discarding the copy `discards`; Gianna's launch is void; then the
    turn ends and the Herd is trimmed."""
    state, _ = bolide_hits_triceratops(ocean_level=1)
    (decision,) = pending_of(state)
    nearest, furthest = decision.options
    assert (decision.kind, decision.seat, decision.count, decision.default) == (
        "choose_herd_discards",
        CARLO,
        1,
        (nearest,),
    )
    chosen = nearest if discards == "nearest" else furthest
    state, log = play(
        state,
        ChooseHerdDiscards(seat=CARLO, cards=(chosen,)),
        ChooseOceanLevel(level=1),
        ResolveLaunch(outcome="void"),
        dealer=TableDealer([SeenCard(dinosaur="velociraptor", icon="tide")]),
    )
    (hit,) = events_of(log, "target_hit")
    assert hit.discarded == (chosen,) and hit.food == 2
    return state


@pytest.mark.parametrize(("discards", "triceratops_left"), [("nearest", 1), ("furthest", 0)])
def test_the_launcher_chooses_which_copies_a_hit_discards_which_changes_the_next_herd(
    discards: str, triceratops_left: int
) -> None:
    state = hit_triceratops(discards)
    assert state.phase == "selection" and state.turn == 2  # the Herd of 7 was trimmed from the deck end
    assert state.count_type(state.herd, "triceratops") == triceratops_left


def test_herd_discards_must_be_copies_of_the_type_hit_and_as_many_as_the_level() -> None:
    state, _ = bolide_hits_triceratops(ocean_level=1)
    brontosaurus = state.herd[1]
    with pytest.raises(IllegalCommand, match="not in the Herd as copies of the dinosaur hit"):
        apply_command(state, ChooseHerdDiscards(seat=CARLO, cards=(brontosaurus,)))
    with pytest.raises(IllegalCommand, match="expected 1 cards, got 2"):
        apply_command(state, ChooseHerdDiscards(seat=CARLO, cards=pending_of(state)[0].options))


def test_no_herd_choice_when_the_level_takes_every_copy() -> None:
    state, log = bolide_hits_triceratops(ocean_level=2)
    (hit,) = events_of(log, "target_hit")
    assert len(hit.discarded) == 2 and state.count_type(state.herd, "triceratops") == 0
