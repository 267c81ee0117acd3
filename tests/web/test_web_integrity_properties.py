"""Property: whatever the referee does (launches, throws judged while the game waits, overrules,
withdrawals, undos, assignments, overrules sent at once), every counted launch row equals the engine's
record of its launch, no engine launch has two counted rows, and a restart comes back to the same rows."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_web_integrity import assert_rows_equal_engine
from web_helpers import all_at_once, new_game, state

from web import context, create_app

OUTCOMES = st.sampled_from([("void", None), ("water", None), ("dinosaur", "trex"), ("dinosaur", "stegosaurus")])
PICK = st.integers(min_value=0, max_value=50)
STEP = st.one_of(
    st.tuples(st.just("launch"), OUTCOMES),
    st.tuples(st.just("launch"), OUTCOMES),
    st.tuples(st.just("throw"), OUTCOMES),
    st.tuples(st.just("overrule"), PICK, OUTCOMES),
    st.tuples(st.just("withdraw"), PICK),
    st.tuples(st.just("undo"), st.integers(min_value=1, max_value=4)),
    st.tuples(st.just("assign"), PICK),
    st.tuples(st.just("together"), PICK, PICK, OUTCOMES, OUTCOMES),
)


def _pick(items: list, index: int):
    return items[index % len(items)] if items else None


def _overrule(client, launch_id: int, outcome: tuple[str, str | None]) -> int:
    body = {"outcome": outcome[0], "dinosaur": outcome[1], "reason": "property test", "confirm": True}
    response = client.post(f"/api/launches/{launch_id}/overrides", json=body)
    assert response.status_code in (201, 409), response.json  # 409: the row does not count, or the rules refuse
    return response.status_code


def _step(app, client, game_id: int, step: tuple) -> None:
    games = context(app).games
    rows = state(client, game_id)["launches"]
    kind = step[0]
    if kind == "launch":
        outcome, dinosaur = step[1]
        if state(client, game_id)["current_launch"] is not None:
            response = client.post(f"/api/games/{game_id}/launch", json={"outcome": outcome, "dinosaur": dinosaur})
            assert response.status_code == 201, response.json
    elif kind == "throw":  # the judge's verdict, whether or not the game waits for one
        games.record_launch(step[1][0], step[1][1], "judge", "judge", verdict={"outcome": step[1][0]})
    elif kind == "overrule" and rows:
        _overrule(client, _pick(rows, step[1])["id"], step[2])
    elif kind == "withdraw":
        active = [o for row in rows for o in row["overrides"] if o["status"] == "active"]
        if active:
            response = client.post(f"/api/overrides/{_pick(active, step[1])['id']}/withdraw",
                                   json={"reason": "property test"})
            assert response.status_code in (200, 409), response.json
    elif kind == "undo":
        response = client.post(f"/api/games/{game_id}/undo", json={"steps": step[1]})
        assert response.status_code in (200, 409), response.json
    elif kind == "assign" and rows:
        response = client.post(f"/api/launches/{_pick(rows, step[1])['id']}/assign", json={})
        assert response.status_code in (200, 409), response.json
    elif kind == "together" and rows:
        targets = [(_pick(rows, step[1])["id"], step[3]), (_pick(rows, step[2])["id"], step[4])]
        codes = all_at_once([lambda target=target: _overrule(app.test_client(), *target) for target in targets])
        assert len(codes) == len(targets)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(opening=st.lists(OUTCOMES, min_size=2, max_size=4), steps=st.lists(STEP, min_size=1, max_size=14))
def test_counted_rows_always_equal_the_engine(opening, steps):
    with tempfile.TemporaryDirectory() as folder:
        data_dir = Path(folder) / "data"
        app = create_app({"DATA_DIR": data_dir, "TESTING": True})
        client = app.test_client()
        game_id = new_game(client, review_disputed=False)
        for step in [("launch", outcome) for outcome in opening] + steps:
            _step(app, client, game_id, step)
            assert_rows_equal_engine(app, client, game_id)
        before = state(client, game_id)
        context(app).store.close()

        again = create_app({"DATA_DIR": data_dir, "TESTING": True})
        after = state(again.test_client(), game_id)
        assert after["launches"] == before["launches"] and after["view"] == before["view"]
        context(again).store.close()
