"""The table dashboard: a Flask app for live judging, the game, replays and overrides.

`create_app(config)` builds it; `config` keys (all optional):

- `DATA_DIR`: folder of the database (`meteors.sqlite3`), snapshots and clips (default `./data`).
- `SOURCE`: camera index, stream URL or video file for the live runner (None: camera off).
- `LOOP`: loop a video file as a live camera (`LOOP_PAUSE` seconds between passes); `REALTIME`: pace a
  file at its frame rate.
- `RIG`: a `Rig` or a rig file path (default `calibration/rigs/standard.json`); `CALIBRATION`: a file.
- `HOST`: the address served; off loopback (an empty or wildcard address too) every change needs
  `REFEREE_TOKEN` (made up if not given). `ALLOWED_HOSTS`: more host names writes may name (see `web.security`).
- `REFEREE_SESSION_SECONDS`: how long a referee sign-in lasts (default 12 hours).
- `MAX_STREAMS`, `STREAM_MAX_SECONDS`, `STREAM_IDLE_SECONDS`: bounds of the event and camera streams
  (see `web.streams`).
- `DEMO_GAME`: start a demo game (random choices but the launches) when none exists.
- `START_LIVE`: start the live runner thread (default: when there is a `SOURCE`).
"""

from __future__ import annotations

import logging
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask

from calibration.rig import Rig, load_rig
from web.events import EventHub
from web.games import GameService
from web.store import Store

DEFAULT_RIG = Path(__file__).resolve().parent.parent / "calibration" / "rigs" / "standard.json"
MAX_UPLOAD_BYTES = 1 * 1024 * 1024

log = logging.getLogger(__name__)


@dataclass
class Context:
    data_dir: Path
    store: Store
    hub: EventHub
    games: GameService
    rig: Rig
    calibration: Any = None
    live: Any = None
    calibration_from_user: bool = False  # the referee changed it (herd line, colour, recalibration)


def _secret_key(data_dir: Path) -> str:
    """The key signing session cookies, kept in the data folder; created readable by its owner only."""
    path = data_dir / "secret_key"
    if path.exists():
        if path.stat().st_mode & 0o077:  # made by an older version, readable by others
            path.chmod(0o600)
        key = path.read_text().strip()
        if key:
            return key
        path.unlink()  # empty: a crash between creating and writing it
    key = secrets.token_hex(32)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(key)
    return key


def _load_calibration(path: str | Path | None) -> Any:
    if not path:
        return None
    from calibration.solve import Calibration

    return Calibration.load(path)


def create_app(config: dict | None = None) -> Flask:
    config = dict(config or {})
    app = Flask(__name__)
    data_dir = Path(config.pop("DATA_DIR", "data")).resolve()
    (data_dir / "clips").mkdir(parents=True, exist_ok=True)
    (data_dir / "snapshots").mkdir(parents=True, exist_ok=True)
    host = config.get("HOST", "127.0.0.1")
    from web.limits import RowIdConverter
    from web.security import is_loopback

    app.url_map.converters["int"] = RowIdConverter
    app.config.update(
        SECRET_KEY=_secret_key(data_dir),
        MAX_CONTENT_LENGTH=MAX_UPLOAD_BYTES,
        HOST=host,
        REQUIRE_TOKEN=not is_loopback(host),
        REFEREE_TOKEN=secrets.token_urlsafe(12),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        DATA_DIR=str(data_dir),
    )
    app.config.update(config)

    rig = config.get("RIG") or DEFAULT_RIG
    if not isinstance(rig, Rig):
        rig = load_rig(rig)
    hub = EventHub()
    store = Store(data_dir / "meteors.sqlite3")
    games = GameService(store, rig=rig, publish=hub.publish)
    if "launches.counted" in store.added_columns:  # an older database: mark each game's launches counted or not
        for game in store.games():
            games.loaded(game["id"])
    ctx = Context(data_dir=data_dir, store=store, hub=hub, games=games, rig=rig,
                  calibration=_load_calibration(config.get("CALIBRATION")))
    app.extensions["meteors"] = ctx

    from web import api, export, pages, streams
    from web.headers import init_headers
    from web.security import init_security

    init_security(app)
    init_headers(app)
    streams.init_streams(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(streams.bp)
    app.register_blueprint(pages.bp)
    app.register_blueprint(export.bp)
    api.register_errors(app)

    if config.get("DEMO_GAME") and games.active_game_id() is None:
        from web.schemas import CreateGame

        games.create(CreateGame.model_validate({
            "name": "Demo game",
            "players": [{"name": "Carlo"}, {"name": "Gianna"}, {"name": "Marco"}],
            "seed": 7, "autoplay": True, "review_disputed": False,
        }), who="demo")

    if config.get("SOURCE") is not None:
        from web.live_glue import attach_live

        attach_live(app, ctx, config["SOURCE"], loop=bool(config.get("LOOP", True)),
                    realtime=bool(config.get("REALTIME", True)), start=config.get("START_LIVE", True),
                    loop_pause=float(config.get("LOOP_PAUSE", 0.0)))
    return app


def context(app: Flask | None = None) -> Context:
    from flask import current_app

    return (app or current_app).extensions["meteors"]
