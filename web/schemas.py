"""Pydantic models of every JSON body and query the API accepts (also the OpenAPI description's source).

JSON bodies are validated strictly (a JSON `true` is not the integer 1, `"3"` is not 3); text is
stripped of surrounding spaces before its length is checked, so a name of only spaces is refused;
numbers must be finite.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from calibration.rig import DinosaurType
from engine.data import OpenCases
from web.limits import MAX_ROW_ID

Outcome = Literal["dinosaur", "water", "void"]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, allow_inf_nan=False)


class PlayerSpec(Body):
    name: str = Field(min_length=1, max_length=40)
    seat: int | None = Field(default=None, ge=0, le=4, description="clockwise seat; default: the order given")


class CreateGame(Body):
    """A new game: 2 to 5 players in clockwise seat order."""

    name: str = Field(default="Game night", min_length=1, max_length=80)
    players: list[PlayerSpec] = Field(min_length=2, max_length=5)
    hard_mode: bool = False
    facilitated_launches: bool = False
    hatchlings_variant: bool = Field(default=False, description="'Won't somebody think of the hatchlings?'")
    house_rules: OpenCases | None = Field(default=None, description="how this game reads the rulebook's open "
                                          "cases; a case left out keeps the engine's reading (see the README)")
    dealer: Literal["seeded", "table"] = "seeded"
    seed: int | None = Field(default=None, ge=0, le=2**31 - 1)
    autoplay: bool = Field(default=False, description="play every decision but the launches at random (demo)")
    review_disputed: bool = Field(default=True, description="hold the game after a call the judge marked "
                                  "disputed until a referee confirms or overrules it")

    @model_validator(mode="after")
    def _seats_distinct(self) -> CreateGame:
        seats = [p.seat if p.seat is not None else i for i, p in enumerate(self.players)]
        if len(set(seats)) != len(seats):
            raise ValueError("players.seat: two players sit in the same seat")
        if max(seats) >= len(seats):
            raise ValueError(f"players.seat: seats must be 0..{len(seats) - 1}")
        return self


class Command(Body):
    """One decision the engine is waiting for: the option as the engine listed it in `pending`."""

    option: Any = Field(default=None, description="one of pending[].options as given (a list of them when "
                        "pending[].count > 1)")
    option_index: int | None = Field(default=None, ge=0, le=10_000, description="or its index in pending[].options")
    pending_index: int = Field(default=0, ge=0, le=10_000, description="which pending decision (when several)")
    stack_order: list[DinosaurType] | None = Field(
        default=None, description="take_hatchlings only: the new Hatchlings' types from the top of the pile down, "
        "in any order (pending[].detail.gains lists them per option); a type named once keeps its Hatchlings "
        "together; default: grouped by type")
    who: str = Field(default="referee", min_length=1, max_length=40)

    @model_validator(mode="after")
    def _one_choice(self) -> Command:
        if (self.option is None) == (self.option_index is None):
            raise ValueError("option: give exactly one of option or option_index")
        return self


class ManualLaunch(Body):
    """A launch outcome entered by hand (camera off)."""

    outcome: Outcome
    dinosaur: DinosaurType | None = None
    who: str = Field(default="referee", min_length=1, max_length=40)

    @model_validator(mode="after")
    def _dinosaur_iff_hit(self) -> ManualLaunch:
        if self.outcome == "dinosaur" and self.dinosaur is None:
            raise ValueError("dinosaur: a dinosaur outcome needs the dinosaur hit")
        if self.outcome != "dinosaur":
            self.dinosaur = None
        return self


class Undo(Body):
    steps: int = Field(default=1, ge=1, le=500)
    who: str = Field(default="referee", min_length=1, max_length=40)


class Override(Body):
    """Change a launch's call. Give the outcome directly, or the facts (region, bounces, herd line, valid)."""

    outcome: Outcome | None = None
    dinosaur: DinosaurType | None = None
    region: str | None = Field(default=None, min_length=1, max_length=40,
                               description="a region of the rig, 'outside' or 'rim'")
    bounces_before_box: int | None = Field(default=None, ge=0, le=50)
    herd_line_ok: bool | None = None
    valid: bool | None = None
    reason: str = Field(min_length=3, max_length=500)
    who: str = Field(default="referee", min_length=1, max_length=40)
    overrules: int | None = Field(default=None, ge=1, le=MAX_ROW_ID,
                                  description="id of the override this one overrules")
    confirm: bool = Field(default=False, description="overrule a launch that is not the game's latest counted "
                          "one (without it: 409 with a preview of what would change)")

    @model_validator(mode="after")
    def _something_changes(self) -> Override:
        facts = (self.outcome, self.region, self.bounces_before_box, self.herd_line_ok, self.valid)
        if all(value is None for value in facts):
            raise ValueError("outcome: say what changes (outcome, region, bounces_before_box, herd_line_ok or valid)")
        if self.outcome == "dinosaur" and self.dinosaur is None and self.region is None:
            raise ValueError("dinosaur: a dinosaur outcome needs the dinosaur hit")
        return self


class Withdraw(Body):
    reason: str = Field(min_length=3, max_length=500)
    who: str = Field(default="referee", min_length=1, max_length=40)


class Referral(Body):
    """A referee's one-click action on a launch (confirm a disputed call, assign a throw to the launch)."""

    who: str = Field(default="referee", min_length=1, max_length=40)


class Dispute(Body):
    reason: str = Field(default="disputed at the table", min_length=3, max_length=500)
    who: str = Field(default="player", min_length=1, max_length=40)


class HerdLine(Body):
    points_px: list[tuple[float, float]] = Field(min_length=2, max_length=2)

    @field_validator("points_px")
    @classmethod
    def _distinct(cls, points: list[tuple[float, float]]) -> list[tuple[float, float]]:
        (x1, y1), (x2, y2) = points
        if abs(x1 - x2) + abs(y1 - y2) < 3:
            raise ValueError("the two points must be apart")
        if any(v < 0 or v > 20000 for point in points for v in point):
            raise ValueError("points must be pixels of the frame")
        return points


class MeteorPick(Body):
    x: float = Field(ge=0, le=20000)
    y: float = Field(ge=0, le=20000)


class Referee(Body):
    token: str = Field(min_length=1, max_length=200)


class LaunchQuery(Body):
    game_id: int | None = Field(default=None, ge=1, le=MAX_ROW_ID)
    needs_review: bool = Field(default=False, description="only launches whose disputed call holds the game")
    limit: int = Field(default=200, ge=1, le=1000)


class EventsQuery(Body):
    max_events: int | None = Field(default=None, ge=1, le=10000, description="close after this many events")
    seconds: float | None = Field(default=None, gt=0, le=86400,
                                  description="close after this many seconds (default: the server's limit)")
    after: int | None = Field(default=None, ge=0, le=MAX_ROW_ID, description="first send the remembered judge events "
                              "newer than this event id (the Live page passes the last one it rendered)")


class StreamQuery(Body):
    max_frames: int | None = Field(default=None, ge=1, le=100000, description="close after this many frames")
    seconds: float | None = Field(default=None, gt=0, le=86400,
                                  description="close after this many seconds (default: the server's limit)")
