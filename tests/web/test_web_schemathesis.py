"""Schemathesis against /api/openapi.json: a bounded, deterministic run in-process (no network) finds no 5xx.

Every operation of the description gets EXAMPLES_PER_OPERATION generated requests (Hypothesis,
derandomized), sent through the app's WSGI interface to a data folder holding a game, launches and
an override; every response must be below 500. Streams are bounded by the server (STREAM_MAX_SECONDS).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from web_helpers import new_game

from web import context, create_app
from web.openapi import describe

schemathesis = pytest.importorskip("schemathesis")
from schemathesis.checks import not_a_server_error  # noqa: E402

EXAMPLES_PER_OPERATION = 25
OPERATIONS = [(path, method) for path, ops in describe()["paths"].items() for method in ops]


@pytest.fixture(scope="module")
def api_schema(tmp_path_factory):
    app = create_app({"DATA_DIR": tmp_path_factory.mktemp("fuzzed") / "data", "TESTING": True,
                      "STREAM_MAX_SECONDS": 0.1})
    client = app.test_client()
    game_id = new_game(client)  # something to find: a game, launches, an override
    for outcome in ("water", "void"):
        client.post(f"/api/games/{game_id}/launch", json={"outcome": outcome})
    client.post("/api/launches/1/overrides", json={"outcome": "void", "reason": "seen from the side"})
    yield schemathesis.openapi.from_wsgi("/api/openapi.json", app)
    context(app).store.close()


@pytest.mark.parametrize(("path", "method"), OPERATIONS, ids=[f"{m.upper()} {p}" for p, m in OPERATIONS])
def test_no_operation_gives_a_server_error(api_schema, path, method):
    operation = api_schema[path][method]

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES_PER_OPERATION, derandomize=True, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def fuzz(case) -> None:
        case.call_and_validate(checks=[not_a_server_error])

    fuzz()
