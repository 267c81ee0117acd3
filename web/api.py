"""The JSON API (`/api/...`) and the files of the data folder (the streams are in `web.streams`).

Every body and query is validated by a pydantic model of `web.schemas`; a bad one is refused with
400 and `{"error": ..., "field": ...}` naming the first bad field. Every error of `/api/...` is such a
JSON body, an unexpected one too (500, logged; never a traceback). The OpenAPI description is at
`/api/openapi.json`.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import TypeVar

import pydantic_core
from flask import Blueprint, Flask, Response, jsonify, request, send_file, send_from_directory
from pydantic import BaseModel, ValidationError
from werkzeug.exceptions import HTTPException, NotFound, RequestEntityTooLarge
from werkzeug.security import safe_join

from web import context, schemas
from web.games import GameError
from web.limits import MAX_JSON_BODY_BYTES
from web.store import StoreError

bp = Blueprint("api", __name__)
M = TypeVar("M", bound=BaseModel)
log = logging.getLogger(__name__)
NOT_A_JSON_OBJECT = "the body must be a JSON object (Content-Type: application/json)"


class BadRequest(Exception):
    def __init__(self, message: str, field: str | None, status: int = 400):
        super().__init__(message)
        self.message, self.field, self.status = message, field, status


def _validation_error(error: ValidationError) -> BadRequest:
    first = error.errors()[0]
    if first["type"] in ("json_invalid", "model_type"):  # the body as a whole
        detail = first["msg"].removeprefix("Invalid JSON: ") if first["type"] == "json_invalid" else ""
        return BadRequest(NOT_A_JSON_OBJECT + (f": {detail}" if detail else ""), "body")
    field = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"].removeprefix("Value error, ")
    if field is None and ":" in message and message.split(":")[0].replace(".", "").replace("_", "").isalnum():
        field = message.split(":")[0]  # model-level checks name their field first
    return BadRequest(f"{field}: {message}" if field and not message.startswith(field) else message, field)


def parse_body(model: type[M], data: dict | None = None) -> M:
    """The request's JSON body (validated strictly: JSON's types must match) or a form's `data` as `model`."""
    try:
        if data is not None:
            return model.model_validate(data)
        return model.model_validate_json(_json_bytes(), strict=True)
    except ValidationError as error:
        raise _validation_error(error) from None


def _json_bytes() -> bytes:
    raw = request.get_data(cache=True)
    if len(raw) > MAX_JSON_BODY_BYTES:
        raise BadRequest(f"the body is too large (limit {MAX_JSON_BODY_BYTES // 1024} KiB)", "body", 413)
    return raw


def load_json(text: str | bytes, field: str) -> object:
    """JSON text of a form field or an upload; its nesting is bounded by pydantic's parser (no RecursionError)."""
    try:
        return pydantic_core.from_json(text)
    except ValueError as error:
        raise BadRequest(f"{field}: not valid JSON ({error})", field) from None


def parse_query(model: type[M]) -> M:
    try:
        return model.model_validate(request.args.to_dict())
    except ValidationError as error:
        raise _validation_error(error) from None


def register_errors(app: Flask) -> None:
    def wants_json() -> bool:
        return request.path.startswith("/api/") or request.mimetype == "application/json"

    @app.errorhandler(BadRequest)
    def bad_request(error: BadRequest):
        if not wants_json():  # a form: say it on the page it came from
            from web.pages import flash_error

            return flash_error(error.message)
        return jsonify({"error": error.message, "field": error.field}), error.status

    @app.errorhandler(GameError)
    def game_error(error: GameError):
        if not wants_json():
            from web.pages import flash_error

            return flash_error(str(error))
        return jsonify({"error": str(error), "field": error.field, **error.extra}), error.status

    @app.errorhandler(StoreError)
    def store_error(error: StoreError):
        return jsonify({"error": str(error), "field": None}), 507

    @app.errorhandler(RequestEntityTooLarge)
    def too_large(error: RequestEntityTooLarge):
        limit = app.config["MAX_CONTENT_LENGTH"] // 1024
        return jsonify({"error": f"the upload is too large (limit {limit} KiB)", "field": "body"}), 413

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        if wants_json():  # keep the error's own headers (405's Allow)
            headers = [(k, v) for k, v in error.get_headers() if k.lower() != "content-type"]
            return jsonify({"error": error.description, "field": None}), error.code, headers
        return error

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        log.exception("unexpected error on %s %s", request.method, request.path)
        if wants_json():
            return jsonify({"error": "internal error: the server's log says more", "field": None}), 500
        return "internal error: the server's log says more", 500


def ctx():
    return context()


def _int_id(value: int, name: str) -> int:
    if value < 1:
        raise BadRequest(f"{name} must be a positive integer", name, 404)
    return value


# ------------------------------------------------------------------------------- status and events
@bp.get("/api/status")
def status():
    c = ctx()
    live = c.live.status.as_dict() if c.live else {"state": "off", "connected": False, "message": "camera off"}
    active = c.games.active_game_id()
    return jsonify({
        "live": live,
        "active_game": active,
        "throws_not_counting": c.games.throws_not_counting(active),
        "referee_token_required": _require_token(),
        "latest_verdict": c.live.latest_verdict if c.live else None,
    })


def _require_token() -> bool:
    from flask import current_app

    return bool(current_app.config["REQUIRE_TOKEN"])


@bp.get("/api/live/frame.jpg")
def live_frame():
    live = ctx().live
    if live is None:
        raise BadRequest("the camera is off (serve with --camera or --video)", None, 404)
    return Response(live.latest_jpeg()[1], mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


# ------------------------------------------------------------------------------- calibration
@bp.get("/api/calibration")
def calibration_info():
    from web.calibrate import calibration_info as info

    return jsonify(info(ctx()))


@bp.get("/api/calibration/frame.jpg")
def calibration_frame():
    from web.calibrate import calibration_jpeg

    return Response(calibration_jpeg(ctx()), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.post("/api/calibration/solve")
def calibration_solve():
    from web.calibrate import solve

    return jsonify(solve(ctx()))


@bp.post("/api/calibration/herd-line")
def calibration_herd_line():
    from web.calibrate import set_herd_line

    body = parse_body(schemas.HerdLine)
    return jsonify(set_herd_line(ctx(), body.points_px))


@bp.post("/api/calibration/meteor")
def calibration_meteor():
    from web.calibrate import learn_meteor_colour

    body = parse_body(schemas.MeteorPick)
    return jsonify(learn_meteor_colour(ctx(), body.x, body.y))


@bp.post("/api/rig")
def upload_rig():
    """Replace the rig: a JSON body, or a rig file uploaded as the form field `rig`."""
    from calibration.rig import RigError, rig_from_dict

    if request.mimetype == "multipart/form-data":
        upload = request.files.get("rig")
        if upload is None:
            raise BadRequest("upload the rig file as the form field 'rig'", "rig")
        data = load_json(upload.read(), "rig")
    else:
        data = load_json(request.get_data(), "body")
        if not isinstance(data, dict):
            raise BadRequest("the body must be a rig as a JSON object", "body")
    try:
        rig = rig_from_dict(data, source="uploaded rig")
    except RigError as error:
        field = str(error).split(": ", 2)[1] if str(error).count(": ") >= 2 else "rig"
        raise BadRequest(str(error), field) from None
    c = ctx()
    c.rig = rig
    c.games.rig = rig
    if c.live:
        c.live.set_rig(rig)
    c.store.audit("referee", "rig uploaded", {"regions": [r.name for r in rig.box.regions]})
    return jsonify({"ok": True, "regions": [r.name for r in rig.box.regions]})


# ------------------------------------------------------------------------------- games
@bp.get("/api/games")
def list_games():
    c = ctx()
    return jsonify({"games": c.store.games(), "active": c.games.active_game_id()})


@bp.post("/api/games")
def create_game():
    body = parse_body(schemas.CreateGame)
    game_id = ctx().games.create(body, who="referee")
    return jsonify({"id": game_id, "state": ctx().games.state(game_id)}), 201


@bp.get("/api/games/<int:game_id>")
def game_state(game_id: int):
    return jsonify(ctx().games.state(game_id))


@bp.post("/api/games/<int:game_id>/activate")
def activate_game(game_id: int):
    ctx().games.activate(game_id)
    return jsonify({"active": game_id})


@bp.post("/api/games/<int:game_id>/commands")
def game_command(game_id: int):
    body = parse_body(schemas.Command)
    ctx().games.command(game_id, body.option, body.option_index, body.pending_index, body.who, body.stack_order)
    return jsonify(ctx().games.state(game_id))


@bp.post("/api/games/<int:game_id>/launch")
def manual_launch(game_id: int):
    body = parse_body(schemas.ManualLaunch)
    games = ctx().games
    games.game_row(game_id)
    launch_id = games.record_launch(body.outcome, body.dinosaur, "manual", body.who, game_id=game_id)
    return jsonify({"launch": games.launch_detail(launch_id), "state": games.state(game_id)}), 201


@bp.post("/api/games/<int:game_id>/undo")
def undo(game_id: int):
    body = parse_body(schemas.Undo)
    ctx().games.undo(game_id, body.steps, body.who)
    return jsonify(ctx().games.state(game_id))


@bp.get("/api/games/<int:game_id>/audit")
def game_audit(game_id: int):
    ctx().games.game_row(game_id)
    return jsonify({"audit": ctx().store.audit_trail(game_id=game_id)})


# ------------------------------------------------------------------------------- launches
@bp.get("/api/launches")
def list_launches():
    query = parse_query(schemas.LaunchQuery)
    games = ctx().games
    rows = ctx().store.launches(query.game_id)
    details = [games.launch_detail(row["id"]) for row in rows]
    if query.needs_review:
        details = [d for d in details if d["needs_review"]]
    return jsonify({"launches": details[-query.limit:]})


@bp.get("/api/launches/<int:launch_id>")
def launch_detail(launch_id: int):
    detail = ctx().games.launch_detail(launch_id)
    detail["audit"] = ctx().store.audit_trail(launch_id=launch_id)
    return jsonify(detail)


@bp.post("/api/launches/<int:launch_id>/dispute")
def dispute(launch_id: int):
    body = parse_body(schemas.Dispute)
    return jsonify(ctx().games.dispute(launch_id, body.reason, body.who))


@bp.post("/api/launches/<int:launch_id>/overrides")
def override(launch_id: int):
    body = parse_body(schemas.Override)
    return jsonify(ctx().games.override(launch_id, body)), 201


@bp.post("/api/launches/<int:launch_id>/confirm")
def confirm(launch_id: int):
    body = parse_body(schemas.Referral, request.get_json(silent=True) or {})
    return jsonify(ctx().games.confirm(launch_id, body.who))


@bp.post("/api/launches/<int:launch_id>/assign")
def assign(launch_id: int):
    body = parse_body(schemas.Referral, request.get_json(silent=True) or {})
    return jsonify(ctx().games.assign(launch_id, body.who))


@bp.post("/api/overrides/<int:override_id>/withdraw")
def withdraw(override_id: int):
    body = parse_body(schemas.Withdraw)
    return jsonify(ctx().games.withdraw(override_id, body.reason, body.who))


def _launch_file(launch_id: int, field: str) -> Path:
    launch = ctx().games.launch_detail(launch_id)
    if not launch.get(field):
        raise NotFound(f"launch {launch_id} has no {field.replace('_', ' ')}")
    return Path(launch[field])


@bp.get("/api/launches/<int:launch_id>/snapshot.jpg")
def snapshot(launch_id: int):
    return _data_file(str(_launch_file(launch_id, "snapshot")))


@bp.get("/api/launches/<int:launch_id>/clip.json")
def clip_info(launch_id: int):
    from web.calibrate import calibration_in_force
    from web.replay import replay_info

    c = ctx()
    launch = c.games.launch_detail(launch_id)
    if not launch.get("clip_dir"):
        raise NotFound(f"launch {launch_id} has no saved clip (yet)")
    verdict = launch.get("verdict") or {}
    return jsonify({
        "frames": launch["clip_frames"], "fps": launch["clip_fps"], "error": launch.get("clip_error"),
        "frame_url": f"/api/launches/{launch_id}/frames/{{n}}.jpg",
        "webm_url": f"/api/launches/{launch_id}/clip.webm",
        "release_frame": (verdict.get("release") or {}).get("frame"),
        "rest_frame": (verdict.get("rest") or {}).get("frame"),
        "bounce_frames": [b["frame"] for b in verdict.get("bounces", [])],
        **replay_info(launch, clip_meta(launch), calibration_in_force(c), c.rig),
    })


def clip_meta(launch: dict) -> dict:
    """The saved clip's own description (fps, frames, first frame, marks); empty if unreadable."""
    try:
        return json.loads((ctx().data_dir / launch["clip_dir"] / "clip.json").read_text())
    except (OSError, ValueError, TypeError):
        return {}


@bp.get("/api/launches/<int:launch_id>/frames/<int:number>.jpg")
def clip_frame(launch_id: int, number: int):
    folder = _launch_file(launch_id, "clip_dir")
    return _data_file(f"{folder}/{number:05d}.jpg")


@bp.get("/api/launches/<int:launch_id>/clip.webm")
def clip_webm(launch_id: int):
    """The saved clip as a VP8 WebM (made on first request from the saved frames)."""
    from web.clips import ClipError, webm_for

    c = ctx()
    folder = c.data_dir / _launch_file(launch_id, "clip_dir")
    launch = c.games.launch_detail(launch_id)
    try:
        path = webm_for(folder, launch.get("clip_fps") or 30.0)
    except ClipError as error:
        raise BadRequest(str(error), None, 500) from None
    return send_file(path, mimetype="video/webm", download_name=f"launch_{launch_id}.webm")


@bp.get("/api/launches/<int:launch_id>/clip.webm/progress")
def clip_webm_progress(launch_id: int):
    """Start making the WebM in the background (once) and say how many frames are done."""
    from web.clips import webm_progress

    c = ctx()
    folder = c.data_dir / _launch_file(launch_id, "clip_dir")
    launch = c.games.launch_detail(launch_id)
    return jsonify({**webm_progress(folder, launch.get("clip_fps") or 30.0),
                    "url": f"/api/launches/{launch_id}/clip.webm"})


@bp.get("/files/<path:name>")
def data_file(name: str):
    return _data_file(name)


def _data_file(name: str):
    """Serve a file of the data folder's clips/ or snapshots/, never anything outside it."""
    root = ctx().data_dir
    parts = name.replace("\\", "/").split("/")
    if ".." in parts or "" in parts or parts[0] not in ("clips", "snapshots") or safe_join(str(root), name) is None:
        raise NotFound("no such file in the data folder")
    path = Path(safe_join(str(root), name))
    if not path.is_file():
        raise NotFound(f"{name} is missing from the data folder (deleted, or the disk is unreadable)")
    return send_from_directory(root, name, max_age=3600)


# ------------------------------------------------------------------------------- documentation
@bp.get("/api/openapi.json")
def openapi():
    from web.openapi import describe

    return jsonify(describe())
