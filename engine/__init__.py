"""Meteors rules engine: a pure, deterministic, event-sourced state machine of the whole game.

from engine import Game, GameConfig, SeededDealer, ResolveLaunch, SelectDinosaur

game = Game.new(GameConfig(players=["Carlo", "Gianna", "Marco"]), dealer=SeededDealer(7))
game.pending()                      # [Pending(actor="player", kind="select_dinosaur", seat=0, ...), ...]
game.apply(SelectDinosaur(seat=0, card="I-07"))     # IllegalCommand if not legal now
game.apply(ResolveLaunch(outcome="dinosaur", dinosaur="triceratops"))
game.amend_launch(0, "water")       # overrule a verdict; the game replays from there
game.view()                         # dashboard summary; game.to_json() / Game.from_json()
"""

from engine.commands import (
    ChooseBolideLaunch,
    ChooseHerdDiscards,
    ChooseOceanLevel,
    Command,
    DealHand,
    DiscardDinosaur,
    ResolveLaunch,
    RevealHerdCard,
    RevealWaveTokens,
    SelectDinosaur,
    TakeHatchlings,
    parse_command,
)
from engine.config import GameConfig, Variants
from engine.data import GameData, GameDataError, OpenCases, default_game_data, load_game_data
from engine.dealer import Dealer, SeededDealer, SeenCard, SeenHand, SeenWaves, TableDealer
from engine.errors import CorruptLog, IllegalCommand
from engine.events import Event
from engine.game import Game, LaunchRecord, replay
from engine.launch import LaunchMode, launch_mode
from engine.pending import Pending
from engine.state import FinalResult, GameState, PlayerState
from engine.view import GameView

__all__ = [
    "ChooseBolideLaunch",
    "ChooseHerdDiscards",
    "ChooseOceanLevel",
    "Command",
    "CorruptLog",
    "DealHand",
    "Dealer",
    "DiscardDinosaur",
    "Event",
    "FinalResult",
    "Game",
    "GameConfig",
    "GameData",
    "GameDataError",
    "GameState",
    "GameView",
    "IllegalCommand",
    "LaunchMode",
    "LaunchRecord",
    "OpenCases",
    "Pending",
    "PlayerState",
    "ResolveLaunch",
    "RevealHerdCard",
    "RevealWaveTokens",
    "SeededDealer",
    "SeenCard",
    "SeenHand",
    "SeenWaves",
    "SelectDinosaur",
    "TableDealer",
    "TakeHatchlings",
    "Variants",
    "default_game_data",
    "launch_mode",
    "load_game_data",
    "parse_command",
    "replay",
]
