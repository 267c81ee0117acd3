"""The engine's exceptions."""

from __future__ import annotations


class IllegalCommand(ValueError):
    """A command the rules do not allow now; the game is left unchanged. `str()` is the reason."""


class CorruptLog(ValueError):
    """An event log that cannot be replayed (not starting with `game_started`, or inconsistent)."""
