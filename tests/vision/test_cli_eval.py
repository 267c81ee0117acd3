"""`meteors-judge eval` on a small folder: two bundled clips and a malformed label."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from calibration.truth import load_label
from cli.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "tests" / "narrow_clips"
NAMES = ("clip_000", "clip_001")

pytestmark = pytest.mark.skipif(
    not all((SAMPLES / f"{name}.mp4").exists() for name in NAMES), reason="bundled sample clips are not there"
)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("labelled")
    for name in NAMES:
        label = load_label(SAMPLES / f"{name}.json")
        # another source's naming: the label names its video, the stems need not match
        video = f"take-{name[-3:]}{Path(label.video).suffix}"
        shutil.copy(SAMPLES / label.video, folder / video)
        data = json.loads((SAMPLES / f"{name}.json").read_text())
        data["video"] = video
        (folder / f"{name}_truth.json").write_text(json.dumps(data))
    (folder / "zz_malformed.json").write_text(json.dumps({"schema": "meteors-launch-truth/1", "video": "x.mp4"}))
    return folder


def test_eval_json_scores_the_two_clips_and_skips_the_malformed_label(capsys, folder):
    code = main(["eval", str(folder), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    payload = json.loads(out)
    metrics = payload["metrics"]
    assert metrics["clips"] == 2 and metrics["skipped"] == 1
    assert [row["clip"] for row in payload["clips"]] == [f"{name}_truth.json" for name in NAMES]
    assert [Path(item["path"]).name for item in payload["skipped"]] == ["zz_malformed.json"]
    assert "zz_malformed.json" in err  # reported
    for key in ("outcome_accuracy", "valid_accuracy", "bounce_count_accuracy", "herd_line_accuracy",
                "herd_line_accuracy_beyond_10mm", "rest_error_median_mm", "rest_error_p95_mm",
                "release_error_median_mm", "release_error_p95_mm", "disputed_rate", "confident_wrong_calls"):
        assert key in metrics
    assert metrics["confident_wrong_calls"] == 0, payload["clips"]
    for row in payload["clips"]:  # each matched verdict's measurements beside the truth: a doubt model's rows
        evidence = row["evidence"]
        assert evidence["fps"] > 0 and evidence["herd_signed_mm"] == row["judged"]["herd_line_signed_mm"], row
        assert evidence["bounces_counted"] == row["judged"]["bounces_before_box"], row
        assert row["ruling_probability"] is None and "herd_line_signed_mm" in row["truth"]
    assert payload["doubt"]["disputed_flag"]["confident_wrong"] == metrics["confident_wrong_calls"]
    assert payload["doubt"]["launches_with_probability"] == 0 and payload["doubt"]["reliability"] is None


def test_eval_table(capsys, folder):
    code = main(["eval", str(folder), "--limit", "1"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert re.search(r"^clips judged\s+1$", out, re.MULTILINE), out
    for line in ("outcome accuracy", "valid/void accuracy", "bounce count exact", "herd-line accuracy > 10 mm",
                 "rest error median / p95", "release error median / p95", "disputed rate", "confident wrong calls"):
        assert line in out
    assert "skipped 1 file(s)" in out and "zz_malformed.json" in out


def test_eval_by_kind_breaks_the_figures_down_by_scene(capsys, folder):
    code = main(["eval", str(folder), "--by-kind"])
    out, err = capsys.readouterr()
    assert code == 0, err
    table = out[out.index("kind "):].splitlines()
    rows = {line.split("  ")[0].strip(): line.split() for line in table[1:] if line.strip()}
    assert rows["all"][1] == "2"
    labels = [load_label(SAMPLES / f"{name}.json") for name in NAMES]
    sizes = {f"{label.frame_size[0]}x{label.frame_size[1]}" for label in labels}
    assert sum(int(rows[size][1]) for size in sizes) == 2
    # read from each clip's first frame: every clip is of the table's hue or unlike it
    hues = [kind for kind in ("meteor of the table's hue", "meteor unlike the table") if kind in rows]
    assert sum(int(rows[kind][len(kind.split())]) for kind in hues) == 2


def _run_on_a_terminal(command: list[str]) -> tuple[int, str]:
    """Run `command` with standard error on a pseudo-terminal of 120 columns; its exit code and what it wrote."""
    import fcntl
    import os
    import pty
    import struct
    import subprocess
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave,
                               cwd=ROOT)
    os.close(slave)
    written = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the terminal closed: the command has ended
            break
        if not chunk:
            break
        written += chunk
    os.close(master)
    return process.wait(), written.decode("utf-8", "replace")


def test_eval_shows_a_progress_bar_on_a_terminal_only(folder):
    import subprocess
    import sys

    code, terminal = _run_on_a_terminal([sys.executable, "-m", "cli.main", "eval", str(folder), "--limit", "1"])
    assert code == 0, terminal
    assert re.search(r"eval: +0%\|.*\| 0/1", terminal) and re.search(r"eval: 100%\|.*\| 1/1", terminal), terminal
    piped = subprocess.run([sys.executable, "-m", "cli.main", "eval", str(folder), "--limit", "1"],
                           capture_output=True, text=True, cwd=ROOT, check=True)
    assert "\r" not in piped.stderr and "eval:" not in piped.stderr


WIDE = ROOT / "sample_videos"


def test_two_workers_give_the_same_rows_as_one_and_out_keeps_them(capsys, tmp_path):
    one = tmp_path / "one.json"
    assert main(["eval", str(WIDE), "--limit", "3", "--json", "--out", str(one)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(one.read_text()) == printed  # --out writes what --json prints

    two = tmp_path / "two.json"
    assert main(["eval", str(WIDE), "--limit", "3", "--workers", "2", "--out", str(two)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^clips judged\s+3$", out, re.MULTILINE), out  # --out alone still prints the report
    in_two = json.loads(two.read_text())
    assert [row["clip"] for row in in_two["clips"]] == ["clip_000.json", "clip_001.json", "clip_002.json"]
    assert in_two == printed


def test_a_launch_missed_with_a_warning_is_counted_apart_from_silent_misses(capsys, tmp_path):
    """sample_videos/clip_006 stopped at frame 90, while the meteor is still held: no launch can be judged,
    and the judge warns that the video ended with the meteor held. The eval row keeps that warning, and
    the launch is missed but not in silence."""
    from launch_inputs import first_frames

    sample = ROOT / "sample_videos" / "clip_006"
    first_frames(sample.with_suffix(".mp4"), tmp_path / "stopped.avi", 90)
    data = json.loads(sample.with_suffix(".json").read_text())
    data["video"] = "stopped.avi"
    (tmp_path / "stopped.json").write_text(json.dumps(data))
    assert main(["eval", str(tmp_path), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    [row] = printed["clips"]
    assert row["judged"] is None and any("the video ended while the judge took the meteor" in line
                                         for line in row["warnings"]), row["warnings"]
    assert printed["metrics"]["missed_launches"] == 1 and printed["metrics"]["missed_launches_silent"] == 0


def _judge_that_dies_on_clip_001(video: Path, rig, launch_mode: str) -> tuple[list, list[str]]:
    """The real judge, except that the process is killed (as by a native crash) on clip_001."""
    import os
    import signal

    from vision.runner import judge_verdicts

    if video.stem == "clip_001":
        os.kill(os.getpid(), signal.SIGKILL)
    return judge_verdicts(video, rig, launch_mode)


def test_a_clip_that_kills_its_worker_is_a_missed_launch_and_the_others_are_judged():
    from vision.evaluate import discover, evaluate

    clips = [clip for clip in discover(WIDE)[0] if clip.name in ("clip_000.json", "clip_001.json", "clip_004.json")]
    done = []
    scores = evaluate(clips, _judge_that_dies_on_clip_001, on_clip=lambda score: done.append(score.clip), workers=2)
    assert [score.clip for score in scores] == ["clip_000.json", "clip_001.json", "clip_004.json"]
    assert sorted(done) == [score.clip for score in scores]  # every clip advanced the progress once
    dead = scores[1]
    assert dead.judged is None and dead.confident_wrong and "process died" in (dead.error or ""), dead
    assert all(score.judged is not None and score.error is None for score in (scores[0], scores[2])), scores


def test_eval_reports_the_doubt_it_can_and_draws_the_risk_coverage_plane(capsys, folder, tmp_path):
    import cv2

    plots = tmp_path / "plots"
    assert main(["eval", str(folder), "--limit", "1", "--plots", str(plots)]) == 0
    out, err = capsys.readouterr()
    # no doubt model yet: one line says so, and the disputed flag's own point is given
    assert re.search(r"^no ruling probabilities \(no doubt model fitted\)", out, re.MULTILINE), out
    assert re.search(r"^the disputed flag: .* disputed, \d+ confident wrong", out, re.MULTILINE), out
    picture = cv2.imread(str(plots / "risk_coverage.png"))
    assert picture is not None and picture.shape[:2] == (540, 720)
    assert not (plots / "reliability.png").exists() and "reliability.png not written" in err
