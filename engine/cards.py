"""Card queries the rules share: which dinosaurs a player may discard, herd contents by type."""

from __future__ import annotations

from engine.state import GameState
from engine.types import DINOSAUR_TYPES, DinoType


def trex_discard_candidates(state: GameState, seat: int) -> tuple[str, ...]:
    """Dinosaurs played in a previous turn (never the T-Rex card just played)."""
    player = state.player(seat)
    return tuple(card for card in player.in_front if card != player.played)


def wave_discard_candidates(state: GameState, seat: int) -> tuple[str, ...]:
    """Any of the player's own dinosaurs in front of them."""
    return state.player(seat).in_front


def herd_cards_of(state: GameState, dinosaur: DinoType) -> tuple[str, ...]:
    """Herd cards of one type, nearest the deck first."""
    return tuple(card for card in state.herd if state.rules.dinosaur(card) == dinosaur)


def type_counts(state: GameState, cards: tuple[str, ...]) -> dict[DinoType, int]:
    """How many cards of each dinosaur type (every type present as a key)."""
    counts = dict.fromkeys(DINOSAUR_TYPES, 0)
    for card in cards:
        counts[state.rules.dinosaur(card)] += 1
    return counts


def describe_card(state: GameState, card: str) -> str:
    """'I-07 triceratops (egg)' for logs and messages."""
    spec = state.rules.card(card)
    return f"{card} {spec.dinosaur} ({spec.icon})"
