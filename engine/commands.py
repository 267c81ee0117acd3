"""What the outside world sends the engine: player decisions, the judge's verdict, dealer reports.

Each command has a `kind` literal (a discriminated union `Command`, parsed from JSON with
`parse_command`) and turns into the input event it asks for with `to_event(state)`; the engine
then checks that event against what is legal now (`engine.legality`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine import events as ev
from engine.state import GameState
from engine.types import DinoType, Outcome


class _Command(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---- player decisions ---------------------------------------------------------------------------


class SelectDinosaur(_Command):
    """Dinosaur selection: put a card of your hand face down (revealed when everyone has chosen)."""

    kind: Literal["select_dinosaur"] = "select_dinosaur"
    seat: int
    card: str

    def to_event(self, state: GameState) -> ev.DinosaurSelected:
        return ev.DinosaurSelected(seat=self.seat, card=self.card)


class DiscardDinosaur(_Command):
    """Discard one of your dinosaurs in front of you (T-Rex icon, or a Wave token's Dinosaur face)."""

    kind: Literal["discard_dinosaur"] = "discard_dinosaur"
    seat: int
    card: str

    def to_event(self, state: GameState) -> ev.DinosaurDiscarded:
        reason: Literal["trex", "wave"] = "trex" if state.phase == "trex" else "wave"
        return ev.DinosaurDiscarded(seat=self.seat, card=self.card, reason=reason)


class ChooseOceanLevel(_Command):
    """The launcher sets the ocean level indicator before launching (`seat` optional, checked if given)."""

    kind: Literal["choose_ocean_level"] = "choose_ocean_level"
    level: int
    seat: int | None = None

    def to_event(self, state: GameState) -> ev.OceanLevelChosen:
        launcher = state.launch.launcher if state.launch is not None else -1
        return ev.OceanLevelChosen(seat=launcher if self.seat is None else self.seat, level=self.level)


class TakeHatchlings(_Command):
    """Egg phase: the type(s) to pair with the Herd (none after an Egg icon) and the stacking order.

    `stack_order` lists the new Hatchlings' types from the top of the pile down, in any order: a
    type listed once stands for all Hatchlings of that type, a type listed several times for one
    each (its last listing takes the rest). Types not listed go beneath (see `engine.eggs.stack`).
    """

    kind: Literal["take_hatchlings"] = "take_hatchlings"
    seat: int
    types: tuple[DinoType, ...] = ()
    stack_order: tuple[DinoType, ...] = ()

    def to_event(self, state: GameState) -> ev.HatchlingsChosen:
        return ev.HatchlingsChosen(seat=self.seat, types=self.types, stack_order=self.stack_order)


class ChooseBolideLaunch(_Command):
    """The Bolide holder takes the extra launch (`take=True`, the default) or declines it."""

    kind: Literal["choose_bolide_launch"] = "choose_bolide_launch"
    seat: int
    take: bool = True

    def to_event(self, state: GameState) -> ev.BolideLaunchChosen:
        return ev.BolideLaunchChosen(seat=self.seat, take=self.take)


class ChooseHerdDiscards(_Command):
    """After a hit with more copies of the type in the Herd than the ocean level: which ones go."""

    kind: Literal["choose_herd_discards"] = "choose_herd_discards"
    seat: int
    cards: tuple[str, ...]

    def to_event(self, state: GameState) -> ev.HerdDiscardsChosen:
        return ev.HerdDiscardsChosen(seat=self.seat, cards=self.cards)


# ---- the judge ----------------------------------------------------------------------------------


class ResolveLaunch(_Command):
    """The launch's outcome, as in the judge's verdict JSON (its other fields are ignored).

    `dinosaur` names the space hit and only counts for outcome "dinosaur". `launch_index`, if
    given, must be the launch in progress (guards against a stale verdict).
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: Literal["resolve_launch"] = "resolve_launch"
    outcome: Outcome
    dinosaur: DinoType | None = None
    launch_index: int | None = None

    def to_event(self, state: GameState) -> ev.LaunchResolved:
        current = state.launch.index if state.launch is not None else -1
        return ev.LaunchResolved(
            launch_index=current if self.launch_index is None else self.launch_index,
            outcome=self.outcome,
            dinosaur=self.dinosaur if self.outcome == "dinosaur" else None,
        )


# ---- the dealer (seeded, or the referee reporting the table) ------------------------------------


class DealHand(_Command):
    kind: Literal["deal_hand"] = "deal_hand"
    seat: int
    cards: tuple[str, ...]

    def to_event(self, state: GameState) -> ev.HandDealt:
        return ev.HandDealt(seat=self.seat, cards=self.cards)


class RevealHerdCard(_Command):
    kind: Literal["reveal_herd_card"] = "reveal_herd_card"
    card: str

    def to_event(self, state: GameState) -> ev.HerdCardRevealed:
        return ev.HerdCardRevealed(card=self.card)


class RevealWaveTokens(_Command):
    kind: Literal["reveal_wave_tokens"] = "reveal_wave_tokens"
    tokens: tuple[str, ...]

    def to_event(self, state: GameState) -> ev.WaveTokensRevealed:
        return ev.WaveTokensRevealed(tokens=self.tokens)


Command = Annotated[
    SelectDinosaur
    | DiscardDinosaur
    | ChooseOceanLevel
    | TakeHatchlings
    | ChooseBolideLaunch
    | ChooseHerdDiscards
    | ResolveLaunch
    | DealHand
    | RevealHerdCard
    | RevealWaveTokens,
    Field(discriminator="kind"),
]

COMMAND = TypeAdapter(Command)


def parse_command(data: dict[str, Any] | str | bytes) -> Command:
    """A command from a dict or JSON text (e.g. a web request body); raises pydantic.ValidationError."""
    if isinstance(data, str | bytes):
        return COMMAND.validate_json(data)
    return COMMAND.validate_python(data)
