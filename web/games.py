"""The game service: engine games kept as event logs in the store, launches, verdicts and overrides.

Every change is one row of `events`, written (committed, status 'pending') before the engine applies
it and marked 'applied' or 'rejected' after: a restart replays the applied and pending rows into a
fresh engine game and comes back to the same state. Each game has a lock, so two overrides of one
launch sent at once are applied one after the other, both recorded, the later one in force.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from calibration.rig import Rig
from web import engine_adapter as engine
from web.schemas import CreateGame, Override
from web.store import Store


class GameError(ValueError):
    """A request the game cannot take (unknown game, illegal move); the message says why."""

    def __init__(self, message: str, field: str | None = None, status: int = 400):
        super().__init__(message)
        self.field = field
        self.status = status


def required_bounces(launch_mode: str | None) -> int:
    return 2 if launch_mode in ("hard_velociraptor", "hard") else 1


class GameService:
    def __init__(self, store: Store, rig: Rig | None = None, publish: Callable[[str, Any], None] | None = None):
        self.store = store
        self.rig = rig
        self.publish = publish or (lambda kind, data: None)
        self._games: dict[int, Any] = {}
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
        with self.lock(game_id):
            if game_id not in self._games:
                self._games[game_id] = self._replay(game_id)
            return self._games[game_id]

    def _replay(self, game_id: int) -> Any:
        """Rebuild a game from its config and every applied (or written but unapplied) event."""
        row = self.game_row(game_id)
        game = engine.new_game(row["config"])
        for event in self.store.events(game_id):
            try:
                self._apply_to_engine(game, event["kind"], event["payload"])
            except engine.IllegalCommand as error:
                self.store.mark_event(event["id"], "rejected", str(error))
                continue
            if event["status"] == "pending":
                self.store.mark_event(event["id"], "applied")
        return game

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

    def _apply_to_engine(self, game: Any, kind: str, payload: dict) -> None:
        if kind == "command":
            engine.apply_command(game, payload["command"])
        elif kind == "launch":
            engine.resolve_launch(game, payload["outcome"], payload.get("dinosaur"))
        elif kind == "amend":
            engine.amend_launch(game, payload["launch_index"], payload["outcome"], payload.get("dinosaur"))
        elif kind == "undo":
            engine.undo(game, payload["steps"])
        else:
            raise engine.IllegalCommand(f"unknown event kind {kind!r}")

    def record(self, game_id: int, kind: str, payload: dict, who: str) -> None:
        """Write the event, apply it, mark it: the one way anything changes a game."""
        with self.lock(game_id):
            game = self.engine_game(game_id)
            event_id = self.store.append_event(game_id, kind, payload, who)
            try:
                self._apply_to_engine(game, kind, payload)
            except engine.IllegalCommand as error:
                self.store.mark_event(event_id, "rejected", str(error))
                raise GameError(f"refused by the rules: {error}", "option", 409) from None
            except Exception:
                self.store.mark_event(event_id, "rejected", "internal error")
                self._games.pop(game_id, None)  # rebuild from the log next time
                raise
            self.store.mark_event(event_id, "applied")
            if engine.is_over(game):
                self.store.set_game_status(game_id, "over")

    def command(self, game_id: int, option: Any, option_index: int | None, pending_index: int,
                who: str) -> None:
        with self.lock(game_id):
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
            try:
                command = engine.option_command(item, option)
            except engine.IllegalCommand as error:
                raise GameError(str(error), "option") from None
            self.record(game_id, "command", {"command": command}, who)
            self.store.audit(who, "decision", {"prompt": item["prompt"], "command": command}, game_id=game_id)
            self._autoplay(game_id)
        self._changed(game_id)

    def undo(self, game_id: int, steps: int, who: str) -> None:
        self.record(game_id, "undo", {"steps": steps}, who)
        self.store.audit(who, "undo", {"steps": steps}, game_id=game_id)
        self._changed(game_id)

    def _autoplay(self, game_id: int) -> None:
        """Demo games: random legal choices for every decision except the launch outcome."""
        row = self.game_row(game_id)
        if not row["autoplay"]:
            return
        game = self.engine_game(game_id)
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
            self.record(game_id, "command", {"command": engine.option_command(item, option)}, "demo")

    # -- launches -----------------------------------------------------------------------------
    def waiting_for_launch(self, game_id: int) -> bool:
        return any(p["kind"] in engine.LAUNCH_KINDS for p in engine.pending(self.engine_game(game_id)))

    def record_launch(self, outcome: str, dinosaur: str | None, source: str, who: str,
                      verdict: dict | None = None, snapshot: str | None = None,
                      game_id: int | None = None) -> int:
        """A launch happened: keep it, and make it the current launch's outcome when the game waits for one."""
        game_id = game_id if game_id is not None else self.active_game_id()
        machine = {"outcome": outcome, "dinosaur": dinosaur if outcome == "dinosaur" else None}
        fields: dict[str, Any] = {"source": source, "verdict": verdict, "machine_outcome": machine,
                                  "snapshot": snapshot}
        if game_id is None:
            return self.store.add_launch(**fields)
        with self.lock(game_id):
            game = self.engine_game(game_id)
            if not self.waiting_for_launch(game_id):
                if source == "manual":
                    raise GameError("the game is not waiting for a launch", "outcome", 409)
                launch_id = self.store.add_launch(game_id=game_id, **fields)
                self.store.audit(who, "launch not applied (game not waiting for one)", machine,
                                 game_id=game_id, launch_id=launch_id)
                return launch_id
            info = engine.current_launch(game)
            launch_id = self.store.add_launch(game_id=game_id, engine_launch=info["index"],
                                              launcher=info.get("launcher_name"), launch_mode=info.get("launch_mode"),
                                              bounces_needed=info.get("bounces_needed"), **fields)
            self.record(game_id, "launch", {**machine, "launch_id": launch_id}, who)
            self.store.audit(who, f"{source} launch", machine, game_id=game_id, launch_id=launch_id)
            self._autoplay(game_id)
        self._changed(game_id)
        self.publish("launch", self.launch_detail(launch_id))
        return launch_id

    def launch_detail(self, launch_id: int) -> dict:
        launch = self.store.launch(launch_id)
        if launch is None:
            raise GameError(f"no launch {launch_id}", "launch_id", 404)
        overrides = self.store.overrides(launch_id)
        launch["overrides"] = overrides
        launch["launcher_name"] = launch.get("launcher")
        launch["outcome"] = effective_outcome(launch, overrides)
        launch["overridden"] = launch["outcome"] != launch["machine_outcome"]
        launch["disputed"] = bool((launch.get("verdict") or {}).get("disputed"))
        launch["disputes"] = [a for a in self.store.audit_trail(launch_id=launch_id) if a["action"] == "dispute"]
        return launch

    def dispute(self, launch_id: int, reason: str, who: str) -> dict:
        self.launch_detail(launch_id)
        self.store.audit(who, "dispute", {"reason": reason}, launch_id=launch_id)
        detail = self.launch_detail(launch_id)
        self.publish("dispute", {"launch_id": launch_id, "reason": reason, "who": who})
        return detail

    def override(self, launch_id: int, body: Override) -> dict:
        launch = self.launch_detail(launch_id)
        game_id = launch["game_id"]
        lock = self.lock(game_id) if game_id is not None else self._guard_for_unlinked()
        with lock:
            launch = self.launch_detail(launch_id)
            if body.overrules is not None:
                target = self.store.override(body.overrules)
                if target is None or target["launch_id"] != launch_id:
                    raise GameError(f"override {body.overrules} is not one of launch {launch_id}'s", "overrules")
                if target["status"] != "active":
                    raise GameError(f"override {body.overrules} is already {target['status']}", "overrules", 409)
            outcome = self.derive_outcome(launch, body)
            override_id = self.store.add_override(launch_id, "overrule" if body.overrules else "override",
                                                  outcome, body.reason, body.who, target_id=body.overrules)
            try:
                self._amend(launch_id, body.who)
            except GameError:
                self.store.set_override_status(override_id, "refused")
                if body.overrules is not None:
                    self.store.set_override_status(body.overrules, "active")
                self.store.audit(body.who, "override refused by the engine", {"override_id": override_id},
                                 game_id=game_id, launch_id=launch_id)
                raise
            self.store.audit(body.who, "override", {"override_id": override_id, "outcome": outcome,
                                                     "reason": body.reason, "overrules": body.overrules},
                             game_id=game_id, launch_id=launch_id)
        return self._launch_changed(launch_id)

    def withdraw(self, override_id: int, reason: str, who: str) -> dict:
        target = self.store.override(override_id)
        if target is None:
            raise GameError(f"no override {override_id}", "override_id", 404)
        launch = self.launch_detail(target["launch_id"])
        lock = self.lock(launch["game_id"]) if launch["game_id"] is not None else self._guard_for_unlinked()
        with lock:
            target = self.store.override(override_id)
            if target["status"] != "active":
                raise GameError(f"override {override_id} is already {target['status']}", "override_id", 409)
            record_id = self.store.add_override(target["launch_id"], "withdraw", None, reason, who,
                                                target_id=override_id)
            try:
                self._amend(target["launch_id"], who)
            except GameError:
                self.store.set_override_status(override_id, "active")
                self.store.set_override_status(record_id, "refused")
                raise
            self.store.audit(who, "withdraw override", {"override_id": override_id, "reason": reason},
                             game_id=launch["game_id"], launch_id=target["launch_id"])
        return self._launch_changed(target["launch_id"])

    _unlinked_lock = threading.RLock()

    def _guard_for_unlinked(self) -> threading.RLock:
        return self._unlinked_lock

    def _amend(self, launch_id: int, who: str) -> None:
        launch = self.launch_detail(launch_id)
        if launch["game_id"] is None or launch["engine_launch"] is None:
            return
        outcome = launch["outcome"]
        self.record(launch["game_id"], "amend",
                    {"launch_index": launch["engine_launch"], "launch_id": launch_id, **outcome}, who)
        self._autoplay(launch["game_id"])

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
                "pending": engine.pending(game),
                "over": engine.is_over(game),
                "scores": engine.scores(game) if engine.is_over(game) else None,
                "current_launch": engine.current_launch(game) if self.waiting_for_launch(game_id) else None,
                "launches": [self.launch_detail(launch["id"]) for launch in self.store.launches(game_id)],
                "engine_launches": engine.launch_records(game),
                "events": len(self.store.events(game_id, ("applied",))),
            }

    def _changed(self, game_id: int) -> None:
        try:
            game = self.engine_game(game_id)
            self.publish("game", {"game_id": game_id, "view": engine.view(game), "pending": engine.pending(game),
                                  "over": engine.is_over(game)})
        except Exception:  # a view problem must not undo a recorded change
            self.publish("game", {"game_id": game_id})


def effective_outcome(launch: dict, overrides: list[dict]) -> dict:
    """The call in force: the latest active override's outcome, else the machine's (or manual) call."""
    for override in reversed(overrides):
        if override["status"] == "active" and override.get("outcome"):
            return override["outcome"]
    return launch["machine_outcome"]
