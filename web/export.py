"""A game's log and scores as JSON and CSV, to keep or to check in a spreadsheet.

`/api/games/<id>/export.json` holds everything (game, log, launches with their calls, scores);
`log.csv` has one row per recorded input, `scores.csv` one row per player. The Scores page shows
the same `score_rows`, so the page and the files always agree.
"""

from __future__ import annotations

import csv
import io
import json

from flask import Blueprint, Response, jsonify

from engine.types import FOOD_POINTS
from web import context

bp = Blueprint("export", __name__)

SCORE_COLUMNS = ("name", "seat", "hatchlings", "hatchling_points", "food_before_final_count", "herbivore_food",
                 "velociraptor_food", "food", "food_points", "score", "winner")
LOG_COLUMNS = ("event", "time", "who", "kind", "status", "detail")


def score_rows(state: dict) -> list[dict]:
    """One row per player, best first: each column adds up (food_before + herbivore ± velociraptor = food;
    hatchling_points + food_points = score). Before the end, only food and hatchlings are known."""
    scores = state["scores"]
    if scores is None:
        return [{"name": p["name"], "seat": p["seat"], "hatchlings": p["hatchling_count"], "food": p["food"]}
                for p in state["view"]["players"]]
    return [{
        "name": p["name"], "seat": p["seat"], "hatchlings": p["hatchlings"], "hatchling_points": p["hatchling_points"],
        "food_before_final_count": p["food"] - p["herbivore_food"] - p["velociraptor_food"],
        "herbivore_food": p["herbivore_food"], "velociraptor_food": p["velociraptor_food"], "food": p["food"],
        "food_points": FOOD_POINTS * p["food"], "score": p["score"], "winner": p["seat"] in scores["winners"],
    } for p in scores["players"]]


def _log(game_id: int) -> list[dict]:
    return [{"event": e["id"], "time": e["created"], "who": e["who"], "kind": e["kind"], "status": e["status"],
             "detail": e["payload"]} for e in context().store.events(game_id, ("applied",))]


def _launch(launch: dict) -> dict:
    verdict = launch.get("verdict") or {}
    return {"id": launch["id"], "time": launch["created"], "source": launch["source"],
            "launcher": launch.get("launcher_name"), "engine_launch": launch.get("engine_launch"),
            "machine_call": launch["machine_outcome"], "call_in_force": launch["outcome"],
            "overridden": launch["overridden"], "judge_unsure": launch["disputed"],
            "bounces_before_box": verdict.get("bounces_before_box"),
            "herd_line_signed_mm": (verdict.get("release") or {}).get("herd_line_signed_mm"),
            "overrides": [{k: o[k] for k in ("id", "action", "outcome", "reason", "who", "created", "status")}
                          for o in launch["overrides"]]}


def _csv(rows: list[dict], columns: tuple[str, ...], filename: str) -> Response:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in row.items()})
    return Response(out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/api/games/<int:game_id>/export.json")
def export_json(game_id: int):
    state = context().games.state(game_id)
    response = jsonify({
        "game": {**state["game"], "config": state["config"]}, "over": state["over"],
        "scores": score_rows(state), "winners": (state["scores"] or {}).get("winner_names"),
        "launches": [_launch(launch) for launch in state["launches"]], "log": _log(game_id),
    })
    response.headers["Content-Disposition"] = f'attachment; filename="game_{game_id}.json"'
    return response


@bp.get("/api/games/<int:game_id>/log.csv")
def export_log(game_id: int):
    context().games.game_row(game_id)
    return _csv(_log(game_id), LOG_COLUMNS, f"game_{game_id}_log.csv")


@bp.get("/api/games/<int:game_id>/scores.csv")
def export_scores(game_id: int):
    return _csv(score_rows(context().games.state(game_id)), SCORE_COLUMNS, f"game_{game_id}_scores.csv")
