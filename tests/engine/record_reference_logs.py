"""Records the reference game logs `test_replay_compatibility.py` replays (run once, on the old engine).

`tests/engine/data/reference_logs.json.gz` was made by this script at commit e9ad86f, before the
engine offered the Bolide launch, the Herd discards and free pile orders as decisions: seeded random
games of 2 to 5 players with every variant mix, a third of them with launch verdicts amended after
the game. Running it again on a later engine records that engine's games instead (not a reference).

    .venv/bin/python -m tests.engine.record_reference_logs tests/engine/data/reference_logs.json.gz
"""

from __future__ import annotations

import gzip
import json
import random
import sys

from engine import GameConfig, Variants
from engine.simulation import DEFAULT_NAMES, play_random_game
from engine.types import DINOSAUR_TYPES, OUTCOMES


def reference_games(count: int) -> list[dict]:
    games = []
    for number in range(count):
        rng = random.Random(f"reference/{number}")
        players = 2 + number % 4
        config = GameConfig(
            players=DEFAULT_NAMES[:players],
            seed=1000 + number,
            first_player=rng.randrange(players),
            hard_mode=rng.random() < 0.3,
            variants=Variants(facilitated_launches=rng.random() < 0.2, two_hatchling_types=rng.random() < 0.3),
        )
        game = play_random_game(config)
        played = game.to_json()
        amendments = []
        if number % 3 == 0:
            for _ in range(2):
                index = rng.randrange(game.state.launch_count)
                outcome = rng.choice(OUTCOMES)
                dinosaur = rng.choice(DINOSAUR_TYPES) if outcome == "dinosaur" else None
                game.amend_launch(index, outcome, dinosaur)
                amendments.append({"launch_index": index, "outcome": outcome, "dinosaur": dinosaur})
        games.append({"played": json.loads(played), "amendments": amendments, "final": json.loads(game.to_json())})
    return games


if __name__ == "__main__":
    with gzip.open(sys.argv[1], "wt", encoding="utf-8") as out:
        json.dump(reference_games(60), out, separators=(",", ":"))
