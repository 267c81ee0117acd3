"""Regions, margins, surfaces and the herd line's sign, on a small hand-made rig."""

import numpy as np

from calibration.geometry import BoxPose
from calibration.rig import rig_from_dict
from vision.landing import classify_point, herd_line_signed, surface_of_impact

RIG = rig_from_dict({
    "table_markers": [{"id": 0, "size_mm": 50, "corners_mm": [[0, 0], [50, 0], [50, -50], [0, -50]]}],
    "box": {
        "outline_mm": [[-150, -100], [150, -100], [150, 100], [-150, 100]],
        "rim_height_mm": 55.0,
        "floor_height_mm": 20.0,
        "markers": [],
        "regions": [
            {"name": "trex", "kind": "dinosaur", "dinosaur": "trex",
             "polygon_mm": [[-120, -70], [0, -70], [0, 70], [-120, 70]]},
            {"name": "water_east", "kind": "water", "polygon_mm": [[0, -70], [120, -70], [120, 70], [0, 70]]},
        ],
    },
    "herd_line_mm": [[300, -300], [300, 300]],
    "meteor": {"diameter_mm": 24.0, "rgb": [245, 135, 20]},
})
POSE = BoxPose(yaw_deg=90.0, translation_mm=(600.0, 0.0))  # box frame x runs along table y


def test_region_and_margin_to_the_nearest_border():
    call = classify_point(RIG, POSE, POSE.box_to_table(np.array([[-60.0, 10.0]]))[0])
    assert call.region == "trex" and call.landing == "dinosaur" and call.dinosaur == "trex"
    assert abs(call.margin_mm - 60.0) < 1e-6  # 60 mm from the border with the water
    water = classify_point(RIG, POSE, POSE.box_to_table(np.array([[5.0, 0.0]]))[0])
    assert water.region == "water_east" and water.landing == "water" and abs(water.margin_mm - 5.0) < 1e-6


def test_outside_and_rim():
    outside = classify_point(RIG, POSE, np.array([400.0, 0.0]))
    assert outside.region == "outside" and outside.landing == "outside"
    assert abs(outside.margin_mm - 100.0) < 1e-6  # the box's outline is at table x = 500
    rim = classify_point(RIG, POSE, POSE.box_to_table(np.array([[135.0, 0.0]]))[0])
    assert rim.region == "rim" and rim.landing == "outside"


def test_herd_line_is_positive_on_the_launchers_side():
    assert herd_line_signed(RIG, POSE, np.array([250.0, 40.0])) == 50.0
    assert herd_line_signed(RIG, POSE, np.array([320.0, -10.0])) == -20.0


def test_impact_surfaces():
    assert surface_of_impact(RIG, POSE, np.array([300.0, 0.0, 12.0]), 12.0) == "table"
    assert surface_of_impact(RIG, POSE, np.array([600.0, -40.0, 32.0]), 12.0) == "box_floor"
    assert surface_of_impact(RIG, POSE, np.array([500.0, 0.0, 70.0]), 12.0) == "box_rim"
