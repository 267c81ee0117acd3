"""The game data the rulebook does not print, loaded from `game_data.toml` into frozen models.

The packaged file holds documented assumptions; a user replaces it (same format) with the real
card list, and the engine takes it through `load_game_data(path)` without any code change.
"""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from engine.types import (
    DINOSAUR_TYPES,
    AllTiedRule,
    DinoType,
    EraOneCardsRule,
    FoodSupplyRule,
    HerbivoreGroupRule,
    Icon,
    WaveFace,
)

DATA_FILE = "game_data.toml"
ERA_CARD_COUNTS = {1: 35, 2: 36}  # printed components
HATCHLING_TOTAL = 110  # printed
WAVE_TOKEN_COUNT = 8  # printed
ERA_PREFIX = {1: "I", 2: "II"}


class GameDataError(ValueError):
    """The data file is missing, unreadable or inconsistent with the printed components."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CardSpec(_Frozen):
    """One Dinosaur card: its id (unique), era, dinosaur type and icon."""

    id: str
    era: Literal[1, 2]
    dinosaur: DinoType
    icon: Icon


class HatchlingDeckSpec(_Frozen):
    """One of the six face-up Hatchling decks: its type, how many cards, points per card."""

    dinosaur: DinoType
    count: int
    points: int


class WaveTokenSpec(_Frozen):
    """One Wave token: an id ("W1".."W8") and its face."""

    id: str
    face: WaveFace


class OceanRange(_Frozen):
    """The ocean level indicator's range and starting value."""

    min: int = 1
    max: int = 3
    start: int = 1

    @model_validator(mode="after")
    def _ordered(self) -> OceanRange:
        if not self.min <= self.start <= self.max:
            raise ValueError(f"ocean level range must satisfy min <= start <= max, got {self}")
        return self


class SupplyRules(_Frozen):
    """How big the Food supply is and what happens when a supply runs out."""

    food_tokens: int = 32
    food_exhausted: Literal["take_what_remains"] = "take_what_remains"  # kept for older files; see OpenCases
    hatchling_exhausted: Literal["take_what_remains"] = "take_what_remains"
    dinosaur_deck_exhausted: Literal["reshuffle_discards", "no_card"] = "reshuffle_discards"


class OpenCases(_Frozen):
    """The cases the rulebook leaves open, each decided one way by default (the engine's reading)
    with the other way available as a house rule (`GameConfig.house_rules`)."""

    food_supply: FoodSupplyRule = Field(
        default="limited",
        description="Food running out: a gain takes only the Food left (limited), or the supply never runs out.",
    )
    velociraptors_all_tied: AllTiedRule = Field(
        default="majority_and_minority",
        description="Every player with as many Velociraptor Hatchlings: all get +3 then -1, or neither.",
    )
    herbivore_group: HerbivoreGroupRule = Field(
        default="any_three",
        description="A group of 3 herbivore Hatchlings: any three, or one Brontosaurus, Stegosaurus and Triceratops.",
    )
    era_1_cards_in_era_2: EraOneCardsRule = Field(
        default="rebuild_the_deck",
        description="Era I dinosaurs discarded in Era II: back in the deck when it is rebuilt, or out of the game.",
    )


class GameData(_Frozen):
    """Everything the engine needs to know about the physical components."""

    cards: tuple[CardSpec, ...]
    hatchlings: tuple[HatchlingDeckSpec, ...]
    wave_tokens: tuple[WaveTokenSpec, ...]
    ocean_level: OceanRange = OceanRange()
    supply: SupplyRules = SupplyRules()
    open_cases: OpenCases = OpenCases()
    assumptions: dict[str, str] = {}

    _cards_by_id: dict[str, CardSpec] = PrivateAttr(default_factory=dict)
    _points: dict[str, int] = PrivateAttr(default_factory=dict)
    _faces: dict[str, WaveFace] = PrivateAttr(default_factory=dict)

    def model_post_init(self, context: Any, /) -> None:
        self._cards_by_id = {card.id: card for card in self.cards}
        self._points = {deck.dinosaur: deck.points for deck in self.hatchlings}
        self._faces = {token.id: token.face for token in self.wave_tokens}

    @model_validator(mode="after")
    def _consistent(self) -> GameData:
        ids = [card.id for card in self.cards]
        if len(set(ids)) != len(ids):
            raise ValueError("card ids must be unique")
        for era, expected in ERA_CARD_COUNTS.items():
            found = sum(1 for card in self.cards if card.era == era)
            if found != expected:
                raise ValueError(f"Era {era} must have {expected} cards (printed), found {found}")
        decks = sorted(deck.dinosaur for deck in self.hatchlings)
        if decks != sorted(DINOSAUR_TYPES):
            raise ValueError("there must be exactly one Hatchling deck per dinosaur type")
        total = sum(deck.count for deck in self.hatchlings)
        if total != HATCHLING_TOTAL:
            raise ValueError(f"Hatchling decks must hold {HATCHLING_TOTAL} cards (printed), found {total}")
        if len(self.wave_tokens) != WAVE_TOKEN_COUNT:
            raise ValueError(f"there must be {WAVE_TOKEN_COUNT} Wave tokens (printed)")
        return self

    def card(self, card_id: str) -> CardSpec:
        """The card with this id (KeyError if unknown)."""
        return self.__pydantic_private__["_cards_by_id"][card_id]  # direct: the hot path of every rule

    def has_card(self, card_id: str) -> bool:
        return card_id in self.__pydantic_private__["_cards_by_id"]

    def era_cards(self, era: int) -> tuple[str, ...]:
        """Ids of one era's cards, sorted (decks are unordered sets; the dealer picks from them)."""
        return tuple(sorted(card.id for card in self.cards if card.era == era))

    def points(self, dinosaur: DinoType) -> int:
        """Points of one Hatchling of this type."""
        return self.__pydantic_private__["_points"][dinosaur]

    def hatchling_counts(self) -> dict[DinoType, int]:
        return {deck.dinosaur: deck.count for deck in self.hatchlings}

    def face(self, token_id: str) -> WaveFace:
        return self.__pydantic_private__["_faces"][token_id]

    def wave_token_ids(self) -> tuple[str, ...]:
        return tuple(sorted(token.id for token in self.wave_tokens))


def parse_game_data(raw: dict[str, Any]) -> GameData:
    """Build `GameData` from the TOML document's structure (see the packaged file)."""
    try:
        cards = [
            CardSpec(id=entry.get("id", f"{ERA_PREFIX[era]}-{number:02d}"), era=era, **_card_fields(entry))
            for era in (1, 2)
            for number, entry in enumerate(raw[f"era_{era}"]["cards"], start=1)
        ]
        tokens = [
            WaveTokenSpec(id=f"W{number}", face=face)
            for number, face in enumerate(raw["wave_tokens"]["faces"], start=1)
        ]
        assumptions = {
            section: value["assumption"]
            for section, value in raw.items()
            if isinstance(value, dict) and "assumption" in value
        }
        return GameData(
            cards=tuple(cards),
            hatchlings=tuple(HatchlingDeckSpec(**deck) for deck in raw["hatchlings"]["decks"]),
            wave_tokens=tuple(tokens),
            ocean_level=OceanRange(**_without_assumption(raw.get("ocean_level", {}))),
            supply=SupplyRules(**_without_assumption(raw.get("supply", {}))),
            open_cases=OpenCases(**_without_assumption(raw.get("open_cases", {}))),
            assumptions=assumptions,
        )
    except (KeyError, TypeError, ValidationError) as error:
        raise GameDataError(f"invalid game data: {error}") from error


def _card_fields(entry: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry.items() if key != "id"}


def _without_assumption(section: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in section.items() if key != "assumption"}


@lru_cache(maxsize=8)
def _load_cached(path: str | None) -> GameData:
    if path is None:
        text = resources.files(__package__).joinpath(DATA_FILE).read_bytes()
    else:
        try:
            text = Path(path).read_bytes()
        except OSError as error:
            raise GameDataError(f"cannot read game data {path}: {error}") from error
    try:
        raw = tomllib.loads(text.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise GameDataError(f"game data {path or DATA_FILE} is not valid TOML: {error}") from error
    return parse_game_data(raw)


def load_game_data(path: str | Path | None = None) -> GameData:
    """The packaged data (no path) or a user's replacement file; cached per path."""
    return _load_cached(None if path is None else str(path))


def default_game_data() -> GameData:
    return load_game_data(None)
