"""Every event of the log, each a frozen pydantic model with a `kind` literal.

Three families:
- input events record something from outside the engine: a player's decision, the judge's launch
  verdict, or a chance result reported by a dealer (`is_input`). Undo, redo and amendments work on
  them.
- automatic events are what the rules derive from the inputs (Food taken, cards discarded, phases).
- `launch_amended` (an input that overrules a launch verdict) and `input_skipped` (an input that an
  amendment made illegal, kept so that amending back can use it again).

The state is the fold of the log (`engine.phases.apply_event`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from engine.config import GameConfig
from engine.data import GameData
from engine.state import FinalResult, LaunchSlot
from engine.types import DinoType, Outcome, Phase


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class LaunchVerdict(_Event):
    """A launch outcome as the judge reports it."""

    outcome: Outcome
    dinosaur: DinoType | None = None


# ---- input events -------------------------------------------------------------------------------


class GameStarted(_Event):
    """The first event: configuration, and the component data when it is not the packaged file."""

    kind: Literal["game_started"] = "game_started"
    config: GameConfig
    data: GameData | None = None


class HandDealt(_Event):
    kind: Literal["hand_dealt"] = "hand_dealt"
    seat: int
    cards: tuple[str, ...]


class HerdCardRevealed(_Event):
    kind: Literal["herd_card_revealed"] = "herd_card_revealed"
    card: str


class WaveTokensRevealed(_Event):
    kind: Literal["wave_tokens_revealed"] = "wave_tokens_revealed"
    tokens: tuple[str, ...]


class DinosaurSelected(_Event):
    kind: Literal["dinosaur_selected"] = "dinosaur_selected"
    seat: int
    card: str


class DinosaurDiscarded(_Event):
    """A player discards one of their dinosaurs (T-Rex icon or a Wave token's Dinosaur face).

    `forced` marks a discard the engine made because only one card qualified (not an input).
    """

    kind: Literal["dinosaur_discarded"] = "dinosaur_discarded"
    seat: int
    card: str
    reason: Literal["trex", "wave"]
    forced: bool = False


class OceanLevelChosen(_Event):
    kind: Literal["ocean_level_chosen"] = "ocean_level_chosen"
    seat: int
    level: int


class LaunchResolved(_Event):
    kind: Literal["launch_resolved"] = "launch_resolved"
    launch_index: int
    outcome: Outcome
    dinosaur: DinoType | None = None


class LaunchAmended(_Event):
    """A launch's verdict overruled: replaces the launch's resolution, keeping what it replaced."""

    kind: Literal["launch_amended"] = "launch_amended"
    launch_index: int
    outcome: Outcome
    dinosaur: DinoType | None = None
    previous: LaunchVerdict
    original: LaunchVerdict


class HatchlingsChosen(_Event):
    kind: Literal["hatchlings_chosen"] = "hatchlings_chosen"
    seat: int
    types: tuple[DinoType, ...] = ()
    stack_order: tuple[DinoType, ...] = ()


class BolideLaunchChosen(_Event):
    """The Bolide holder takes the extra launch (`take`) or declines it (no card is revealed)."""

    kind: Literal["bolide_launch_chosen"] = "bolide_launch_chosen"
    seat: int
    take: bool
    by_default: bool = False  # taken by the engine while replaying inputs recorded without it


class HerdDiscardsChosen(_Event):
    """After a hit, the launcher's pick of which copies of the type hit leave the Herd."""

    kind: Literal["herd_discards_chosen"] = "herd_discards_chosen"
    seat: int
    cards: tuple[str, ...]
    by_default: bool = False  # taken by the engine while replaying inputs recorded without it


InputEvent = Annotated[
    HandDealt
    | HerdCardRevealed
    | WaveTokensRevealed
    | DinosaurSelected
    | DinosaurDiscarded
    | OceanLevelChosen
    | LaunchResolved
    | LaunchAmended
    | HatchlingsChosen
    | BolideLaunchChosen
    | HerdDiscardsChosen,
    Field(discriminator="kind"),
]

CHANCE_KINDS = frozenset({"hand_dealt", "herd_card_revealed", "wave_tokens_revealed"})


class InputSkipped(_Event):
    """An input an amendment could not re-apply (illegal after the new outcome); kept for amending back."""

    kind: Literal["input_skipped"] = "input_skipped"
    event: InputEvent
    reason: str


# ---- automatic events ---------------------------------------------------------------------------


class TurnStarted(_Event):
    kind: Literal["turn_started"] = "turn_started"
    era: int
    turn: int


class DinosaursRevealed(_Event):
    """The simultaneous reveal; `cards[seat]` is the card that seat played."""

    kind: Literal["dinosaurs_revealed"] = "dinosaurs_revealed"
    cards: tuple[str, ...]
    trex_players: tuple[int, ...]


class ReturnedHatchling(_Event):
    seat: int
    dinosaur: DinoType


class TRexRoared(_Event):
    """A T-Rex icon's second effect: every opponent returns the top Hatchling of their pile."""

    kind: Literal["trex_roared"] = "trex_roared"
    seat: int
    returned: tuple[ReturnedHatchling, ...]


class MeteorPhaseStarted(_Event):
    kind: Literal["meteor_phase_started"] = "meteor_phase_started"
    launches: tuple[LaunchSlot, ...]


class LaunchStarted(_Event):
    kind: Literal["launch_started"] = "launch_started"
    launch_index: int
    launcher: int
    bolide: bool


class DeckRebuilt(_Event):
    """The Dinosaur deck ran out: the era's discard pile becomes the new deck (an assumption).

    `removed`: Era I discards that leave the game instead (house rule `era_1_cards_in_era_2`).
    """

    kind: Literal["deck_rebuilt"] = "deck_rebuilt"
    cards: tuple[str, ...]
    removed: tuple[str, ...] = ()


class LaunchCardUnavailable(_Event):
    """No card is left to reveal for a launch: it uses the facilitated mode (an assumption)."""

    kind: Literal["launch_card_unavailable"] = "launch_card_unavailable"
    launch_index: int


class TargetHit(_Event):
    kind: Literal["target_hit"] = "target_hit"
    launch_index: int
    seat: int
    dinosaur: DinoType
    discarded: tuple[str, ...]
    food: int


class FoodGain(_Event):
    seat: int
    food: int


class WaterLanded(_Event):
    kind: Literal["water_landed"] = "water_landed"
    launch_index: int
    tide_food: tuple[FoodGain, ...]
    waves_to_reveal: int


class WaveEffectsApplied(_Event):
    kind: Literal["wave_effects_applied"] = "wave_effects_applied"
    seat: int
    hatchlings_returned: tuple[DinoType, ...]
    dinosaur_discards_due: int


class WaveTokensReshuffled(_Event):
    kind: Literal["wave_tokens_reshuffled"] = "wave_tokens_reshuffled"
    tokens: tuple[str, ...]


class LaunchFinished(_Event):
    kind: Literal["launch_finished"] = "launch_finished"
    launch_index: int


class PhaseStarted(_Event):
    kind: Literal["phase_started"] = "phase_started"
    phase: Phase


class SeatHatchlings(_Event):
    seat: int
    hatchlings: tuple[DinoType, ...]  # bottom to top, as stacked on the pile


class HatchlingsHatched(_Event):
    """The Egg phase's result for every player, resolved clockwise from the first player."""

    kind: Literal["hatchlings_hatched"] = "hatchlings_hatched"
    gains: tuple[SeatHatchlings, ...]


class HandsPassed(_Event):
    """Hands and the Bolide card pass clockwise."""

    kind: Literal["hands_passed"] = "hands_passed"
    bolide: int


class HerdTrimmed(_Event):
    kind: Literal["herd_trimmed"] = "herd_trimmed"
    cards: tuple[str, ...]


class EraEnded(_Event):
    """Last cards in hand (and, after Era I, the Herd, deck and discards) leave the game."""

    kind: Literal["era_ended"] = "era_ended"
    era: int
    discarded: tuple[str, ...]
    removed: tuple[str, ...]


class GameScored(_Event):
    kind: Literal["game_scored"] = "game_scored"
    result: FinalResult


Event = Annotated[
    GameStarted
    | HandDealt
    | HerdCardRevealed
    | WaveTokensRevealed
    | DinosaurSelected
    | DinosaurDiscarded
    | OceanLevelChosen
    | LaunchResolved
    | LaunchAmended
    | HatchlingsChosen
    | BolideLaunchChosen
    | HerdDiscardsChosen
    | InputSkipped
    | TurnStarted
    | DinosaursRevealed
    | TRexRoared
    | MeteorPhaseStarted
    | LaunchStarted
    | DeckRebuilt
    | LaunchCardUnavailable
    | TargetHit
    | WaterLanded
    | WaveEffectsApplied
    | WaveTokensReshuffled
    | LaunchFinished
    | PhaseStarted
    | HatchlingsHatched
    | HandsPassed
    | HerdTrimmed
    | EraEnded
    | GameScored,
    Field(discriminator="kind"),
]

EVENT_LIST = TypeAdapter(list[Event])
INPUT_EVENT = TypeAdapter(InputEvent)

_INPUT_KINDS = frozenset(
    {
        "hand_dealt",
        "herd_card_revealed",
        "wave_tokens_revealed",
        "dinosaur_selected",
        "dinosaur_discarded",
        "ocean_level_chosen",
        "launch_resolved",
        "launch_amended",
        "hatchlings_chosen",
        "bolide_launch_chosen",
        "herd_discards_chosen",
    }
)


def is_input(event: BaseModel) -> bool:
    """True for events recording something from outside the engine (decision, verdict, chance);
    not a discard the engine forced, nor a choice it took at its default."""
    kind = getattr(event, "kind", "")
    if getattr(event, "forced", False) or getattr(event, "by_default", False):
        return False
    return kind in _INPUT_KINDS


def starts_entry(event: BaseModel) -> bool:
    """True for the events that begin an undoable entry: inputs and skipped inputs."""
    return is_input(event) or getattr(event, "kind", "") == "input_skipped"
