"""Every bad option is one clear line naming the command and the problem, and exit 2; never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CLIP = ROOT / "tests" / "narrow_clips" / "clip_000.mp4"
LABEL = CLIP.with_suffix(".json")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as stop:  # argparse's errors
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_clear_line(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("meteors-judge") and ": error: " in lines[0], err
    for needle in needles:
        assert needle in lines[0], err


@pytest.mark.parametrize(("argv", "needles"), [
    (("serve", "--port", "70000"), ("serve", "--port", "70000", "65535")),
    (("serve", "--port", "-1"), ("--port", "-1")),
    (("serve", "--port", "http"), ("--port", "'http'")),
    (("demo", "--port", "99999"), ("demo", "--port")),
    (("serve", "--tls-cert", "cert.pem"), ("--tls-cert", "--tls-key")),
    (("serve", "--bogus",), ("--bogus",)),
    (("bogus",), ("bogus",)),
    (("analyze",), ("analyze", "clip")),
    (("samples", "sheet", str(CLIP), "--out", "s.png", "--columns", "0"), ("--columns", "0")),
    (("samples", "sheet", str(CLIP), "--out", "s.png", "--rows", "100000"), ("--rows",)),
    (("samples", "generate", "--out", "x", "--start", "-3"), ("--start",)),
    (("calibrate", str(CLIP), "--rig", str(LABEL), "--out", "c.json", "--start", "-5"), ("--start", "-5")),
    (("calibrate", str(CLIP), "--rig", str(LABEL), "--out", "c.json", "--herd-line", "1,2,3,nan"), ("--herd-line",)),
    (("calibrate", str(CLIP), "--rig", str(LABEL), "--out", "c.json", "--herd-line", "19000,19000,5,5"),
     ("--herd-line", "5000")),
    (("calibrate", str(CLIP), "--rig", str(LABEL), "--out", "c.json", "--meteor-pixel", "99999,5"),
     ("--meteor-pixel", "1280x720")),
    (("calibrate-lens", str(CLIP), "--out", "l.json", "--square-mm", "-1"), ("--square-mm",)),
    (("calibrate-lens", str(CLIP), "--out", "l.json", "--square-mm", "nan"), ("--square-mm",)),
    (("calibrate-lens", str(CLIP), "--out", "l.json", "--marker-mm", "40"), ("--marker-mm", "--square-mm")),
    (("calibrate-lens", str(CLIP), "--out", "l.json", "--squares", "1x1"), ("--squares",)),
    (("calibrate-lens", str(CLIP), "--out", "l.json", "--board", "chessboard", "--squares", "0x0"), ("--squares",)),
    (("calibrate-lens", str(CLIP), "--out", "l.json", "--step", "0"), ("--step",)),
    (("calibrate-lens", str(CLIP), "--out", "l.json", "--max-views", "0"), ("--max-views",)),
    (("eval", str(ROOT / "sample_videos"), "--workers", "3"), ("eval", "--workers", "3", "from 1 to 2")),
    (("eval", str(ROOT / "sample_videos"), "--workers", "0"), ("--workers", "0")),
    (("eval", str(ROOT / "sample_videos"), "--workers", "two"), ("--workers", "'two'")),
    (("eval", str(ROOT / "sample_videos"), "--out", "/nonexistent-folder/eval.json"), ("--out", "does not exist")),
    (("eval", str(ROOT / "sample_videos"), "--out", str(ROOT)), ("--out", "is a folder")),
    (("eval", str(ROOT / "sample_videos"), "--plots", str(LABEL)), ("--plots", "is a file")),
    (("simulate", "--players", "9"), ("--players",)),
    (("markers", "--out", "m.pdf", "--dpi", "0"), ("dpi",)),
    (("eval", ".", "--limit", "-1"), ("--limit",)),
])
def test_bad_options_are_one_clear_line(capsys, tmp_path, monkeypatch, argv, needles):
    monkeypatch.chdir(tmp_path)  # nothing is written where the tests run
    code, out, err = run_cli(capsys, *argv)
    assert_one_clear_line(code, err, *needles)
    assert not list(tmp_path.iterdir())  # and nothing was written
