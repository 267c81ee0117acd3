"""The data file (every unprinted value an assumption, replaceable) and the launch modes."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import ChooseOceanLevel, Game, GameConfig, GameDataError, SeededDealer, SelectDinosaur, load_game_data
from engine.data import DATA_FILE
from engine.launch import launch_mode

PACKAGED = Path(__file__).resolve().parents[2] / "engine" / "data" / DATA_FILE


def test_packaged_data_matches_the_printed_components_and_marks_assumptions() -> None:
    data = load_game_data()
    assert sum(card.era == 1 for card in data.cards) == 35
    assert sum(card.era == 2 for card in data.cards) == 36
    assert sum(deck.count for deck in data.hatchlings) == 110
    assert len(data.wave_tokens) == 8
    assert set(data.assumptions) == {
        "ocean_level",
        "supply",
        "open_cases",
        "hatchlings",
        "wave_tokens",
        "era_1",
        "era_2",
    }


def test_a_replacement_data_file_changes_the_game_without_code(tmp_path: Path) -> None:
    custom = tmp_path / "my_cards.toml"
    custom.write_text(PACKAGED.read_text().replace("max = 3", "max = 5"))
    game = Game.new(GameConfig(players=("A", "B"), data_path=str(custom)), dealer=SeededDealer(1))
    for player in game.state.players:
        game.apply(SelectDinosaur(seat=player.seat, card=player.hand[0]))
    while game.pending()[0].kind != "choose_ocean_level":
        item = game.pending()[0]
        if item.kind == "choose_bolide_launch":
            game.apply({"kind": "choose_bolide_launch", "seat": item.seat, "take": True})
        else:
            game.apply({"kind": "discard_dinosaur", "seat": item.seat, "card": item.options[0]})
    game.apply(ChooseOceanLevel(level=5))
    assert game.state.ocean_level == 5
    assert Game.from_json(game.to_json()).state == game.state  # the custom data travels in the log


def test_inconsistent_data_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(
        PACKAGED.read_text().replace(
            'count = 20, points = 1 },\n  { dinosaur = "pterodactyl"',
            'count = 21, points = 1 },\n  { dinosaur = "pterodactyl"',
        )
    )
    with pytest.raises(GameDataError, match="110"):
        load_game_data(broken)


@pytest.mark.parametrize(
    ("dinosaur", "era", "hard", "facilitated", "difficulty", "bounces"),
    [
        ("velociraptor", 1, False, False, "standard", 1),
        ("velociraptor", 1, True, False, "standard", 1),  # hard mode only in Era II
        ("velociraptor", 2, True, False, "hard", 2),
        ("trex", 2, True, False, "hard", 1),
        ("brontosaurus", 2, False, False, "standard", 1),
        ("velociraptor", 2, True, True, "facilitated", 1),
        (None, 1, False, False, "facilitated", 1),  # no card left to reveal
    ],
)
def test_launch_mode_and_bounces_needed(dinosaur, era, hard, facilitated, difficulty, bounces) -> None:
    mode = launch_mode(dinosaur, era, hard, facilitated)
    assert (mode.difficulty, mode.min_bounces) == (difficulty, bounces)
    assert mode.judge_mode == ("hard_velociraptor" if bounces == 2 else "standard")
    assert "bounce" in mode.instructions
