"""Words for a launch the judge could not follow to its end: where the meteor was, in a player's terms.

When the meteor is lost, or the footage ends before the launch does, the judge says so rather than
staying silent: as a disputed verdict's reason when it could still judge the launch, else as a
`warning` event. Both name the frame and the place (pixels, table millimetres, the box and the herd
line), so a referee can look at the footage and rule.
"""

from __future__ import annotations

import numpy as np

from calibration.rig import Rig
from vision.landing import herd_line_in_use, herd_line_signed, outline_signed_mm


def place_words(rig: Rig, calibration, x_px: float, y_px: float) -> str:
    """Where a sighting lies: its pixel, its table point (taken at the height of a meteor lying on the
    table) and where that is from the box and the herd line."""
    words = f"({x_px:.0f}, {y_px:.0f}) px"
    if calibration is None:
        return words
    camera, pose = calibration.camera, calibration.box_pose
    ground = camera.pixel_to_plane(np.array([[x_px, y_px]], dtype=np.float64), rig.meteor.diameter_mm / 2)[0, :2]
    words += f", ({ground[0]:.0f}, {ground[1]:.0f}) mm on the table"
    inside_mm = outline_signed_mm(rig, pose, ground)
    words += ", over the box" if inside_mm > 0 else f", {-inside_mm:.0f} mm from the box"
    signed = herd_line_signed(rig, pose, ground, herd_line_in_use(rig, calibration))
    if signed is not None:
        words += ", on the launcher's side of the herd line" if signed > 0 else ", past the herd line"
    return words


def _lost_moving(first_frame: int, lost_frame: int, travel_mm: float, where: str) -> str:
    """Where and when a meteor seen moving as a launch does, never seen leaving a hand, was lost."""
    return (
        f"meteor lost at frame {lost_frame}, last seen at {where}, after moving {travel_mm:.0f} mm since "
        f"frame {first_frame} without being seen leaving a hand"
    )


def lost_in_hand(first_frame: int, lost_frame: int, travel_mm: float, where: str) -> str:
    """A meteor seen moving as a launch does, never judged released, lost before it came to rest."""
    return _lost_moving(first_frame, lost_frame, travel_mm, where) + ": if it was launched, that launch was not judged"


def still_held_at_end(first_frame: int, where: str) -> str:
    """The footage ends while the judge takes the meteor for held in a hand."""
    return (
        f"the video ended while the judge took the meteor for held in a hand (since frame {first_frame}, "
        f"last at {where}): a launch from that hand, if any, was not judged"
    )


def nothing_judged(first_frame: int, last_frame: int, followed: tuple[int, int] | None) -> str:
    """The footage ends with no launch judged and nothing said of one: what the judge saw of the meteor."""
    if followed is None:
        seen = "the meteor was never found in a hand or in flight"
    else:
        seen = f"the meteor, or something taken for it, was followed from frame {followed[0]} to {followed[1]}"
    return (
        f"no launch judged from frame {first_frame} to {last_frame}: {seen}; if a launch was made then, "
        "the judge did not see it"
    )


def in_flight_at_end(release_frame: int | None, where: str) -> str:
    """The footage ends with the meteor in flight before it had travelled as a launch does."""
    since = f" (released at frame {release_frame})" if release_frame is not None else ""
    return (
        f"the video ended with the meteor in flight{since}, last at {where}, "
        "before the launch could be judged"
    )


def stopped_in_hand(travel_mm: float, first_frame: int, stop_frame: int, ended: bool) -> str:
    """A disputed verdict's reason: seen moving as a launch does, never seen leaving a hand, then still."""
    until = "until the video ended" if ended else "free of any hand"
    return (
        f"never seen leaving the launcher's hand: seen moving {travel_mm:.0f} mm from frame {first_frame}, "
        f"then still from frame {stop_frame} {until}; judged as if it came to rest there"
    )


def held_in_box_at_end(stop_frame: int) -> str:
    """A disputed verdict's reason: taken for held in a hand, lying still in the box when the footage ended."""
    return (
        f"taken for held in a hand, but lying still in the box from frame {stop_frame} until the video ended; "
        "judged as if it came to rest there"
    )


def judged_lost_in_hand(first_frame: int, lost_frame: int, travel_mm: float, where: str) -> str:
    """A disputed verdict's reason: the meteor seen moving as a launch does, never seen leaving a hand,
    lost and not found again."""
    return _lost_moving(first_frame, lost_frame, travel_mm, where) + ": judged as a launch lost there"


def found_after_loss(lost_frame: int, lost_where: str, found_frame: int) -> str:
    """A disputed verdict's reason: the meteor lost moving, then found lying still (its landing unseen)."""
    return (
        f"flight not seen: the meteor was lost at frame {lost_frame} (last seen at {lost_where}) and "
        f"found lying still at frame {found_frame}"
    )
