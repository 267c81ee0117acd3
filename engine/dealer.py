"""Dealers: where chance results come from.

- `SeededDealer(seed)`: digital play and simulation. Each draw depends only on the seed and how many
  chance events the game has had, so replays, undo/redo and amendments draw the same again.
- `TableDealer`: the referee reports what was really revealed at the table ("a Triceratops with an
  Egg icon", "Egg, empty, Dinosaur"); it picks matching component ids still in the deck/pool.
  It can also hold a script of reports (for tests, or a web queue) and answer chance nodes from it.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from engine.commands import Command, DealHand, RevealHerdCard, RevealWaveTokens
from engine.errors import IllegalCommand
from engine.pending import Pending
from engine.state import GameState
from engine.types import DinoType, Icon, WaveFace


class Dealer(Protocol):
    def resolve(self, state: GameState, pending: Pending) -> Command:
        """The chance command answering `pending` (an item with actor "dealer")."""
        ...


class SeededDealer:
    """Uniform random draws from the seed; deterministic for a given (seed, chance count)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _rng(self, state: GameState) -> random.Random:
        return random.Random(f"meteors-dealer/{self.seed}/{state.chance_count}")

    def resolve(self, state: GameState, pending: Pending) -> Command:
        rng = self._rng(state)
        options = list(pending.options)
        if pending.kind == "deal_hand":
            assert pending.seat is not None
            return DealHand(seat=pending.seat, cards=tuple(sorted(rng.sample(options, pending.count))))
        if pending.kind == "reveal_herd_card":
            return RevealHerdCard(card=rng.choice(options))
        if pending.kind == "reveal_wave_tokens":
            return RevealWaveTokens(tokens=tuple(rng.sample(options, pending.count)))
        raise ValueError(f"{pending.kind} is not a chance node")


class SeenCard(BaseModel):
    """A Dinosaur card as the referee sees it."""

    model_config = ConfigDict(frozen=True)

    dinosaur: DinoType
    icon: Icon


class SeenHand(BaseModel):
    model_config = ConfigDict(frozen=True)

    seat: int
    cards: tuple[SeenCard, ...]


class SeenWaves(BaseModel):
    model_config = ConfigDict(frozen=True)

    faces: tuple[WaveFace, ...]


Report = SeenCard | SeenHand | SeenWaves


def herd_card_command(state: GameState, seen: SeenCard) -> RevealHerdCard:
    """The deck card matching what the referee saw (IllegalCommand if none is left)."""
    return RevealHerdCard(card=_match_cards(state, [seen])[0])


def hand_command(state: GameState, seen: SeenHand) -> DealHand:
    return DealHand(seat=seen.seat, cards=_match_cards(state, list(seen.cards)))


def wave_command(state: GameState, seen: SeenWaves) -> RevealWaveTokens:
    """Face-down tokens matching the faces the referee turned over."""
    pool = list(state.wave_pool)
    picked: list[str] = []
    for face in seen.faces:
        token = next((token for token in pool if state.rules.data.face(token) == face), None)
        if token is None:
            raise IllegalCommand(f"no face-down Wave token with face {face!r} is left")
        pool.remove(token)
        picked.append(token)
    return RevealWaveTokens(tokens=tuple(picked))


def _match_cards(state: GameState, seen: list[SeenCard]) -> tuple[str, ...]:
    deck = list(state.deck)
    picked: list[str] = []
    for card in seen:
        match = next(
            (
                card_id
                for card_id in deck
                if state.rules.dinosaur(card_id) == card.dinosaur and state.rules.icon(card_id) == card.icon
            ),
            None,
        )
        if match is None:
            raise IllegalCommand(f"no {card.dinosaur} card with the {card.icon} icon is left in the deck")
        deck.remove(match)
        picked.append(match)
    return tuple(picked)


def report_command(state: GameState, report: Report) -> Command:
    if isinstance(report, SeenCard):
        return herd_card_command(state, report)
    if isinstance(report, SeenHand):
        return hand_command(state, report)
    return wave_command(state, report)


class TableDealer:
    """Answers chance nodes from the referee's reports, in the order they were reported."""

    def __init__(self, reports: Iterable[Report] = ()) -> None:
        self.reports: deque[Report] = deque(reports)

    def report(self, *reports: Report) -> None:
        self.reports.extend(reports)

    def resolve(self, state: GameState, pending: Pending) -> Command:
        if not self.reports:
            raise IllegalCommand(f"the referee has not reported the result yet: {pending.prompt}")
        return report_command(state, self.reports.popleft())
