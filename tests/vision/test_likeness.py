"""How much a blob looks like the meteor: its features, the model file, the shipped model on real video, and
`meteors-judge train-likeness`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from cli.main import main
from vision.likeness import FEATURE_NAMES, LikenessModel, ModelError, blob_features, load_model, shipped_model
from vision.likeness_fit import clip_examples, ranking_report

CLIPS = Path(__file__).resolve().parent / "clips"
NARROW = Path(__file__).resolve().parents[1] / "narrow_clips"
# seed 9101 clip_663 (1280×720, 60 fps): a brown meteor on a brown table, 8° apart in hue, among the
# table's grain; the model was not fitted on this seed's clips
TABLE_HUE = CLIPS / "table_hue_brown_9101_663.json"


def _feature(rows: np.ndarray, name: str) -> np.ndarray:
    return rows[:, FEATURE_NAMES.index(name)]


def test_a_blob_of_the_meteors_colour_and_size_reads_as_the_meteor_over_the_table():
    meteor, table = np.array([40.0, 60.0, 200.0]), np.array([60.0, 90.0, 120.0])
    disc = math.pi * 12**2 / 4
    rows = blob_features(
        mean_bgr=np.array([meteor, table + 5.0]), background_bgr=np.array([table, table]), meteor_bgr=meteor,
        area_px=np.array([disc, 6 * disc]), box_px=np.array([[12, 12], [60, 10]]), moving=np.array([1.0, 0.2]),
        disc_area_px=disc,
    )
    assert rows.shape == (2, len(FEATURE_NAMES)) and np.isfinite(rows).all()
    assert _feature(rows, "log_size") == pytest.approx([0.0, math.log(6)])
    assert _feature(rows, "alpha")[0] == pytest.approx(1.0) and abs(_feature(rows, "alpha")[1]) < 0.1
    assert _feature(rows, "residual")[0] == pytest.approx(0.0, abs=1e-6)
    assert _feature(rows, "meteor_angle_deg")[0] == pytest.approx(0.0, abs=1e-3)
    assert _feature(rows, "aspect").tolist() == [1.0, 6.0]
    model = shipped_model()
    assert model is not None
    meteor_like, streak_of_table = model.probabilities(rows)
    assert meteor_like > 0.5 > streak_of_table


def test_a_saved_model_reads_back_and_a_file_that_is_no_model_is_refused(tmp_path):
    rng = np.random.default_rng(5)
    n = len(FEATURE_NAMES)
    model = LikenessModel(rng.normal(size=n), rng.uniform(0.5, 2, n), rng.normal(size=n), -0.3, {"clips": 2})
    model.save(tmp_path / "model.json")
    x = rng.normal(size=(4, n))
    assert np.allclose(load_model(tmp_path / "model.json").probabilities(x), model.probabilities(x), atol=1e-4)
    data = json.loads((tmp_path / "model.json").read_text())
    (tmp_path / "other.json").write_text(json.dumps({**data, "features": ["colour"]}))
    with pytest.raises(ModelError, match="not a meteors-likeness-model/1 file for this judge's features"):
        load_model(tmp_path / "other.json")
    with pytest.raises(ModelError, match="cannot read the likeness model"):
        load_model(tmp_path / "missing.json")


def test_on_real_flight_frames_the_most_meteor_like_candidate_is_the_meteor():
    """The clip decoded and judged as `eval` judges it: in the frames where its label fixes the meteor and
    the meteor is among the whole-frame search's blobs, the shipped model ranks it first far more often
    than the rule it replaced (the largest moving blob), which mostly picks the table's grain."""
    report = ranking_report(shipped_model(), clip_examples(TABLE_HUE))
    assert report["frames_with_the_meteor_a_candidate"] >= 50
    assert report["best_ranked_is_the_meteor"] >= 0.85
    assert report["old_rule_best_is_the_meteor"] <= 0.5
    assert report["auc"] >= 0.9


def test_train_likeness_fits_labelled_clips_and_writes_a_model_the_judge_reads(tmp_path, capsys):
    folder = tmp_path / "clips"
    folder.mkdir()
    for clip in (NARROW / "clip_000", CLIPS / "camouflaged_9019_046", CLIPS / "table_hue_brown_9101_663"):
        for suffix in (".json", ".mp4"):
            (folder / f"{clip.name}{suffix}").symlink_to(clip.with_suffix(suffix))
    out = tmp_path / "model.json"
    assert main(["train-likeness", str(folder), "--out", str(out), "--held-out", "0.5"]) == 0
    printed = capsys.readouterr().out
    assert f"wrote {out}" in printed and "from 3 clips" in printed
    model = load_model(out)
    assert model.about["clips"] == 3 and model.about["meteor_candidates"] > 0


def test_train_likeness_says_in_one_line_what_it_cannot_use(tmp_path, capsys):
    assert main(["train-likeness", str(tmp_path / "nowhere"), "--out", str(tmp_path / "m.json")]) == 2
    assert "folder not found" in capsys.readouterr().err
    assert main(["train-likeness", str(tmp_path), "--out", str(tmp_path / "m.json")]) == 2
    assert "no labelled clip" in capsys.readouterr().err
