"""Build a table exactly as a rulebook example describes it, and play commands on it.

Cards are described as (dinosaur, icon) and taken from the deck (Era I first, then the set-aside
Era II deck), Hatchlings from their decks and Food from the supply, so every component is still in
exactly one place.
"""

from __future__ import annotations

from typing import Any

from engine.commands import Command
from engine.config import GameConfig, Variants
from engine.data import GameData, OpenCases
from engine.dealer import Dealer, TableDealer
from engine.flow import next_step
from engine.game import advance, apply_command
from engine.pending import Pending
from engine.phases import initial_state
from engine.state import GameState, remove_cards
from engine.types import DinoType, Icon, Phase

CardSpec = tuple[DinoType | None, Icon | None]
PLAYERS = ("Carlo", "Gianna", "Marco")
CARLO, GIANNA, MARCO = 0, 1, 2


def take_card(state: GameState, dinosaur: DinoType | None, icon: Icon | None = None) -> tuple[GameState, str]:
    """Remove a matching card (None matches anything) from the deck (or the Era II deck)."""
    for zone in ("deck", "era2_deck"):
        cards: tuple[str, ...] = getattr(state, zone)
        for card in cards:
            spec = state.rules.card(card)
            if dinosaur in (None, spec.dinosaur) and (icon is None or spec.icon == icon):
                return state.model_copy(update={zone: remove_cards(cards, [card])}), card
    raise LookupError(f"no {dinosaur}/{icon} card left")


def take_cards(state: GameState, specs: list[CardSpec]) -> tuple[GameState, tuple[str, ...]]:
    ids = []
    for dinosaur, icon in specs:
        state, card = take_card(state, dinosaur, icon)
        ids.append(card)
    return state, tuple(ids)


def build_table(
    players: tuple[str, ...] = PLAYERS,
    *,
    first_player: int = 0,
    phase: Phase = "selection",
    era: int = 1,
    turn: int = 1,
    hands: dict[int, list[CardSpec]] | None = None,
    in_front: dict[int, list[CardSpec]] | None = None,
    played: dict[int, CardSpec] | None = None,
    herd: list[CardSpec] | None = None,
    hatchlings: dict[int, list[DinoType]] | None = None,
    food: dict[int, int] | None = None,
    variants: Variants | None = None,
    hard_mode: bool = False,
    spare_cards: int | None = None,
    house_rules: OpenCases | None = None,
    data: GameData | None = None,
) -> GameState:
    """A state at the start of `phase` with exactly the listed components in play.

    `played` cards are this turn's (already revealed, added to `in_front`). In the selection phase
    each listed hand gets `spare_cards` (default 2) more cards at its end, so the turn's end is not
    the era's end.
    """
    spare = (2 if phase == "selection" else 0) if spare_cards is None else spare_cards
    config = GameConfig(
        players=players,
        first_player=first_player,
        variants=variants or Variants(),
        hard_mode=hard_mode,
        house_rules=house_rules,
    )
    state = initial_state(config, data)
    hands = hands or {}
    for seat in range(len(players)):
        state, front = take_cards(state, list((in_front or {}).get(seat, [])))
        state = state.with_player(seat, in_front=front, hatchlings=tuple((hatchlings or {}).get(seat, [])))
        if played and seat in played:
            state, card = take_card(state, *played[seat])
            state = state.with_player(seat, in_front=(*front, card), played=card)
        state, hand = take_cards(state, list(hands.get(seat, [])))
        if hand:
            spares = state.era2_deck[len(state.era2_deck) - spare :]  # never a card an example asks for
            state = state.model_copy(update={"era2_deck": remove_cards(state.era2_deck, spares)})
            hand = (*hand, *spares)
        state = state.with_player(seat, hand=hand, food=(food or {}).get(seat, 0))
    state, herd_ids = take_cards(state, list(herd or []))
    supply = dict(state.hatchling_supply)
    for pile in (hatchlings or {}).values():
        for dinosaur in pile:
            supply[dinosaur] -= 1
    return state.model_copy(
        update={
            "herd": herd_ids,
            "phase": phase,
            "era": era,
            "turn": turn,
            "bolide": first_player,
            "hatchling_supply": supply,
            "food_supply": state.food_supply - sum((food or {}).values()),
        }
    )


def play(state: GameState, *commands: Command, dealer: Dealer | None = None) -> tuple[GameState, list[Any]]:
    """Advance, then apply each command (answering chance nodes from `dealer` in between)."""
    state, log = advance(state)
    state, chance = answer_chance(state, dealer)
    log += chance
    for command in commands:
        state, events = apply_command(state, command)
        log += events
        state, chance = answer_chance(state, dealer)
        log += chance
    return state, log


def pending_of(state: GameState) -> list[Pending]:
    step = next_step(state)
    return list(step) if isinstance(step, tuple) else []


def answer_chance(state: GameState, dealer: Dealer | None) -> tuple[GameState, list[Any]]:
    log: list[Any] = []
    while dealer is not None:
        pending = pending_of(state)
        if not pending or pending[0].actor != "dealer":
            break
        if isinstance(dealer, TableDealer) and not dealer.reports:
            break  # the referee has reported nothing more
        state, events = apply_command(state, dealer.resolve(state, pending[0]))
        log += events
    return state, log


def events_of(log: list[Any], kind: str) -> list[Any]:
    return [event for event in log if event.kind == kind]
