"""The live runner: frames to the stream, verdicts to launches, clips saved, a lost camera reopened."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path

from web_helpers import new_game, state

from calibration.rig import load_rig
from web import DEFAULT_RIG, context, create_app
from web.live import LiveRunner


@dataclass
class FakeEvent:
    kind: str
    frame: int
    message: str
    verdict: object = None


class FakeVerdict:
    """Enough of `vision.verdict.Verdict` for the runner: one launch released at 10, at rest at 20."""

    outcome = "water"
    dinosaur = None

    def model_dump_json(self) -> str:
        return json.dumps({
            "outcome": "water", "dinosaur": None, "valid": True, "reasons": [], "region": "water_center",
            "landing": "water", "launch_mode": "standard", "bounces_before_box": 1, "bounces": [],
            "release": {"frame": 10, "table_mm": [0, 0], "height_mm": 100, "herd_line_signed_mm": 30},
            "herd_line_ok": True, "entered_box_frame": 15, "rest": {"frame": 20, "table_mm": [1, 1], "box_mm": [0, 0]},
            "disputed": True, "dispute_reasons": ["close to the rim"],
            "margins": {"region": {"margin_mm": 2.0, "uncertainty_mm": 1.5}}, "start_frame": 10, "verdict_frame": 25,
        })


class FakeJudge:
    def __init__(self) -> None:
        self.state = "waiting"
        self.calibration = None

    def process(self, frame, index):
        if index == 10:
            self.state = "in_flight"
            return [FakeEvent("state", index, "in flight")]
        if index == 25:
            self.state = "at_rest"
            return [FakeEvent("verdict", index, "water", FakeVerdict())]
        return []

    def finish(self):
        return []

    def current_track(self):
        raise AttributeError("no track")


def _wait(condition, timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def test_verdict_becomes_the_launch_outcome_and_the_clip_is_saved(tmp_path: Path, synthetic_video: Path, monkeypatch):
    monkeypatch.setattr(LiveRunner, "_make_judge", lambda self, fps: FakeJudge())
    app = create_app({"DATA_DIR": tmp_path / "data", "TESTING": True, "SOURCE": str(synthetic_video),
                      "LOOP": False, "REALTIME": False, "START_LIVE": False})
    client = app.test_client()
    game_id = new_game(client)
    launcher = state(client, game_id)["current_launch"]["launcher"]
    live = context(app).live
    live.start()
    try:
        _wait(lambda: client.get("/api/launches").json["launches"]
              and client.get("/api/launches").json["launches"][0]["clip_dir"])
    finally:
        live.stop()
    launch = client.get("/api/launches").json["launches"][0]
    assert launch["source"] == "judge" and launch["outcome"] == {"outcome": "water", "dinosaur": None}
    assert launch["disputed"] and launch["verdict"]["margins"]["region"]["margin_mm"] == 2.0
    assert launch["launcher"] == state(client, game_id)["view"]["players"][launcher]["name"]
    # clip: from one second before release (frame 0 here) to one second after rest (frame 50), at 30 fps
    clip = client.get(f"/api/launches/{launch['id']}/clip.json").json
    assert clip["frames"] == 51 and clip["first_frame"] == 0 and clip["release_frame"] == 10
    assert client.get(f"/api/launches/{launch['id']}/frames/0.jpg").mimetype == "image/jpeg"
    assert client.get(f"/api/launches/{launch['id']}/frames/999.jpg").status_code == 404
    assert client.get(f"/api/launches/{launch['id']}/snapshot.jpg").status_code == 200
    webm = client.get(f"/api/launches/{launch['id']}/clip.webm")
    assert webm.status_code == 200 and webm.data[:4] == b"\x1a\x45\xdf\xa3"  # EBML (WebM) header
    page = client.get(f"/launches/{launch['id']}").get_data(as_text=True)
    assert 'id="player"' in page and "judge unsure" in page
    assert "water" in client.get("/live").get_data(as_text=True)


def test_stream_and_frames_while_live(tmp_path: Path, synthetic_video: Path):
    app = create_app({"DATA_DIR": tmp_path / "data", "TESTING": True, "SOURCE": str(synthetic_video),
                      "LOOP": True, "REALTIME": True})
    client = app.test_client()
    live = context(app).live
    try:
        _wait(lambda: live.status.connected and live.latest_raw() is not None)
        stream = client.get("/api/live/stream.mjpg?max_frames=2")
        assert stream.mimetype == "multipart/x-mixed-replace"
        assert stream.data.count(b"Content-Type: image/jpeg") == 2
        assert client.get("/api/live/frame.jpg").data[:2] == b"\xff\xd8"
        assert client.get("/api/calibration/frame.jpg").data[:2] == b"\xff\xd8"
        assert client.get("/api/status").json["live"]["connected"] is True
        picked = client.post("/api/calibration/meteor", json={"x": 15, "y": 110})
        assert picked.status_code == 200 and len(picked.json["meteor_rgb"]) == 3
        off_frame = client.post("/api/calibration/meteor", json={"x": 5000, "y": 5})
        assert off_frame.status_code == 400 and off_frame.json["field"] == "x"
    finally:
        live.stop()


def test_lost_camera_is_reopened_with_backoff(tmp_path: Path):
    events: list[tuple[str, dict]] = []
    runner = LiveRunner(str(tmp_path / "unplugged.mp4"), load_rig(DEFAULT_RIG), clips_dir=tmp_path,
                        publish=lambda kind, data: events.append((kind, data)), max_backoff=0.2)
    runner.start()
    try:
        _wait(lambda: sum(1 for kind, data in events if kind == "status" and data["state"] == "disconnected") >= 1)
        time.sleep(0.5)
    finally:
        runner.stop()
    status = runner.status.as_dict()
    assert status["connected"] is False and "retrying" in status["message"]
    assert runner.latest_jpeg()[1][:2] == b"\xff\xd8"  # the page shows a "camera lost" frame
