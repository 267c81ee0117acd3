"""End of game: herbivore groups, the Velociraptor majority and minority, points and winners."""

from __future__ import annotations

from engine.state import FinalResult, GameState, PlayerResult
from engine.supply import take_food
from engine.types import (
    FOOD_POINTS,
    HERBIVORE_GROUP,
    HERBIVORES,
    VELOCIRAPTOR_MAJORITY_FOOD,
    VELOCIRAPTOR_MINORITY_FOOD,
    AllTiedRule,
    DinoType,
    HerbivoreGroupRule,
)


def herbivore_groups(hatchlings: tuple[DinoType, ...], rule: HerbivoreGroupRule = "any_three") -> int:
    """Groups of 3 herbivore Hatchlings: any mix of Brontosaurus, Stegosaurus, Triceratops, or with
    the house rule "one_of_each" one of each type."""
    if rule == "one_of_each":
        return min(hatchlings.count(dinosaur) for dinosaur in HERBIVORES)
    return sum(1 for dinosaur in hatchlings if dinosaur in HERBIVORES) // HERBIVORE_GROUP


def velociraptor_extremes(
    counts: list[int], all_tied: AllTiedRule = "majority_and_minority"
) -> tuple[set[int], set[int]]:
    """Seats with the most and with the fewest Velociraptor Hatchlings; if everyone ties, all seats
    are both (the default reading) or neither (house rule)."""
    most, fewest = max(counts), min(counts)
    if most == fewest and all_tied == "neither":
        return set(), set()
    return (
        {seat for seat, count in enumerate(counts) if count == most},
        {seat for seat, count in enumerate(counts) if count == fewest},
    )


def hatchling_points(state: GameState, hatchlings: tuple[DinoType, ...]) -> int:
    """Points on the Hatchlings; Velociraptors "have already been counted" (majority/minority), so
    they add nothing whatever the data file gives them."""
    return sum(state.rules.data.points(dinosaur) for dinosaur in hatchlings if dinosaur != "velociraptor")


def winners(results: list[PlayerResult]) -> tuple[int, ...]:
    """Highest score; ties broken by most Food; still tied: a shared victory."""
    best = max((result.score, result.food) for result in results)
    return tuple(result.seat for result in results if (result.score, result.food) == best)


def final_result(state: GameState) -> FinalResult:
    """The final count; Food gains are paid clockwise from the first player while the supply lasts."""
    order = state.clockwise_from(state.bolide)
    cases, limited = state.rules.open_cases, state.rules.food_limited
    food = {player.seat: player.food for player in state.players}
    supply = state.food_supply
    herbivore_food = dict.fromkeys(food, 0)
    raptor_food = dict.fromkeys(food, 0)
    for seat in order:
        groups = herbivore_groups(state.player(seat).hatchlings, cases.herbivore_group)
        gained = take_food(supply, groups, limited=limited)
        herbivore_food[seat], food[seat], supply = gained, food[seat] + gained, supply - gained
    raptors = [player.hatchlings.count("velociraptor") for player in state.players]
    majority, minority = velociraptor_extremes(raptors, cases.velociraptors_all_tied)
    for seat in order:
        if seat in majority:
            gained = take_food(supply, VELOCIRAPTOR_MAJORITY_FOOD, limited=limited)
            raptor_food[seat], food[seat], supply = raptor_food[seat] + gained, food[seat] + gained, supply - gained
    for seat in order:
        if seat in minority and food[seat] > 0:
            lost = min(VELOCIRAPTOR_MINORITY_FOOD, food[seat])
            raptor_food[seat], food[seat], supply = raptor_food[seat] - lost, food[seat] - lost, supply + lost
    results = [
        PlayerResult(
            seat=player.seat,
            herbivore_food=herbivore_food[player.seat],
            velociraptor_food=raptor_food[player.seat],
            food=food[player.seat],
            hatchling_points=hatchling_points(state, player.hatchlings),
            hatchlings=len(player.hatchlings),
            score=hatchling_points(state, player.hatchlings) + FOOD_POINTS * food[player.seat],
        )
        for player in state.players
    ]
    return FinalResult(players=tuple(results), winners=winners(results))
