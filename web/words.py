"""Plain words for the judge's figures, as the pages show them to players at the table.

"12 mm over the line" rather than "herd_line 12.4 mm", "1 bounce, needs 1" rather than
"bounces 1 bounce(s) ± 0": a referee reads these aloud. The judge's own margins and 1σ figures stay
available behind a details fold (`margin_rows`).
"""

from __future__ import annotations

from typing import Any


def plural(count: int, word: str) -> str:
    """`1 bounce`, `0 bounces`, `2 bounces`."""
    return f"{count} {word}{'' if count == 1 else 's'}"


def herd_line_words(signed_mm: float | None) -> str:
    """Where the release was, signed, in words: positive distances are behind the line (a legal release)."""
    if signed_mm is None:
        return "no herd line known"
    distance = round(abs(signed_mm))
    if distance == 0:
        return "on the line"
    return f"{distance} mm {'behind' if signed_mm > 0 else 'over'} the line"


def bounces_needed(launch: dict) -> int:
    """The table bounces this launch needed before the box: the game's launch mode, else the judge's."""
    if launch.get("bounces_needed"):
        return int(launch["bounces_needed"])
    mode = (launch.get("verdict") or {}).get("launch_mode") or launch.get("launch_mode")
    return 2 if mode == "hard_velociraptor" else 1


def bounce_words(counted: int | None, needed: int) -> str:
    """`1 bounce, needs 1`; `—` when nothing was counted."""
    if counted is None:
        return f"not counted, needs {needed}"
    return f"{plural(counted, 'bounce')}, needs {needed}"


def requirement_words(mode: dict | None, needed: int) -> str:
    """What the launch had to do: its card, difficulty and the bounces before the box."""
    need = f"needs {plural(needed, 'table bounce')} before the box"
    if not mode:
        return need
    card = mode.get("dinosaur")
    what = f"{card} card" if card else "no card"
    difficulty = mode.get("difficulty")
    return f"{what}{f' ({difficulty})' if difficulty else ''}: {need}"


def margin_rows(verdict: dict | None) -> list[dict[str, str]]:
    """The judge's margins (how far each decision is from flipping) and their 1σ, with their units."""
    rows = []
    for name, margin in ((verdict or {}).get("margins") or {}).items():
        value, sigma = margin["margin_mm"], margin["uncertainty_mm"]
        if name == "bounces":
            shown, spread = plural(round(value), "bounce"), plural(round(sigma), "bounce")
        else:
            shown, spread = f"{value:.1f} mm", f"{sigma:.1f} mm"
        rows.append({"decision": name.replace("_", " "), "margin": shown, "sigma": spread,
                     "close": "close" if abs(value) < 2 * sigma else ""})
    return rows


def release_words(verdict: dict | None) -> str:
    """The herd line call in words, from the release's signed distance."""
    release = (verdict or {}).get("release")
    if not release:
        return "release not seen"
    return herd_line_words(release.get("herd_line_signed_mm"))


def register(app: Any) -> None:
    """Make the words available to every template."""
    app.jinja_env.globals.update(plural=plural, herd_line_words=herd_line_words, bounces_needed=bounces_needed,
                                 bounce_words=bounce_words, requirement_words=requirement_words,
                                 margin_rows=margin_rows, release_words=release_words)


def end_reason(view: dict) -> str:
    """Why the game ended: the last era ran out of cards (the only way a game of Meteors ends)."""
    return (f"The game ended with Era {'II' if view['era'] == 2 else view['era']}, after its turn {view['turn']}: "
            "every hand was down to its last card, so the era ended and the final count was made.")
