"""Shared fixtures for the calibration tests: the standard rig and rendered synthetic frames (cached)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from calib_synthetic import herd_cards, render, standard_scene  # noqa: E402

from calibration.rig import default_rig_path, load_rig  # noqa: E402


@pytest.fixture(scope="session")
def rig():
    return load_rig(default_rig_path())


@pytest.fixture(scope="session")
def oblique(rig):
    """(scene, frame): the standard layout seen obliquely, six herd cards in a line."""
    scene = standard_scene(rig, cards_mm=herd_cards())
    return scene, render(scene)
