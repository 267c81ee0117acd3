"""What happens next: given a state, either the next automatic event or the decisions awaited.

`next_step(state)` returns an `Event` the rules produce by themselves (a phase starts, Food is
taken, a T-Rex roars...) or a tuple of `Pending` decisions (empty when the game is over). The
engine applies automatic events until it reaches decisions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine import events as ev
from engine.cards import describe_card, herd_cards_of, trex_discard_candidates, wave_discard_candidates
from engine.eggs import choice_options, gains_for, hatch, needs_choice, played_egg_icon, stack
from engine.pending import Pending
from engine.scoring import final_result
from engine.state import GameState, LaunchSlot
from engine.supply import take_food
from engine.types import FOOD_PER_HIT, HAND_SIZE, HERD_SIZE, OUTCOMES, TIDE_FOOD

Step = Any  # an automatic event, or tuple[Pending, ...]


def seat_label(state: GameState, seat: int) -> str:
    return f"seat {seat} ({state.player(seat).name})"


# ---- shared steps -------------------------------------------------------------------------------


def reveal_pending(state: GameState, purpose: str, seat: int | None = None) -> Pending:
    return Pending(
        actor="dealer",
        kind="reveal_herd_card",
        seat=seat,
        options=state.deck,
        prompt=f"dealer to reveal a Dinosaur card from the deck ({purpose})",
        detail={"purpose": purpose},
    )


def era_one_card_out_of_game(state: GameState, card: str) -> bool:
    """An Era I card discarded in Era II, with the house rule that removes them from the game."""
    removed = state.rules.open_cases.era_1_cards_in_era_2 == "removed_from_game"
    return removed and state.era == 2 and state.rules.card(card).era == 1


def deck_rebuild(state: GameState) -> ev.DeckRebuilt | None:
    """The deck rebuilt from the era's discards (the data file's policy), or None if it cannot be."""
    if state.rules.data.supply.dinosaur_deck_exhausted != "reshuffle_discards":
        return None
    gone = tuple(card for card in state.discard if era_one_card_out_of_game(state, card))
    cards = tuple(sorted(card for card in state.discard if card not in gone))
    return ev.DeckRebuilt(cards=cards, removed=gone) if cards else None


def refill_herd_step(state: GameState) -> Step | None:
    """Fill the Herd to 6 from the deck (rebuilding it from the discards if needed); None when done."""
    if len(state.herd) >= HERD_SIZE:
        return None
    if state.deck:
        return (reveal_pending(state, "herd"),)
    return deck_rebuild(state)


def discard_step(state: GameState, seat: int, candidates: tuple[str, ...], reason: str) -> Step:
    """One candidate: the engine discards it; several: the player chooses."""
    if len(candidates) == 1:
        return ev.DinosaurDiscarded(seat=seat, card=candidates[0], reason=reason, forced=True)
    why = (
        "T-Rex icon: discard a dinosaur played in a previous turn"
        if reason == "trex"
        else ("Wave token with a Dinosaur: discard one of your dinosaurs")
    )
    return (
        Pending(
            actor="player",
            kind="discard_dinosaur",
            seat=seat,
            options=candidates,
            prompt=f"{seat_label(state, seat)} to discard a dinosaur ({why})",
            detail={"reason": reason, "cards": [describe_card(state, card) for card in candidates]},
        ),
    )


# ---- per phase ----------------------------------------------------------------------------------


def setup_step(state: GameState) -> Step:
    """Deal 4 to each player, reveal a Herd of 6, then start the era's first turn."""
    needing = [player.seat for player in state.players if not player.hand]
    if needing and state.deck:
        count = min(HAND_SIZE, len(state.deck))
        return tuple(
            Pending(
                actor="dealer",
                kind="deal_hand",
                seat=seat,
                options=state.deck,
                count=count,
                prompt=f"dealer to deal {count} Era {state.era} cards to {seat_label(state, seat)}",
            )
            for seat in needing
        )
    refill = refill_herd_step(state)
    if refill is not None:
        return refill
    return ev.TurnStarted(era=state.era, turn=1)


def selection_step(state: GameState) -> Step:
    waiting = [player for player in state.players if player.selected is None]
    if waiting:
        return tuple(
            Pending(
                actor="player",
                kind="select_dinosaur",
                seat=player.seat,
                options=player.hand,
                prompt=f"{seat_label(state, player.seat)} to select a dinosaur from their hand",
                detail={"cards": [describe_card(state, card) for card in player.hand]},
            )
            for player in waiting
        )
    played = tuple(player.selected or "" for player in state.players)
    trex = tuple(seat for seat in state.clockwise_from(state.bolide) if state.rules.icon(played[seat]) == "trex")
    return ev.DinosaursRevealed(cards=played, trex_players=trex)


def trex_step(state: GameState) -> Step:
    """Each T-Rex icon, clockwise from the first player: discard an earlier dinosaur, then roar."""
    if not state.trex_queue:
        return ev.MeteorPhaseStarted(launches=meteor_launches(state))
    seat = state.trex_queue[0]
    candidates = trex_discard_candidates(state, seat)
    if not state.trex_discarded and candidates:
        return discard_step(state, seat, candidates, "trex")
    returned = tuple(
        ev.ReturnedHatchling(seat=other, dinosaur=state.player(other).hatchlings[-1])
        for other in state.clockwise_from(seat)[1:]
        if state.player(other).hatchlings
    )
    return ev.TRexRoared(seat=seat, returned=returned)


def meteor_launches(state: GameState) -> tuple[LaunchSlot, ...]:
    """The Bolide's extra launch first, then each Meteor icon clockwise from the first player."""
    icons = [
        LaunchSlot(seat=seat, bolide=False)
        for seat in state.clockwise_from(state.bolide)
        if state.icon_played(seat) == "meteor"
    ]
    return (LaunchSlot(seat=state.bolide, bolide=True), *icons)


def meteor_step(state: GameState) -> Step:
    launch = state.launch
    if launch is None:
        if state.launch_queue:
            slot = state.launch_queue[0]
            if slot.bolide and not state.bolide_launch_taken:
                return (bolide_pending(state, slot.seat),)
            return ev.LaunchStarted(launch_index=state.launch_count, launcher=slot.seat, bolide=slot.bolide)
        return ev.PhaseStarted(phase="egg")
    return LAUNCH_STEPS[launch.stage](state)


def bolide_pending(state: GameState, seat: int) -> Pending:
    """The Bolide "allows" an extra launch: its holder takes it (the default) or declines it."""
    return Pending(
        actor="player",
        kind="choose_bolide_launch",
        seat=seat,
        options=(True, False),
        default=True,
        prompt=f"{seat_label(state, seat)} to take the Bolide's extra launch or decline it",
        detail={"launch_index": state.launch_count},
    )


def launch_reveal_step(state: GameState) -> Step:
    assert state.launch is not None
    if state.deck:
        return (reveal_pending(state, "launch", state.launch.launcher),)
    return deck_rebuild(state) or ev.LaunchCardUnavailable(launch_index=state.launch.index)


def ocean_step(state: GameState) -> Step:
    assert state.launch is not None
    ocean = state.rules.data.ocean_level
    seat = state.launch.launcher
    return (
        Pending(
            actor="player",
            kind="choose_ocean_level",
            seat=seat,
            options=tuple(range(ocean.min, ocean.max + 1)),
            prompt=f"{seat_label(state, seat)} to choose the ocean level ({ocean.min}..{ocean.max})",
            detail={"launch_index": state.launch.index},
        ),
    )


def throw_step(state: GameState) -> Step:
    launch = state.launch
    assert launch is not None and launch.mode is not None
    return (
        Pending(
            actor="judge",
            kind="resolve_launch",
            seat=launch.launcher,
            options=OUTCOMES,
            prompt=f"judge to report launch {launch.index} by {seat_label(state, launch.launcher)}",
            detail={
                "launch_index": launch.index,
                "ocean_level": launch.ocean_level,
                "mode": launch.mode.model_dump(mode="json"),
                "judge_mode": launch.mode.judge_mode,
                "min_bounces": launch.mode.min_bounces,
            },
        ),
    )


def effects_step(state: GameState) -> Step:
    """Apply the verdict: a hit, a water landing, or nothing for a void launch."""
    launch = state.launch
    assert launch is not None and launch.ocean_level is not None
    if launch.outcome == "dinosaur":
        assert launch.dinosaur is not None
        copies = herd_cards_of(state, launch.dinosaur)
        if len(copies) > launch.ocean_level and launch.herd_discards is None:
            return (herd_discards_pending(state, copies),)
        discarded = copies[: launch.ocean_level] if launch.herd_discards is None else launch.herd_discards
        food = take_food(state.food_supply, FOOD_PER_HIT + len(discarded), limited=state.rules.food_limited)
        return ev.TargetHit(
            launch_index=launch.index, seat=launch.launcher, dinosaur=launch.dinosaur, discarded=discarded, food=food
        )
    if launch.outcome == "water":
        return water_landing(state)
    return ev.LaunchFinished(launch_index=launch.index)


def herd_discards_pending(state: GameState, copies: tuple[str, ...]) -> Pending:
    """More copies of the type hit than the ocean level: the launcher picks which ones leave the Herd
    (default: the ones nearest the deck)."""
    launch = state.launch
    assert launch is not None and launch.ocean_level is not None and launch.dinosaur is not None
    return Pending(
        actor="player",
        kind="choose_herd_discards",
        seat=launch.launcher,
        options=copies,
        count=launch.ocean_level,
        default=copies[: launch.ocean_level],
        prompt=f"{seat_label(state, launch.launcher)} to choose which {launch.ocean_level} of the "
        f"{len(copies)} {launch.dinosaur} cards leave the Herd",
        detail={
            "launch_index": launch.index,
            "herd_positions": [state.herd.index(card) for card in copies],
            "cards": [describe_card(state, card) for card in copies],
        },
    )


def default_input(item: Pending) -> ev.BolideLaunchChosen | ev.HerdDiscardsChosen:
    """The input answering `item` with its default (only the choices that have one)."""
    assert item.seat is not None and item.default is not None
    if item.kind == "choose_bolide_launch":
        return ev.BolideLaunchChosen(seat=item.seat, take=item.default, by_default=True)
    if item.kind == "choose_herd_discards":
        return ev.HerdDiscardsChosen(seat=item.seat, cards=item.default, by_default=True)
    raise ValueError(f"{item.kind} has no default")


def water_landing(state: GameState) -> ev.WaterLanded:
    """Opposing Tide players take 2 Food; the launcher must reveal ocean level + Tide icons tokens."""
    launch = state.launch
    assert launch is not None and launch.ocean_level is not None
    supply = state.food_supply
    gains: list[ev.FoodGain] = []
    for seat in state.clockwise_from(launch.launcher)[1:]:
        if state.icon_played(seat) == "tide":
            food = take_food(supply, TIDE_FOOD, limited=state.rules.food_limited)
            supply -= food
            gains.append(ev.FoodGain(seat=seat, food=food))
    waves = min(launch.ocean_level + state.tide_icons_played(), len(state.wave_pool))
    return ev.WaterLanded(launch_index=launch.index, tide_food=tuple(gains), waves_to_reveal=waves)


def waves_step(state: GameState) -> Step:
    launch = state.launch
    assert launch is not None
    return (
        Pending(
            actor="dealer",
            kind="reveal_wave_tokens",
            seat=launch.launcher,
            options=state.wave_pool,
            count=launch.waves_to_reveal,
            prompt=f"dealer to reveal {launch.waves_to_reveal} Wave tokens for {seat_label(state, launch.launcher)}",
            detail={"launch_index": launch.index},
        ),
    )


def wave_effects_step(state: GameState) -> Step:
    """Egg faces return the launcher's top Hatchlings; Dinosaur faces make discards due."""
    launch = state.launch
    assert launch is not None
    faces = [state.rules.data.face(token) for token in state.wave_revealed]
    pile = state.player(launch.launcher).hatchlings
    returned = tuple(reversed(pile))[: faces.count("egg")]
    return ev.WaveEffectsApplied(
        seat=launch.launcher, hatchlings_returned=returned, dinosaur_discards_due=faces.count("dinosaur")
    )


def wave_discards_step(state: GameState) -> Step:
    launch = state.launch
    assert launch is not None
    candidates = wave_discard_candidates(state, launch.launcher)
    if launch.dinosaur_discards_due > 0 and candidates:
        return discard_step(state, launch.launcher, candidates, "wave")
    return ev.WaveTokensReshuffled(tokens=state.wave_revealed)


def launch_done_step(state: GameState) -> Step:
    assert state.launch is not None
    return ev.LaunchFinished(launch_index=state.launch.index)


LAUNCH_STEPS: dict[str, Callable[[GameState], Step]] = {
    "reveal": launch_reveal_step,
    "ocean": ocean_step,
    "throw": throw_step,
    "effects": effects_step,
    "waves": waves_step,
    "wave_effects": wave_effects_step,
    "wave_discards": wave_discards_step,
    "done": launch_done_step,
}


def egg_step(state: GameState) -> Step:
    """Every player with something to decide chooses; then all hatch, clockwise from the first player."""
    waiting = [
        seat
        for seat in state.clockwise_from(state.bolide)
        if state.choice_of(seat) is None and needs_choice(state, seat)
    ]
    if waiting:
        return tuple(egg_pending(state, seat) for seat in waiting)
    return hatch(state)


def egg_pending(state: GameState, seat: int) -> Pending:
    options = choice_options(state, seat)
    gains = {"+".join(types) or "egg_icon": stack(gains_for(state, seat, types), ())[::-1] for types in options}
    yields = {key: len(hatchlings) for key, hatchlings in gains.items()}
    if played_egg_icon(state, seat):
        prompt = f"{seat_label(state, seat)} to order their new Hatchlings (Egg icon)"
    else:
        prompt = f"{seat_label(state, seat)} to choose the dinosaur type to pair with the Herd"
    return Pending(
        actor="player",
        kind="take_hatchlings",
        seat=seat,
        options=tuple(options),
        prompt=prompt,
        detail={"egg_icon": played_egg_icon(state, seat), "hatchlings": yields, "gains": gains},
    )


def end_of_turn_step(state: GameState) -> Step:
    """Pass hands and Bolide; end the era on the last card; else trim or refill the Herd."""
    if not state.hands_passed:
        return ev.HandsPassed(bolide=(state.bolide + 1) % state.player_count)
    if len(state.players[0].hand) <= 1:
        return era_end(state)
    if len(state.herd) > HERD_SIZE:
        return ev.HerdTrimmed(cards=state.herd[: len(state.herd) - HERD_SIZE])
    refill = refill_herd_step(state)
    if refill is not None:
        return refill
    return ev.TurnStarted(era=state.era, turn=state.turn + 1)


def era_end(state: GameState) -> ev.EraEnded:
    """The Herd is not adjusted first: it is discarded anyway (same result, no pointless reveals)."""
    hands = tuple(card for player in state.players for card in player.hand)
    if state.era == 1:
        discarded = (*hands, *state.herd)
        return ev.EraEnded(era=1, discarded=discarded, removed=(*state.deck, *state.discard, *discarded))
    return ev.EraEnded(era=state.era, discarded=hands, removed=())


def scoring_step(state: GameState) -> Step:
    return ev.GameScored(result=final_result(state))


def game_over_step(state: GameState) -> Step:
    return ()


PHASE_STEPS: dict[str, Callable[[GameState], Step]] = {
    "setup": setup_step,
    "selection": selection_step,
    "trex": trex_step,
    "meteor": meteor_step,
    "egg": egg_step,
    "end_of_turn": end_of_turn_step,
    "scoring": scoring_step,
    "game_over": game_over_step,
}


def next_step(state: GameState) -> Step:
    """The next automatic event, or the tuple of decisions awaited (empty: game over)."""
    return PHASE_STEPS[state.phase](state)


def is_waiting(step: Step) -> bool:
    return isinstance(step, tuple)
