"""Finite supplies: a gain takes only what is left (the data file's assumptions and open cases)."""

from __future__ import annotations

from engine.types import DinoType


def take_food(available: int, wanted: int, *, limited: bool) -> int:
    """Food tokens actually taken when `wanted` are due and `available` remain (all if not `limited`)."""
    return max(0, min(available, wanted) if limited else wanted)


def take_hatchlings(supply: dict[DinoType, int], wanted: list[DinoType]) -> tuple[list[DinoType], dict[DinoType, int]]:
    """The Hatchlings actually taken (in `wanted` order, skipping empty decks) and the supply left."""
    left = dict(supply)
    taken: list[DinoType] = []
    for dinosaur in wanted:
        if left.get(dinosaur, 0) > 0:
            left[dinosaur] -= 1
            taken.append(dinosaur)
    return taken, left
