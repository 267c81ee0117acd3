"""How far a calibration's box pose lies from where a labelled clip's box stood at its start."""

from __future__ import annotations

import numpy as np


def box_pose_errors(calibration, label) -> tuple[float, float]:
    """(shift mm, yaw degrees) against the label's box pose at frame 0 (a still frame is made of the first
    frames)."""
    first = label.box_pose_at(0)
    yaw = abs((calibration.box_pose.yaw_deg - first.yaw_deg + 180.0) % 360.0 - 180.0)
    shift = float(np.hypot(*np.subtract(calibration.box_pose.translation_mm, first.translation_mm)))
    return shift, yaw
