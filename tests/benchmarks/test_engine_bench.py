"""Benchmark (not a timed test): random whole games per second.

Runs once as a plain test under the default `--benchmark-disable`; measure with
`pytest tests/benchmarks/test_engine_bench.py --benchmark-enable` (games/s = 1 / mean).
"""

from __future__ import annotations

import itertools

import pytest

from engine.simulation import default_config, play_random_game


@pytest.mark.parametrize("players", [3, 5])
def test_random_whole_games(benchmark, players: int) -> None:
    seeds = itertools.count()

    def one_game() -> int:
        game = play_random_game(default_config(players, next(seeds)))
        assert game.is_over
        return len(game.events)

    events = benchmark(one_game)
    assert events > 0
