"""Is this input legal now? Every check raises `IllegalCommand` with a reason a person can act on."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from engine.cards import describe_card
from engine.eggs import gains_for
from engine.errors import IllegalCommand
from engine.flow import next_step, seat_label
from engine.pending import DECISION_OF_EVENT, Pending, describe
from engine.state import GameState
from engine.types import DINOSAUR_TYPES


def awaited(state: GameState) -> tuple[Pending, ...]:
    """The decisions the game waits for (the state must be at rest: no automatic step left)."""
    step = next_step(state)
    if not isinstance(step, tuple):
        raise RuntimeError(f"state is not at rest: automatic step {step.kind} pending")
    return step


def check_input(state: GameState, event: Any) -> None:
    """Raise `IllegalCommand` unless `event` answers one of the awaited decisions legally."""
    if state.phase == "game_over":
        raise IllegalCommand("the game is over")
    pending = awaited(state)
    kind = DECISION_OF_EVENT[event.kind]
    matching = [item for item in pending if item.kind == kind]
    if not matching:
        raise IllegalCommand(
            f"{kind} is not expected now (phase {state.phase}); the game is waiting for {describe(pending)}"
        )
    CHECKS[event.kind](state, event, matching)


def _check_seat_exists(state: GameState, seat: int) -> None:
    if not 0 <= seat < state.player_count:
        raise IllegalCommand(f"there is no seat {seat} in a {state.player_count}-player game")


def _pending_for_seat(state: GameState, seat: int, matching: list[Pending]) -> Pending:
    _check_seat_exists(state, seat)
    for item in matching:
        if item.seat == seat:
            return item
    waiting = ", ".join(seat_label(state, item.seat) for item in matching if item.seat is not None)
    raise IllegalCommand(f"{seat_label(state, seat)} cannot do that now: waiting for {waiting}")


def _check_picks(picks: tuple[str, ...], item: Pending, what: str, zone: str) -> None:
    if len(picks) != item.count:
        raise IllegalCommand(f"expected {item.count} {what}, got {len(picks)}")
    if len(set(picks)) != len(picks):
        raise IllegalCommand(f"the same {what[:-1]} is listed twice")
    missing = [pick for pick in picks if pick not in item.options]
    if missing:
        raise IllegalCommand(f"{', '.join(missing)} not in the {zone}")


def check_hand_dealt(state: GameState, event: Any, matching: list[Pending]) -> None:
    item = _pending_for_seat(state, event.seat, matching)
    _check_picks(event.cards, item, "cards", "deck")


def check_herd_card_revealed(state: GameState, event: Any, matching: list[Pending]) -> None:
    if event.card not in matching[0].options:
        raise IllegalCommand(f"card {event.card} is not in the deck")


def check_wave_tokens_revealed(state: GameState, event: Any, matching: list[Pending]) -> None:
    _check_picks(event.tokens, matching[0], "tokens", "face-down Wave tokens")


def check_dinosaur_selected(state: GameState, event: Any, matching: list[Pending]) -> None:
    _check_seat_exists(state, event.seat)
    if state.player(event.seat).selected is not None:
        raise IllegalCommand(f"{seat_label(state, event.seat)} has already selected a dinosaur this turn")
    item = _pending_for_seat(state, event.seat, matching)
    if event.card not in item.options:
        raise IllegalCommand(f"card {event.card} is not in the hand of {seat_label(state, event.seat)}")


def check_dinosaur_discarded(state: GameState, event: Any, matching: list[Pending]) -> None:
    item = _pending_for_seat(state, event.seat, matching)
    if event.reason != item.detail.get("reason"):
        raise IllegalCommand(f"a {item.detail.get('reason')} discard is due, not a {event.reason} discard")
    if event.card not in item.options:
        allowed = ", ".join(describe_card(state, card) for card in item.options)
        raise IllegalCommand(f"card {event.card} cannot be discarded; choose one of: {allowed}")


def check_ocean_level_chosen(state: GameState, event: Any, matching: list[Pending]) -> None:
    item = _pending_for_seat(state, event.seat, matching)
    if event.level not in item.options:
        low, high = item.options[0], item.options[-1]
        raise IllegalCommand(f"ocean level {event.level} is out of range {low}..{high}")


def check_launch_resolved(state: GameState, event: Any, matching: list[Pending]) -> None:
    current = matching[0].detail["launch_index"]
    if event.launch_index != current:
        raise IllegalCommand(f"launch {event.launch_index} is not the launch in progress (launch {current})")
    if event.outcome == "dinosaur" and event.dinosaur is None:
        raise IllegalCommand("outcome 'dinosaur' needs the dinosaur type of the space hit")


def check_hatchlings_chosen(state: GameState, event: Any, matching: list[Pending]) -> None:
    item = _pending_for_seat(state, event.seat, matching)
    if tuple(event.types) not in item.options:
        if item.detail.get("egg_icon"):
            raise IllegalCommand("after an Egg icon no pairing type is chosen (send types=[])")
        expected = "two different types" if len(item.options[0]) == 2 else "one type"
        raise IllegalCommand(f"choose {expected} among {', '.join(DINOSAUR_TYPES)}, got {list(event.types)}")
    gains = Counter(gains_for(state, event.seat, tuple(event.types)))
    for dinosaur, listed in Counter(event.stack_order).items():
        if listed > 1 and listed > gains[dinosaur]:
            raise IllegalCommand(
                f"stack_order lists {dinosaur} {listed} times but the choice gives {gains[dinosaur]} {dinosaur}"
            )


def check_bolide_launch_chosen(state: GameState, event: Any, matching: list[Pending]) -> None:
    _pending_for_seat(state, event.seat, matching)


def check_herd_discards_chosen(state: GameState, event: Any, matching: list[Pending]) -> None:
    item = _pending_for_seat(state, event.seat, matching)
    _check_picks(event.cards, item, "cards", "Herd as copies of the dinosaur hit")


CHECKS: dict[str, Callable[[GameState, Any, list[Pending]], None]] = {
    "hand_dealt": check_hand_dealt,
    "herd_card_revealed": check_herd_card_revealed,
    "wave_tokens_revealed": check_wave_tokens_revealed,
    "dinosaur_selected": check_dinosaur_selected,
    "dinosaur_discarded": check_dinosaur_discarded,
    "ocean_level_chosen": check_ocean_level_chosen,
    "launch_resolved": check_launch_resolved,
    "launch_amended": check_launch_resolved,
    "hatchlings_chosen": check_hatchlings_chosen,
    "bolide_launch_chosen": check_bolide_launch_chosen,
    "herd_discards_chosen": check_herd_discards_chosen,
}
