"""Finite supplies: a gain takes only what is left (the data file's `*_exhausted` assumption)."""

from __future__ import annotations

from engine.types import DinoType


def take_food(available: int, wanted: int) -> int:
    """Food tokens actually taken when `wanted` are due and `available` remain."""
    return max(0, min(available, wanted))


def take_hatchlings(supply: dict[DinoType, int], wanted: list[DinoType]) -> tuple[list[DinoType], dict[DinoType, int]]:
    """The Hatchlings actually taken (in `wanted` order, skipping empty decks) and the supply left."""
    left = dict(supply)
    taken: list[DinoType] = []
    for dinosaur in wanted:
        if left.get(dinosaur, 0) > 0:
            left[dinosaur] -= 1
            taken.append(dinosaur)
    return taken, left
