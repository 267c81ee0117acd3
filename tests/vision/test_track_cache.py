"""Kept tracks (`vision.track_cache`, `eval --tracks`): a clip watched once is decided again from its
tracks, as the watching decided it, with the analysis code of the day and without its video."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import vision.decision as decision
import vision.evaluate as evaluate
import vision.track_cache as track_cache
from calibration.truth import load_label
from cli.main import main
from vision.evaluate import as_dict
from vision.runner import judge_verdicts

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_videos"
NAMES = ("clip_000", "clip_024")  # a launch judged, and a launch the judge misses with a warning


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("clips")
    for name in NAMES:
        for suffix in (".mp4", ".json"):
            shutil.copy(SAMPLES / f"{name}{suffix}", folder / f"{name}{suffix}")
    return folder


def _judge_kept(cache: Path, clips: Path, name: str):
    label = load_label(clips / f"{name}.json")
    return track_cache.judge_verdicts_kept(cache, clips / label.video, label.scene, label.launch_mode)


def _never_watch(*_args, **_kwargs):
    raise AssertionError("the video was watched again")


@pytest.mark.parametrize("name", NAMES)
def test_kept_tracks_decide_as_the_watching_did(tmp_path, clips, monkeypatch, name):
    label = load_label(clips / f"{name}.json")
    verdicts, warnings = judge_verdicts(clips / label.video, label.scene, label.launch_mode)
    watched = _judge_kept(tmp_path, clips, name)
    monkeypatch.setattr(track_cache, "run_judge", _never_watch)
    again = _judge_kept(tmp_path, clips, name)
    for judged in (watched, again):
        assert [as_dict(verdict) for verdict in judged[0]] == [as_dict(verdict) for verdict in verdicts]
        assert judged[1] == warnings
    assert track_cache.is_kept(tmp_path, clips / label.video, label.scene, label.launch_mode)


def test_a_change_to_the_analysis_shows_when_deciding_again(tmp_path, clips, monkeypatch):
    [verdict], _ = _judge_kept(tmp_path, clips, "clip_000")
    assert "a changed analysis" not in verdict.dispute_reasons
    original = decision.judge_launch

    def changed_analysis(*arguments):
        judged, analysis = original(*arguments)
        return judged.with_dispute("a changed analysis"), analysis

    monkeypatch.setattr(decision, "judge_launch", changed_analysis)
    monkeypatch.setattr(track_cache, "run_judge", _never_watch)
    [again], _ = _judge_kept(tmp_path, clips, "clip_000")
    assert "a changed analysis" in again.dispute_reasons


def test_tracks_are_watched_again_when_the_tracking_code_or_the_launch_mode_changes(tmp_path, clips, monkeypatch):
    label = load_label(clips / "clip_000.json")
    video = clips / label.video
    _judge_kept(tmp_path, clips, "clip_000")
    assert track_cache.is_kept(tmp_path, video, label.scene, label.launch_mode)
    other_mode = "hard_velociraptor" if label.launch_mode == "standard" else "standard"
    assert not track_cache.is_kept(tmp_path, video, label.scene, other_mode)
    monkeypatch.setattr(track_cache, "tracking_fingerprint", lambda: "other tracking code")
    assert not track_cache.is_kept(tmp_path, video, label.scene, label.launch_mode)
    watched = []
    original = track_cache.run_judge
    monkeypatch.setattr(track_cache, "run_judge", lambda *a, **k: watched.append(a) or original(*a, **k))
    _judge_kept(tmp_path, clips, "clip_000")
    assert len(watched) == 1
    assert track_cache.is_kept(tmp_path, video, label.scene, label.launch_mode)


def test_unreadable_kept_tracks_are_watched_again(tmp_path, clips):
    label = load_label(clips / "clip_000.json")
    video = clips / label.video
    track_cache.kept_path(tmp_path, video).write_bytes(b"not a pickle")
    assert not track_cache.is_kept(tmp_path, video, label.scene, label.launch_mode)
    [verdict], _ = _judge_kept(tmp_path, clips, "clip_000")
    assert verdict.release is not None and verdict.rest is not None
    assert track_cache.is_kept(tmp_path, video, label.scene, label.launch_mode)


def test_the_fingerprint_leaves_out_only_files_that_exist():
    vision = Path(track_cache.__file__).parent
    named = track_cache.DECISION_FILES | track_cache.EVALUATION_FILES
    assert {name for name in named if not (vision / name).exists()} <= {"doubt_model.json"}


def test_the_fingerprint_changes_with_a_learned_model_but_not_with_a_decision_module(tmp_path):
    package = tmp_path / "vision"
    package.mkdir()
    (package / "tracker.py").write_text("follow = True\n")
    (package / "analysis.py").write_text("decide = True\n")
    (package / "heatmap_model.onnx").write_bytes(b"weights one")
    before = track_cache.fingerprint_of([package])
    (package / "analysis.py").write_text("decide = False\n")
    assert track_cache.fingerprint_of([package]) == before
    (package / "heatmap_model.onnx").write_bytes(b"weights two")
    assert track_cache.fingerprint_of([package]) != before


def test_the_deciding_fingerprint_changes_with_a_decision_module_only(tmp_path):
    package = tmp_path / "vision"
    package.mkdir()
    (package / "tracker.py").write_text("follow = True\n")
    (package / "analysis.py").write_text("decide = True\n")
    before = evaluate.deciding_fingerprint_of(package)
    (package / "tracker.py").write_text("follow = False\n")
    assert evaluate.deciding_fingerprint_of(package) == before
    (package / "analysis.py").write_text("decide = False\n")
    assert evaluate.deciding_fingerprint_of(package) != before


def test_eval_with_tracks_says_how_many_clips_it_decided_again(tmp_path, clips, capsys):
    cache, plain_out, kept_out = tmp_path / "tracks", tmp_path / "plain.json", tmp_path / "kept.json"
    assert main(["eval", str(clips), "--out", str(plain_out)]) == 0
    capsys.readouterr()
    assert main(["eval", str(clips), "--tracks", str(cache), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["tracks"] == {"dir": str(cache), "decided_from_kept": 0, "watched": 2}
    assert main(["eval", str(clips), "--tracks", str(cache), "--out", str(kept_out)]) == 0
    report = capsys.readouterr().out
    assert "tracks: 2 of 2 clips decided again from those kept in" in report
    code = evaluate.code_fingerprints()  # the code that watched and decided, in the payload and the report
    assert f"code: watching {code['tracking'][:12]}, deciding {code['deciding'][:12]}" in report
    plain, kept = json.loads(plain_out.read_text()), json.loads(kept_out.read_text())
    assert plain["code"] == code
    assert kept.pop("tracks") == {"dir": str(cache), "decided_from_kept": 2, "watched": 0}
    assert kept == plain
