"""The `Game` facade: an event log, the state it folds to, and the operations a referee needs.

Typical use (see the package docstring): `Game.new(config, dealer=SeededDealer(seed))`, then
`pending()` / `apply(command)` until `is_over`. Every change appends events; `undo`, `redo` and
`amend_launch` rewrite the log's tail and replay.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from engine import events as ev
from engine.commands import Command, parse_command
from engine.config import GameConfig
from engine.data import GameData, load_game_data
from engine.dealer import Dealer
from engine.errors import CorruptLog, IllegalCommand
from engine.flow import default_input, is_waiting, next_step
from engine.launch import LaunchMode, launch_mode
from engine.legality import check_input
from engine.pending import DECISION_OF_EVENT, Pending
from engine.phases import apply_event
from engine.state import FinalResult, GameState
from engine.types import DinoType, Outcome
from engine.view import GameView, build_view

LOG_FORMAT = "meteors-judge/game-log/1"
MAX_AUTOMATIC_STEPS = 10_000  # a guard against a rules bug looping forever
CHANCE_DECISIONS = frozenset({"deal_hand", "reveal_herd_card", "reveal_wave_tokens"})


def replay(events: Iterable[Any]) -> GameState:
    """The state a log folds to (the log's first event must be `game_started`)."""
    state: GameState | None = None
    for event in events:
        state = apply_event(state, event)
    if state is None:
        raise CorruptLog("an empty log has no state")
    return state


def advance(state: GameState) -> tuple[GameState, list[Any]]:
    """Apply automatic events until the game waits for an input; returns the state and those events."""
    produced: list[Any] = []
    for _ in range(MAX_AUTOMATIC_STEPS):
        step = next_step(state)
        if is_waiting(step):
            return state, produced
        state = apply_event(state, step)
        produced.append(step)
    raise RuntimeError("the rules produced too many automatic steps in a row")


def apply_input(state: GameState, event: Any) -> tuple[GameState, list[Any]]:
    """Pure form of a move: check `event` (IllegalCommand if not legal), fold it, then advance."""
    check_input(state, event)
    state, produced = advance(apply_event(state, event))
    return state, [event, *produced]


def apply_command(state: GameState, command: Command) -> tuple[GameState, list[Any]]:
    """Pure form of `Game.apply` for a state built by hand (tests, what-if analysis)."""
    return apply_input(state, command.to_event(state))


def unwrap_input(event: Any) -> Any:
    """The input an `input_skipped` event holds, or the event itself."""
    return event.event if event.kind == "input_skipped" else event


class LaunchRecord(BaseModel):
    """One launch of the game as the log tells it (for a dashboard's launch list and amendments)."""

    model_config = ConfigDict(frozen=True)

    index: int
    era: int
    turn: int
    launcher: int
    bolide: bool
    card: str | None = None
    mode: LaunchMode | None = None
    ocean_level: int | None = None
    outcome: Outcome | None = None
    dinosaur: DinoType | None = None
    original_outcome: Outcome | None = None
    original_dinosaur: DinoType | None = None
    amended: bool = False


class Game:
    """One game: its log and current state. Not thread-safe; one referee drives it."""

    def __init__(self, events: Sequence[Any], dealer: Dealer | None = None) -> None:
        self._events: list[Any] = list(events)
        self._state = replay(self._events)
        self.dealer = dealer

    # ---- creation and persistence ---------------------------------------------------------------

    @classmethod
    def new(cls, config: GameConfig, *, data: GameData | None = None, dealer: Dealer | None = None) -> Game:
        """A game at setup. Custom data (an object, or `config.data_path`) is stored in the log.

        With a `dealer` the game resolves chance nodes by itself after every change; without one
        the caller sends the dealer's commands (`apply_chance(dealer)` or `RevealHerdCard`...).
        """
        if data is None and config.data_path is not None:
            data = load_game_data(config.data_path)
        game = cls([ev.GameStarted(config=config, data=data)], dealer=dealer)
        game._advance()
        game._auto_chance()
        return game

    def to_json(self) -> str:
        """The whole log as JSON; `Game.from_json` rebuilds the same game."""
        return json.dumps({"format": LOG_FORMAT, "events": [event.model_dump(mode="json") for event in self._events]})

    @classmethod
    def from_json(cls, text: str | bytes, dealer: Dealer | None = None) -> Game:
        document = json.loads(text)
        if document.get("format") != LOG_FORMAT:
            raise CorruptLog(f"not a {LOG_FORMAT} document")
        return cls(ev.EVENT_LIST.validate_python(document["events"]), dealer=dealer)

    # ---- reading --------------------------------------------------------------------------------

    @property
    def state(self) -> GameState:
        return self._state

    @property
    def events(self) -> tuple[Any, ...]:
        return tuple(self._events)

    @property
    def is_over(self) -> bool:
        return self._state.phase == "game_over"

    @property
    def result(self) -> FinalResult | None:
        return self._state.result

    def pending(self) -> list[Pending]:
        """What the game waits for now (empty when it is over)."""
        step = next_step(self._state)
        return list(step) if is_waiting(step) else []

    def view(self) -> GameView:
        """A JSON-ready summary for a dashboard."""
        return build_view(self._state, self.pending())

    def launches(self) -> list[LaunchRecord]:
        """Every launch so far, with its verdict and, if amended, the original one."""
        records: dict[int, LaunchRecord] = {}
        era, turn, current = 1, 0, None
        for event in self._events:
            if event.kind == "turn_started":
                era, turn = event.era, event.turn
            elif event.kind == "launch_started":
                current = event.launch_index
                records[current] = LaunchRecord(
                    index=current, era=era, turn=turn, launcher=event.launcher, bolide=event.bolide
                )
            elif event.kind == "herd_card_revealed" and current is not None and records[current].card is None:
                mode = self._mode(self._state.rules.dinosaur(event.card), era)
                records[current] = records[current].model_copy(update={"card": event.card, "mode": mode})
            elif event.kind == "launch_card_unavailable" and current is not None:
                records[current] = records[current].model_copy(update={"mode": self._mode(None, era)})
            elif event.kind == "ocean_level_chosen" and current is not None:
                records[current] = records[current].model_copy(update={"ocean_level": event.level})
            elif event.kind in ("launch_resolved", "launch_amended"):
                records[event.launch_index] = _with_verdict(records[event.launch_index], event)
            elif event.kind == "launch_finished":
                current = None
        return list(records.values())

    def _mode(self, dinosaur: DinoType | None, era: int) -> LaunchMode:
        config = self._state.rules.config
        return launch_mode(dinosaur, era, config.hard_mode, config.variants.facilitated_launches)

    # ---- changing -------------------------------------------------------------------------------

    def apply(self, command: Command | dict[str, Any], *, defaults: bool = False) -> list[Any]:
        """Apply a decision, verdict or dealer report; returns the events it caused.

        Raises `IllegalCommand` (with the reason) and changes nothing if it is not legal now.
        With `defaults`, choices awaited before the one `command` answers are first taken at their
        defaults: for replaying inputs recorded before the engine offered those choices.
        """
        if isinstance(command, dict):
            try:
                command = parse_command(command)
            except ValidationError as error:
                raise IllegalCommand(f"malformed command: {error}") from error
        start = len(self._events)
        if defaults:
            self._take_defaults_before(command.kind)
        try:
            self._apply_input(command.to_event(self._state))
        except IllegalCommand:
            self._events, self._state = self._events[:start], replay(self._events[:start])
            raise
        self._auto_chance()
        return self._events[start:]

    def apply_chance(self, dealer: Dealer | None = None) -> list[Any]:
        """Let `dealer` (or the game's own) answer the chance node the game waits for."""
        dealer = dealer or self.dealer
        chance = self._chance_pending()
        if dealer is None or chance is None:
            raise IllegalCommand("no chance result is awaited" if chance is None else "no dealer to ask")
        start = len(self._events)
        self._apply_input(dealer.resolve(self._state, chance).to_event(self._state))
        return self._events[start:]

    def resolve_chance(self, dealer: Dealer | None = None) -> list[Any]:
        """Answer every chance node in a row, until a player or the judge must act."""
        start = len(self._events)
        while self._chance_pending() is not None:
            self.apply_chance(dealer)
        return self._events[start:]

    def undo(self, count: int = 1) -> list[Any]:
        """Go back `count` inputs (decisions, verdicts, reveals), with everything they caused.

        When the game holds a dealer, its chance results are not counted: they go with the decision
        before them. Returns the removed inputs, oldest first, for `redo`.
        """
        starts = [
            index
            for index, event in enumerate(self._events)
            if index > 0 and ev.starts_entry(event) and not (self.dealer and event.kind in ev.CHANCE_KINDS)
        ]
        if not starts:
            raise IllegalCommand("nothing to undo yet")
        if count < 1 or count > len(starts):
            raise IllegalCommand(f"can undo 1..{len(starts)} inputs, not {count}")
        cut = starts[-count]
        removed = [unwrap_input(event) for event in self._events[cut:] if ev.starts_entry(event)]
        self._events = self._events[:cut]
        self._state = replay(self._events)
        return removed

    def redo(self, inputs: Iterable[Any]) -> list[Any]:
        """Re-apply inputs (as returned by `undo`); stops with `IllegalCommand` at the first illegal one.

        Choices the engine had taken at their defaults are taken again."""
        start = len(self._events)
        for event in inputs:
            self._take_defaults_before(DECISION_OF_EVENT[event.kind])
            self._apply_input(event)
        self._auto_chance()
        return self._events[start:]

    def amend_launch(self, launch_index: int, outcome: Outcome, dinosaur: DinoType | None = None) -> list[Any]:
        """Overrule launch `launch_index`'s verdict and replay the game from there.

        The launch's resolution is replaced by a `launch_amended` event holding the new verdict, the
        one it replaces and the original. Every later input is re-applied in order where it is
        still legal; an input that is no longer legal is kept as `input_skipped` (so amending back
        restores it) and the game then waits for whatever the new outcome requires.
        """
        position = self._resolution_position(launch_index)
        old = self._events[position]
        previous = ev.LaunchVerdict(outcome=old.outcome, dinosaur=old.dinosaur)
        amendment = ev.LaunchAmended(
            launch_index=launch_index,
            outcome=outcome,
            dinosaur=dinosaur if outcome == "dinosaur" else None,
            previous=previous,
            original=old.original if old.kind == "launch_amended" else previous,
        )
        later_inputs = [unwrap_input(event) for event in self._events[position + 1 :] if ev.starts_entry(event)]
        saved_events, saved_state = self._events, self._state
        self._events = self._events[:position]
        self._state = replay(self._events)
        try:
            self._apply_input(amendment)
        except Exception:
            self._events, self._state = saved_events, saved_state
            raise
        for event in later_inputs:
            self._apply_or_skip(event)
        self._auto_chance()
        return self._events[position:]

    # ---- internals ------------------------------------------------------------------------------

    def _resolution_position(self, launch_index: int) -> int:
        for position, event in enumerate(self._events):
            if event.kind in ("launch_resolved", "launch_amended") and event.launch_index == launch_index:
                return position
        raise IllegalCommand(
            f"launch {launch_index} has no verdict to amend (launches so far: {self._state.launch_count})"
        )

    def _record(self, event: Any) -> None:
        self._state = apply_event(self._state, event)
        self._events.append(event)

    def _advance(self) -> None:
        self._state, produced = advance(self._state)
        self._events.extend(produced)

    def _apply_input(self, event: Any) -> None:
        self._state, produced = apply_input(self._state, event)
        self._events.extend(produced)

    def _take_defaults_before(self, kind: str) -> None:
        """Answer awaited choices that have a default, until a decision of `kind` is awaited."""
        for _ in range(MAX_AUTOMATIC_STEPS):
            pending = self.pending()
            if any(item.kind == kind for item in pending):
                return
            item = next((item for item in pending if item.default is not None), None)
            if item is None:
                return
            self._apply_input(default_input(item))
            if kind not in CHANCE_DECISIONS:
                self._auto_chance()

    def _apply_or_skip(self, event: Any) -> None:
        self._take_defaults_before(DECISION_OF_EVENT[event.kind])
        try:
            self._apply_input(event)
        except IllegalCommand as error:
            self._record(ev.InputSkipped(event=event, reason=str(error)))

    def _chance_pending(self) -> Pending | None:
        pending = self.pending()
        return pending[0] if pending and pending[0].actor == "dealer" else None

    def _auto_chance(self) -> None:
        if self.dealer is not None:
            self.resolve_chance(self.dealer)


def _with_verdict(record: LaunchRecord, event: Any) -> LaunchRecord:
    if event.kind == "launch_amended":
        return record.model_copy(
            update={
                "outcome": event.outcome,
                "dinosaur": event.dinosaur,
                "original_outcome": event.original.outcome,
                "original_dinosaur": event.original.dinosaur,
                "amended": True,
            }
        )
    return record.model_copy(
        update={
            "outcome": event.outcome,
            "dinosaur": event.dinosaur,
            "original_outcome": event.outcome,
            "original_dinosaur": event.dinosaur,
        }
    )
