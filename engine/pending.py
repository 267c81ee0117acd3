"""What the engine is waiting for: one `Pending` item per decision or chance result it needs now."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

Actor = Literal["player", "dealer", "judge"]
DecisionKind = Literal[
    "deal_hand",
    "reveal_herd_card",
    "reveal_wave_tokens",
    "select_dinosaur",
    "discard_dinosaur",
    "choose_ocean_level",
    "resolve_launch",
    "take_hatchlings",
    "choose_bolide_launch",
    "choose_herd_discards",
]

# Which decision each input event answers.
DECISION_OF_EVENT: dict[str, DecisionKind] = {
    "hand_dealt": "deal_hand",
    "herd_card_revealed": "reveal_herd_card",
    "wave_tokens_revealed": "reveal_wave_tokens",
    "dinosaur_selected": "select_dinosaur",
    "dinosaur_discarded": "discard_dinosaur",
    "ocean_level_chosen": "choose_ocean_level",
    "launch_resolved": "resolve_launch",
    "launch_amended": "resolve_launch",
    "hatchlings_chosen": "take_hatchlings",
    "bolide_launch_chosen": "choose_bolide_launch",
    "herd_discards_chosen": "choose_herd_discards",
}


class Pending(BaseModel):
    """A decision the game needs.

    - `actor`: "player" (a seat decides), "dealer" (a chance result: seeded or reported by the
      referee) or "judge" (the launch verdict).
    - `seat`: the deciding player; for the dealer and judge, the seat concerned (dealt to, launching).
    - `options`: the legal choices (card ids, token ids, levels, outcomes, type tuples).
    - `count`: how many options to pick at once (cards dealt, Wave tokens revealed), else 1.
    - `default`: for a choice the engine used to make by itself, what it made (a dashboard offers it
      first; replaying inputs recorded before the choice existed takes it: `Game.apply(..., defaults=True)`).
    - `detail`: extra facts for a dashboard (reason, launch index and mode, hatchlings per choice).
    """

    model_config = ConfigDict(frozen=True)

    actor: Actor
    kind: DecisionKind
    seat: int | None = None
    options: tuple[Any, ...] = ()
    count: int = 1
    default: Any = None
    prompt: str = ""
    detail: dict[str, Any] = {}


def describe(pending: tuple[Pending, ...] | list[Pending]) -> str:
    """A short sentence of what the game is waiting for."""
    if not pending:
        return "nothing (the game is over)"
    return "; ".join(item.prompt for item in pending)
