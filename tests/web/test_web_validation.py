"""Every id, number and body is checked to its range: a JSON 4xx naming the problem, never a 500 or a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from web_helpers import PLAYERS, new_game

ROOT = Path(__file__).resolve().parents[2]
HUGE = 2**63  # one past SQLite's largest INTEGER
HUGER = 10**30


@pytest.fixture
def launched(client) -> int:
    game_id = new_game(client)
    assert client.post(f"/api/games/{game_id}/launch", json={"outcome": "water"}).status_code == 201
    return game_id


READ_PATHS = ("/api/games/{n}", "/api/games/{n}/audit", "/api/launches/{n}", "/api/launches/{n}/clip.json",
              "/api/launches/{n}/snapshot.jpg", "/api/launches/{n}/clip.webm", "/api/launches/1/frames/{n}.jpg",
              "/api/launches/{n}/frames/1.jpg", "/game/{n}", "/launches/{n}", "/game/{n}/scores")
WRITES = (("/api/overrides/{n}/withdraw", {"reason": "wrong call"}),
          ("/api/launches/{n}/overrides", {"outcome": "void", "reason": "wrong call"}),
          ("/api/launches/{n}/dispute", {}),
          ("/api/games/{n}/activate", None),
          ("/api/games/{n}/commands", {"option_index": 0}),
          ("/api/games/{n}/launch", {"outcome": "void"}),
          ("/api/games/{n}/undo", {}))


@pytest.mark.parametrize("number", [HUGE, HUGER])
def test_huge_ids_in_paths_are_not_found(client, launched, number):
    for path in READ_PATHS:
        response = client.get(path.format(n=number))
        assert response.status_code == 404, (path, response.data[:200])
        if path.startswith("/api/"):
            assert response.json["error"]
    for path, body in WRITES:
        response = client.post(path.format(n=number), json=body)
        assert response.status_code == 404, (path, response.data[:200])
        assert response.json["error"]


@pytest.mark.parametrize(("field", "value"), [("overrules", HUGE), ("overrules", HUGER), ("overrules", 0),
                                              ("bounces_before_box", HUGE)])
def test_huge_numbers_in_bodies_name_the_field(client, launched, field, value):
    response = client.post("/api/launches/1/overrides", json={"outcome": "void", "reason": "wrong call", field: value})
    assert response.status_code == 400, response.data[:200]
    assert response.json["field"] == field


def test_huge_game_ids_in_page_queries_are_not_found(client, launched):
    assert client.get(f"/launches?game_id={HUGE}").status_code == 404
    assert client.get("/launches?game_id=0").status_code == 404
    assert client.get(f"/launches?game_id={launched}").status_code == 200


@pytest.mark.parametrize("query", [f"game_id={HUGE}", f"limit={HUGE}", "game_id=-1"])
def test_huge_numbers_in_queries_name_the_field(client, launched, query):
    response = client.get(f"/api/launches?{query}")
    assert response.status_code == 400
    assert response.json["field"] == query.split("=")[0]


@pytest.mark.parametrize("field", ["option_index", "pending_index"])
def test_huge_decision_indexes_are_refused(client, field):
    game_id = new_game(client, autoplay=False)
    body = {"option_index": 0, field: HUGE}
    response = client.post(f"/api/games/{game_id}/commands", json=body)
    assert response.status_code == 400 and response.json["field"] == field


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_json_is_refused(client, depth):
    game_id = new_game(client, autoplay=False)
    nested = "[" * depth + "]" * depth
    body = '{"option": ' + nested + "}"
    response = client.post(f"/api/games/{game_id}/commands", data=body, content_type="application/json")
    assert response.status_code in (400, 413), response.data[:200]
    assert response.json["field"] == "body"
    rig = client.post("/api/rig", data='{"a": ' + nested + "}", content_type="application/json")
    assert rig.status_code in (400, 413) and rig.json["field"] == "body"


def test_deeply_nested_json_in_a_form_is_refused(client):
    game_id = new_game(client, autoplay=False)
    from web_helpers import csrf_of

    csrf = csrf_of(client, f"/game/{game_id}")
    response = client.post(f"/game/{game_id}/decide", data={"csrf_token": csrf, "option": "[" * 5000},
                           headers={"Accept": "text/html"})
    assert response.status_code == 302  # back to the page, which says what was wrong
    page = client.get(f"/game/{game_id}").get_data(as_text=True)
    assert "not valid JSON" in page


def test_json_bodies_are_bounded_in_size(client):
    game_id = new_game(client, autoplay=False)
    padding = {"option_index": 0, "who": "x" * 100_000}
    response = client.post(f"/api/games/{game_id}/commands", json=padding)
    assert response.status_code == 413 and response.json["field"] == "body"


@pytest.mark.parametrize("value", [True, False, "2", 1.5])
def test_a_boolean_or_string_is_not_a_count(client, launched, value):
    response = client.post("/api/launches/1/overrides", json={"bounces_before_box": value, "reason": "wrong count"})
    assert response.status_code == 400, response.json
    assert response.json["field"] == "bounces_before_box"


def test_numbers_must_be_finite(client):
    response = client.post("/api/calibration/meteor", data='{"x": NaN, "y": 1}', content_type="application/json")
    assert response.status_code == 400
    herd = client.post("/api/calibration/herd-line", data='{"points_px": [[NaN, 1], [50, 60]]}',
                       content_type="application/json")
    assert herd.status_code == 400 and herd.json["field"].startswith("points_px")


@pytest.mark.parametrize(("body", "field"), [
    ({"players": [{"name": "   "}, {"name": "B"}]}, "players.0.name"),
    ({"players": [{"name": "\t \n"}, {"name": "B"}]}, "players.0.name"),
    ({"players": PLAYERS, "name": "   "}, "name"),
])
def test_names_of_only_spaces_are_refused(client, body, field):
    response = client.post("/api/games", json=body)
    assert response.status_code == 400 and response.json["field"] == field


def test_names_are_stored_without_surrounding_spaces(client):
    game_id = new_game(client, autoplay=False, name="  Friday  ")
    assert client.get("/api/games").json["games"][-1]["name"] == "Friday"
    assert game_id


def test_who_of_only_spaces_is_refused(client, launched):
    response = client.post("/api/launches/1/dispute", json={"who": "  "})
    assert response.status_code == 400 and response.json["field"] == "who"


def test_body_less_posts_need_no_content_type(client):
    first = new_game(client, autoplay=False)
    second = new_game(client, autoplay=False)
    assert client.get("/api/games").json["active"] == second
    response = client.post(f"/api/games/{first}/activate")  # no body, no Content-Type
    assert response.status_code == 200, response.json
    assert client.get("/api/games").json["active"] == first
    assert client.post("/api/calibration/solve").status_code == 409  # camera off, said as JSON
    # a body still needs its JSON content type
    assert client.post(f"/api/games/{first}/undo", data="steps=1").status_code == 415


@pytest.mark.parametrize(("method", "path", "allowed"), [
    ("put", "/api/status", {"GET"}),
    ("delete", "/api/games", {"GET", "POST"}),
    ("patch", "/api/games/1", {"GET"}),
    ("put", "/api/games/1/activate", {"POST"}),
    ("delete", "/api/overrides/1/withdraw", {"POST"}),
])
def test_unknown_methods_get_405_with_allow(client, method, path, allowed):
    response = getattr(client, method)(path, json={})
    assert response.status_code == 405, response.json
    assert allowed <= set(response.headers["Allow"].replace(" ", "").split(","))
    assert response.json["error"]


def test_unknown_api_paths_are_json_404s(client):
    for method in ("get", "post"):
        response = getattr(client, method)("/api/nothing-here", json={})
        assert response.status_code == 404 and response.json["error"]


def test_an_unexpected_error_is_a_json_500_without_a_traceback(app, client, monkeypatch):
    from web import context

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire at /secret/path")

    monkeypatch.setattr(context(app).store, "games", broken)
    response = client.get("/api/games")
    assert response.status_code == 500
    assert response.json["error"].startswith("internal error")
    assert "Traceback" not in response.get_data(as_text=True) and "/secret/path" not in response.get_data(as_text=True)


@pytest.fixture(scope="module")
def calibration_file(tmp_path_factory):
    """A real calibration: the first frame of a bundled clip, solved from its markers."""
    import cv2

    from calibration.rig import load_rig
    from calibration.solve import calibrate_frame

    clip = ROOT / "tests" / "narrow_clips" / "clip_000.mp4"
    capture = cv2.VideoCapture(str(clip))
    ok, frame = capture.read()
    capture.release()
    assert ok
    calibration = calibrate_frame(frame, load_rig(clip.with_suffix(".json")))
    path = tmp_path_factory.mktemp("cal") / "calibration.json"
    calibration.save(path)
    return path, calibration.frame_size


def test_herd_line_points_off_the_frame_are_refused(tmp_path, calibration_file):
    from web import context, create_app

    path, (width, height) = calibration_file
    app = create_app({"DATA_DIR": tmp_path / "data", "TESTING": True, "CALIBRATION": path,
                      "RIG": ROOT / "tests" / "narrow_clips" / "clip_000.json"})
    client = app.test_client()
    try:
        before = client.get("/api/calibration").json["herd_line_mm"]
        for points in ([[19000, 19000], [100, 100]], [[width, 10], [10, 10]], [[10, height + 5], [10, 10]],
                       [[-1, 5], [10, 10]]):
            response = client.post("/api/calibration/herd-line", json={"points_px": points})
            assert response.status_code == 400, (points, response.json)
            assert response.json["field"] == "points_px" and "frame" in response.json["error"]
            assert min(min(points)) < 0 or f"{width}x{height}" in response.json["error"]
        assert client.get("/api/calibration").json["herd_line_mm"] == before
        inside = client.post("/api/calibration/herd-line",
                             json={"points_px": [[width * 0.3, height * 0.8], [width * 0.7, height * 0.8]]})
        assert inside.status_code == 200, inside.json
    finally:
        context(app).store.close()
