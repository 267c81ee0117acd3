"""The doubt model: its features, its fit, its file, and `meteors-judge train-doubt`."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from cli.main import main
from vision.doubt import FEATURE_NAMES, DoubtModel, ModelError, design_matrix, features, load_model
from vision.doubt_fit import fit_logistic, is_held_out
from vision.evidence import LaunchEvidence


def test_every_evidence_maps_to_the_same_finite_features():
    empty = features(LaunchEvidence().model_dump(mode="json"))
    assert tuple(empty) == FEATURE_NAMES and all(math.isfinite(v) for v in empty.values())
    assert empty["herd_uncertainty_mm_missing"] == 1.0  # not measured: said so, not taken for 0 mm
    measured = features(LaunchEvidence(herd_signed_mm=-40.0, herd_margin_mm=40.0, herd_uncertainty_mm=8.0,
                                       release_fit_group="push", release_fit_reasons=["push_in_hold"]).model_dump())
    assert measured["herd_in_sigmas"] == pytest.approx(5.0) and measured["herd_log_mm"] == pytest.approx(-math.log(41))
    assert measured["fit_group_push"] == 1.0 and measured["fit_reason_push_in_hold"] == 1.0
    assert measured["herd_uncertainty_mm_missing"] == 0.0


def test_the_fit_recovers_a_known_logistic_law():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(6000, 3))
    true_coef, true_intercept = np.array([1.5, -2.0, 0.0]), 0.7
    y = (rng.random(6000) < 1 / (1 + np.exp(-(x @ true_coef + true_intercept)))).astype(float)
    coef, intercept = fit_logistic(x, y, l2=0.1)
    assert np.allclose(coef, true_coef, atol=0.12) and intercept == pytest.approx(true_intercept, abs=0.12)


def test_a_saved_model_reads_back_and_gives_the_same_probabilities(tmp_path):
    names = FEATURE_NAMES
    rng = np.random.default_rng(3)
    model = DoubtModel(names, rng.normal(size=len(names)), rng.uniform(0.5, 2, len(names)),
                       rng.normal(scale=0.1, size=len(names)), 0.4, {"fitting_rows": 0})
    model.save(tmp_path / "model.json")
    again = load_model(tmp_path / "model.json")
    evidence = [LaunchEvidence(herd_signed_mm=v, fps=60.0).model_dump() for v in (-50.0, 3.0, 120.0)]
    x = design_matrix(evidence)
    assert np.allclose(again.probabilities(x), model.probabilities(x), atol=1e-4)
    assert all(0.0 < again.probability(e) < 1.0 for e in evidence)


def test_a_file_that_is_no_model_is_refused(tmp_path):
    (tmp_path / "other.json").write_text(json.dumps({"schema": "meteors-doubt-model/1", "features": ["colour"],
                                                    "mean": [0], "scale": [1], "coef": [1], "intercept": 0}))
    with pytest.raises(ModelError, match="features this judge does not compute"):
        load_model(tmp_path / "other.json")
    (tmp_path / "plain.json").write_text("[]")
    with pytest.raises(ModelError, match="not a meteors-doubt-model/1"):
        load_model(tmp_path / "plain.json")


def test_the_held_out_clips_are_a_stable_share():
    keys = [f"wide/clip_{i:03d}.json" for i in range(2000)]
    held = [is_held_out(key, 0.3) for key in keys]
    assert 0.26 < np.mean(held) < 0.34
    assert held == [is_held_out(key, 0.3) for key in keys]


def _run(capsys, *argv: str) -> tuple[int, str]:
    try:
        code = main(list(argv))
    except SystemExit as stop:
        code = stop.code
    return code, capsys.readouterr().err


def test_train_doubt_refuses_what_it_cannot_fit_from_in_one_line(capsys, tmp_path):
    not_rows = tmp_path / "rig.json"
    not_rows.write_text(json.dumps({"table": {}}))
    code, err = _run(capsys, "train-doubt", str(not_rows), "--out", str(tmp_path / "m.json"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "not the JSON of `meteors-judge eval --out`" in err
    code, err = _run(capsys, "train-doubt", str(tmp_path / "missing.json"), "--out", str(tmp_path / "m.json"))
    assert code == 2 and "rows file not found" in err
    code, err = _run(capsys, "train-doubt", str(not_rows), "--out", str(tmp_path / "m.json"), "--held-out", "1.5")
    assert code == 2 and "--held-out" in err and "Traceback" not in err
    old = tmp_path / "old.json"  # rows of a judge that wrote no evidence
    old.write_text(json.dumps({"clips": [{"clip": "a.json", "judged": {}, "outcome_ok": True, "valid_ok": True,
                                          "disputed": False}]}))
    code, err = _run(capsys, "train-doubt", str(old), "--out", str(tmp_path / "m.json"))
    assert code == 2 and "no row carries the judge's evidence" in err


def test_train_doubt_fits_eval_rows_and_checks_them_on_held_out_clips(capsys, tmp_path):
    # eval rows whose rulings are right more often the farther the release is from the herd line, in
    # units of its uncertainty (as a doubt model should find), and a launch never found now and then
    rng = np.random.default_rng(11)
    rows = []
    for i in range(300):
        margin, sigma = float(rng.uniform(0, 120)), float(rng.uniform(10, 40))
        right = bool(rng.random() < 1 / (1 + math.exp(-(2.0 * margin / sigma - 2.0))))
        found = i % 15 != 0
        evidence = LaunchEvidence(fps=60.0, herd_line_known=True, herd_signed_mm=margin, herd_margin_mm=margin,
                                  herd_uncertainty_mm=sigma).model_dump(mode="json")
        rows.append({"clip": f"clip_{i:03d}.json", "judged": {} if found else None,
                     "evidence": evidence if found else None, "outcome_ok": right and found,
                     "valid_ok": right and found, "disputed": False})
    (tmp_path / "rows.json").write_text(json.dumps({"metrics": {}, "clips": rows}))
    code = main(["train-doubt", str(tmp_path / "rows.json"), "--out", str(tmp_path / "model.json")])
    out = capsys.readouterr().out
    assert code == 0
    assert re.search(r"^held out: \d+ clips, \d+ launches found", out, re.MULTILINE), out
    assert "risk–coverage (" in out and "expected calibration error" in out
    model = load_model(tmp_path / "model.json")
    assert 150 < model.about["fitting_rows"] < 250 and model.about["held_out_found"] > 40
    assert model.about["expected_calibration_error"] < 0.2  # a law it can learn: calibrated on held-out clips
    near, far = (model.probability(LaunchEvidence(fps=60.0, herd_line_known=True, herd_signed_mm=m,
                                                  herd_margin_mm=m, herd_uncertainty_mm=20.0).model_dump())
                 for m in (5.0, 100.0))
    assert far > 0.9 > 0.5 > near
