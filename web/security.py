"""Who may change things: the referee token (off loopback) and CSRF protection of forms.

- Served on a loopback address, anyone at the laptop is the referee.
- Served on another address, every state-changing request needs the referee token printed at
  start-up: an `X-Referee-Token` header, a `token` form field, or a session that entered it once on
  the Referee page. Reading (players' phones) needs nothing.
- HTML forms carry a per-session CSRF token (`csrf_token` field, or `X-CSRF-Token` header).
  JSON requests must say `Content-Type: application/json`, which another site's page cannot send
  without a CORS preflight this server never grants; when they carry `X-CSRF-Token` it is checked.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets

from flask import Flask, Response, abort, current_app, jsonify, request, session

STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
EXEMPT_ENDPOINTS = {"pages.referee_login"}  # entering the token is how one gets it


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def is_referee() -> bool:
    if not current_app.config["REQUIRE_TOKEN"]:
        return True
    return bool(session.get("referee"))


def token_matches(candidate: str | None) -> bool:
    token = current_app.config["REFEREE_TOKEN"]
    return bool(candidate) and hmac.compare_digest(str(candidate), token)


def _refuse(status: int, message: str, field: str | None = None) -> Response:
    response = jsonify({"error": message, "field": field})
    response.status_code = status
    return response


def check_request() -> Response | None:
    if request.method not in STATE_CHANGING:
        return None
    json_request = request.mimetype == "application/json"
    if current_app.config["REQUIRE_TOKEN"] and request.endpoint not in EXEMPT_ENDPOINTS:
        header = request.headers.get("X-Referee-Token")
        form_token = None if json_request else request.form.get("token")
        if not (token_matches(header) or token_matches(form_token) or session.get("referee")):
            return _refuse(403, "the referee token is needed to change anything (X-Referee-Token header, "
                                "or enter it on the Referee page)", "token")
    sent = request.headers.get("X-CSRF-Token")
    if json_request:
        if sent is not None and not hmac.compare_digest(sent, session.get("csrf", "")):
            return _refuse(403, "bad CSRF token", "csrf_token")
        return None
    if request.endpoint is not None and request.endpoint.startswith("api.") and request.mimetype not in (
        "multipart/form-data",
    ):
        return _refuse(415, "the API takes JSON bodies (Content-Type: application/json)", "Content-Type")
    sent = sent or request.form.get("csrf_token")
    expected = session.get("csrf")
    if not sent or not expected or not hmac.compare_digest(sent, expected):
        return _refuse(403, "missing or bad CSRF token: reload the page and try again", "csrf_token")
    return None


def init_security(app: Flask) -> None:
    app.before_request(check_request)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["is_referee"] = is_referee


def require(condition: bool, status: int = 400) -> None:
    if not condition:
        abort(status)
