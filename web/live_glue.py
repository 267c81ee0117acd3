"""Wires the live runner to the app: verdicts become launches, clips are attached, modes follow the game."""

from __future__ import annotations

import atexit
import logging
import uuid
from typing import Any

from flask import Flask

from web import engine_adapter as engine
from web.live import LiveRunner

log = logging.getLogger(__name__)


def attach_live(app: Flask, ctx: Any, source: str | int, loop: bool = True, realtime: bool = True,
                start: bool = True, loop_pause: float = 0.0) -> LiveRunner:
    store, games, hub = ctx.store, ctx.games, ctx.hub

    def launch_mode() -> str:
        game_id = games.active_game_id()
        if game_id is None:
            return "standard"
        try:
            info = engine.current_launch(games.engine_game(game_id))
        except Exception:
            return "standard"
        return (info or {}).get("judge_mode") or "standard"

    def renew_demo_game() -> None:
        """A finished demo game is followed by a new one, so the demo keeps playing."""
        game_id = games.active_game_id()
        row = store.game(game_id) if game_id is not None else None
        if row and row["autoplay"] and row["status"] == "over":
            from web.schemas import CreateGame

            config = dict(row["config"])
            config["seed"] = (config.get("seed") or 0) + 1
            config["name"] = f"Demo game {game_id + 1}"
            games.create(CreateGame.model_validate(config), who="demo")

    def on_verdict(verdict: dict, snapshot: bytes) -> int | None:
        renew_demo_game()
        name = f"snapshots/{uuid.uuid4().hex}.jpg"
        try:
            (ctx.data_dir / name).write_bytes(snapshot)
        except OSError as error:
            log.error("cannot save the snapshot: %s", error)
            hub.publish("warning", {"message": f"cannot save the snapshot: {error.strerror or error}"})
            name = None
        try:
            launch_id = games.record_launch(verdict["outcome"], verdict.get("dinosaur"), "judge", "judge",
                                            verdict=verdict, snapshot=name)
        except Exception as error:  # the judge goes on; the page says what went wrong
            log.exception("recording a verdict failed")
            hub.publish("warning", {"message": f"the verdict could not be recorded: {error}"})
            return None
        hub.publish("verdict", games.launch_detail(launch_id))
        return launch_id

    def on_clip(launch_id: int, clip_dir: str, frames: int, fps: float, error: str | None) -> None:
        store.update_launch(launch_id, clip_dir=f"clips/{clip_dir}", clip_frames=frames, clip_fps=fps,
                            clip_error=error)
        hub.publish("clip", {"launch_id": launch_id, "frames": frames, "error": error})

    runner = LiveRunner(source, ctx.rig, calibration=ctx.calibration, clips_dir=ctx.data_dir / "clips",
                        publish=hub.publish, on_verdict=on_verdict, on_clip=on_clip, launch_mode=launch_mode,
                        loop=loop, realtime=realtime, loop_pause=loop_pause)
    ctx.live = runner

    last_mode = {"mode": launch_mode()}

    def follow_mode(kind: str, data: Any) -> None:
        if kind != "game":
            return
        mode = launch_mode()
        if mode != last_mode["mode"]:
            last_mode["mode"] = mode
            runner.set_rig(runner.rig)  # a new judge for the new launch mode, same calibration

    games.publish = _chain(games.publish, follow_mode)
    if start:
        runner.start()
        atexit.register(runner.stop)
    return runner


def _chain(first, second):
    def both(kind: str, data: Any) -> None:
        first(kind, data)
        second(kind, data)

    return both
