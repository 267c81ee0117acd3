"""One readable line per event, for the `simulate` log and a dashboard's history."""

from __future__ import annotations

from typing import Any

from engine.state import GameState


def narrate(state: GameState, event: Any) -> str | None:
    """A sentence for `event` (`state` gives names and cards); None for events not worth a line."""
    rules = state.rules

    def who(seat: int) -> str:
        return rules.config.players[seat]

    def card(card_id: str) -> str:
        spec = rules.card(card_id)
        return f"{spec.dinosaur}/{spec.icon}"

    kind = event.kind
    if kind == "game_started":
        return f"New game: {', '.join(rules.config.players)} (first player {who(rules.config.first_player)})"
    if kind == "hand_dealt":
        return f"  {who(event.seat)} is dealt {len(event.cards)} cards"
    if kind == "herd_card_revealed":
        return f"  Herd card revealed: {card(event.card)}"
    if kind == "turn_started":
        return f"== Era {event.era}, turn {event.turn} =="
    if kind == "dinosaurs_revealed":
        plays = ", ".join(f"{who(seat)} {card(played)}" for seat, played in enumerate(event.cards))
        trex = ", ".join(who(seat) for seat in event.trex_players)
        return f"Dinosaur selection: {plays}" + (f"\nT-Rex phase: {trex}" if trex else "")
    if kind == "dinosaur_discarded":
        why = "T-Rex" if event.reason == "trex" else "Wave token"
        return f"  {who(event.seat)} discards {card(event.card)} ({why})"
    if kind == "trex_roared":
        lost = ", ".join(f"{who(item.seat)} returns a {item.dinosaur} hatchling" for item in event.returned)
        return f"  T-Rex of {who(event.seat)}: {lost or 'no one has hatchlings to return'}"
    if kind == "meteor_phase_started":
        return "Meteor phase: " + ", ".join(
            f"{who(slot.seat)}{' (Bolide)' if slot.bolide else ''}" for slot in event.launches
        )
    if kind == "launch_started":
        return f"  Launch {event.launch_index} by {who(event.launcher)}{' (Bolide)' if event.bolide else ''}"
    if kind == "ocean_level_chosen":
        return f"    ocean level {event.level}"
    if kind in ("launch_resolved", "launch_amended"):
        verdict = event.outcome + (f" ({event.dinosaur})" if event.dinosaur else "")
        amended = f" [amended from {event.previous.outcome}]" if kind == "launch_amended" else ""
        return f"    verdict: {verdict}{amended}"
    if kind == "target_hit":
        return f"    hit {event.dinosaur}: {len(event.discarded)} discarded from the Herd, +{event.food} Food"
    if kind == "water_landed":
        tide = ", ".join(f"{who(gain.seat)} +{gain.food} Food (Tide)" for gain in event.tide_food)
        return f"    water: {tide + '; ' if tide else ''}{event.waves_to_reveal} Wave tokens to reveal"
    if kind == "wave_tokens_revealed":
        return "    waves: " + ", ".join(rules.data.face(token) for token in event.tokens)
    if kind == "wave_effects_applied" and event.hatchlings_returned:
        return f"    {who(event.seat)} returns {len(event.hatchlings_returned)} hatchling(s)"
    if kind == "phase_started":
        return f"{event.phase.replace('_', ' ').capitalize()} phase"
    if kind == "hatchlings_hatched":
        gains = "; ".join(f"{who(gain.seat)} +{', '.join(gain.hatchlings)}" for gain in event.gains)
        return f"  Hatchlings: {gains or 'none'}"
    if kind == "hands_passed":
        return f"End of turn: hands pass clockwise; Bolide to {who(event.bolide)}"
    if kind == "herd_trimmed":
        return f"  Herd trimmed by {len(event.cards)}"
    if kind == "era_ended":
        return f"== End of Era {event.era} ==" + ("" if event.era == 1 else "\nFinal scoring")
    if kind == "deck_rebuilt":
        gone = f"; {len(event.removed)} Era I cards leave the game" if event.removed else ""
        return f"  Dinosaur deck rebuilt from {len(event.cards)} discards{gone}"
    if kind == "launch_card_unavailable":
        return "    no Dinosaur card left to reveal: facilitated launch"
    if kind == "bolide_launch_chosen" and not event.take:
        return f"  {who(event.seat)} declines the Bolide's extra launch"
    if kind == "herd_discards_chosen":
        return f"    {who(event.seat)} chooses the Herd cards to discard: {', '.join(map(card, event.cards))}"
    if kind == "input_skipped":
        return f"  (skipped {event.event.kind}: {event.reason})"
    return None
