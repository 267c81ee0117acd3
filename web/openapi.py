"""The OpenAPI 3.1 description of the JSON API, built from the pydantic models that validate it."""

from __future__ import annotations

from typing import Any

from web import schemas
from web.limits import MAX_ROW_ID

ERROR = {"$ref": "#/components/schemas/Error"}


def _body(model: type) -> dict:
    schema = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _query(model: type) -> list[dict]:
    schema = model.model_json_schema()
    return [{"name": name, "in": "query", "required": False, "schema": prop, "description": prop.get("description", "")}
            for name, prop in schema["properties"].items()]


def _path(name: str) -> dict:
    return {"name": name, "in": "path", "required": True,
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_ROW_ID}}


def _op(summary: str, body: type | None = None, query: type | None = None, params: tuple[str, ...] = (),
        content: str = "application/json", changes: bool = False) -> dict:
    op: dict[str, Any] = {"summary": summary, "responses": {
        "200": {"description": "OK", "content": {content: {}}},
        "400": {"description": "invalid body or query; `field` names the bad field",
                "content": {"application/json": {"schema": ERROR}}},
        "404": {"description": "not found", "content": {"application/json": {"schema": ERROR}}},
    }}
    if changes:
        op["responses"]["403"] = {"description": "referee token missing (served off loopback), a Host that is not "
                                  "this server's, another site's Origin, or a bad CSRF token",
                                  "content": {"application/json": {"schema": ERROR}}}
        op["responses"]["409"] = {"description": "refused by the rules or by the current state",
                                  "content": {"application/json": {"schema": ERROR}}}
        op["security"] = [{"refereeToken": []}, {}]
    if body is not None:
        op["requestBody"] = _body(body)
        op["responses"]["413"] = {"description": "the body is larger than 64 KiB",
                                  "content": {"application/json": {"schema": ERROR}}}
    if content in ("text/event-stream", "multipart/x-mixed-replace"):
        op["responses"]["503"] = {"description": "too many streams open (Retry-After says when to try again)",
                                  "content": {"application/json": {"schema": ERROR}}}
    parameters = [_path(p) for p in params] + (_query(query) if query else [])
    if parameters:
        op["parameters"] = parameters
    return op


def _overrule() -> dict:
    op = _op("overrule the call (the engine amends and replays)", schemas.Override, params=("launch_id",),
             changes=True)
    op["responses"]["201"] = op["responses"].pop("200") | {"description": "the launch with its new call"}
    op["responses"]["409"]["description"] = (
        "refused: the launch does not count, or (without confirm: true) it is not the game's latest counted "
        "launch; then `preview` says per player food, herd and hatchlings before -> after, the launches that "
        "would stop counting, and for a game with real cards what cannot be redone")
    return op


MODELS = (schemas.CreateGame, schemas.Command, schemas.ManualLaunch, schemas.Undo, schemas.Override,
          schemas.Withdraw, schemas.Dispute, schemas.Referral, schemas.HerdLine, schemas.MeteorPick)


def describe() -> dict:
    components: dict[str, Any] = {
        "Error": {"type": "object", "properties": {"error": {"type": "string"},
                                                    "field": {"type": ["string", "null"]}}},
    }
    for model in MODELS:
        schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
        for name, definition in schema.pop("$defs", {}).items():
            components[name] = definition
        components[model.__name__] = schema
    paths = {
        "/api/openapi.json": {"get": _op("this description")},
        "/api/status": {"get": _op("live judge status, active game and latest verdict")},
        "/api/events": {"get": _op("Server-Sent Events: status, judge, verdict, launch, clip, game, dispute",
                                   query=schemas.EventsQuery, content="text/event-stream")},
        "/api/live/stream.mjpg": {"get": _op("MJPEG stream of the camera with the judge's overlay",
                                             query=schemas.StreamQuery, content="multipart/x-mixed-replace")},
        "/api/live/frame.jpg": {"get": _op("latest annotated frame", content="image/jpeg")},
        "/api/calibration": {"get": _op("calibration figures, markers seen and missing, warnings")},
        "/api/calibration/frame.jpg": {"get": _op("latest frame with markers, regions and herd line drawn",
                                                  content="image/jpeg")},
        "/api/calibration/solve": {"post": _op("recalibrate from the latest frame", changes=True)},
        "/api/calibration/herd-line": {"post": _op("set the herd line from two clicked pixels", schemas.HerdLine,
                                                   changes=True)},
        "/api/calibration/meteor": {"post": _op("learn the meteor's colour at a clicked pixel", schemas.MeteorPick,
                                                changes=True)},
        "/api/rig": {"post": _op("replace the rig (JSON body, or multipart field 'rig'; size-limited)",
                                 changes=True)},
        "/api/games": {"get": _op("all games"), "post": _op("create a game", schemas.CreateGame, changes=True)},
        "/api/games/{game_id}": {"get": _op("a game's state: view, pending decisions, launches, scores",
                                            params=("game_id",))},
        "/api/games/{game_id}/activate": {"post": _op("make the game the one the judge feeds", params=("game_id",),
                                                      changes=True)},
        "/api/games/{game_id}/commands": {"post": _op("answer a pending decision", schemas.Command,
                                                      params=("game_id",), changes=True)},
        "/api/games/{game_id}/launch": {"post": _op("enter the current launch's outcome by hand", schemas.ManualLaunch,
                                                    params=("game_id",), changes=True)},
        "/api/games/{game_id}/undo": {"post": _op("undo inputs", schemas.Undo, params=("game_id",), changes=True)},
        "/api/games/{game_id}/audit": {"get": _op("the game's audit trail", params=("game_id",))},
        "/api/games/{game_id}/export.json": {"get": _op("the game, its log, launches and scores (a download)",
                                                        params=("game_id",))},
        "/api/games/{game_id}/log.csv": {"get": _op("the game's log, one row per recorded input (CSV)",
                                                    params=("game_id",))},
        "/api/games/{game_id}/scores.csv": {"get": _op("the scores, one row per player (CSV)", params=("game_id",))},
        "/api/launches": {"get": _op("launches with verdicts, overrides and the call in force",
                                     query=schemas.LaunchQuery)},
        "/api/launches/{launch_id}": {"get": _op("one launch with its audit trail", params=("launch_id",))},
        "/api/launches/{launch_id}/dispute": {"post": _op("flag the call as disputed", schemas.Dispute,
                                                          params=("launch_id",), changes=True)},
        "/api/launches/{launch_id}/overrides": {"post": _overrule()},
        "/api/launches/{launch_id}/confirm": {"post": _op("confirm a disputed call the game is held for",
                                                          schemas.Referral, params=("launch_id",), changes=True)},
        "/api/launches/{launch_id}/assign": {"post": _op("make a throw that did not count the outcome of the launch "
                                                         "the game waits for", schemas.Referral, params=("launch_id",),
                                                         changes=True)},
        "/api/overrides/{override_id}/withdraw": {"post": _op("withdraw an override", schemas.Withdraw,
                                                              params=("override_id",), changes=True)},
        "/api/launches/{launch_id}/snapshot.jpg": {"get": _op("the verdict's snapshot", params=("launch_id",),
                                                              content="image/jpeg")},
        "/api/launches/{launch_id}/clip.json": {"get": _op(
            "the saved clip's frames and fps, its key frames (hold, release, bounces, box entry, rest) and the "
            "judge's marks in pixels", params=("launch_id",))},
        "/api/launches/{launch_id}/frames/{n}.jpg": {"get": _op("one frame of the saved clip",
                                                                params=("launch_id", "n"), content="image/jpeg")},
        "/api/launches/{launch_id}/clip.webm/progress": {"get": _op(
            "make the WebM in the background (once): state making / ready / error, frames done and in all",
            params=("launch_id",))},
        "/api/launches/{launch_id}/clip.webm": {"get": _op("the saved clip as VP8 WebM", params=("launch_id",),
                                                           content="video/webm")},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Meteors Judge dashboard API", "version": "1",
                 "description": "Live judging, the game, launches and overrides. Reading needs nothing; when "
                                "served off loopback every change needs the referee token (X-Referee-Token). "
                                "Bodies are JSON (Content-Type: application/json)."},
        "paths": paths,
        "components": {"schemas": components, "securitySchemes": {
            "refereeToken": {"type": "apiKey", "in": "header", "name": "X-Referee-Token"}}},
    }
