"""`meteors-judge simulate`: play one whole seeded game with random legal choices."""

from __future__ import annotations

import argparse
import json

from pydantic import ValidationError

from cli.errors import UserError
from engine.data import OpenCases
from engine.types import MAX_PLAYERS, MIN_PLAYERS


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=int, default=3, help=f"number of players, {MIN_PLAYERS}..{MAX_PLAYERS}")
    parser.add_argument("--seed", type=int, default=0, help="the game's seed: the same seed plays the same game")
    parser.add_argument("--hard", action="store_true", help="hard launch modes in Era II")
    parser.add_argument(
        "--house-rule",
        action="append",
        default=[],
        metavar="CASE=READING",
        help="decide an open case of the rulebook the other way, e.g. food_supply=unlimited (repeatable; "
        "see the README's rules section)",
    )
    parser.add_argument("--json", action="store_true", help="print only the final scores as JSON")


def house_rules(pairs: list[str]) -> OpenCases | None:
    """`CASE=READING` pairs as the game's house rules (None: the data file's readings)."""
    if not pairs:
        return None
    chosen = dict(pair.split("=", 1) if "=" in pair else (pair, "") for pair in pairs)
    try:
        return OpenCases(**chosen)
    except ValidationError as error:
        problem = error.errors()[0]
        case = ".".join(str(part) for part in problem["loc"])
        raise UserError(f"--house-rule {case}: {problem['msg']}") from None


def run(args: argparse.Namespace) -> int:
    from engine.narration import narrate
    from engine.phases import apply_event
    from engine.simulation import default_config, play_random_game

    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise UserError(f"--players must be between {MIN_PLAYERS} and {MAX_PLAYERS}, got {args.players}")
    rules = house_rules(args.house_rule)
    game = play_random_game(default_config(args.players, args.seed, hard_mode=args.hard, house_rules=rules))
    result = game.result
    assert result is not None
    if args.json:
        summary = {
            "players": [
                {"seat": player.seat, "score": player.score, "food": player.food, "hatchlings": player.hatchlings}
                for player in result.players
            ],
            "winners": list(result.winners),
            "events": len(game.events),
        }
        print(json.dumps(summary))
        return 0
    state = None
    for event in game.events:
        state = apply_event(state, event)
        line = narrate(state, event)
        if line is not None:
            print(line)
    print("== Final scores ==")
    names = game.state.rules.config.players
    for player in result.players:
        print(
            f"  {names[player.seat]:<8} {player.score:>3} points: {player.hatchling_points} from "
            f"{player.hatchlings} hatchlings + {player.food} Food x4 "
            f"(herbivore groups +{player.herbivore_food}, velociraptors {player.velociraptor_food:+d})"
        )
    print("Winner(s): " + ", ".join(names[seat] for seat in result.winners))
    return 0
