"""The rig: the shipped standard layout loads, and bad rigs are refused with a message naming the problem."""

from __future__ import annotations

import copy
import json

import pytest

from calibration.rig import RigError, default_rig_path, load_rig, rig_from_dict


def _standard() -> dict:
    return json.loads(default_rig_path().read_text())


def test_standard_rig_loads_with_table_and_box_markers():
    rig = load_rig(default_rig_path())
    assert len(rig.table_markers) >= 4 and len(rig.box.markers) >= 3
    assert rig.herd_line_mm is None  # found by the camera from the cards


def _overlap_regions(d):
    d["box"]["regions"][1]["polygon_mm"] = d["box"]["regions"][0]["polygon_mm"]


def _region_outside(d):
    d["box"]["regions"][0]["polygon_mm"][0] = [-400.0, -110.0]


def _duplicate_id(d):
    d["box"]["markers"][0]["id"] = d["table_markers"][0]["id"]


def _wrong_size(d):
    d["table_markers"][2]["size_mm"] = 60.0


def _open_polygon(d):
    d["box"]["outline_mm"] = d["box"]["outline_mm"][:2]


def _crossing_polygon(d):
    d["box"]["outline_mm"] = [[0, 0], [200, 0], [200, 100], [100, -50], [0, 100]]


def _overlapping_table_markers(d):
    d["table_markers"][1]["corners_mm"] = d["table_markers"][0]["corners_mm"]


def _unknown_dictionary(d):
    d["aruco_dictionary"] = "DICT_9X9_7"


@pytest.mark.parametrize(
    ("break_it", "message"),
    [
        (_overlap_regions, "overlap"),
        (_region_outside, "outside the box outline"),
        (_duplicate_id, "marker ids used more than once"),
        (_wrong_size, "size_mm is 60"),
        (_open_polygon, "at least 3 corners"),
        (_crossing_polygon, "crosses itself"),
        (_overlapping_table_markers, "table markers 0 and 1 overlap"),
        (_unknown_dictionary, "unknown ArUco dictionary"),
    ],
)
def test_bad_rig_is_refused_naming_the_problem(break_it, message):
    data = copy.deepcopy(_standard())
    break_it(data)
    with pytest.raises(RigError, match=message):
        rig_from_dict(data, source="my-rig.json")


def test_regions_sharing_an_edge_do_not_count_as_overlapping():
    rig_from_dict(_standard())  # the standard regions touch along their edges


def test_unreadable_rig_file_is_a_rig_error(tmp_path):
    bad = tmp_path / "rig.json"
    bad.write_text("{not json")
    with pytest.raises(RigError, match="not valid JSON"):
        load_rig(bad)
    with pytest.raises(RigError, match="not found"):
        load_rig(tmp_path / "missing.json")
