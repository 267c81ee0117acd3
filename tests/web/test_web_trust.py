"""The trust model: who may change things, from which Host and Origin, for how long, and what every response says."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from web_helpers import PLAYERS, csrf_of

from web import context, create_app
from web.security import is_loopback


def _app(data_dir: Path, **config):
    return create_app({"DATA_DIR": data_dir, "TESTING": True, **config})


@pytest.mark.parametrize("host", ["", "0.0.0.0", "::", "[::]"])
def test_empty_and_wildcard_hosts_are_off_loopback(tmp_path, host):
    assert not is_loopback(host)
    app = _app(tmp_path / "data", HOST=host, REFEREE_TOKEN="tok")
    try:
        client = app.test_client()
        refused = client.post("/api/games", json={"players": PLAYERS})
        assert refused.status_code == 403 and refused.json["field"] == "token"
        allowed = client.post("/api/games", json={"players": PLAYERS}, headers={"X-Referee-Token": "tok"})
        assert allowed.status_code == 201
    finally:
        context(app).store.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "::1", "[::1]", "127.0.0.2"])
def test_loopback_hosts(host):
    assert is_loopback(host)


@pytest.mark.parametrize("header", ["attacker.example", "attacker.example:8000", "127.0.0.1.attacker.example",
                                   "localhost.attacker.example", "", "[bad"])
def test_writes_naming_another_host_are_refused_on_loopback(client, header):
    """DNS rebinding: a page of attacker.example re-pointed at 127.0.0.1 sends its own name as Host."""
    refused = client.post("/api/games", json={"players": PLAYERS}, headers={"Host": header})
    assert refused.status_code == 403, refused.json
    assert refused.json["field"] == "Host"
    assert client.get("/api/games").json["games"] == []  # nothing was written
    assert client.get("/api/games", headers={"Host": header}).status_code == 200  # reading is harmless


@pytest.mark.parametrize("header", ["127.0.0.1:8000", "localhost:8000", "localhost", "[::1]:8000", "127.0.0.1"])
def test_writes_naming_this_server_pass_on_loopback(client, header):
    assert client.post("/api/games", json={"players": PLAYERS}, headers={"Host": header}).status_code == 201


def test_allowed_hosts_and_the_served_name(tmp_path):
    app = _app(tmp_path / "a", HOST="127.0.0.1", ALLOWED_HOSTS=["judge.lan"])
    named = _app(tmp_path / "b", HOST="judge.example", REFEREE_TOKEN="tok")
    wildcard = _app(tmp_path / "c", HOST="0.0.0.0", REFEREE_TOKEN="tok")
    try:
        client = app.test_client()
        listed = client.post("/api/games", json={"players": PLAYERS}, headers={"Host": "judge.lan:8000"})
        assert listed.status_code == 201
        assert client.post("/api/games", json={"players": PLAYERS}, headers={"Host": "other.lan"}).status_code == 403
        token = {"X-Referee-Token": "tok"}
        named_client = named.test_client()
        assert named_client.post("/api/games", json={"players": PLAYERS},
                                 headers={**token, "Host": "judge.example:8000"}).status_code == 201
        assert named_client.post("/api/games", json={"players": PLAYERS},
                                 headers={**token, "Host": "evil.example"}).status_code == 403
        # on every interface a phone uses this machine's address: any IP literal names it
        wild_client = wildcard.test_client()
        assert wild_client.post("/api/games", json={"players": PLAYERS},
                                headers={**token, "Host": "192.168.1.20:8000"}).status_code == 201
        assert wild_client.post("/api/games", json={"players": PLAYERS},
                                headers={**token, "Host": "evil.example:8000"}).status_code == 403
    finally:
        for each in (app, named, wildcard):
            context(each).store.close()


def test_cross_site_origins_are_refused(client):
    for origin in ("http://attacker.example", "null", "http://localhost:9999"):
        refused = client.post("/api/games", json={"players": PLAYERS}, headers={"Origin": origin})
        assert refused.status_code == 403 and refused.json["field"] == "Origin", origin
        assert client.post("/api/games/1/activate", headers={"Origin": origin}).status_code == 403
    same = client.post("/api/games", json={"players": PLAYERS}, headers={"Origin": "http://localhost"})
    assert same.status_code == 201


def _sign_in(client, token: str):
    csrf = csrf_of(client, "/referee")
    return client.post("/referee", data={"csrf_token": csrf, "token": token})


def test_a_referee_session_ends_when_the_token_changes(tmp_path):
    data = tmp_path / "data"
    first = _app(data, HOST="0.0.0.0", REFEREE_TOKEN="first-token")
    client = first.test_client()
    _sign_in(client, "first-token")
    assert client.post("/api/games", json={"players": PLAYERS}).status_code == 201
    cookie = client.get_cookie("session").value
    context(first).store.close()

    restarted = _app(data, HOST="0.0.0.0", REFEREE_TOKEN="second-token")  # same secret key, new token
    try:
        later = restarted.test_client()
        later.set_cookie("session", cookie)
        refused = later.post("/api/games", json={"players": PLAYERS})
        assert refused.status_code == 403 and refused.json["field"] == "token"
        _sign_in(later, "second-token")
        assert later.post("/api/games", json={"players": PLAYERS}).status_code == 201
    finally:
        context(restarted).store.close()


def test_a_referee_session_expires(remote_app, monkeypatch):
    import web.security

    client = remote_app.test_client()
    _sign_in(client, "let-me-referee")
    assert client.post("/api/games", json={"players": PLAYERS}).status_code == 201
    now = web.security.time.time()
    monkeypatch.setattr(web.security.time, "time", lambda: now + web.security.REFEREE_SESSION_SECONDS + 1)
    assert client.post("/api/games", json={"players": PLAYERS}).status_code == 403
    assert "referee sign-in" in client.get("/live").get_data(as_text=True)


def test_sign_out_ends_the_referee_session(remote_app):
    client = remote_app.test_client()
    _sign_in(client, "let-me-referee")
    page = client.get("/referee").get_data(as_text=True)
    assert "Sign out" in page
    csrf = csrf_of(client, "/referee")
    assert client.post("/referee/logout", data={"csrf_token": csrf}).status_code == 302
    assert client.post("/api/games", json={"players": PLAYERS}).status_code == 403
    assert "Sign in" in client.get("/referee").get_data(as_text=True)


def test_session_cookie_is_secure_over_tls(remote_app):
    tls = remote_app.test_client()
    csrf = csrf_of(tls, "/referee")
    tls_login = tls.post("/referee", data={"csrf_token": csrf, "token": "let-me-referee"},
                         base_url="https://localhost")
    assert "Secure" in tls_login.headers["Set-Cookie"]
    plain = remote_app.test_client()
    csrf = csrf_of(plain, "/referee")
    plain_login = plain.post("/referee", data={"csrf_token": csrf, "token": "let-me-referee"})
    assert "Secure" not in plain_login.headers["Set-Cookie"]
    assert "HttpOnly" in plain_login.headers["Set-Cookie"]


@pytest.mark.parametrize("path", ["/live", "/api/status", "/api/games/999", "/nowhere", "/static/app.js",
                                  "/api/openapi.json", "/referee"])
def test_security_headers_on_every_response(client, path):
    response = client.get(path)
    csp = response.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'none'" in csp and "'unsafe-inline'" not in csp
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"


def test_security_headers_on_refusals(client):
    refused = client.post("/api/games", json={"players": PLAYERS}, headers={"Host": "evil.example"})
    assert refused.headers["X-Frame-Options"] == "DENY"


def test_the_secret_key_is_never_readable_by_others(tmp_path, monkeypatch):
    """Created with mode 600: a crash right after creating it (here: chmod failing) leaves no readable key."""

    def no_chmod(*args, **kwargs):
        raise OSError("chmod interrupted")

    monkeypatch.setattr(Path, "chmod", no_chmod)
    old_umask = os.umask(0o022)
    try:
        app = _app(tmp_path / "data")
    finally:
        os.umask(old_umask)
    context(app).store.close()
    key = tmp_path / "data" / "secret_key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert len(key.read_text()) == 64


def test_an_old_readable_secret_key_is_made_private(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "secret_key").write_text("a" * 64)
    (data / "secret_key").chmod(0o644)
    app = _app(data)
    context(app).store.close()
    assert stat.S_IMODE((data / "secret_key").stat().st_mode) == 0o600
    assert app.config["SECRET_KEY"] == "a" * 64
