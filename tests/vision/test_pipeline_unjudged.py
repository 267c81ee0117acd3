"""No silent failure, decided on the track: a meteor seen moving as a launch does and then lost, or still
at the end of the footage while taken for held, or found lying still just after such a loss, gives a
disputed verdict with its reason or a warning naming the frame and the place; a hand's jitter, the
carry back after a judged launch and a meteor held behind the herd line give neither."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from launch_inputs import first_frames, judge_labelled, narrow_empty_frame, narrow_judge, without_heatmap

import vision.pipeline as pipeline
from calibration.truth import load_label
from vision.track import COASTED, HAND, SEEN

LABEL = Path(__file__).resolve().parents[2] / "tests" / "narrow_clips" / "clip_000.json"


def _empty_frame() -> np.ndarray:
    return narrow_empty_frame()


@pytest.fixture
def judge():
    return narrow_judge()


def _pixel(table_mm, height_mm: float = 10.0) -> tuple[float, float]:
    """Where the clip's camera sees a table point (at a meteor's centre height)."""
    camera = load_label(LABEL).camera
    return tuple(float(v) for v in camera.project(np.array([[*table_mm, height_mm]]))[0])


def _line(start, end, count: int) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in np.linspace(start, end, count)]


def _track(judge, points, flags, first_frame: int = 100) -> None:
    judge._frames = list(range(first_frame, first_frame + len(points)))
    judge._px = [v for point in points for v in point]
    judge._diam = [12.0] * len(points)
    judge._flags = list(flags)
    judge._shadow_px = [np.nan] * (2 * len(points))
    xs, ys = judge._px[0::2], judge._px[1::2]
    judge._box = [min(xs), max(xs), min(ys), max(ys)]


@pytest.fixture
def places():
    """Pixels of the labelled release (behind the herd line) and rest (in the box)."""
    label = load_label(LABEL)
    return _pixel(label.release.table_mm, label.release.height_mm), _pixel(label.rest.table_mm)


def test_a_meteor_seen_flying_free_then_lost_in_a_hand_is_a_warning_naming_the_frame_and_place(judge, places):
    release, rest = places
    flight = _line(release, rest, 20)
    _track(judge, flight, [HAND] * 3 + [SEEN] * 17)
    judge.state = "in_hand"  # the tracker has given up on it, never having judged it released
    events = []
    judge._advance_state(_empty_frame(), 200, None, events)
    warnings = [event for event in events if event.kind == "warning"]
    assert judge.state == "waiting" and not judge.verdicts
    assert len(warnings) == 1 and warnings[0].frame == 200
    message = warnings[0].message
    assert message.startswith("meteor lost at frame 200, last seen at ")
    assert f"({rest[0]:.0f}, {rest[1]:.0f}) px" in message and "mm on the table, over the box" in message
    assert message.endswith("since frame 103 without being seen leaving a hand: if it was launched, that launch "
                            "was not judged")


def _lost_moving_in_a_hand(judge, places) -> list:
    """The track of the warning above, lost at frame 200; the events of that frame."""
    release, rest = places
    _track(judge, _line(release, rest, 20), [HAND] * 3 + [SEEN] * 17)
    judge.state = "in_hand"
    events = []
    judge._advance_state(_empty_frame(), 200, None, events)
    return events


def test_a_launch_lost_moving_in_a_hand_and_not_found_again_is_judged_lost_once_its_wait_is_over(judge, places):
    """No meteor is found lying within `FOUND_AFTER_LOSS_SECONDS` of the loss: the launch is judged from the
    track kept at the warning, as lost and disputed, naming why; not before that wait is over."""
    _lost_moving_in_a_hand(judge, places)
    wait_frames = int(pipeline.FOUND_AFTER_LOSS_SECONDS * judge.fps)
    events = []
    for frame in range(201, 201 + wait_frames):
        judge._advance_state(_empty_frame(), frame, None, events)
    assert not judge.verdicts
    judge._advance_state(_empty_frame(), 201 + wait_frames, None, events)
    [verdict] = judge.verdicts
    assert verdict.disputed and verdict.start_frame == 100 and verdict.rest is None
    assert any(reason.startswith("meteor lost at frame 200, last seen at ")
               and reason.endswith("without being seen leaving a hand: judged as a launch lost there")
               for reason in verdict.dispute_reasons)
    assert judge.state == "waiting"


def test_a_launch_lost_moving_in_a_hand_is_judged_when_the_footage_ends_first(judge, places):
    _lost_moving_in_a_hand(judge, places)
    judge._last_frame = 210
    events = judge.finish()
    assert len(judge.verdicts) == 1 and judge.verdicts[0].disputed
    assert [event.frame for event in events if event.kind == "verdict"] == [210]


def test_after_a_judged_launch_a_meteor_lost_moving_in_a_hand_is_only_a_warning(judge, places):
    judge.verdicts.append(object())  # a launch judged before: what follows may be a carry, not a throw
    events = _lost_moving_in_a_hand(judge, places)
    assert [event.kind for event in events].count("warning") == 1
    judge._last_frame = 500
    assert not [event for event in judge.finish() if event.kind == "verdict"] and len(judge.verdicts) == 1


@pytest.mark.parametrize(
    ("case", "moved_px", "flags"),
    [
        ("a hand's jitter", 6.0, [SEEN] * 20),
        ("carried in a hand the whole way", None, [HAND] * 20),
        ("only predicted to move", None, [SEEN] * 2 + [COASTED] * 18),
    ],
)
def test_a_meteor_lost_without_being_seen_moving_free_is_forgotten_silently(judge, places, case, moved_px, flags):
    release, rest = places
    end = rest if moved_px is None else (release[0] + moved_px, release[1])
    _track(judge, _line(release, end, 20), flags)
    judge.state = "in_hand"
    events = []
    judge._advance_state(_empty_frame(), 200, None, events)
    assert judge.state == "waiting", case
    assert not [event for event in events if event.kind == "warning"], case


def test_the_meteor_carried_back_after_its_launch_was_judged_gives_no_warning(judge, places):
    release, rest = places
    judge._picked_up_at = 95  # picked up from its judged rest just before this track
    _track(judge, _line(rest, release, 20), [SEEN] * 20)
    judge.state = "in_hand"
    events = []
    judge._advance_state(_empty_frame(), 200, None, events)
    assert judge.state == "waiting" and not events[:-1]  # only the state change


def test_a_flight_taken_for_a_put_down_then_still_free_of_any_hand_is_judged_disputed(judge, places):
    """A flight that stopped under what looked like a hand was taken for a carry into view (`_hold_again`);
    once the meteor lies still free of any hand past the herd line, no hand holds it: that flight is the
    launch, judged and disputed."""
    release, rest = places
    _track(judge, _line(release, rest, 20) + [rest] * 6, [SEEN] * 20 + [HAND] * 6)
    judge.state = "in_flight"
    judge._hold_again(125, 6, [])
    for frame in range(126, 140):  # then seen lying there, free of any hand
        judge._record(frame, *rest, 12.0, SEEN)
    judge.tracker.start(*rest)
    events = []
    judge._advance_state(_empty_frame(), 140, None, events)
    assert judge.state == "at_rest" and len(judge.verdicts) == 1
    verdict = judge.verdicts[0]
    assert verdict.disputed and verdict.start_frame == 100
    reason = verdict.dispute_reasons[-1]
    assert reason.startswith("never seen leaving the launcher's hand: seen moving ")
    assert "then still from frame 119 free of any hand; judged as if it came to rest there" in reason


def test_a_pause_in_a_flight_first_seen_in_a_hand_is_left_for_the_flight_to_go_on(judge, places):
    """Seen moving and then still free of any hand, never having been judged released, with no put-down:
    a pause (0.2 s at 30 fps on the table or a partition) is no rest to judge yet; only the end of the
    footage settles it (dev 9101 clip_007: judged at the pause, in the wrong region, 17 frames early)."""
    release, rest = places
    _track(judge, _line(release, rest, 20) + [rest] * 14, [HAND] * 3 + [SEEN] * 31)  # no hold seen
    judge.tracker.start(*rest)
    judge.state = "in_hand"
    judge._advance_state(_empty_frame(), 140, None, [])
    assert judge.state == "in_hand" and not judge.verdicts
    judge._last_frame = 140
    judge.finish()
    assert len(judge.verdicts) == 1 and judge.verdicts[0].disputed
    assert "until the video ended; judged as if it came to rest there" in judge.verdicts[0].dispute_reasons[-1]


def test_a_meteor_carried_and_set_down_behind_the_herd_line_is_not_a_launch(judge, places):
    release, rest = places
    _track(judge, _line(rest, release, 20) + [release] * 14, [SEEN] * 34)  # carried back behind the line
    judge.tracker.start(*release)
    judge.state = "in_hand"
    judge._advance_state(_empty_frame(), 140, None, [])
    assert judge.state == "in_hand" and not judge.verdicts


def test_the_footage_ending_on_a_put_down_after_a_flight_judges_that_flight_disputed(judge, places):
    """A flight taken for a carry into view when the meteor stopped under what looked like a hand
    (`_hold_again`): if no throw follows before the footage ends, that flight is judged, disputed."""
    release, rest = places
    flight = _line(release, rest, 20)
    _track(judge, flight + [rest] * 10, [SEEN] * 20 + [HAND] * 10)
    judge.state = "in_flight"
    judge._hold_again(130, 6, [])
    assert judge.state == "in_hand" and len(judge._frames) == 6 and judge._put_down is not None
    events = judge.finish()
    assert [event.kind for event in events if event.kind == "verdict"] == ["verdict"]
    verdict = judge.verdicts[0]
    assert verdict.disputed and verdict.start_frame == 100
    assert any("until the video ended; judged as if it came to rest there" in r for r in verdict.dispute_reasons)


def _footage_ends_while_held(judge, held_at, last_frame: int):
    """The footage ends at `last_frame` while the judge holds the track's meteor at `held_at`: its events."""
    judge.tracker.start(*held_at)
    judge.state = "in_hand"
    judge._last_frame = last_frame
    return judge.finish()


def test_the_footage_ending_while_a_still_meteor_is_held_is_a_warning(judge, places):
    release, _ = places
    _track(judge, [release] * 30, [HAND] * 30)
    events = _footage_ends_while_held(judge, release, last_frame=129)
    assert not judge.verdicts
    assert [event.kind for event in events] == ["warning"]
    message = events[0].message
    assert message.startswith("the video ended while the judge took the meteor for held in a hand (since frame 100")
    assert "on the launcher's side of the herd line" in message


def _stops_short_until_the_end(judge, first_frame: int):
    """Seen moving free of any hand towards the herd line for 20 frames from `first_frame`, then still and
    taken for held on the launcher's side of it for 14 frames, when the footage ends: its events."""
    label = load_label(LABEL)
    release_mm = np.asarray(label.release.table_mm, dtype=float)
    away = release_mm - np.asarray(label.rest.table_mm, dtype=float)
    start_mm = release_mm + 250.0 * away / np.linalg.norm(away)  # farther behind the line, away from the box
    start, stop = _pixel(start_mm), _pixel(release_mm)
    _track(judge, _line(start, stop, 20) + [stop] * 14, [SEEN] * 20 + [HAND] * 14, first_frame)
    return _footage_ends_while_held(judge, stop, last_frame=first_frame + 33)


def test_the_footage_ending_on_a_launch_that_stopped_short_of_the_herd_line_judges_it_disputed(judge):
    """A launch that fell short ended on the launcher's side: taken for held there when the footage ends,
    it is judged as if it came to rest there, disputed, void (before the end, a meteor set down there may
    yet be thrown, see above)."""
    events = _stops_short_until_the_end(judge, first_frame=100)
    assert [event.kind for event in events if event.kind == "verdict"] == ["verdict"]
    [verdict] = judge.verdicts
    assert verdict.disputed and verdict.outcome == "void" and verdict.region == "outside"
    assert any(r.startswith("never seen leaving the launcher's hand: seen moving ") and
               r.endswith("until the video ended; judged as if it came to rest there") for r in verdict.dispute_reasons)


def test_after_a_judged_launch_a_thing_held_short_of_the_herd_line_at_the_end_is_a_warning(judge):
    """After a judged launch, what is moved to the launcher's side and held there when the footage ends is
    the meteor carried back (or a hand the tracker followed), not a second launch."""
    _stops_short_until_the_end(judge, first_frame=100)
    judge._reset_track()
    events = _stops_short_until_the_end(judge, first_frame=300)
    assert len(judge.verdicts) == 1
    assert [event.kind for event in events] == ["warning"]
    assert events[0].message.startswith("the video ended while the judge took the meteor for held in a hand")


def test_the_footage_ending_while_a_meteor_taken_for_held_lies_still_in_the_box_judges_it_landed(judge, places):
    """Nobody holds the meteor still in the box: taken for held there (the touch ring seeing the box's own
    change round it) when the footage ends, after coming from outside the box, it landed there."""
    release, rest = places
    _track(judge, _line(release, rest, 20) + [rest] * 10, [HAND] * 30)  # at rest from frame 119, never free
    events = _footage_ends_while_held(judge, rest, last_frame=129)
    assert [event.kind for event in events if event.kind == "verdict"] == ["verdict"]
    verdict = judge.verdicts[0]
    assert verdict.disputed and verdict.region == load_label(LABEL).region
    assert ("taken for held in a hand, but lying still in the box from frame 119 until the video ended; judged as "
            "if it came to rest there") in verdict.dispute_reasons


def test_a_meteor_taken_for_held_in_the_box_all_along_is_a_warning_not_a_launch(judge, places):
    _, rest = places
    _track(judge, [rest] * 30, [HAND] * 30)
    events = _footage_ends_while_held(judge, rest, last_frame=129)
    assert not judge.verdicts and [event.kind for event in events] == ["warning"]


def test_a_meteor_found_lying_still_just_after_a_loss_is_that_launch_its_flight_unseen(judge, places):
    release, rest = places
    judge._lost_launch = (90, "(1, 2) px")
    _track(judge, [rest] * 14, [SEEN] * 14)
    judge.tracker.start(*rest)
    judge.state = "in_hand"
    judge._advance_state(_empty_frame(), 114, None, [])
    assert len(judge.verdicts) == 1
    verdict = judge.verdicts[0]
    assert verdict.disputed
    assert ("flight not seen: the meteor was lost at frame 90 (last seen at (1, 2) px) and found lying still "
            "at frame 100") in verdict.dispute_reasons


def test_a_meteor_found_lying_long_after_a_loss_is_not_taken_for_that_launch(judge, places):
    _, rest = places
    judge._lost_launch = (90, "(1, 2) px")
    _track(judge, [rest] * 14, [SEEN] * 14, first_frame=300)
    judge.tracker.start(*rest)
    judge.state = "in_hand"
    judge._advance_state(_empty_frame(), 314, None, [])
    assert not judge.verdicts and judge._lost_launch is None


# -- on real video: a bundled clip cut short -------------------------------------------------------

SAMPLE = Path(__file__).resolve().parents[2] / "sample_videos" / "clip_006.mp4"


def test_a_recording_stopped_while_the_meteor_is_held_warns_in_analyze_json(tmp_path, capsys):
    """sample_videos/clip_006 is held from about frame 37 and released at frame 98: cut at frame 90, the
    judge still holds it when the video ends. No launch can be judged; `analyze --json` lists a warning
    naming the frame and where the meteor was held (a push's length from the labelled release point, behind
    the herd line)."""
    import json

    from cli.main import main

    label = load_label(SAMPLE.with_suffix(".json"))
    clip = first_frames(SAMPLE, tmp_path / "stopped_while_held.avi", 90)
    assert main(["analyze", str(clip), "--rig", str(SAMPLE.with_suffix(".json")), "--json"]) == 0
    output = json.loads(capsys.readouterr().out)
    assert output["launches"] == []
    [warning] = [line for line in output["warnings"] if "ended" in line]
    found = re.fullmatch(
        r"frame 89: the video ended while the judge took the meteor for held in a hand \(since frame (\d+), last "
        r"at \(\d+, \d+\) px, \((-?\d+), (-?\d+)\) mm on the table, \d+ mm from the box, on the launcher's side of "
        r"the herd line\): a launch from that hand, if any, was not judged",
        warning,
    )
    assert found, warning
    held_mm = np.array([float(found[2]), float(found[3])])
    assert np.hypot(*(held_mm - label.release.table_mm)) < 150.0  # held where the push to the release begins


BUMPED_BOX_CLIP = Path(__file__).resolve().parent / "clips" / "held_in_bumped_box_at_end_9101_261.mp4"


def test_a_meteor_at_rest_in_a_bumped_box_when_the_footage_ends_is_judged_in_analyze_json(capsys):
    """Seed 9101 clip_261 (640×480, 30 fps): the box was bumped before the launch and the meteor lies in it
    from frame 30, the touch ring reading the box's change round it as a hand, until the footage ends at
    frame 50. The launch is judged, disputed, at rest in the label's space, within two diameters of the
    labelled rest."""
    import json

    from cli.main import main

    label = load_label(BUMPED_BOX_CLIP.with_suffix(".json"))
    with without_heatmap():  # see the test below
        assert main(["analyze", str(BUMPED_BOX_CLIP), "--rig", str(BUMPED_BOX_CLIP.with_suffix(".json")),
                     "--json"]) == 0
    [launch] = json.loads(capsys.readouterr().out)["launches"]
    assert launch["disputed"] and launch["region"] == label.region == "triceratops"
    rest_error_mm = np.hypot(*(np.array(launch["rest"]["table_mm"]) - label.rest.table_mm))
    assert rest_error_mm < 2 * label.scene.meteor.diameter_mm


def test_with_the_heat_map_the_launch_into_the_bumped_box_is_judged():
    """With the heat map the launch is judged in the label's space. Its peaks on the meteor held still in
    the hand were once refused as the meteor's trace (a sighting of a frame before lay nearer than the
    drifting prediction), and the one taken turned the prediction away: the track was lost, and the
    meteor lying in the box was taken for held until the footage ended."""
    label = load_label(BUMPED_BOX_CLIP.with_suffix(".json"))
    assert [verdict.region for verdict in judge_labelled(BUMPED_BOX_CLIP, label).verdicts] == [label.region]


def test_a_meteor_taken_for_held_in_a_bumped_box_until_the_footage_ends_is_judged_at_rest_there():
    """The same clip, judged without the likeness model, whose refusals in flight take another path to the
    same rest: the tracker takes the meteor lying in the box for held until the footage ends, and the rule
    for a meteor held in the box at the end judges it there, saying so."""
    label = load_label(BUMPED_BOX_CLIP.with_suffix(".json"))
    config = pipeline.JudgeConfig(launch_mode=label.launch_mode, use_likeness=False)
    judge = pipeline.LaunchJudge(label.scene, config=config, fps=label.fps)
    with without_heatmap():
        [verdict] = judge_labelled(BUMPED_BOX_CLIP, label, judge=judge).verdicts
    assert verdict.disputed and verdict.region == label.region
    assert any(reason.startswith("taken for held in a hand, but lying still in the box") for reason in
               verdict.dispute_reasons)
    assert np.hypot(*(np.array(verdict.rest.table_mm) - label.rest.table_mm)) < 2 * label.scene.meteor.diameter_mm


TAKEN_UP_IN_BOX = Path(__file__).resolve().parent / "clips" / "taken_up_in_box_after_unseen_flight_9101_827.mp4"


def test_a_meteor_taken_up_in_the_box_after_an_unseen_flight_and_still_there_at_the_end_is_judged(monkeypatch):
    """Seed 9101 clip_827 (640×480, 30 fps): the tracker first takes the meteor up in the box, bouncing
    after a flight it never saw, and holds it there, taken for held, until the footage ends. Where it lies,
    the box as waiting began showed nothing: it arrived, so it was launched. Judged where it lies,
    disputed; taken for lying in the box all along, it would be a warning and no verdict."""
    label = load_label(TAKEN_UP_IN_BOX.with_suffix(".json"))
    [verdict] = judge_labelled(TAKEN_UP_IN_BOX, label).verdicts
    assert verdict.disputed and verdict.region == label.region == "brontosaurus"
    assert any(reason.startswith("taken for held in a hand, but lying still in the box") for reason in
               verdict.dispute_reasons)
    monkeypatch.setattr(pipeline.LaunchJudge, "_arrived_in_box", lambda _judge: False)
    assert judge_labelled(TAKEN_UP_IN_BOX, label).verdicts == []


# -- footage that judged nothing says so -----------------------------------------------------------

NEVER_FOUND = Path(__file__).resolve().parent / "clips" / "meteor_never_found_9101_240.mp4"
FOLLOWED_NEVER_THROWN = Path(__file__).resolve().parent / "clips" / "followed_never_thrown_9101_967.mp4"


def _analyze_json(clip: Path, capsys, rig: Path | None = None, *options: str) -> dict:
    """`analyze --json` on `clip` with the rig of its label (`rig`, else the clip's own JSON)."""
    import json

    from cli.main import main

    rig = rig or clip.with_suffix(".json")
    assert main(["analyze", str(clip), "--rig", str(rig), "--json", *options]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_launch_whose_meteor_was_never_found_is_a_warning_not_silence(capsys):
    """Seed 9101 clip_240 (640×480, 30 fps): a small grey meteor, flung out of the picture in a blur, is
    never found, in the hand or in flight. The launch is missed; `analyze --json` says that nothing was
    judged and that the meteor was never found, over the frames watched."""
    output = _analyze_json(NEVER_FOUND, capsys)
    assert output["launches"] == []
    assert output["warnings"] == [
        "frame 50: no launch judged from frame 0 to 50: the meteor was never found in a hand or in flight; if a "
        "launch was made then, the judge did not see it"
    ]


def test_footage_that_only_followed_something_never_thrown_names_the_frames_it_was_followed(capsys):
    """Seed 9101 clip_967 (640×480, 30 fps, hard mode): the tracker follows something taken for the held
    meteor for a while, loses it without seeing it thrown or moving free, and never finds the launch."""
    output = _analyze_json(FOLLOWED_NEVER_THROWN, capsys, None, "--launch-mode", "hard_velociraptor")
    assert output["launches"] == []
    [warning] = output["warnings"]
    found = re.fullmatch(
        r"frame 102: no launch judged from frame 0 to 102: the meteor, or something taken for it, was followed "
        r"from frame (\d+) to (\d+); if a launch was made then, the judge did not see it",
        warning,
    )
    assert found, warning
    assert 0 < int(found[1]) < int(found[2]) < 102


def test_footage_with_a_judged_launch_or_another_warning_adds_no_such_warning(tmp_path, capsys):
    """The warning is for footage otherwise silent: a judged launch (sample_videos/clip_006 whole), or a
    warning about the launch under way (the same clip stopped while the meteor is held), says enough."""
    judged = _analyze_json(SAMPLE, capsys)
    assert len(judged["launches"]) == 1 and not [w for w in judged["warnings"] if "no launch judged" in w]
    stopped = _analyze_json(first_frames(SAMPLE, tmp_path / "stopped_while_held.avi", 90), capsys,
                            SAMPLE.with_suffix(".json"))
    assert stopped["launches"] == [] and stopped["warnings"]
    assert not [w for w in stopped["warnings"] if "no launch judged" in w]
