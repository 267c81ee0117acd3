"""The Egg phase: which Hatchlings each player gets, and how the owner stacks them on the pile."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from engine.cards import type_counts
from engine.events import HatchlingsHatched, SeatHatchlings
from engine.state import GameState, HatchlingChoice
from engine.supply import take_hatchlings
from engine.types import DINOSAUR_TYPES, DinoType


def played_egg_icon(state: GameState, seat: int) -> bool:
    return state.icon_played(seat) == "egg"


def egg_icon_gains(state: GameState, seat: int) -> list[DinoType]:
    """Egg icon: one Hatchling of each own dinosaur's type ("all found a partner")."""
    return [state.rules.dinosaur(card) for card in state.player(seat).in_front]


def pairs_by_type(state: GameState, seat: int) -> dict[DinoType, int]:
    """Pairs (own dinosaur, Herd dinosaur) the player can form of each type.

    Herd cards are shared: another player's pairs do not use them up.
    """
    own = type_counts(state, state.player(seat).in_front)
    herd = type_counts(state, state.herd)
    return {dinosaur: min(own[dinosaur], herd[dinosaur]) for dinosaur in DINOSAUR_TYPES}


def pair_gains(state: GameState, seat: int, types: tuple[DinoType, ...]) -> list[DinoType]:
    """One Hatchling of the type per pair, for each chosen type."""
    pairs = pairs_by_type(state, seat)
    return [dinosaur for dinosaur in types for _ in range(pairs[dinosaur])]


def type_options(state: GameState) -> list[tuple[DinoType, ...]]:
    """The pairing choices: one type, or two different types with the Hatchlings variant."""
    if state.rules.config.variants.two_hatchling_types:
        return list(combinations(DINOSAUR_TYPES, 2))
    return [(dinosaur,) for dinosaur in DINOSAUR_TYPES]


def choice_options(state: GameState, seat: int) -> list[tuple[DinoType, ...]]:
    """Egg-icon players choose no type (only the stacking); the others choose pairing types."""
    return [()] if played_egg_icon(state, seat) else type_options(state)


def gains_for(state: GameState, seat: int, types: tuple[DinoType, ...]) -> list[DinoType]:
    if played_egg_icon(state, seat):
        return egg_icon_gains(state, seat)
    return pair_gains(state, seat, types)


def needs_choice(state: GameState, seat: int) -> bool:
    """Whether the player has anything to decide: an order to pick, or a type that yields something."""
    if played_egg_icon(state, seat):
        return len(set(egg_icon_gains(state, seat))) > 1
    return any(pairs_by_type(state, seat).values())


def default_choice(state: GameState, seat: int) -> HatchlingChoice:
    """The choice used when the player had nothing to decide."""
    return HatchlingChoice(seat=seat, types=choice_options(state, seat)[0])


def stack(gains: list[DinoType], stack_order: tuple[DinoType, ...]) -> tuple[DinoType, ...]:
    """New Hatchlings bottom to top, in "any order the player prefers" (the rulebook).

    `stack_order` runs from the top down. Each listing of a type places one Hatchling of it, and the
    type's last listing places all that are left, so a list naming each type once stacks the types
    together, and a list naming every Hatchling gives any order at all. Listings beyond the
    Hatchlings there are place nothing; types not listed go beneath, in `DINOSAUR_TYPES` order.
    """
    left = Counter(gains)
    last_listing = {dinosaur: position for position, dinosaur in enumerate(stack_order)}
    top_down: list[DinoType] = []
    for position, dinosaur in enumerate(stack_order):
        placed = left[dinosaur] if last_listing[dinosaur] == position else min(1, left[dinosaur])
        top_down.extend([dinosaur] * placed)
        left[dinosaur] -= placed
    for dinosaur in DINOSAUR_TYPES:
        top_down.extend([dinosaur] * left[dinosaur])
    return tuple(reversed(top_down))


def hatch(state: GameState) -> HatchlingsHatched:
    """Everyone's Hatchlings, resolved clockwise from the first player while the decks last."""
    supply = dict(state.hatchling_supply)
    results: list[SeatHatchlings] = []
    for seat in state.clockwise_from(state.bolide):
        choice = state.choice_of(seat) or default_choice(state, seat)
        taken, supply = take_hatchlings(supply, gains_for(state, seat, choice.types))
        if taken:
            results.append(SeatHatchlings(seat=seat, hatchlings=stack(taken, choice.stack_order)))
    return HatchlingsHatched(gains=tuple(results))
