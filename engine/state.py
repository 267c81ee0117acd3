"""The game state: frozen pydantic models, each rule returns a new state (see `engine.phases`).

Decks are unordered: they are kept as sorted tuples of card ids and the dealer says which card
comes out (a seeded draw or what the referee saw). The Herd is ordered: index 0 is the card
closest to the deck, new cards are appended at the far end.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.config import GameConfig
from engine.data import CardSpec, GameData, OpenCases
from engine.launch import LaunchMode
from engine.types import DinoType, Icon, Outcome, Phase


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Rules(_Frozen):
    """The fixed context of one game: its configuration and component data."""

    config: GameConfig
    data: GameData

    def card(self, card_id: str) -> CardSpec:
        return self.data.card(card_id)

    def dinosaur(self, card_id: str) -> DinoType:
        return self.data.card(card_id).dinosaur

    def icon(self, card_id: str) -> Icon:
        return self.data.card(card_id).icon

    @property
    def open_cases(self) -> OpenCases:
        """How this game decides the rulebook's open cases: its house rules, else the data file's."""
        return self.config.house_rules or self.data.open_cases

    @property
    def food_limited(self) -> bool:
        return self.open_cases.food_supply == "limited"


class PlayerState(_Frozen):
    """One seat. `hatchlings` runs bottom to top (the last one is the visible top)."""

    seat: int
    name: str
    hand: tuple[str, ...] = ()
    selected: str | None = None  # chosen face down, not yet revealed
    in_front: tuple[str, ...] = ()  # dinosaurs played, in play order
    played: str | None = None  # this turn's card: its icon resolves even if the card is later discarded
    hatchlings: tuple[DinoType, ...] = ()
    food: int = 0

    @property
    def top_hatchling(self) -> DinoType | None:
        return self.hatchlings[-1] if self.hatchlings else None


class LaunchSlot(_Frozen):
    """A launch due in the Meteor phase: the Bolide's extra launch or a Meteor icon's."""

    seat: int
    bolide: bool


LaunchStage = Literal["reveal", "ocean", "throw", "effects", "waves", "wave_effects", "wave_discards", "done"]


class LaunchState(_Frozen):
    """The launch in progress and how far it has got."""

    index: int  # 0-based over the whole game; amendments refer to it
    launcher: int
    bolide: bool
    stage: LaunchStage = "reveal"
    card: str | None = None
    mode: LaunchMode | None = None
    ocean_level: int | None = None
    outcome: Outcome | None = None
    dinosaur: DinoType | None = None
    waves_to_reveal: int = 0
    dinosaur_discards_due: int = 0
    herd_discards: tuple[str, ...] | None = None  # the launcher's pick among more copies than the level


class HatchlingChoice(_Frozen):
    """A player's Egg-phase decision: the pairing type(s) and how to stack the new Hatchlings."""

    seat: int
    types: tuple[DinoType, ...] = ()
    stack_order: tuple[DinoType, ...] = ()  # top first; see engine.eggs.stack


class PlayerResult(_Frozen):
    """One player's final count."""

    seat: int
    herbivore_food: int
    velociraptor_food: int  # +3 majority, -1 minority, both if everyone ties
    food: int
    hatchling_points: int
    hatchlings: int
    score: int


class FinalResult(_Frozen):
    players: tuple[PlayerResult, ...]
    winners: tuple[int, ...]


class GameState(_Frozen):
    """Everything on the table, plus where the turn's procedure has got to."""

    rules: Rules = Field(repr=False)
    phase: Phase = "setup"
    era: int = 1
    turn: int = 0
    players: tuple[PlayerState, ...]
    bolide: int
    deck: tuple[str, ...]
    era2_deck: tuple[str, ...]
    herd: tuple[str, ...] = ()
    discard: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    hatchling_supply: dict[DinoType, int]
    food_supply: int
    wave_pool: tuple[str, ...]
    wave_revealed: tuple[str, ...] = ()
    ocean_level: int
    launch_count: int = 0
    chance_count: int = 0
    trex_queue: tuple[int, ...] = ()
    trex_discarded: bool = False
    launch_queue: tuple[LaunchSlot, ...] = ()
    bolide_launch_taken: bool = False  # this turn's Bolide holder chose to take the extra launch
    launch: LaunchState | None = None
    egg_choices: tuple[HatchlingChoice, ...] = ()
    hands_passed: bool = False
    result: FinalResult | None = None

    @property
    def player_count(self) -> int:
        return len(self.players)

    def clockwise_from(self, seat: int) -> list[int]:
        """All seats clockwise starting with `seat`."""
        count = len(self.players)
        return [(seat + step) % count for step in range(count)]

    def player(self, seat: int) -> PlayerState:
        return self.players[seat]

    def with_player(self, seat: int, **changes: object) -> GameState:
        """A copy with one player's fields changed."""
        players = list(self.players)
        players[seat] = players[seat].model_copy(update=changes)
        return self.model_copy(update={"players": tuple(players)})

    def with_launch(self, **changes: object) -> GameState:
        assert self.launch is not None, "no launch in progress"
        return self.model_copy(update={"launch": self.launch.model_copy(update=changes)})

    def count_type(self, cards: Iterable[str], dinosaur: DinoType) -> int:
        """How many of these cards show `dinosaur`."""
        return sum(1 for card in cards if self.rules.dinosaur(card) == dinosaur)

    def icon_played(self, seat: int) -> Icon | None:
        played = self.players[seat].played
        return None if played is None else self.rules.icon(played)

    def tide_icons_played(self) -> int:
        return sum(1 for player in self.players if self.icon_played(player.seat) == "tide")

    def choice_of(self, seat: int) -> HatchlingChoice | None:
        return next((choice for choice in self.egg_choices if choice.seat == seat), None)


def remove_cards(cards: tuple[str, ...], removed: Iterable[str]) -> tuple[str, ...]:
    """`cards` without the given ones (each id appears at most once in a zone)."""
    gone = set(removed)
    return tuple(card for card in cards if card not in gone)


def sorted_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards))
