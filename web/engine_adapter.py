"""The one place the dashboard talks to the rules engine (`engine.game.Game`).

It turns a dashboard game configuration into a `GameConfig` and a dealer, the engine's pending
decisions into plain JSON items with labelled options, a chosen option into the engine command
that answers it, and the game state into the view the pages render.
"""

from __future__ import annotations

import json
from typing import Any

from engine.errors import IllegalCommand
from engine.types import DINOSAUR_TYPES

__all__ = ["IllegalCommand", "DINOSAUR_TYPES", "LAUNCH_KINDS"]

LAUNCH_KINDS = frozenset({"resolve_launch"})


def new_game(config: dict) -> Any:
    """A fresh engine game from the dashboard's game configuration (see `web.schemas.CreateGame`)."""
    from pydantic import ValidationError

    from engine.config import GameConfig, Variants
    from engine.dealer import SeededDealer
    from engine.game import Game

    players = sorted(config["players"], key=lambda p: p["seat"] if p.get("seat") is not None else 99)
    try:
        engine_config = GameConfig(
            players=tuple(p["name"] for p in players),
            seed=config.get("seed"),
            hard_mode=bool(config.get("hard_mode")),
            variants=Variants(facilitated_launches=bool(config.get("facilitated_launches")),
                              two_hatchling_types=bool(config.get("hatchlings_variant"))),
            house_rules=config.get("house_rules"),
        )
    except ValidationError as error:
        raise IllegalCommand(f"bad game configuration: {error.errors()[0]['msg']}") from None
    dealer = SeededDealer(int(config.get("seed") or 0)) if config.get("dealer", "seeded") == "seeded" else None
    return Game.new(engine_config, dealer=dealer)


def is_over(game: Any) -> bool:
    return bool(game.is_over)


# ------------------------------------------------------------------------------ decisions
def _card_label(state: Any, card: str) -> str:
    try:
        spec = state.rules.card(card)
    except Exception:
        return str(card)
    icon = "" if spec.icon == "none" else f" ({spec.icon})"
    return f"{spec.dinosaur}{icon}"


def _option_label(state: Any, kind: str, option: Any, detail: dict) -> str:
    if kind in ("select_dinosaur", "discard_dinosaur", "reveal_herd_card", "deal_hand"):
        return _card_label(state, option)
    if kind == "reveal_wave_tokens":
        try:
            return f"{state.rules.data.face(option)} token"
        except Exception:
            return str(option)
    if kind == "choose_ocean_level":
        return f"level {option}"
    if kind == "take_hatchlings":
        key = "+".join(option) or "egg_icon"
        gets = (detail.get("hatchlings") or {}).get(key)
        name = " + ".join(option) if option else "take them (Egg icon)"
        return f"{name} → {gets} hatchling{'s' if gets != 1 else ''}" if gets is not None else name
    if kind == "choose_bolide_launch":
        return "take the Bolide's extra launch" if option else "decline it"
    if kind == "choose_herd_discards":
        place = state.herd.index(option) + 1 if option in state.herd else None
        return f"{_card_label(state, option)} · Herd place {place} from the deck"
    return str(option)


def pending(game: Any) -> list[dict]:
    """What the game waits for, as JSON: actor, kind, seat, prompt, count, options and their labels.

    With a table dealer, cards that look alike (same dinosaur and icon) are offered once.
    """
    state = game.state
    items = []
    for item in game.pending():
        options = [_jsonable(o) for o in item.options]
        labels = [_option_label(state, item.kind, o, item.detail) for o in options]
        if item.actor == "dealer" and item.count == 1:
            seen: dict[str, Any] = {}
            for option, label in zip(options, labels, strict=True):
                seen.setdefault(label, option)
            labels, options = list(seen), list(seen.values())
        seat = item.seat
        items.append({
            "actor": item.actor, "kind": item.kind, "seat": seat,
            "seat_name": state.players[seat].name if seat is not None and seat < len(state.players) else None,
            "prompt": item.prompt, "count": item.count, "options": options, "labels": labels,
            "default": _jsonable(item.default), "detail": _jsonable(item.detail),
        })
    return items


def option_command(item: dict, option: Any, stack_order: list[str] | None = None) -> dict:
    """The engine command answering pending `item` with `option` (a list of picks when count > 1);
    `stack_order` (take_hatchlings only) orders the new Hatchlings, top of the pile first."""
    kind, seat = item["kind"], item["seat"]
    if item["count"] > 1 and not isinstance(option, list):
        raise IllegalCommand(f"choose {item['count']} options")
    if kind == "select_dinosaur":
        return {"kind": kind, "seat": seat, "card": option}
    if kind == "discard_dinosaur":
        return {"kind": kind, "seat": seat, "card": option}
    if kind == "choose_ocean_level":
        return {"kind": kind, "seat": seat, "level": option}
    if kind == "take_hatchlings":
        return {"kind": kind, "seat": seat, "types": list(option or []), "stack_order": list(stack_order or [])}
    if kind == "choose_bolide_launch":
        return {"kind": kind, "seat": seat, "take": option}
    if kind == "choose_herd_discards":
        return {"kind": kind, "seat": seat, "cards": option if isinstance(option, list) else [option]}
    if kind == "deal_hand":
        return {"kind": kind, "seat": seat, "cards": option if isinstance(option, list) else [option]}
    if kind == "reveal_herd_card":
        return {"kind": kind, "card": option}
    if kind == "reveal_wave_tokens":
        return {"kind": kind, "tokens": option if isinstance(option, list) else [option]}
    if kind == "resolve_launch":
        return {"kind": kind, "outcome": option}
    raise IllegalCommand(f"unknown decision {kind!r}")


WAITING_WORDS = {
    "select_dinosaur": "{name} to choose a dinosaur",
    "discard_dinosaur": "{name} to discard a dinosaur",
    "choose_ocean_level": "{name}'s ocean level",
    "take_hatchlings": "{name} to take hatchlings",
    "deal_hand": "the dealer to deal {name}'s hand",
    "reveal_herd_card": "the dealer to reveal a Herd card",
    "reveal_wave_tokens": "the dealer to reveal the wave tokens",
    "resolve_launch": "a launch",
    "choose_bolide_launch": "{name} to take or decline the Bolide's extra launch",
    "choose_herd_discards": "{name} to choose the Herd cards to discard",
}


def waiting_for(game: Any) -> str:
    """What the game waits for, in plain words ("Ben's ocean level"); "nothing" when it is over."""
    items = pending(game)
    if not items:
        return "nothing (the game is over)"
    item = items[0]
    words = WAITING_WORDS.get(item["kind"])
    return words.format(name=item["seat_name"] or "a player") if words else item["prompt"]


RESOLUTION_KINDS = frozenset({"launch_resolved", "launch_amended"})


def resolutions(game: Any) -> list[dict]:
    """Every launch verdict input of the engine's log, in order, as {"counted", "launch_index", "outcome",
    "dinosaur"}: counted when applied, not when an amendment made it illegal (kept as `input_skipped`)."""
    entries = []
    for event in game.events:
        skipped = event.kind == "input_skipped"
        verdict = event.event if skipped else event
        if verdict.kind in RESOLUTION_KINDS:
            entries.append({"counted": not skipped, "launch_index": verdict.launch_index,
                            "outcome": verdict.outcome, "dinosaur": verdict.dinosaur})
    return entries


def apply_command(game: Any, command: dict, replaying: bool = False) -> None:
    """Apply a decision; `replaying` a recorded one also answers, at their defaults, choices the
    engine did not offer when it was recorded (the Bolide launch, the Herd discards)."""
    game.apply(command, defaults=replaying)


def open_cases() -> list[dict]:
    """The rulebook's open cases for the New game form: name, readings (default first), description."""
    from typing import get_args

    from engine.data import OpenCases

    return [
        {"name": name, "readings": list(get_args(field.annotation)), "default": field.default,
         "description": field.description}
        for name, field in OpenCases.model_fields.items()
    ]


def house_rules(game: Any) -> list[dict]:
    """How this game reads each open case, and whether that is the data file's default reading."""
    rules = game.state.rules
    chosen, defaults = rules.open_cases, rules.data.open_cases
    return [{**case, "reading": getattr(chosen, case["name"]),
             "house_rule": getattr(chosen, case["name"]) != getattr(defaults, case["name"])}
            for case in open_cases()]


def resolve_launch(game: Any, outcome: str, dinosaur: str | None) -> None:
    launch = game.state.launch
    game.apply({"kind": "resolve_launch", "outcome": outcome, "dinosaur": dinosaur if outcome == "dinosaur" else None,
                "launch_index": launch.index if launch is not None else None})


def amend_launch(game: Any, launch_index: int, outcome: str, dinosaur: str | None) -> None:
    game.amend_launch(launch_index, outcome, dinosaur if outcome == "dinosaur" else None)


def undo(game: Any, steps: int) -> None:
    game.undo(steps)


# ------------------------------------------------------------------------------ views
def current_launch(game: Any) -> dict | None:
    launch = game.state.launch
    if launch is None:
        return None
    mode = launch.mode
    return {
        "index": launch.index,
        "launcher": launch.launcher,
        "launcher_name": game.state.players[launch.launcher].name,
        "bolide": launch.bolide,
        "stage": launch.stage,
        "dinosaur": mode.dinosaur if mode else None,
        "difficulty": mode.difficulty if mode else None,
        "instructions": mode.instructions if mode else "",
        "min_bounces": mode.min_bounces if mode else 1,
        "bounces_needed": mode.min_bounces if mode else 1,
        "launch_mode": mode.judge_mode if mode else "standard",
        "judge_mode": mode.judge_mode if mode else "standard",
        "ocean_level": launch.ocean_level,
        "outcome": launch.outcome,
    }


def _card(state: Any, card: str) -> dict:
    try:
        spec = state.rules.card(card)
        return {"card": card, "dinosaur": spec.dinosaur, "icon": spec.icon}
    except Exception:
        return {"card": card, "dinosaur": str(card), "icon": "none"}


def view(game: Any) -> dict:
    """The table as the Game page shows it."""
    state = game.state
    players = []
    for p in state.players:
        players.append({
            "seat": p.seat, "name": p.name,
            "dinosaurs": [_card(state, c) for c in p.in_front],
            "hand_count": len(p.hand), "selected": p.selected is not None,
            "played": _card(state, p.played) if p.played and state.phase not in ("selection",) else None,
            "hatchlings": list(p.hatchlings), "hatchling_top": p.top_hatchling,
            "hatchling_count": len(p.hatchlings), "food": p.food,
        })
    return {
        "phase": state.phase, "era": state.era, "turn": state.turn, "ocean_level": state.ocean_level,
        "bolide": state.bolide, "bolide_name": state.players[state.bolide].name,
        "players": players,
        "herd": [_card(state, c) for c in state.herd],
        "deck_count": len(state.deck), "food_supply": state.food_supply,
        "launch": current_launch(game),
        "launch_count": state.launch_count,
    }


def scores(game: Any) -> dict | None:
    result = game.result
    if result is None:
        return None
    names = [p.name for p in game.state.players]
    players = [{**r.model_dump(mode="json"), "name": names[r.seat]} for r in result.players]
    players.sort(key=lambda r: (-r["score"], -r["food"]))
    return {"players": players, "winners": list(result.winners), "winner_names": [names[s] for s in result.winners]}


def launch_records(game: Any) -> list[dict]:
    """Every launch of the game as the engine's log tells it, with the type of its revealed card."""
    records = []
    for record in game.launches():
        data = json.loads(record.model_dump_json())
        data["card_dinosaur"] = _card(game.state, record.card)["dinosaur"] if record.card else None
        data["launcher_name"] = game.state.players[record.launcher].name
        records.append(data)
    return records


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return value
