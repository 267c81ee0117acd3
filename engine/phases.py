"""The rules as pure functions `(state, event) -> state`, one per event kind, grouped by phase.

`apply_event` is the fold: `engine.replay` runs it over a whole log. These functions only move
things as the event says; deciding what happens next is `engine.flow`'s job.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import events as ev
from engine.config import GameConfig
from engine.data import GameData, load_game_data
from engine.errors import CorruptLog
from engine.launch import launch_mode
from engine.state import (
    GameState,
    HatchlingChoice,
    LaunchState,
    PlayerState,
    Rules,
    remove_cards,
    sorted_cards,
)
from engine.types import DinoType

# ---- setup --------------------------------------------------------------------------------------


def initial_state(config: GameConfig, data: GameData | None = None) -> GameState:
    """The table before dealing: full decks and supplies, the Bolide with the first player."""
    data = data or load_game_data(config.data_path)
    return GameState(
        rules=Rules(config=config, data=data),
        players=tuple(PlayerState(seat=seat, name=name) for seat, name in enumerate(config.players)),
        bolide=config.first_player,
        deck=data.era_cards(1),
        era2_deck=data.era_cards(2),
        hatchling_supply=data.hatchling_counts(),
        food_supply=data.supply.food_tokens,
        wave_pool=data.wave_token_ids(),
        ocean_level=data.ocean_level.start,
    )


def hand_dealt(state: GameState, event: ev.HandDealt) -> GameState:
    state = state.with_player(event.seat, hand=event.cards)
    return state.model_copy(
        update={"deck": remove_cards(state.deck, event.cards), "chance_count": state.chance_count + 1}
    )


def herd_card_revealed(state: GameState, event: ev.HerdCardRevealed) -> GameState:
    """A card joins the Herd's far end; during a launch it also sets the launch mode."""
    state = state.model_copy(
        update={
            "deck": remove_cards(state.deck, [event.card]),
            "herd": (*state.herd, event.card),
            "chance_count": state.chance_count + 1,
        }
    )
    if state.phase == "meteor" and state.launch is not None and state.launch.stage == "reveal":
        return state.with_launch(
            card=event.card, mode=_mode_for(state, state.rules.dinosaur(event.card)), stage="ocean"
        )
    return state


def deck_rebuilt(state: GameState, event: ev.DeckRebuilt) -> GameState:
    return state.model_copy(
        update={
            "deck": sorted_cards((*state.deck, *event.cards)),
            "discard": remove_cards(state.discard, (*event.cards, *event.removed)),
            "removed": (*state.removed, *event.removed),
        }
    )


def turn_started(state: GameState, event: ev.TurnStarted) -> GameState:
    return state.model_copy(
        update={
            "phase": "selection",
            "era": event.era,
            "turn": event.turn,
            "hands_passed": False,
            "egg_choices": (),
            "trex_queue": (),
            "trex_discarded": False,
            "launch_queue": (),
            "launch": None,
        }
    )


# ---- dinosaur selection -------------------------------------------------------------------------


def dinosaur_selected(state: GameState, event: ev.DinosaurSelected) -> GameState:
    hand = remove_cards(state.player(event.seat).hand, [event.card])
    return state.with_player(event.seat, hand=hand, selected=event.card)


def dinosaurs_revealed(state: GameState, event: ev.DinosaursRevealed) -> GameState:
    players = tuple(
        player.model_copy(update={"in_front": (*player.in_front, card), "played": card, "selected": None})
        for player, card in zip(state.players, event.cards, strict=True)
    )
    return state.model_copy(
        update={"players": players, "phase": "trex", "trex_queue": event.trex_players, "trex_discarded": False}
    )


# ---- T-Rex phase (and discards) -----------------------------------------------------------------


def dinosaur_discarded(state: GameState, event: ev.DinosaurDiscarded) -> GameState:
    """A T-Rex or Wave discard: the card goes to the era's discard pile."""
    in_front = remove_cards(state.player(event.seat).in_front, [event.card])
    state = state.with_player(event.seat, in_front=in_front)
    state = state.model_copy(update={"discard": (*state.discard, event.card)})
    if event.reason == "trex":
        return state.model_copy(update={"trex_discarded": True})
    assert state.launch is not None
    return state.with_launch(dinosaur_discards_due=state.launch.dinosaur_discards_due - 1)


def _return_top_hatchlings(state: GameState, seats: list[int]) -> GameState:
    """Each listed seat returns the top of its pile to its deck (one per listing)."""
    supply = dict(state.hatchling_supply)
    for seat in seats:
        pile = state.player(seat).hatchlings
        supply[pile[-1]] += 1
        state = state.with_player(seat, hatchlings=pile[:-1])
    return state.model_copy(update={"hatchling_supply": supply})


def trex_roared(state: GameState, event: ev.TRexRoared) -> GameState:
    state = _return_top_hatchlings(state, [returned.seat for returned in event.returned])
    return state.model_copy(update={"trex_queue": state.trex_queue[1:], "trex_discarded": False})


# ---- Meteor phase -------------------------------------------------------------------------------


def _mode_for(state: GameState, dinosaur: DinoType | None) -> Any:
    config = state.rules.config
    return launch_mode(dinosaur, state.era, config.hard_mode, config.variants.facilitated_launches)


def meteor_phase_started(state: GameState, event: ev.MeteorPhaseStarted) -> GameState:
    return state.model_copy(
        update={"phase": "meteor", "launch_queue": event.launches, "launch": None, "bolide_launch_taken": False}
    )


def bolide_launch_chosen(state: GameState, event: ev.BolideLaunchChosen) -> GameState:
    """Taken: the launch starts next. Declined: its slot leaves the queue unplayed."""
    if event.take:
        return state.model_copy(update={"bolide_launch_taken": True})
    return state.model_copy(update={"launch_queue": state.launch_queue[1:]})


def herd_discards_chosen(state: GameState, event: ev.HerdDiscardsChosen) -> GameState:
    return state.with_launch(herd_discards=event.cards)


def launch_started(state: GameState, event: ev.LaunchStarted) -> GameState:
    launch = LaunchState(index=event.launch_index, launcher=event.launcher, bolide=event.bolide)
    return state.model_copy(
        update={"launch": launch, "launch_queue": state.launch_queue[1:], "launch_count": event.launch_index + 1}
    )


def launch_card_unavailable(state: GameState, event: ev.LaunchCardUnavailable) -> GameState:
    return state.with_launch(mode=_mode_for(state, None), stage="ocean")


def ocean_level_chosen(state: GameState, event: ev.OceanLevelChosen) -> GameState:
    state = state.model_copy(update={"ocean_level": event.level})
    return state.with_launch(ocean_level=event.level, stage="throw")


def launch_resolved(state: GameState, event: ev.LaunchResolved | ev.LaunchAmended) -> GameState:
    return state.with_launch(outcome=event.outcome, dinosaur=event.dinosaur, stage="effects")


def _gain_food(state: GameState, seat: int, food: int) -> GameState:
    state = state.with_player(seat, food=state.player(seat).food + food)
    return state.model_copy(update={"food_supply": state.food_supply - food})


def target_hit(state: GameState, event: ev.TargetHit) -> GameState:
    state = _gain_food(state, event.seat, event.food)
    state = state.model_copy(
        update={"herd": remove_cards(state.herd, event.discarded), "discard": (*state.discard, *event.discarded)}
    )
    return state.with_launch(stage="done")


def water_landed(state: GameState, event: ev.WaterLanded) -> GameState:
    for gain in event.tide_food:
        state = _gain_food(state, gain.seat, gain.food)
    return state.with_launch(waves_to_reveal=event.waves_to_reveal, stage="waves")


def wave_tokens_revealed(state: GameState, event: ev.WaveTokensRevealed) -> GameState:
    state = state.model_copy(
        update={
            "wave_pool": remove_cards(state.wave_pool, event.tokens),
            "wave_revealed": event.tokens,
            "chance_count": state.chance_count + 1,
        }
    )
    return state.with_launch(stage="wave_effects")


def wave_effects_applied(state: GameState, event: ev.WaveEffectsApplied) -> GameState:
    state = _return_top_hatchlings(state, [event.seat] * len(event.hatchlings_returned))
    return state.with_launch(dinosaur_discards_due=event.dinosaur_discards_due, stage="wave_discards")


def wave_tokens_reshuffled(state: GameState, event: ev.WaveTokensReshuffled) -> GameState:
    state = state.model_copy(update={"wave_pool": sorted_cards((*state.wave_pool, *event.tokens)), "wave_revealed": ()})
    return state.with_launch(stage="done")


def launch_finished(state: GameState, event: ev.LaunchFinished) -> GameState:
    return state.model_copy(update={"launch": None})


# ---- Egg phase ----------------------------------------------------------------------------------


def phase_started(state: GameState, event: ev.PhaseStarted) -> GameState:
    return state.model_copy(update={"phase": event.phase})


def hatchlings_chosen(state: GameState, event: ev.HatchlingsChosen) -> GameState:
    choice = HatchlingChoice(seat=event.seat, types=event.types, stack_order=event.stack_order)
    return state.model_copy(update={"egg_choices": (*state.egg_choices, choice)})


def hatchlings_hatched(state: GameState, event: ev.HatchlingsHatched) -> GameState:
    supply = dict(state.hatchling_supply)
    for gain in event.gains:
        for dinosaur in gain.hatchlings:
            supply[dinosaur] -= 1
        state = state.with_player(gain.seat, hatchlings=(*state.player(gain.seat).hatchlings, *gain.hatchlings))
    return state.model_copy(update={"hatchling_supply": supply, "phase": "end_of_turn"})


# ---- end of turn, era, game ---------------------------------------------------------------------


def hands_passed(state: GameState, event: ev.HandsPassed) -> GameState:
    """Seat s receives the hand of the seat on its right (s-1): hands travel clockwise."""
    count = state.player_count
    players = tuple(
        player.model_copy(update={"hand": state.players[(player.seat - 1) % count].hand, "played": None})
        for player in state.players
    )
    return state.model_copy(update={"players": players, "bolide": event.bolide, "hands_passed": True})


def herd_trimmed(state: GameState, event: ev.HerdTrimmed) -> GameState:
    return state.model_copy(
        update={"herd": remove_cards(state.herd, event.cards), "discard": (*state.discard, *event.cards)}
    )


def era_ended(state: GameState, event: ev.EraEnded) -> GameState:
    """Discard the last hands (and the Herd); after Era I the old cards leave and Era II comes in."""
    players = tuple(
        player.model_copy(update={"hand": remove_cards(player.hand, event.discarded)}) for player in state.players
    )
    discard = (*state.discard, *event.discarded)
    state = state.model_copy(
        update={
            "players": players,
            "herd": remove_cards(state.herd, event.discarded),
            "deck": remove_cards(state.deck, event.removed),
            "discard": remove_cards(discard, event.removed),
            "removed": (*state.removed, *event.removed),
        }
    )
    if event.era == 1:
        return state.model_copy(
            update={
                "era": 2,
                "turn": 0,
                "phase": "setup",
                "deck": state.era2_deck,
                "era2_deck": (),
                "hands_passed": False,
            }
        )
    return state.model_copy(update={"phase": "scoring"})


def game_scored(state: GameState, event: ev.GameScored) -> GameState:
    players = tuple(
        player.model_copy(update={"food": result.food})
        for player, result in zip(state.players, event.result.players, strict=True)
    )
    paid = sum(player.food for player in players) - sum(player.food for player in state.players)
    return state.model_copy(
        update={
            "players": players,
            "food_supply": state.food_supply - paid,
            "result": event.result,
            "phase": "game_over",
        }
    )


def unchanged(state: GameState, event: Any) -> GameState:
    return state


FOLDS: dict[str, Callable[[GameState, Any], GameState]] = {
    "hand_dealt": hand_dealt,
    "herd_card_revealed": herd_card_revealed,
    "wave_tokens_revealed": wave_tokens_revealed,
    "dinosaur_selected": dinosaur_selected,
    "dinosaur_discarded": dinosaur_discarded,
    "ocean_level_chosen": ocean_level_chosen,
    "launch_resolved": launch_resolved,
    "launch_amended": launch_resolved,
    "hatchlings_chosen": hatchlings_chosen,
    "bolide_launch_chosen": bolide_launch_chosen,
    "herd_discards_chosen": herd_discards_chosen,
    "input_skipped": unchanged,
    "turn_started": turn_started,
    "dinosaurs_revealed": dinosaurs_revealed,
    "trex_roared": trex_roared,
    "meteor_phase_started": meteor_phase_started,
    "launch_started": launch_started,
    "deck_rebuilt": deck_rebuilt,
    "launch_card_unavailable": launch_card_unavailable,
    "target_hit": target_hit,
    "water_landed": water_landed,
    "wave_effects_applied": wave_effects_applied,
    "wave_tokens_reshuffled": wave_tokens_reshuffled,
    "launch_finished": launch_finished,
    "phase_started": phase_started,
    "hatchlings_hatched": hatchlings_hatched,
    "hands_passed": hands_passed,
    "herd_trimmed": herd_trimmed,
    "era_ended": era_ended,
    "game_scored": game_scored,
}


def apply_event(state: GameState | None, event: Any) -> GameState:
    """One step of the fold. The first event must be `game_started` (state None)."""
    if event.kind == "game_started":
        if state is not None:
            raise CorruptLog("game_started can only be the first event")
        return initial_state(event.config, event.data)
    if state is None:
        raise CorruptLog(f"the log must start with game_started, not {event.kind}")
    return FOLDS[event.kind](state, event)
