"""How a Meteor is launched: the mode set by the revealed Herd card, standard or hard, or facilitated.

The texts are the rulebook's. Hard mode applies only in Era II; the *Facilitated launches* variant
drops the dinosaur styles (standard and hard alike) and keeps only the general launch rules.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.types import Difficulty, DinoType

GENERAL_RULES = (
    "The Herd line is the minimum distance to the box, and the Meteor must bounce on the table before entering the box."
)

STANDARD_STYLES: dict[DinoType, str] = {
    "brontosaurus": "Elbow resting on the table and the arm extended; launch with the hand.",
    "pterodactyl": "Launch from a height above your head while staying seated.",
    "trex": "Backs of your hands pressed against your chest; launch with one of the two hands.",
    "stegosaurus": "Hands together, palms touching like a mirror, the Meteor between them; launch with both.",
    "triceratops": "Meteor at the centre of index, middle and ring fingers, well extended, back of the hand "
    "towards the box.",
    "velociraptor": "Fingers of one hand extended and together, the Meteor between middle and ring fingers; "
    "launch with a downward movement, top to bottom.",
}

HARD_STYLES: dict[DinoType, str] = {
    "brontosaurus": "Arm extended above the head, elbow touching your head; launch with the hand.",
    "pterodactyl": "Stand up and move slightly away from the table; launch from above your head, standing.",
    "triceratops": "Hold the Meteor between two fingers of one hand and tap it with your forehead.",
    "stegosaurus": "Hands crossed, backs of the hands touching and interlocked, the Meteor between the backs.",
    "velociraptor": "Fingers of one hand extended and together, the Meteor between middle and ring fingers; "
    "launch downwards from above. The Meteor must bounce at least twice before entering a box space.",
    "trex": "Backs of your hands on your chest; launch with either hand while the player holding the box "
    "taps it alternately on its right and left sides.",
}

FACILITATED_STYLE = "Facilitated launch: any launching style; only the general launch rules apply."


class LaunchMode(BaseModel):
    """What the launcher must do: the dinosaur style, its difficulty and the table bounces needed."""

    model_config = ConfigDict(frozen=True)

    dinosaur: DinoType | None
    difficulty: Difficulty
    instructions: str
    min_bounces: int

    @property
    def judge_mode(self) -> Literal["standard", "hard_velociraptor"]:
        """The vision judge's launch mode: only the hard Velociraptor changes what it checks."""
        return "hard_velociraptor" if self.min_bounces >= 2 else "standard"


def min_bounces(dinosaur: DinoType | None, difficulty: Difficulty) -> int:
    """Table bounces a valid launch needs: 2 for the hard Velociraptor, otherwise 1."""
    return 2 if difficulty == "hard" and dinosaur == "velociraptor" else 1


def launch_difficulty(era: int, hard_mode: bool, facilitated: bool) -> Difficulty:
    """Facilitated overrides everything; hard mode counts only in Era II."""
    if facilitated:
        return "facilitated"
    return "hard" if hard_mode and era == 2 else "standard"


def launch_mode(dinosaur: DinoType | None, era: int, hard_mode: bool, facilitated: bool) -> LaunchMode:
    """The launch mode for a launch whose revealed Herd card shows `dinosaur` (None: no card left)."""
    difficulty = "facilitated" if dinosaur is None else launch_difficulty(era, hard_mode, facilitated)
    if difficulty == "facilitated" or dinosaur is None:
        style = FACILITATED_STYLE
    else:
        style = (HARD_STYLES if difficulty == "hard" else STANDARD_STYLES)[dinosaur]
    return LaunchMode(
        dinosaur=dinosaur,
        difficulty=difficulty,
        instructions=f"{style} {GENERAL_RULES}",
        min_bounces=min_bounces(dinosaur, difficulty),
    )
