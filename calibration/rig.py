"""The rig: what a user tells the judge once about their table, box, herd and meteor.

Its content is the `scene` object of `meteors-launch-truth/1` (shared/spec/launch-truth.md),
so the `scene` of any labelled clip, saved as JSON, is a valid rig file as it stands.
Lengths are millimetres. Table-frame points are (x, y) on the table plane; box-frame
points are (x, y) on the box's floor plane.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from calibration.jsonfile import describe_validation_error

DinosaurType = Literal["brontosaurus", "pterodactyl", "trex", "stegosaurus", "triceratops", "velociraptor"]
DINOSAUR_TYPES: tuple[str, ...] = DinosaurType.__args__  # type: ignore[attr-defined]

Point2 = tuple[float, float]
Quad = tuple[Point2, Point2, Point2, Point2]


class RigError(ValueError):
    """A rig file that cannot be used; the message names the file and the bad field."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TableMarker(_Model):
    """An ArUco marker lying flat on the table; corners in ArUco order (TL, TR, BR, BL)."""

    id: int = Field(ge=0)
    size_mm: float = Field(gt=0)
    corners_mm: Quad

    @model_validator(mode="after")
    def _corners_match_size(self) -> TableMarker:
        check_marker_square(self.id, self.size_mm, self.corners_mm)
        return self


class BoxMarker(_Model):
    """An ArUco marker on the box, its plane `z_mm` above the table; corners in the box frame."""

    id: int = Field(ge=0)
    size_mm: float = Field(gt=0)
    z_mm: float = Field(ge=0)
    corners_mm: Quad

    @model_validator(mode="after")
    def _corners_match_size(self) -> BoxMarker:
        check_marker_square(self.id, self.size_mm, self.corners_mm)
        return self


class Region(_Model):
    """One compartment of the box: a dinosaur space or a water region."""

    name: str = Field(min_length=1)
    kind: Literal["dinosaur", "water"]
    dinosaur: DinosaurType | None = None
    polygon_mm: list[Point2]

    @model_validator(mode="after")
    def _dinosaur_matches_kind(self) -> Region:
        if self.kind == "dinosaur" and self.dinosaur is None:
            raise ValueError(f"region {self.name!r} is a dinosaur space but names no dinosaur")
        if self.kind == "water" and self.dinosaur is not None:
            raise ValueError(f"region {self.name!r} is water but names dinosaur {self.dinosaur!r}")
        return self

    @field_validator("polygon_mm")
    @classmethod
    def _polygon_is_a_proper_polygon(cls, polygon: list[Point2]) -> list[Point2]:
        return check_polygon(polygon, "polygon_mm")


class Box(_Model):
    """The game box in its own frame: outline, heights, markers and compartments."""

    outline_mm: list[Point2]
    rim_height_mm: float = Field(gt=0)
    floor_height_mm: float = Field(ge=0)
    markers: list[BoxMarker]
    regions: list[Region] = Field(min_length=1)

    @field_validator("outline_mm")
    @classmethod
    def _outline_is_a_proper_polygon(cls, outline: list[Point2]) -> list[Point2]:
        return check_polygon(outline, "outline_mm")

    @model_validator(mode="after")
    def _heights_and_regions_agree(self) -> Box:
        if self.floor_height_mm >= self.rim_height_mm:
            raise ValueError("floor_height_mm must be below rim_height_mm")
        names = [region.name for region in self.regions]
        if len(set(names)) != len(names):
            raise ValueError(f"region names repeat: {sorted(n for n in set(names) if names.count(n) > 1)}")
        outline = np.asarray(self.outline_mm, dtype=np.float32).reshape(-1, 1, 2)
        for region in self.regions:
            outside = [p for p in region.polygon_mm if cv2.pointPolygonTest(outline, (float(p[0]), float(p[1])), True)
                       < -OUTLINE_TOLERANCE_MM]
            if outside:
                raise ValueError(f"region {region.name!r} reaches outside the box outline at {outside[0]}")
        for first, second in overlapping_pairs([r.polygon_mm for r in self.regions]):
            raise ValueError(f"regions {self.regions[first].name!r} and {self.regions[second].name!r} overlap")
        return self


class Meteor(_Model):
    """The meteor's size and, when known, its colour (else the calibration learns it)."""

    diameter_mm: float = Field(gt=0, le=200)
    rgb: tuple[int, int, int] | None = None


class Rig(_Model):
    """Everything the judge is told about a table set-up (the label format's `scene`)."""

    aruco_dictionary: str = "DICT_4X4_50"
    table_markers: list[TableMarker] = Field(min_length=1)
    box: Box
    herd_line_mm: tuple[Point2, Point2] | None = None
    meteor: Meteor

    @model_validator(mode="after")
    def _marker_ids_are_unique(self) -> Rig:
        ids = [m.id for m in self.table_markers] + [m.id for m in self.box.markers]
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            raise ValueError(f"marker ids used more than once: {repeated}")
        for first, second in overlapping_pairs([m.corners_mm for m in self.table_markers]):
            raise ValueError(
                f"table markers {self.table_markers[first].id} and {self.table_markers[second].id} overlap"
            )
        return self

    @field_validator("aruco_dictionary")
    @classmethod
    def _dictionary_is_known(cls, name: str) -> str:
        import cv2

        if not name.startswith("DICT_") or not hasattr(cv2.aruco, name):
            raise ValueError(f"unknown ArUco dictionary {name!r} (expected e.g. 'DICT_4X4_50')")
        return name

    @field_validator("herd_line_mm")
    @classmethod
    def _herd_line_has_length(cls, line: tuple[Point2, Point2] | None) -> tuple[Point2, Point2] | None:
        if line is not None and np.hypot(line[1][0] - line[0][0], line[1][1] - line[0][1]) < 1.0:
            raise ValueError("herd_line_mm needs two distinct points")
        return line

    def region_named(self, name: str) -> Region:
        for region in self.box.regions:
            if region.name == name:
                return region
        raise KeyError(name)


#: a region may reach this far past the box outline (drawing slack), in millimetres
OUTLINE_TOLERANCE_MM = 1.0
#: marker corners may disagree with size_mm by this fraction
MARKER_SIZE_TOLERANCE = 0.02


def check_marker_square(marker_id: int, size_mm: float, corners: Quad) -> None:
    """A marker's four corners must make a square whose side is its `size_mm`."""
    quad = np.asarray(corners, dtype=float)
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    diagonals = np.linalg.norm(quad[[0, 1]] - quad[[2, 3]], axis=1)
    if np.any(np.abs(sides / size_mm - 1.0) > MARKER_SIZE_TOLERANCE):
        raise ValueError(
            f"marker {marker_id}: corners_mm have sides of {', '.join(f'{v:.1f}' for v in sides)} mm "
            f"but size_mm is {size_mm:g}"
        )
    if np.any(np.abs(diagonals / (size_mm * np.sqrt(2.0)) - 1.0) > MARKER_SIZE_TOLERANCE):
        raise ValueError(f"marker {marker_id}: corners_mm do not make a square (or are not in ArUco order)")


def overlapping_pairs(polygons: list, resolution_mm: float = 0.5) -> list[tuple[int, int]]:
    """Index pairs of polygons whose insides overlap by more than a sliver (shared edges are fine)."""
    arrays = [np.asarray(p, dtype=float).reshape(-1, 2) for p in polygons]
    if len(arrays) < 2:
        return []
    everything = np.vstack(arrays)
    low = everything.min(axis=0) - 2
    size = np.ceil((everything.max(axis=0) + 2 - low) / resolution_mm).astype(int) + 1
    if size[0] * size[1] > 16_000_000:
        resolution_mm *= float(np.sqrt(size[0] * size[1] / 16_000_000))
        size = np.ceil((everything.max(axis=0) + 2 - low) / resolution_mm).astype(int) + 1
    masks = []
    for polygon in arrays:
        mask = np.zeros((size[1], size[0]), np.uint8)
        cv2.fillPoly(mask, [np.round((polygon - low) / resolution_mm).astype(np.int32)], 1)
        masks.append(cv2.erode(mask, np.ones((5, 5), np.uint8)))  # forgive ~1 mm of drawing slack
    boxes = [(a.min(axis=0), a.max(axis=0)) for a in arrays]
    pairs = []
    for i in range(len(arrays)):
        for j in range(i + 1, len(arrays)):
            if np.any(boxes[i][1] < boxes[j][0]) or np.any(boxes[j][1] < boxes[i][0]):
                continue
            if np.count_nonzero(masks[i] & masks[j]) > 0:
                pairs.append((i, j))
    return pairs


def check_polygon(polygon: list[Point2], field: str) -> list[Point2]:
    """A polygon needs three distinct corners, an area, and edges that do not cross."""
    points = list(polygon)
    if len(points) >= 2 and points[0] == points[-1]:
        points = points[:-1]  # an explicitly closed ring is the same polygon
    if len(points) < 3:
        raise ValueError(f"{field} needs at least 3 corners, got {len(points)}")
    array = np.asarray(points, dtype=float)
    x, y = array[:, 0], array[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))
    if area < 1.0:
        raise ValueError(f"{field} has no area (its corners are on one line)")
    if _edges_cross(array):
        raise ValueError(f"{field} crosses itself")
    return points


def _edges_cross(ring: np.ndarray) -> bool:
    """True when two non-adjacent edges of the closed ring intersect."""
    count = len(ring)
    edges = [(ring[i], ring[(i + 1) % count]) for i in range(count)]
    for i in range(count):
        for j in range(i + 1, count):
            if j == i + 1 or (i == 0 and j == count - 1):
                continue
            if _segments_intersect(*edges[i], *edges[j]):
                return True
    return False


def _segments_intersect(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray) -> bool:
    def orientation(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> float:
        return float((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]))

    o1, o2 = orientation(a, b, c), orientation(a, b, d)
    o3, o4 = orientation(c, d, a), orientation(c, d, b)
    return o1 * o2 < 0 and o3 * o4 < 0


def default_rig_path() -> Path:
    """The rig of the standard layout shipped with the package."""
    return Path(__file__).with_name("rigs") / "standard.json"


def load_rig(path: str | Path) -> Rig:
    """Read a rig from JSON or TOML, or a labelled clip's JSON (its `scene` is a rig).

    Every problem becomes a `RigError` naming the file and the field.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RigError(f"rig file not found: {path}") from None
    except OSError as error:
        raise RigError(f"cannot read rig file {path}: {error.strerror}") from None
    try:
        data = tomllib.loads(text) if path.suffix.lower() == ".toml" else json.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as error:
        raise RigError(f"{path} is not valid {path.suffix.lstrip('.').upper() or 'JSON'}: {error}") from None
    if isinstance(data, dict) and str(data.get("schema", "")).startswith("meteors-launch-truth/"):
        # a labelled clip's JSON: its `scene` is the rig the clip was made with
        if "scene" not in data:
            raise RigError(f"{path}: a launch label without a scene")
        return rig_from_dict(data["scene"], source=f"{path} (scene)")
    return rig_from_dict(data, source=str(path))


def rig_from_dict(data: object, source: str = "rig") -> Rig:
    """Validate a rig given as plain data (a parsed file, or a label's `scene`)."""
    try:
        return Rig.model_validate(data)
    except ValidationError as error:
        raise RigError(f"{source}: {describe_validation_error(error)}") from None
