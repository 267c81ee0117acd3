"""`meteors-judge simulate`: a whole seeded game, readable or as JSON."""

from __future__ import annotations

import argparse
import json

import pytest

from cli import simulate
from cli.errors import UserError
from cli.main import main


def run_json(capsys: pytest.CaptureFixture[str], players: int, seed: int) -> dict:
    assert main(["simulate", "--players", str(players), "--seed", str(seed), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_json_summary_has_exactly_players_winners_events(capsys, players: int) -> None:
    summary = run_json(capsys, players, 7)
    assert set(summary) == {"players", "winners", "events"}
    assert [player["seat"] for player in summary["players"]] == list(range(players))
    assert all(set(player) == {"seat", "score", "food", "hatchlings"} for player in summary["players"])
    assert summary["winners"] and summary["events"] > 0


def test_same_seed_same_game(capsys) -> None:
    assert run_json(capsys, 4, 21) == run_json(capsys, 4, 21)


def test_readable_log_shows_every_phase_and_final_scores(capsys) -> None:
    assert main(["simulate", "--players", "3", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    for text in (
        "== Era 1, turn 1 ==",
        "== Era 2, turn 3 ==",
        "Dinosaur selection:",
        "Meteor phase",
        "Egg phase",
        "Final scores",
        "Winner",
    ):
        assert text in out


@pytest.mark.parametrize("players", [1, 6])
def test_bad_player_count_is_a_user_error(capsys, players: int) -> None:
    with pytest.raises(UserError, match="between 2 and 5"):
        simulate.run(argparse.Namespace(players=players, seed=0, json=True, hard=False, house_rule=[]))
    assert main(["simulate", "--players", str(players)]) == 2
    assert "--players must be between 2 and 5" in capsys.readouterr().err


def test_house_rules_change_the_simulated_game(capsys) -> None:
    """Seed 26 with 5 players: the Food supply runs out, so unlimited Food changes the scores."""
    args = ["simulate", "--players", "5", "--seed", "26", "--json"]
    assert main(args) == 0
    limited = json.loads(capsys.readouterr().out)
    assert main([*args, "--house-rule", "food_supply=unlimited"]) == 0
    unlimited = json.loads(capsys.readouterr().out)
    assert limited != unlimited
    assert sum(p["food"] for p in unlimited["players"]) > sum(p["food"] for p in limited["players"])


@pytest.mark.parametrize(("rule", "problem"), [("food_supply=endless", "food_supply"), ("colour=red", "colour")])
def test_a_bad_house_rule_is_a_user_error(capsys, rule: str, problem: str) -> None:
    assert main(["simulate", "--players", "2", "--house-rule", rule]) == 2
    assert f"--house-rule {problem}" in capsys.readouterr().err
