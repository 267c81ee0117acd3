"""Random legal play: every decision drawn from a seeded generator, chance from a `SeededDealer`.

Used by `meteors-judge simulate`, the property tests and the benchmark. The same seed gives the
same game.
"""

from __future__ import annotations

import random

from engine.commands import (
    ChooseBolideLaunch,
    ChooseHerdDiscards,
    ChooseOceanLevel,
    Command,
    DiscardDinosaur,
    ResolveLaunch,
    SelectDinosaur,
    TakeHatchlings,
)
from engine.config import GameConfig
from engine.dealer import SeededDealer
from engine.game import Game
from engine.pending import Pending
from engine.types import DINOSAUR_TYPES, OUTCOMES, DinoType

DEFAULT_NAMES = ("Carlo", "Gianna", "Marco", "Lucia", "Sara")


def random_command(item: Pending, rng: random.Random) -> Command:
    """A uniformly random legal answer to a player's or the judge's decision."""
    assert item.seat is not None
    if item.kind == "select_dinosaur":
        return SelectDinosaur(seat=item.seat, card=rng.choice(item.options))
    if item.kind == "discard_dinosaur":
        return DiscardDinosaur(seat=item.seat, card=rng.choice(item.options))
    if item.kind == "choose_ocean_level":
        return ChooseOceanLevel(seat=item.seat, level=rng.choice(item.options))
    if item.kind == "resolve_launch":
        outcome = rng.choice(OUTCOMES)
        dinosaur = rng.choice(DINOSAUR_TYPES) if outcome == "dinosaur" else None
        return ResolveLaunch(outcome=outcome, dinosaur=dinosaur, launch_index=item.detail["launch_index"])
    if item.kind == "take_hatchlings":
        types = rng.choice(item.options)
        return TakeHatchlings(seat=item.seat, types=types, stack_order=random_stack_order(item, types, rng))
    if item.kind == "choose_bolide_launch":
        return ChooseBolideLaunch(seat=item.seat, take=rng.choice(item.options))
    if item.kind == "choose_herd_discards":
        return ChooseHerdDiscards(seat=item.seat, cards=tuple(rng.sample(item.options, item.count)))
    raise ValueError(f"{item.kind} is not a player's or judge's decision")


def random_stack_order(item: Pending, types: tuple[DinoType, ...], rng: random.Random) -> tuple[DinoType, ...]:
    """A pile order: half the time some types to put on top (types kept together), else every new
    Hatchling in a random order (types mixed)."""
    if rng.random() < 0.5:
        return tuple(rng.sample(DINOSAUR_TYPES, k=rng.randint(0, 2)))
    hatchlings = list(item.detail["gains"]["+".join(types) or "egg_icon"])
    rng.shuffle(hatchlings)
    return tuple(hatchlings)


def default_config(players: int, seed: int, **options: object) -> GameConfig:
    return GameConfig(players=DEFAULT_NAMES[:players], seed=seed, **options)  # type: ignore[arg-type]


def play_random_game(config: GameConfig, seed: int | None = None, max_decisions: int | None = None) -> Game:
    """Play a whole game (or `max_decisions` decisions) with random legal choices."""
    seed = config.seed if seed is None else seed
    seed = 0 if seed is None else seed
    game = Game.new(config, dealer=SeededDealer(seed))
    rng = random.Random(f"meteors-players/{seed}")
    decisions = 0
    while not game.is_over and (max_decisions is None or decisions < max_decisions):
        item = rng.choice(game.pending())
        game.apply(random_command(item, rng))
        decisions += 1
    return game
