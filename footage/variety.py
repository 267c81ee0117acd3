"""How varied a labelled set is, read from its labels alone (`samples variety DIR`).

The checks are those a set drawn from the wide world must pass (40 clips or more): low-colour
meteors, a white and a dark one, early releases, every frame size and rate, both launch modes,
fouls and close calls, and high releases.
"""

from __future__ import annotations

from dataclasses import dataclass

from calibration.truth import LaunchTruth
from footage.world import saturation


@dataclass
class VarietyCheck:
    name: str
    measured: str
    ok: bool


def _value(rgb) -> float:
    return max(rgb) / 255.0


def variety_checks(labels: list[LaunchTruth]) -> list[VarietyCheck]:
    """Each check with what the labels show."""
    n = len(labels)
    rgbs = [lab.scene.meteor.rgb for lab in labels]
    low_colour = sum(saturation(rgb) < 0.35 for rgb in rgbs)
    white = sum(saturation(rgb) < 0.15 and _value(rgb) > 0.85 for rgb in rgbs)
    dark = sum(_value(rgb) < 0.3 for rgb in rgbs)
    early = sum(lab.release.frame / lab.fps <= 0.5 for lab in labels)
    sizes = [tuple(lab.frame_size) for lab in labels]
    vga = sum(size == (640, 480) for size in sizes)
    full_hd = sum(size == (1920, 1080) for size in sizes)
    rates = {round(lab.fps) for lab in labels}
    modes = {lab.launch_mode for lab in labels}
    fouls = sum(not lab.herd_line_ok for lab in labels)
    close = sum(abs(lab.release.herd_line_signed_mm) < 20 for lab in labels)
    high = sum(lab.release.height_mm >= 400 for lab in labels)
    share = (lambda k: f"{k} of {n} ({100 * k / n:.0f} %)") if n else (lambda k: f"{k} of 0")
    return [
        VarietyCheck("low-colour meteors (HSV saturation < 0.35) >= 25 %", share(low_colour), low_colour >= 0.25 * n),
        VarietyCheck("a white meteor", share(white), white >= 1),
        VarietyCheck("a dark meteor (value < 0.3)", share(dark), dark >= 1),
        VarietyCheck("released within 0.5 s of the start >= 20 %", share(early), early >= 0.2 * n),
        VarietyCheck("640x480 >= 10 %", share(vga), vga >= 0.1 * n),
        VarietyCheck("some 1920x1080", share(full_hd), full_hd >= 1),
        VarietyCheck("30 and 60 fps", ", ".join(f"{r} fps" for r in sorted(rates)), {30, 60} <= rates),
        VarietyCheck("both launch modes", ", ".join(sorted(modes)), {"standard", "hard_velociraptor"} <= modes),
        VarietyCheck("fouls over the herd line", share(fouls), fouls >= 1),
        VarietyCheck("close calls (within 20 mm of the line)", share(close), close >= 1),
        VarietyCheck("releases >= 400 mm high", share(high), high >= 1),
    ]
