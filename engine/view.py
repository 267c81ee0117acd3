"""A dashboard's summary of the state: plain JSON-ready models, hidden information kept hidden.

Hands are shown as counts only, and a face-down selection only as "has selected".
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from engine.launch import LaunchMode
from engine.pending import Pending
from engine.state import FinalResult, GameState
from engine.types import DinoType, Icon, Outcome, Phase


class _View(BaseModel):
    model_config = ConfigDict(frozen=True)


class CardView(_View):
    id: str
    dinosaur: DinoType
    icon: Icon


class HatchlingPileView(_View):
    top: DinoType | None
    count: int


class PlayerView(_View):
    seat: int
    name: str
    is_first_player: bool
    hand_size: int
    has_selected: bool
    played: CardView | None  # this turn's revealed card
    dinosaurs: tuple[CardView, ...]
    hatchlings: HatchlingPileView
    food: int


class LaunchView(_View):
    index: int
    launcher: int
    bolide: bool
    stage: str
    card: CardView | None
    mode: LaunchMode | None
    bounces_needed: int | None
    ocean_level: int | None
    outcome: Outcome | None
    dinosaur: DinoType | None


class GameView(_View):
    phase: Phase
    era: int
    turn: int
    first_player: int
    ocean_level: int
    players: tuple[PlayerView, ...]
    herd: tuple[CardView, ...]  # index 0 is the card closest to the deck
    deck_size: int
    food_supply: int
    hatchling_supply: dict[DinoType, int]
    launch: LaunchView | None
    launches_so_far: int
    pending: tuple[Pending, ...]
    result: FinalResult | None


def card_view(state: GameState, card: str) -> CardView:
    spec = state.rules.card(card)
    return CardView(id=card, dinosaur=spec.dinosaur, icon=spec.icon)


def build_view(state: GameState, pending: list[Pending]) -> GameView:
    players = tuple(
        PlayerView(
            seat=player.seat,
            name=player.name,
            is_first_player=player.seat == state.bolide,
            hand_size=len(player.hand),
            has_selected=player.selected is not None,
            played=None if player.played is None else card_view(state, player.played),
            dinosaurs=tuple(card_view(state, card) for card in player.in_front),
            hatchlings=HatchlingPileView(top=player.top_hatchling, count=len(player.hatchlings)),
            food=player.food,
        )
        for player in state.players
    )
    launch = state.launch
    launch_view = None
    if launch is not None:
        launch_view = LaunchView(
            index=launch.index,
            launcher=launch.launcher,
            bolide=launch.bolide,
            stage=launch.stage,
            card=None if launch.card is None else card_view(state, launch.card),
            mode=launch.mode,
            bounces_needed=None if launch.mode is None else launch.mode.min_bounces,
            ocean_level=launch.ocean_level,
            outcome=launch.outcome,
            dinosaur=launch.dinosaur,
        )
    return GameView(
        phase=state.phase,
        era=state.era,
        turn=state.turn,
        first_player=state.bolide,
        ocean_level=state.ocean_level,
        players=players,
        herd=tuple(card_view(state, card) for card in state.herd),
        deck_size=len(state.deck),
        food_supply=state.food_supply,
        hatchling_supply=dict(state.hatchling_supply),
        launch=launch_view,
        launches_so_far=state.launch_count,
        pending=tuple(pending),
        result=state.result,
    )
