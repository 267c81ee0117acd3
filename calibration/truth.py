"""`meteors-launch-truth/1`: what really happened in a labelled clip (shared/spec/launch-truth.md).

The footage generator writes it and `meteors-judge eval` reads it, from any source.
Unknown extra fields are ignored so that other sources may add their own. Ours adds two, both
optional: `box_track`, where a moving box stood frame by frame (a bumped or tapped box), absent when
the box stood still (`box_pose` is always where it stands at the end, where the meteor comes to
rest); and `meteor_track`, where the meteor's centre was in every frame, held or free, which lets a
detector learn the meteor in the hand as well as in flight.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from calibration.camera import CameraModel
from calibration.geometry import BoxPose
from calibration.jsonfile import load_json_model
from calibration.rig import DinosaurType, Point2, Rig

SCHEMA = "meteors-launch-truth/1"

Surface = Literal["table", "box_floor", "box_wall", "box_rim"]
Landing = Literal["dinosaur", "water", "outside"]
Outcome = Literal["dinosaur", "water", "void"]
LaunchMode = Literal["standard", "hard_velociraptor"]


class LabelError(ValueError):
    """A label file that does not follow `meteors-launch-truth/1`; the message names the field."""


class _Label(BaseModel):
    model_config = ConfigDict(extra="ignore")


class TrueRelease(_Label):
    frame: int = Field(ge=0)
    table_mm: Point2
    height_mm: float
    herd_line_signed_mm: float


class TrueBounce(_Label):
    frame: int = Field(ge=0)
    table_mm: Point2
    surface: Surface
    before_box: bool


class TrueRest(_Label):
    frame: int = Field(ge=0)
    table_mm: Point2
    box_mm: Point2


class TrueBoxPose(_Label):
    """Where the box stood in one frame (`box_track`)."""

    frame: int = Field(ge=0)
    yaw_deg: float
    translation_mm: Point2


class TrueMeteorPoint(_Label):
    """Where the meteor's centre was in one frame (`meteor_track`), and whether a hand held it."""

    frame: int = Field(ge=0)
    centre_mm: tuple[float, float, float]
    held: bool


class LaunchTruth(_Label):
    """One labelled clip's truth."""

    schema_: Literal["meteors-launch-truth/1"] = Field(alias="schema", default=SCHEMA)
    video: str
    fps: float = Field(gt=0)
    frame_size: tuple[int, int]
    frame_count: int = Field(ge=0)
    launch_mode: LaunchMode = "standard"
    scene: Rig
    box_pose: BoxPose
    camera: CameraModel | None = None
    release: TrueRelease
    herd_line_ok: bool
    bounces: list[TrueBounce]
    bounces_before_box: int = Field(ge=0)
    entered_box_frame: int | None
    rest: TrueRest | None
    region: str
    landing: Landing
    valid: bool
    outcome: Outcome
    dinosaur: DinosaurType | None
    box_track: list[TrueBoxPose] = []  # frames 0.. while the box moves (an extension); empty: it stood still
    meteor_track: list[TrueMeteorPoint] = []  # every frame (an extension); empty: not recorded

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def to_json(self) -> str:
        empty = {name for name in ("box_track", "meteor_track") if not getattr(self, name)}
        return self.model_dump_json(by_alias=True, indent=2, exclude=empty or None)

    def box_pose_at(self, frame: int) -> BoxPose:
        """Where the box stood in `frame`: from `box_track` while it moved, else `box_pose`."""
        for entry in self.box_track:
            if entry.frame == frame:
                return BoxPose(yaw_deg=entry.yaw_deg, translation_mm=entry.translation_mm)
        return self.box_pose


def required_table_bounces(launch_mode: LaunchMode) -> int:
    """Table bounces a launch needs before the box: two for the hard Velociraptor, else one."""
    return 2 if launch_mode == "hard_velociraptor" else 1


def load_label(path: str | Path) -> LaunchTruth:
    """Read and validate a label; any problem is a `LabelError` naming file and field."""
    return load_json_model(path, LaunchTruth, LabelError, "label")
