"""The game service: engine games kept as event logs in the store, launches, verdicts and overrides.

Every change is one row of `events`, committed in one transaction with the rows that go with it
(an override, the launch rows' links to the engine) and the engine's new state: a restart replays the
applied rows (and 'pending' ones of older databases) into a fresh engine game and comes back to the
same state. Each game has a lock, so two overrides of one
launch sent at once are applied one after the other, both recorded, the later one in force.
"""

from __future__ import annotations

import copy
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from calibration.rig import Rig
from web import engine_adapter as engine
from web.schemas import CreateGame, Override
from web.store import Store


class GameError(ValueError):
    """A request the game cannot take (unknown game, illegal move); the message says why.

    `extra` holds more for the JSON answer (an overrule's `preview`)."""

    def __init__(self, message: str, field: str | None = None, status: int = 400, extra: dict | None = None):
        super().__init__(message)
        self.field = field
        self.status = status
        self.extra = extra or {}


def required_bounces(launch_mode: str | None) -> int:
    return 2 if launch_mode in ("hard_velociraptor", "hard") else 1


UNDONE = "the referee undid the game to before this throw"
SKIPPED = "an overrule of an earlier launch changed the game before this throw"
NO_GAME = "judged with no game in play"


@dataclass
class Loaded:
    """An engine game and, for each launch verdict in its log (in order), the launch row that gave it.

    The engine keeps every verdict input in its log, also one an amendment could not re-apply
    (`input_skipped`); `played[k]` is the row of the k-th of them. This is the one link between rows
    and engine launches: a row counts when its verdict is applied, and then holds the engine launch
    that verdict resolves now (`engine.resolutions`).
    """

    game: Any
    played: list[int | None] = field(default_factory=list)

    def links(self) -> dict[int, dict]:
        """launch row id -> {"counted", "launch_index", "reason"} for every row whose verdict is in the log."""
        return {launch_id: entry for launch_id, entry in zip(self.played, engine.resolutions(self.game), strict=False)
                if launch_id is not None}


class GameService:
    def __init__(self, store: Store, rig: Rig | None = None, publish: Callable[[str, Any], None] | None = None):
        self.store = store
        self.rig = rig
        self.publish = publish or (lambda kind, data: None)
        self._games: dict[int, Loaded] = {}
        self._locks: dict[int, threading.RLock] = {}
        self._guard = threading.Lock()

    # -- loading --------------------------------------------------------------------------------
    def lock(self, game_id: int) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(game_id, threading.RLock())

    def game_row(self, game_id: int) -> dict:
        row = self.store.game(game_id)
        if row is None:
            raise GameError(f"no game {game_id}", "game_id", 404)
        return row

    def engine_game(self, game_id: int) -> Any:
        return self.loaded(game_id).game

    def loaded(self, game_id: int) -> Loaded:
        with self.lock(game_id):
            if game_id not in self._games:
                self._games[game_id] = self._replay(game_id)
            return self._games[game_id]

    def _replay(self, game_id: int) -> Loaded:
        """Rebuild a game from its config and every applied (or written but unapplied) event."""
        row = self.game_row(game_id)
        loaded = Loaded(engine.new_game(row["config"]))
        for event in self.store.events(game_id):
            try:
                self._apply_to_engine(loaded, event["kind"], event["payload"], replaying=True)
            except engine.IllegalCommand as error:
                self.store.mark_event(event["id"], "rejected", str(error))
                continue
            if event["status"] == "pending":
                self.store.mark_event(event["id"], "applied")
        with self.store.transaction():
            self._link_launches(game_id, loaded)
        return loaded

    @contextmanager
    def _changing(self, game_id: int) -> Iterator[Loaded]:
        """One SQLite transaction around a change of the game: the events, the rows that go with them
        and the launch rows' links are committed together with the engine's new state, or not at all
        (the engine game is then rebuilt from what was committed)."""
        with self.lock(game_id):
            loaded = self.loaded(game_id)
            try:
                with self.store.transaction():
                    yield loaded
                    self._link_launches(game_id, loaded)
                    if engine.is_over(loaded.game):
                        self.store.set_game_status(game_id, "over")
            except BaseException:
                self._games.pop(game_id, None)
                raise

    def _link_launches(self, game_id: int, loaded: Loaded) -> None:
        """Mark each launch row of the game counted or not, with its engine launch, as the engine has it."""
        links = loaded.links()
        for row in self.store.launch_links(game_id):
            link = links.get(row["id"])
            if link is not None:
                wanted = (int(link["counted"]), link["launch_index"], None if link["counted"] else SKIPPED)
            elif row["engine_launch"] is not None:  # played once, then undone
                wanted = (0, row["engine_launch"], UNDONE)
            else:  # never played: keeps the reason it was given
                wanted = (0, None, row["not_counted_reason"])
            if wanted != (row["counted"], row["engine_launch"], row["not_counted_reason"]):
                self.store.update_launch(row["id"], counted=wanted[0], engine_launch=wanted[1],
                                         not_counted_reason=wanted[2])

    def active_game_id(self) -> int | None:
        game_id = self.store.get_setting("active_game")
        if game_id is not None and self.store.game(game_id) is not None:
            return int(game_id)
        return None

    # -- creating and playing ---------------------------------------------------------------------
    def create(self, spec: CreateGame, who: str = "referee") -> int:
        config = spec.model_dump()
        if config["seed"] is None:
            config["seed"] = random.SystemRandom().randrange(2**31)
        engine.new_game(config)  # refuse a bad configuration before recording anything
        game_id = self.store.create_game(spec.name, config, autoplay=spec.autoplay)
        self.store.set_setting("active_game", game_id)
        self.store.audit(who, "create game", {"name": spec.name, "players": [p.name for p in spec.players]},
                         game_id=game_id)
        with self.lock(game_id):
            self.engine_game(game_id)
            self._autoplay(game_id)
        self._changed(game_id)
        return game_id

    def activate(self, game_id: int, who: str = "referee") -> None:
        self.game_row(game_id)
        self.store.set_setting("active_game", game_id)
        self.store.audit(who, "activate game", {}, game_id=game_id)
        self._changed(game_id)

    def _apply_to_engine(self, loaded: Loaded, kind: str, payload: dict, replaying: bool = False) -> None:
        game = loaded.game
        if kind == "command":
            engine.apply_command(game, payload["command"], replaying)
        elif kind == "launch":
            engine.resolve_launch(game, payload["outcome"], payload.get("dinosaur"))
            loaded.played.append(payload.get("launch_id"))
        elif kind == "amend":
            engine.amend_launch(game, payload["launch_index"], payload["outcome"], payload.get("dinosaur"))
        elif kind == "undo":
            engine.undo(game, payload["steps"])
            del loaded.played[len(engine.resolutions(game)):]
        else:
            raise engine.IllegalCommand(f"unknown event kind {kind!r}")

    def _apply_event(self, game_id: int, loaded: Loaded, kind: str, payload: dict, who: str) -> None:
        """Inside `_changing`: write the event as applied and apply it; a refusal undoes the transaction."""
        self.store.append_event(game_id, kind, payload, who, status="applied")
        try:
            self._apply_to_engine(loaded, kind, payload)
        except engine.IllegalCommand as error:
            raise GameError(f"refused by the rules: {error}", "option", 409) from None

    def record(self, game_id: int, kind: str, payload: dict, who: str) -> None:
        """Write the event and apply it, in one transaction: the one way anything changes a game."""
        with self._changing(game_id) as loaded:
            self._apply_event(game_id, loaded, kind, payload, who)

    def command(self, game_id: int, option: Any, option_index: int | None, pending_index: int,
                who: str, stack_order: list[str] | None = None) -> None:
        with self.lock(game_id):
            self._refuse_while_held(game_id)
            pending = engine.pending(self.engine_game(game_id))
            if not pending:
                raise GameError("the game is not waiting for any decision", "option", 409)
            if pending_index >= len(pending):
                raise GameError(f"there are {len(pending)} pending decisions", "pending_index")
            item = pending[pending_index]
            if item["kind"] in engine.LAUNCH_KINDS:
                raise GameError("a launch outcome is recorded as a launch (POST .../launch)", "option", 409)
            options = item["options"]
            if option_index is not None:
                if option_index >= len(options):
                    raise GameError(f"option_index must be below {len(options)}", "option_index")
                option = options[option_index]
            if stack_order and item["kind"] != "take_hatchlings":
                raise GameError("stack_order only goes with a take_hatchlings decision", "stack_order")
            try:
                command = engine.option_command(item, option, stack_order)
            except engine.IllegalCommand as error:
                raise GameError(str(error), "option") from None
            with self._changing(game_id) as loaded:
                self._apply_event(game_id, loaded, "command", {"command": command}, who)
                self.store.audit(who, "decision", {"prompt": item["prompt"], "command": command}, game_id=game_id)
            self._autoplay(game_id)
        self._changed(game_id)

    def undo(self, game_id: int, steps: int, who: str) -> None:
        with self._changing(game_id) as loaded:
            self._apply_event(game_id, loaded, "undo", {"steps": steps}, who)
            self.store.audit(who, "undo", {"steps": steps}, game_id=game_id)
        self._changed(game_id)

    def _autoplay(self, game_id: int) -> None:
        """Demo games: random legal choices for every decision except the launch outcome."""
        row = self.game_row(game_id)
        if not row["autoplay"] or self.held_by(game_id) is not None:
            return
        with self._changing(game_id) as loaded:
            game = loaded.game
            chooser = random.Random(row["config"]["seed"] * 7919 + len(self.store.events(game_id)))
            for _ in range(500):
                if engine.is_over(game):
                    return
                pending = engine.pending(game)
                if not pending or any(p["kind"] in engine.LAUNCH_KINDS for p in pending):
                    return
                item = pending[0]
                if item["count"] > 1:
                    option = chooser.sample(item["options"], item["count"])
                else:
                    option = chooser.choice(item["options"])
                self._apply_event(game_id, loaded, "command", {"command": engine.option_command(item, option)},
                                  "demo")

    # -- launches -----------------------------------------------------------------------------
    def waiting_for_launch(self, game_id: int) -> bool:
        return any(p["kind"] in engine.LAUNCH_KINDS for p in engine.pending(self.engine_game(game_id)))

    def held_by(self, game_id: int) -> dict | None:
        """The counted launch whose disputed call the referee has not reviewed yet: it holds the game."""
        return self.store.launch_needing_review(game_id)

    def _refuse_while_held(self, game_id: int) -> None:
        held = self.held_by(game_id)
        if held is not None:
            raise GameError(f"the game waits for the referee to confirm or overrule launch #{held['id']}",
                            "launch_id", 409, {"held_by": held["id"]})

    def not_counting_reason(self, game_id: int | None) -> str | None:
        """Why a throw judged now would not count, as its launch records it (None when it would count)."""
        words = self._not_counting(game_id)
        return words[1] if words else None

    def throws_not_counting(self, game_id: int | None) -> str | None:
        """Why throws do not count now, in the present tense for a banner (None when they count)."""
        words = self._not_counting(game_id)
        return words[0] if words else None

    def _not_counting(self, game_id: int | None) -> tuple[str, str] | None:
        """(now, as a launch's reason) in plain words, or None when a throw now would count."""
        if game_id is None:
            return "no game is in play", NO_GAME
        if engine.is_over(self.engine_game(game_id)):
            return "the game is over", "judged after the game ended"
        waiting = self._waiting_instead(game_id)
        return (f"the game waits for {waiting}", f"judged while the game waited for {waiting}") if waiting else None

    def _waiting_instead(self, game_id: int) -> str | None:
        """What the game waits for when it is not a launch ("Ben's ocean level"), else None."""
        held = self.held_by(game_id)
        if held is not None:
            return f"the referee to review launch #{held['id']}"
        if self.waiting_for_launch(game_id):
            return None
        return engine.waiting_for(self.engine_game(game_id))

    def record_launch(self, outcome: str, dinosaur: str | None, source: str, who: str,
                      verdict: dict | None = None, snapshot: str | None = None,
                      game_id: int | None = None) -> int:
        """A launch happened: keep it, and make it the current launch's outcome when the game waits for one.

        A disputed machine call in a game that reviews them holds the game until a referee confirms or
        overrules it."""
        game_id = game_id if game_id is not None else self.active_game_id()
        machine = {"outcome": outcome, "dinosaur": dinosaur if outcome == "dinosaur" else None}
        fields: dict[str, Any] = {"source": source, "verdict": verdict, "machine_outcome": machine,
                                  "snapshot": snapshot}
        if game_id is None:
            return self.store.add_launch(counted=0, not_counted_reason=NO_GAME, **fields)
        with self._changing(game_id) as loaded:
            reason = self.not_counting_reason(game_id)
            if reason is not None:
                if source == "manual":
                    waiting = self._waiting_instead(game_id)
                    raise GameError("the game is not waiting for a launch: " + (
                        f"it waits for {waiting}" if waiting else "the game is over"), "outcome", 409)
                launch_id = self.store.add_launch(game_id=game_id, counted=0, not_counted_reason=reason, **fields)
                self.store.audit(who, "launch not applied (game not waiting for one)", {**machine, "reason": reason},
                                 game_id=game_id, launch_id=launch_id)
            else:
                review = "needed" if source != "manual" and self._reviews_disputes(game_id) and (
                    verdict or {}).get("disputed") else None
                launch_id = self.store.add_launch(game_id=game_id, review=review, **fields)
                self._play_launch(game_id, loaded, launch_id, machine, who)
                self.store.audit(who, f"{source} launch", machine, game_id=game_id, launch_id=launch_id)
        self._autoplay(game_id)
        self._changed(game_id)
        self.publish("launch", self.launch_detail(launch_id))
        return launch_id

    def _reviews_disputes(self, game_id: int) -> bool:
        return bool(self.game_row(game_id)["config"].get("review_disputed", True))

    def _play_launch(self, game_id: int, loaded: Loaded, launch_id: int, outcome: dict, who: str) -> None:
        """Inside `_changing`: make launch row `launch_id` the verdict of the launch the game waits for."""
        info = engine.current_launch(loaded.game)
        self.store.update_launch(launch_id, engine_launch=info["index"], launcher=info.get("launcher_name"),
                                 launch_mode=info.get("launch_mode"), bounces_needed=info.get("bounces_needed"))
        self._apply_event(game_id, loaded, "launch", {**outcome, "launch_id": launch_id}, who)

    def assign(self, launch_id: int, who: str) -> dict:
        """Make a throw that did not count the outcome of the launch the game waits for now."""
        launch = self.launch_detail(launch_id)
        game_id = launch["game_id"] if launch["game_id"] is not None else self.active_game_id()
        if game_id is None:
            raise GameError("there is no game to assign the launch to", "launch_id", 409)
        with self._changing(game_id) as loaded:
            launch = self.launch_detail(launch_id)
            if launch["counted"]:
                raise GameError(f"launch #{launch_id} already counts", "launch_id", 409)
            if self.store.launch_was_played(launch_id):
                raise GameError(f"launch #{launch_id} was played in the game and stopped counting "
                                f"({launch['not_counted_reason']}); record the launch again instead", "launch_id", 409)
            reason = self.not_counting_reason(game_id)
            if reason is not None:
                raise GameError(f"the game is not waiting for a launch now ({reason})", "launch_id", 409)
            self.store.update_launch(launch_id, game_id=game_id, not_counted_reason=None)
            self._play_launch(game_id, loaded, launch_id, launch["outcome"], who)
            self.store.audit(who, "assign launch", launch["outcome"], game_id=game_id, launch_id=launch_id)
        self._autoplay(game_id)
        return self._launch_changed(launch_id)

    def _assignable(self, launch: dict) -> bool:
        """A throw that never counted, while the game (its own, or the active one) waits for a launch."""
        if launch["counted"] or launch["engine_launch"] is not None or self.store.launch_was_played(launch["id"]):
            return False
        game_id = launch["game_id"] if launch["game_id"] is not None else self.active_game_id()
        return game_id is not None and self.not_counting_reason(game_id) is None

    def confirm(self, launch_id: int, who: str) -> dict:
        """The referee accepts a disputed call the game was held for."""
        launch = self.launch_detail(launch_id)
        if launch["review"] != "needed":
            raise GameError(f"launch #{launch_id} is not waiting for a review", "launch_id", 409)
        with self._changing(launch["game_id"]):
            self.store.update_launch(launch_id, review="confirmed")
            self.store.audit(who, "confirm call", launch["outcome"], game_id=launch["game_id"], launch_id=launch_id)
        self._autoplay(launch["game_id"])
        return self._launch_changed(launch_id)

    def launch_detail(self, launch_id: int) -> dict:
        launch = self.store.launch(launch_id)
        if launch is None:
            raise GameError(f"no launch {launch_id}", "launch_id", 404)
        overrides = self.store.overrides(launch_id)
        launch["overrides"] = overrides
        launch["counted"] = bool(launch["counted"])
        launch["launcher_name"] = launch.get("launcher")
        launch["outcome"] = effective_outcome(launch, overrides)
        launch["overridden"] = launch["outcome"] != launch["machine_outcome"]
        verdict = launch.get("verdict") or {}
        launch["disputed"] = bool(verdict.get("disputed"))
        launch["judge_reasons"] = list(verdict.get("dispute_reasons") or [])
        launch["needs_review"] = launch["review"] == "needed"
        launch["assignable"] = self._assignable(launch)
        launch["disputes"] = [a for a in self.store.audit_trail(launch_id=launch_id) if a["action"] == "dispute"]
        return launch

    def dispute(self, launch_id: int, reason: str, who: str) -> dict:
        self.launch_detail(launch_id)
        self.store.audit(who, "dispute", {"reason": reason}, launch_id=launch_id)
        detail = self.launch_detail(launch_id)
        self.publish("dispute", {"launch_id": launch_id, "reason": reason, "who": who})
        return detail

    def override(self, launch_id: int, body: Override) -> dict:
        """Change a launch's call and amend the game, all in one transaction.

        The engine launch amended is the one the row's verdict resolves now (never a stale number). An
        overrule of a launch that is not the game's latest counted one answers 409 with a `preview`
        unless `body.confirm`; one of a launch that does not count is refused and recorded as refused."""
        launch = self.launch_detail(launch_id)
        game_id = launch["game_id"]
        if game_id is None:
            with self._unlinked_lock:
                self._check_overruled(launch_id, body.overrules)
                outcome = self.derive_outcome(self.launch_detail(launch_id), body)
                self._add_override(launch_id, body, outcome, None)
            return self._launch_changed(launch_id)
        with self.lock(game_id):
            launch = self.launch_detail(launch_id)
            self._check_overruled(launch_id, body.overrules)
            outcome = self.derive_outcome(launch, body)
            link = self.loaded(game_id).links().get(launch_id)
            if link is None or not link["counted"]:
                self._refuse_override(launch, body, outcome,
                                      f"launch #{launch_id} does not count in the game "
                                      f"({launch['not_counted_reason'] or 'it was never played'}): "
                                      "overruling it would change nothing")
            if not body.confirm and launch_id != self.latest_counted(game_id):
                raise GameError(f"launch #{launch_id} is not the game's latest counted launch: overruling it replays "
                                "the game from there; look at the preview and send it again with confirm: true",
                                "confirm", 409, {"preview": self.amend_preview(game_id, launch_id, outcome)})
            try:
                with self._changing(game_id) as loaded:
                    self._add_override(launch_id, body, outcome, game_id)
                    if launch["review"] == "needed":
                        self.store.update_launch(launch_id, review="overruled")
                    self._apply_event(game_id, loaded, "amend",
                                      {"launch_index": link["launch_index"], "launch_id": launch_id, **outcome},
                                      body.who)
            except GameError as error:
                self._refuse_override(launch, body, outcome, str(error))
            self._autoplay(game_id)
        return self._launch_changed(launch_id)

    def _check_overruled(self, launch_id: int, overrules: int | None) -> None:
        if overrules is None:
            return
        target = self.store.override(overrules)
        if target is None or target["launch_id"] != launch_id:
            raise GameError(f"override {overrules} is not one of launch {launch_id}'s", "overrules")
        if target["status"] != "active":
            raise GameError(f"override {overrules} is already {target['status']}", "overrules", 409)

    def _add_override(self, launch_id: int, body: Override, outcome: dict, game_id: int | None,
                      status: str | None = None) -> int:
        with self.store.transaction():
            override_id = self.store.add_override(launch_id, "overrule" if body.overrules else "override", outcome,
                                                  body.reason, body.who, target_id=body.overrules, status=status)
            self.store.audit(body.who, "override refused" if status == "refused" else "override",
                             {"override_id": override_id, "outcome": outcome, "reason": body.reason,
                              "overrules": body.overrules}, game_id=game_id, launch_id=launch_id)
        return override_id

    def _refuse_override(self, launch: dict, body: Override, outcome: dict, why: str) -> None:
        self._add_override(launch["id"], body, outcome, launch["game_id"], status="refused")
        raise GameError(why, "launch_id", 409)

    def latest_counted(self, game_id: int) -> int | None:
        """The launch row of the game's last counted verdict (an overrule of it rewinds nothing)."""
        links = self.loaded(game_id).links()
        counted = [launch_id for launch_id, link in links.items() if link["counted"]]
        return counted[-1] if counted else None

    def amend_preview(self, game_id: int, launch_id: int, outcome: dict) -> dict:
        """What an overrule would change, worked out on a copy of the game: each player's food, herd and
        hatchlings before -> after, the launches that would stop (or start) counting, and for a game
        played with real cards what the replay cannot redo."""
        loaded = self.loaded(game_id)
        trial = Loaded(copy.deepcopy(loaded.game), list(loaded.played))
        link = loaded.links()[launch_id]
        engine.amend_launch(trial.game, link["launch_index"], outcome["outcome"], outcome.get("dinosaur"))
        before, after = loaded.links(), trial.links()
        players = []
        for old, new in zip(engine.view(loaded.game)["players"], engine.view(trial.game)["players"], strict=True):
            players.append({
                "name": old["name"],
                "food": {"before": old["food"], "after": new["food"]},
                "herd": {"before": [c["dinosaur"] for c in old["dinosaurs"]],
                         "after": [c["dinosaur"] for c in new["dinosaurs"]]},
                "hatchlings": {"before": old["hatchling_count"], "after": new["hatchling_count"]},
            })
        real_cards = self.game_row(game_id)["config"].get("dealer") == "table"
        return {
            "launch_id": launch_id, "outcome": outcome, "players": players,
            "stop_counting": [i for i in before if before[i]["counted"] and not after.get(i, {}).get("counted")],
            "start_counting": [i for i in after if after[i]["counted"] and not before[i]["counted"]],
            "real_cards": "This game is played with real cards: cards already dealt or revealed at the table after "
                          f"launch #{launch_id} cannot be taken back. The replay reuses the reported cards where the "
                          "rules still allow them; where not, the game asks the dealer again, and the physical "
                          "cards must be put back to match." if real_cards else None,
        }

    def withdraw(self, override_id: int, reason: str, who: str) -> dict:
        target = self.store.override(override_id)
        if target is None:
            raise GameError(f"no override {override_id}", "override_id", 404)
        launch = self.launch_detail(target["launch_id"])
        game_id = launch["game_id"]
        with self.lock(game_id) if game_id is not None else self._unlinked_lock:
            target = self.store.override(override_id)
            if target["status"] != "active":
                raise GameError(f"override {override_id} is already {target['status']}", "override_id", 409)
            link = self.loaded(game_id).links().get(launch["id"]) if game_id is not None else None
            if game_id is not None and (link is None or not link["counted"]):
                raise GameError(f"launch #{launch['id']} does not count in the game any more "
                                f"({launch['not_counted_reason']}): withdrawing would change nothing",
                                "override_id", 409)
            with self._changing(game_id) if game_id is not None else self.store.transaction() as loaded:
                self.store.add_override(target["launch_id"], "withdraw", None, reason, who, target_id=override_id)
                self.store.audit(who, "withdraw override", {"override_id": override_id, "reason": reason},
                                 game_id=game_id, launch_id=target["launch_id"])
                if game_id is not None:
                    outcome = self.launch_detail(launch["id"])["outcome"]
                    self._apply_event(game_id, loaded, "amend",
                                      {"launch_index": link["launch_index"], "launch_id": launch["id"], **outcome}, who)
            if game_id is not None:
                self._autoplay(game_id)
        return self._launch_changed(target["launch_id"])

    _unlinked_lock = threading.RLock()

    def _launch_changed(self, launch_id: int) -> dict:
        detail = self.launch_detail(launch_id)
        if detail["game_id"] is not None:
            self._changed(detail["game_id"])
        self.publish("launch", detail)
        return detail

    def derive_outcome(self, launch: dict, body: Override) -> dict:
        """The outcome an override means: given directly, or worked out from the corrected facts."""
        if body.outcome is not None and body.region is None:
            return {"outcome": body.outcome, "dinosaur": body.dinosaur if body.outcome == "dinosaur" else None}
        verdict = launch.get("verdict") or {}
        region = body.region or verdict.get("region")
        bounces = body.bounces_before_box if body.bounces_before_box is not None else verdict.get(
            "bounces_before_box")
        herd_ok = body.herd_line_ok if body.herd_line_ok is not None else verdict.get("herd_line_ok", True)
        needed = launch.get("bounces_needed") or required_bounces(verdict.get("launch_mode"))
        enough = bounces is None or bounces >= needed
        valid = body.valid if body.valid is not None else bool(herd_ok) and enough
        if region is None:
            current = effective_outcome(launch, launch.get("overrides", []))
            if not valid:
                return {"outcome": "void", "dinosaur": None}
            if current["outcome"] == "void":
                raise GameError("region: say where the meteor came to rest", "region")
            return current
        landing = self.region_landing(region)
        if landing is None:
            raise GameError(f"unknown region {region!r}; known: {self.region_names()}", "region")
        if not valid or landing["outcome"] == "void":
            return {"outcome": "void", "dinosaur": None}
        return landing

    def region_names(self) -> list[str]:
        names = [r.name for r in self.rig.box.regions] if self.rig else []
        return [*names, "outside", "rim"]

    def region_landing(self, region: str) -> dict | None:
        if region in ("outside", "rim", "lost"):
            return {"outcome": "void", "dinosaur": None}
        if self.rig is not None:
            for candidate in self.rig.box.regions:
                if candidate.name == region:
                    if candidate.kind == "water":
                        return {"outcome": "water", "dinosaur": None}
                    return {"outcome": "dinosaur", "dinosaur": candidate.dinosaur}
        if region in engine.DINOSAUR_TYPES:
            return {"outcome": "dinosaur", "dinosaur": region}
        if region.startswith("water"):
            return {"outcome": "water", "dinosaur": None}
        return None

    # -- what the pages show ------------------------------------------------------------------
    def state(self, game_id: int) -> dict:
        with self.lock(game_id):
            row = self.game_row(game_id)
            game = self.engine_game(game_id)
            return {
                "game": {k: row[k] for k in ("id", "name", "created", "status", "autoplay")},
                "config": row["config"],
                "view": engine.view(game),
                "house_rules": engine.house_rules(game),
                "pending": engine.pending(game),
                "over": engine.is_over(game),
                "scores": engine.scores(game) if engine.is_over(game) else None,
                "current_launch": engine.current_launch(game) if self.waiting_for_launch(game_id) else None,
                "launches": [self.launch_detail(launch["id"]) for launch in self.store.launches(game_id)],
                "engine_launches": engine.launch_records(game),
                "events": len(self.store.events(game_id, ("applied",))),
                "throws_not_counting": self.throws_not_counting(game_id),
                "held_by": (self.held_by(game_id) or {}).get("id"),
            }

    def _changed(self, game_id: int) -> None:
        try:
            game = self.engine_game(game_id)
            self.publish("game", {"game_id": game_id, "view": engine.view(game), "pending": engine.pending(game),
                                  "over": engine.is_over(game),
                                  "throws_not_counting": self.throws_not_counting(game_id)})
        except Exception:  # a view problem must not undo a recorded change
            self.publish("game", {"game_id": game_id})


def effective_outcome(launch: dict, overrides: list[dict]) -> dict:
    """The call in force: the latest active override's outcome, else the machine's (or manual) call."""
    for override in reversed(overrides):
        if override["status"] == "active" and override.get("outcome"):
            return override["outcome"]
    return launch["machine_outcome"]
