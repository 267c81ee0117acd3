"""The HTML pages: Live, Game, Launches (with replay and overrides), Calibration, Final scores, Referee.

Forms post here (CSRF-protected) and redirect back; live parts of the pages use the JSON API and the
Server-Sent Events stream from `static/app.js`.
"""

from __future__ import annotations

import json

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, session, url_for
from pydantic import ValidationError

from web import context, schemas, words
from web.api import BadRequest, load_json, parse_body
from web.games import GameError
from web.limits import MAX_ROW_ID
from web.security import end_referee_session, start_referee_session, token_matches

bp = Blueprint("pages", __name__)
bp.record_once(lambda state: words.register(state.app))


def flash_error(message: str):
    flash(message, "error")
    return redirect(request.referrer or url_for("pages.game"))


@bp.app_context_processor
def _globals():
    c = context()
    return {"active_game": c.games.active_game_id(), "camera_on": c.live is not None,
            "token_required": current_app.config["REQUIRE_TOKEN"]}


def _form_body(model, **overrides):
    data = {k: v for k, v in request.form.items() if k not in ("csrf_token", "token") and v != ""}
    data.update(overrides)
    try:
        return model.model_validate(data)
    except ValidationError as error:
        from web.api import _validation_error

        raise _validation_error(error) from None


@bp.get("/")
def index():
    return redirect(url_for("pages.live"))


@bp.get("/live")
def live():
    c = context()
    judged = [row for row in c.store.launches() if row["source"] == "judge"]
    latest = c.games.launch_detail(judged[-1]["id"]) if judged else None
    judge_log, last_event_id = c.hub.history("judge")
    active = c.games.active_game_id()
    held = c.games.held_by(active) if active is not None else None
    return render_template("live.html", latest=latest, status=c.live.status.as_dict() if c.live else None,
                           judge_log=judge_log, last_event_id=last_event_id,
                           throws_not_counting=c.games.throws_not_counting(active), held_by=(held or {}).get("id"))


@bp.get("/launches/<int:launch_id>/card")
def verdict_card(launch_id: int):
    """The verdict card alone (the Live page swaps it in when a verdict arrives)."""
    try:
        launch = context().games.launch_detail(launch_id)
    except GameError:
        abort(404)
    return render_template("verdict_card.html", launch=launch)


# ------------------------------------------------------------------------------- game
@bp.get("/game")
def game():
    game_id = context().games.active_game_id()
    if game_id is None:
        return redirect(url_for("pages.new_game"))
    return redirect(url_for("pages.game_page", game_id=game_id))


@bp.get("/game/new")
def new_game():
    from web.engine_adapter import open_cases

    return render_template("game_new.html", games=context().store.games(), open_cases=open_cases())


@bp.post("/game/new")
def create_game():
    names = [n.strip() for n in request.form.getlist("player") if n.strip()]
    seats = request.form.getlist("seat")
    players = []
    for i, name in enumerate(names):
        seat = seats[i] if i < len(seats) and seats[i] != "" else None
        players.append({"name": name, "seat": int(seat) if seat is not None and seat.isdigit() else seat})
    if seats and any(p["seat"] is not None for p in players):
        players.sort(key=lambda p: p["seat"] if isinstance(p["seat"], int) else 99)
    seed = request.form.get("seed", "").strip()
    data = {
        "name": request.form.get("name") or "Game night",
        "players": players,
        "hard_mode": "hard_mode" in request.form,
        "facilitated_launches": "facilitated_launches" in request.form,
        "hatchlings_variant": "hatchlings_variant" in request.form,
        "house_rules": {key.removeprefix("house_rule."): value for key, value in request.form.items()
                        if key.startswith("house_rule.")} or None,
        "dealer": request.form.get("dealer", "seeded"),
        "seed": int(seed) if seed.isdigit() else (seed or None),
        "autoplay": "autoplay" in request.form,
        "review_disputed": "review_disputed" in request.form,
    }
    body = parse_body(schemas.CreateGame, data)
    game_id = context().games.create(body, who="referee")
    return redirect(url_for("pages.game_page", game_id=game_id))


@bp.get("/game/<int:game_id>")
def game_page(game_id: int):
    c = context()
    try:
        state = c.games.state(game_id)
    except GameError:
        abort(404)
    if state["over"] and request.args.get("stay") is None and not state["pending"]:
        pass
    return render_template("game.html", state=state, game_id=game_id, regions=c.games.region_names(),
                           dinosaurs=_dinosaurs(), json=json)


def _dinosaurs() -> list[str]:
    from calibration.rig import DINOSAUR_TYPES

    return list(DINOSAUR_TYPES)


@bp.post("/game/<int:game_id>/decide")
def decide(game_id: int):
    pending_index = request.form.get("pending_index") or 0  # checked by the Command model
    picks = request.form.getlist("pick")
    order = [name.strip() for name in request.form.get("stack_order", "").split(",") if name.strip()]
    if picks:
        option = [load_json(p, "pick") for p in picks]
    else:
        raw = request.form.get("option")
        if raw is None:
            raise BadRequest("choose an option", "option")
        option = load_json(raw, "option")
    body = parse_body(schemas.Command, {"option": option, "pending_index": pending_index,
                                        "stack_order": order or None})
    context().games.command(game_id, body.option, None, body.pending_index, "referee", body.stack_order)
    return redirect(url_for("pages.game_page", game_id=game_id))


@bp.post("/game/<int:game_id>/launch")
def manual_launch(game_id: int):
    body = _form_body(schemas.ManualLaunch)
    context().games.record_launch(body.outcome, body.dinosaur, "manual", body.who, game_id=game_id)
    return redirect(url_for("pages.game_page", game_id=game_id))


@bp.post("/game/<int:game_id>/undo")
def undo(game_id: int):
    body = _form_body(schemas.Undo)
    context().games.undo(game_id, body.steps, body.who)
    return redirect(url_for("pages.game_page", game_id=game_id))


@bp.post("/game/<int:game_id>/activate")
def activate(game_id: int):
    context().games.activate(game_id)
    return redirect(url_for("pages.game_page", game_id=game_id))


@bp.get("/game/<int:game_id>/scores")
def scores(game_id: int):
    c = context()
    try:
        state = c.games.state(game_id)
    except GameError:
        abort(404)
    from engine.types import FOOD_POINTS
    from web.export import score_rows

    return render_template("scores.html", state=state, game_id=game_id, food_points=FOOD_POINTS,
                           rows=score_rows(state),
                           end_reason=words.end_reason(state["view"]) if state["over"] else None)


# ------------------------------------------------------------------------------- launches
@bp.get("/launches")
def launches():
    c = context()
    game_id = request.args.get("game_id", type=int)
    if game_id is not None and not 1 <= game_id <= MAX_ROW_ID:
        abort(404)  # no such game (and no id SQLite could even hold)
    game_id = game_id or c.games.active_game_id()
    rows = c.store.launches(game_id if request.args.get("all") is None else None)
    items = [c.games.launch_detail(row["id"]) for row in rows]
    review = request.args.get("review") is not None
    waiting = [item for item in items if item["needs_review"]]
    return render_template("launches.html", launches=list(reversed(waiting if review else items)), game_id=game_id,
                           review=review, review_count=len(waiting))


@bp.get("/launches/<int:launch_id>")
def launch_page(launch_id: int):
    return _launch_page(launch_id)


def _launch_page(launch_id: int, **extra):
    c = context()
    try:
        launch = c.games.launch_detail(launch_id)
    except GameError:
        abort(404)
    audit = c.store.audit_trail(launch_id=launch_id)
    return render_template("launch.html", launch=launch, audit=audit, regions=c.games.region_names(),
                           dinosaurs=_dinosaurs(), replay=_replay(launch), mode=_launch_mode(launch), **extra)


def _replay(launch: dict) -> dict | None:
    """The replay's key frames and marks (None without a saved clip)."""
    from web.api import clip_meta
    from web.calibrate import calibration_in_force
    from web.replay import replay_info

    if not launch.get("clip_dir"):
        return None
    c = context()
    return replay_info(launch, clip_meta(launch), calibration_in_force(c), c.rig)


def _launch_mode(launch: dict) -> dict | None:
    """The launch mode the game gave this launch (card, difficulty, bounces needed), from the engine's log."""
    from web import engine_adapter as engine

    if launch.get("game_id") is None or launch.get("engine_launch") is None:
        return None
    records = engine.launch_records(context().games.engine_game(launch["game_id"]))
    record = next((r for r in records if r["index"] == launch["engine_launch"]), None)
    return (record or {}).get("mode")


@bp.post("/launches/<int:launch_id>/override")
def override(launch_id: int):
    """Overrule from the launch page; an earlier launch's overrule first shows its preview and asks."""
    data = {k: v for k, v in request.form.items() if k not in ("csrf_token", "token") and v != ""}
    for key in ("herd_line_ok", "valid", "confirm"):
        if key in data:
            data[key] = {"yes": True, "no": False, "true": True}.get(data[key], data[key])
    body = parse_body(schemas.Override, data)
    try:
        context().games.override(launch_id, body)
    except GameError as error:
        if "preview" not in error.extra:
            raise
        form = {k: v for k, v in request.form.items() if k not in ("csrf_token", "confirm")}
        return _launch_page(launch_id, preview=error.extra["preview"], preview_form=form), 409
    return redirect(url_for("pages.launch_page", launch_id=launch_id))


@bp.post("/launches/<int:launch_id>/confirm")
def confirm(launch_id: int):
    body = _form_body(schemas.Referral)
    context().games.confirm(launch_id, body.who)
    return redirect(request.referrer or url_for("pages.launch_page", launch_id=launch_id))


@bp.post("/launches/<int:launch_id>/assign")
def assign(launch_id: int):
    body = _form_body(schemas.Referral)
    context().games.assign(launch_id, body.who)
    return redirect(request.referrer or url_for("pages.launch_page", launch_id=launch_id))


@bp.post("/overrides/<int:override_id>/withdraw")
def withdraw(override_id: int):
    body = _form_body(schemas.Withdraw)
    detail = context().games.withdraw(override_id, body.reason, body.who)
    return redirect(url_for("pages.launch_page", launch_id=detail["id"]))


@bp.post("/launches/<int:launch_id>/dispute")
def dispute(launch_id: int):
    body = _form_body(schemas.Dispute)
    context().games.dispute(launch_id, body.reason, body.who)
    return redirect(url_for("pages.launch_page", launch_id=launch_id))


# ------------------------------------------------------------------------------- calibration, referee
@bp.get("/calibration")
def calibration():
    from web.calibrate import calibration_info

    return render_template("calibration.html", info=calibration_info(context()))


@bp.get("/referee")
def referee():
    return render_template("referee.html")


@bp.post("/referee")
def referee_login():
    sent = request.form.get("csrf_token")
    if not sent or sent != session.get("csrf"):
        return flash_error("missing or bad CSRF token: reload the page and try again")
    if current_app.config["REQUIRE_TOKEN"] and not token_matches(request.form.get("token")):
        flash("wrong referee token", "error")
        return redirect(url_for("pages.referee"))
    start_referee_session()
    flash("you are the referee on this device", "ok")
    return redirect(url_for("pages.live"))


@bp.post("/referee/logout")
def referee_logout():
    end_referee_session()
    flash("signed out: this device only watches now", "ok")
    return redirect(url_for("pages.referee"))


@bp.get("/api-docs")
def api_docs():
    from web.openapi import describe

    return render_template("api_docs.html", spec=describe())
