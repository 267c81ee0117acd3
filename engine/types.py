"""The game's vocabulary: dinosaur types, icons, phases, launch outcomes.

Plain `Literal` aliases so every model, command and event validates its values and the JSON
stays readable ("triceratops", not an enum number).
"""

from __future__ import annotations

from typing import Literal, get_args

DinoType = Literal["brontosaurus", "pterodactyl", "trex", "stegosaurus", "triceratops", "velociraptor"]
Icon = Literal["trex", "meteor", "egg", "tide", "none"]
WaveFace = Literal["egg", "dinosaur", "empty"]
Outcome = Literal["dinosaur", "water", "void"]
Phase = Literal["setup", "selection", "trex", "meteor", "egg", "end_of_turn", "scoring", "game_over"]
Difficulty = Literal["standard", "hard", "facilitated"]

# The rulebook's open cases (engine.data.OpenCases): the default reading first, then the house rule.
FoodSupplyRule = Literal["limited", "unlimited"]
AllTiedRule = Literal["majority_and_minority", "neither"]
HerbivoreGroupRule = Literal["any_three", "one_of_each"]
EraOneCardsRule = Literal["rebuild_the_deck", "removed_from_game"]

DINOSAUR_TYPES: tuple[DinoType, ...] = get_args(DinoType)
HERBIVORES: tuple[DinoType, ...] = ("brontosaurus", "stegosaurus", "triceratops")
OUTCOMES: tuple[Outcome, ...] = get_args(Outcome)

# Printed in the rulebook (not assumptions): these live in code, not in the data file.
MIN_PLAYERS = 2
MAX_PLAYERS = 5
HAND_SIZE = 4
HERD_SIZE = 6
ERAS = 2
TURNS_PER_ERA = HAND_SIZE - 1  # a turn plays one card; the era ends when one card is left in hand
FOOD_PER_HIT = 1
TIDE_FOOD = 2
FOOD_POINTS = 4
HERBIVORE_GROUP = 3
VELOCIRAPTOR_MAJORITY_FOOD = 3
VELOCIRAPTOR_MINORITY_FOOD = 1
