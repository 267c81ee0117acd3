"""The evaluation metrics of `meteors-judge eval`, on hand-made verdict/label pairs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from calibration.truth import LaunchTruth
from vision.evaluate import (
    HERD_MARGIN_MM,
    discover,
    format_report,
    match_launch,
    score_clip,
    summarize,
)

STANDARD_RIG = Path(__file__).resolve().parents[2] / "calibration" / "rigs" / "standard.json"


def label_dict(**overrides: object) -> dict:
    """A valid label: a standard dinosaur hit, one table bounce, released 35 mm behind the line."""
    label = {
        "schema": "meteors-launch-truth/1",
        "video": "clip.mp4",
        "fps": 60.0,
        "frame_size": [1280, 720],
        "frame_count": 240,
        "launch_mode": "standard",
        "scene": json.loads(STANDARD_RIG.read_text()),
        "box_pose": {"yaw_deg": 0.0, "translation_mm": [0.0, 0.0]},
        "release": {"frame": 31, "table_mm": [0.0, -300.0], "height_mm": 120.0, "herd_line_signed_mm": 35.0},
        "herd_line_ok": True,
        "bounces": [{"frame": 44, "table_mm": [0.0, -150.0], "surface": "table", "before_box": True}],
        "bounces_before_box": 1,
        "entered_box_frame": 52,
        "rest": {"frame": 90, "table_mm": [10.0, 20.0], "box_mm": [10.0, 20.0]},
        "region": "triceratops",
        "landing": "dinosaur",
        "valid": True,
        "outcome": "dinosaur",
        "dinosaur": "triceratops",
    }
    label.update(overrides)
    return label


def make_truth(**overrides: object) -> LaunchTruth:
    return LaunchTruth.model_validate(label_dict(**overrides))


def make_verdict(**overrides: object) -> dict:
    """The judge's verdict agreeing with `make_truth()`, off by a few millimetres."""
    verdict = {
        "outcome": "dinosaur",
        "dinosaur": "triceratops",
        "valid": True,
        "reasons": [],
        "region": "triceratops",
        "landing": "dinosaur",
        "launch_mode": "standard",
        "bounces_before_box": 1,
        "bounces": [{"frame": 44, "table_mm": [1.0, -151.0], "surface": "table"}],
        "release": {"frame": 31, "table_mm": [3.0, -296.0], "height_mm": 118.0, "herd_line_signed_mm": 33.0},
        "herd_line_ok": True,
        "entered_box_frame": 52,
        "rest": {"frame": 90, "table_mm": [13.0, 24.0], "box_mm": [13.0, 24.0]},
        "disputed": False,
        "dispute_reasons": [],
        "margins": {},
        "start_frame": 20,
        "verdict_frame": 104,
    }
    verdict.update(overrides)
    return verdict


VOID_NO_BOUNCE = {"outcome": "void", "dinosaur": None, "valid": False, "bounces_before_box": 0}

# (case, label overrides, verdicts, outcome_ok, valid_ok, bounces_ok, herd_ok, disputed, confident_wrong)
# confident wrong: the ruling (outcome with its dinosaur, or valid/void) is wrong and not disputed.
CASES = [
    ("correct call", {}, [make_verdict()], True, True, True, True, False, False),
    ("correct but disputed", {}, [make_verdict(disputed=True)], True, True, True, True, True, False),
    (
        "wrong, disputed",
        {},
        [make_verdict(**VOID_NO_BOUNCE, disputed=True, dispute_reasons=["doubtful bounce"])],
        False, False, False, True, True, False,
    ),
    ("wrong ruling, undisputed: confident wrong", {}, [make_verdict(**VOID_NO_BOUNCE)],
     False, False, False, True, False, True),
    ("wrong dinosaur, undisputed: confident wrong", {}, [make_verdict(dinosaur="trex", region="trex")],
     False, True, True, True, False, True),
    ("wrong valid only, undisputed: confident wrong", {}, [make_verdict(valid=False)],
     True, False, True, True, False, True),
    ("bounce count only, ruling right: not confident wrong", {}, [make_verdict(bounces_before_box=2)],
     True, True, False, True, False, False),
    ("missed launch: confident wrong", {}, [], False, False, False, False, False, True),
    (
        "herd line wrong but outcome right",
        {},
        [make_verdict(herd_line_ok=False)],
        True, True, True, False, False, False,
    ),
    (
        "void label judged void",
        {"herd_line_ok": False, "valid": False, "outcome": "void", "dinosaur": None,
         "release": {"frame": 31, "table_mm": [0.0, -300.0], "height_mm": 120.0, "herd_line_signed_mm": -20.0}},
        [make_verdict(outcome="void", dinosaur=None, valid=False, herd_line_ok=False)],
        True, True, True, True, False, False,
    ),
]


@pytest.mark.parametrize(
    ("case", "label", "verdicts", "outcome_ok", "valid_ok", "bounces_ok", "herd_ok", "disputed", "confident"),
    CASES,
    ids=[case[0] for case in CASES],
)
def test_score_clip(case, label, verdicts, outcome_ok, valid_ok, bounces_ok, herd_ok, disputed, confident):
    score = score_clip(make_truth(**label), verdicts, clip=f"{case}.json")
    assert (score.outcome_ok, score.valid_ok, score.bounces_ok, score.herd_ok) == (
        outcome_ok,
        valid_ok,
        bounces_ok,
        herd_ok,
    )
    assert score.disputed is disputed
    assert score.confident_wrong is confident
    assert score.is_wrong is not all((outcome_ok, valid_ok, bounces_ok, herd_ok))


def test_errors_are_distances_in_the_table_frame():
    score = score_clip(make_truth(), [make_verdict()])
    assert score.rest_error_mm == pytest.approx(5.0)  # (3, 4) mm off
    assert score.release_error_mm == pytest.approx(5.0)  # (3, 4) mm off


def test_missed_launch_says_so():
    score = score_clip(make_truth(), [])
    assert score.judged is None and score.wrong == ["no launch found"]
    failed = score_clip(make_truth(), [], error="RuntimeError: boom")
    assert failed.wrong == ["judge failed: RuntimeError: boom"] and failed.confident_wrong


def test_a_missed_launch_the_judge_warned_of_is_not_a_silent_miss():
    warned = score_clip(make_truth(), [], warnings=["frame 89: the video ended while the judge took the meteor ..."])
    silent = score_clip(make_truth(), [])
    failed = score_clip(make_truth(), [], error="RuntimeError: boom")
    found = score_clip(make_truth(), [make_verdict()], warnings=["frame 3: calibration unsafe: ..."])
    assert warned.warnings and warned.confident_wrong  # warned of, it is still a launch missed
    metrics = summarize([warned, silent, failed, found])
    assert metrics["missed_launches"] == 3 and metrics["missed_launches_silent"] == 1


def test_the_launch_with_the_nearest_release_frame_is_matched():
    far = make_verdict(**VOID_NO_BOUNCE, release={**make_verdict()["release"], "frame": 200})
    near = make_verdict(release={**make_verdict()["release"], "frame": 29})
    truth = make_truth()
    assert match_launch(truth, [far, near]) == 1
    score = score_clip(truth, [far, near])
    assert score.outcome_ok and score.launches_found == 2
    assert "2 launches found, 1 labelled" in score.notes
    assert match_launch(truth, [make_verdict(release=None)]) == 0  # no release frame: a last resort


def test_a_phantom_at_rest_before_the_real_landing_is_the_extra_launch_not_the_one_scored():
    truth = make_truth()  # released at frame 31, at rest at frame 90
    phantom = make_verdict(**VOID_NO_BOUNCE, release={**make_verdict()["release"], "frame": 22},
                           rest={"frame": 41, "table_mm": [400.0, 0.0], "box_mm": [400.0, 0.0]})
    real = make_verdict(release={**make_verdict()["release"], "frame": 44})
    assert match_launch(truth, [phantom, real]) == 1  # 4 frames farther from the release, 49 nearer the rest
    ended = make_verdict(rest=None, verdict_frame=95, release={**make_verdict()["release"], "frame": 44})
    assert match_launch(truth, [phantom, ended]) == 1  # no rest: its launch ends where it was decided


def test_a_pydantic_verdict_is_scored_like_its_dict():
    from vision.verdict import Verdict

    verdict = Verdict.model_validate(make_verdict())
    assert score_clip(make_truth(), [verdict]).rest_error_mm == pytest.approx(5.0)


def _herd_truth(signed_mm: float) -> LaunchTruth:
    ok = signed_mm >= 0
    return make_truth(
        release={"frame": 31, "table_mm": [0.0, -300.0], "height_mm": 120.0, "herd_line_signed_mm": signed_mm},
        herd_line_ok=ok,
        valid=ok,
        outcome="dinosaur" if ok else "void",
        dinosaur="triceratops" if ok else None,
    )


@pytest.mark.parametrize(
    ("signed_mm", "beyond"),
    [(3.0, False), (-9.9, False), (HERD_MARGIN_MM, False), (10.1, True), (-10.5, True), (40.0, True)],
)
def test_herd_line_accuracy_beyond_10mm_counts_only_clear_releases(signed_mm, beyond):
    truth = _herd_truth(signed_mm)
    flipped = make_verdict(herd_line_ok=not truth.herd_line_ok, disputed=True)  # wrong side of the line
    right = make_verdict(herd_line_ok=truth.herd_line_ok)
    metrics = summarize([score_clip(truth, [flipped]), score_clip(truth, [right])])
    assert metrics["herd_line_accuracy"] == pytest.approx(0.5)
    if beyond:
        assert metrics["herd_line_clips_beyond_10mm"] == 2
        assert metrics["herd_line_accuracy_beyond_10mm"] == pytest.approx(0.5)
    else:
        assert metrics["herd_line_clips_beyond_10mm"] == 0
        assert metrics["herd_line_accuracy_beyond_10mm"] is None


def test_summary_over_the_table_of_cases():
    scores = [score_clip(make_truth(**case[1]), case[2], clip=f"{case[0]}.json") for case in CASES]
    metrics = summarize(scores)
    n = len(CASES)
    assert metrics["clips"] == n
    assert metrics["outcome_accuracy"] == pytest.approx(sum(case[3] for case in CASES) / n)
    assert metrics["valid_accuracy"] == pytest.approx(sum(case[4] for case in CASES) / n)
    assert metrics["bounce_count_accuracy"] == pytest.approx(sum(case[5] for case in CASES) / n)
    assert metrics["disputed_rate"] == pytest.approx(sum(case[7] for case in CASES) / n)
    assert metrics["confident_wrong_calls"] == sum(case[8] for case in CASES)
    assert metrics["missed_launches"] == 1
    assert metrics["bounce_wrong_undisputed"] == sum(not case[5] and not case[7] for case in CASES)
    assert metrics["bounce_count_accuracy_entering_box"] == pytest.approx(
        sum(case[5] for case in CASES) / n
    )  # every label here enters the box
    assert metrics["wrong_calls"] == sum(not all(case[3:7]) for case in CASES)


def test_rest_error_median_and_p95():
    truth = make_truth()
    errors = [0.0, 1.0, 2.0, 3.0, 100.0]
    scores = [
        score_clip(truth, [make_verdict(rest={"frame": 90, "table_mm": [10.0 + e, 20.0], "box_mm": [0, 0]})])
        for e in errors
    ]
    scores.append(score_clip(truth, [make_verdict(rest=None)]))  # no rest point: not in the statistics
    metrics = summarize(scores)
    assert metrics["rest_error_clips"] == 5
    assert metrics["rest_error_median_mm"] == pytest.approx(2.0)
    assert metrics["rest_error_p95_mm"] == pytest.approx(80.6)  # linear interpolation between 3 and 100
    assert summarize([])["rest_error_median_mm"] is None


def test_verdict_delay_is_video_time_from_the_labelled_rest_to_the_deciding_frame():
    truth = make_truth()  # rest at frame 90, 60 fps
    delays = [score_clip(truth, [make_verdict(verdict_frame=frame)]).verdict_delay_s for frame in (90, 96, 108)]
    assert delays == pytest.approx([0.0, 0.1, 0.3])
    left_view = score_clip(make_truth(rest=None), [make_verdict(rest=None)])
    assert left_view.verdict_delay_s is None  # no labelled rest to count from
    metrics = summarize([score_clip(truth, [make_verdict(verdict_frame=frame)]) for frame in (90, 96, 108)])
    assert (metrics["verdict_delay_median_s"], metrics["verdict_delay_max_s"]) == pytest.approx((0.1, 0.3))
    assert metrics["verdict_delay_clips"] == 3
    assert "0.100 s median" in format_report(metrics, [], [])


def test_report_lists_each_wrong_clip_and_why():
    scores = [
        score_clip(make_truth(), [make_verdict()], clip="good.json"),
        score_clip(make_truth(), [make_verdict(**VOID_NO_BOUNCE)], clip="bad.json"),
        score_clip(make_truth(), [make_verdict(**VOID_NO_BOUNCE, disputed=True, dispute_reasons=["lost"])],
                   clip="unsure.json"),
        score_clip(make_truth(), [], clip="missed.json"),
    ]
    report = format_report(summarize(scores), scores, [])
    assert "confident wrong calls" in report
    assert "bounce count wrong, not disputed" in report and "bounce count exact, entered box" in report
    assert "good.json" not in report
    assert "CONFIDENT  bad.json: outcome void, label dinosaur (triceratops)" in report
    assert "bounces before box 0, label 1" in report
    assert "disputed   unsure.json" in report and "[disputed: lost]" in report
    assert "CONFIDENT  missed.json: no launch found" in report


def test_discover_pairs_labels_with_their_videos_and_skips_the_rest(tmp_path):
    (tmp_path / "a.mp4").write_bytes(b"not checked here")
    (tmp_path / "take_b.avi").write_bytes(b"any name, any container")
    (tmp_path / "a.json").write_text(json.dumps(label_dict(video="a.mp4")))
    (tmp_path / "b_label.json").write_text(json.dumps(label_dict(video="take_b.avi")))
    (tmp_path / "broken.json").write_text("{not json")
    (tmp_path / "wrong_schema.json").write_text(json.dumps(label_dict(valid="perhaps")))
    (tmp_path / "orphan.json").write_text(json.dumps(label_dict(video="gone.mp4")))
    shutil.copy(STANDARD_RIG, tmp_path / "rig.json")  # a rig is JSON too, but no label
    (tmp_path / "index.json").write_text(json.dumps({"schema": "meteors-launch-truth/1", "clips": []}))
    clips, skipped = discover(tmp_path)
    assert [(c.name, c.video_path.name) for c in clips] == [("a.json", "a.mp4"), ("b_label.json", "take_b.avi")]
    reasons = {item.path.name: item.reason for item in skipped}
    assert set(reasons) == {"broken.json", "wrong_schema.json", "orphan.json", "rig.json", "index.json"}
    assert "valid" in reasons["wrong_schema.json"]
    assert reasons["rig.json"].startswith("not a launch label")
    assert reasons["index.json"].startswith("not a launch label")
    assert reasons["broken.json"].startswith("not a valid meteors-launch-truth/1 label")
    assert "'gone.mp4' is not beside it" in reasons["orphan.json"]
