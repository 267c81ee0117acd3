"""How a game is set up: the players in clockwise order, mode, variants, and where its data comes from."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.data import OpenCases
from engine.types import MAX_PLAYERS, MIN_PLAYERS


class Variants(BaseModel):
    """The rulebook's optional variants."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    facilitated_launches: bool = False
    two_hatchling_types: bool = False  # "Won't somebody think of the hatchlings?"


class GameConfig(BaseModel):
    """Players are listed in clockwise seat order; seat i is `players[i]`.

    `first_player` is the seat that starts with the Bolide card ("the player who most recently saw
    a dinosaur"). `seed` is only a record for seeded play: the engine itself never draws randomness.
    `house_rules` decides the rulebook's open cases for this game; None keeps the data file's.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    players: tuple[str, ...] = Field(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)
    seed: int | None = None
    hard_mode: bool = False
    variants: Variants = Variants()
    first_player: int = 0
    data_path: str | None = None
    house_rules: OpenCases | None = None

    @model_validator(mode="after")
    def _valid_first_player(self) -> GameConfig:
        if not 0 <= self.first_player < len(self.players):
            raise ValueError(f"first_player must be a seat 0..{len(self.players) - 1}")
        return self
