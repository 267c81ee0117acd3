"""Who may change things: the referee token (off loopback), the Host and Origin of writes, CSRF protection of forms.

- Served on a loopback address, anyone at the laptop is the referee. An empty or wildcard address
  (`""`, `0.0.0.0`, `::`) listens on every interface, so it is off loopback.
- Served on another address, every state-changing request needs the referee token printed at
  start-up: an `X-Referee-Token` header, a `token` form field, or a referee session that entered it
  on the Referee page. A session is bound to the token that opened it (a restart with a new token
  ends it), expires after `REFEREE_SESSION_SECONDS` and ends at sign-out. Reading needs nothing.
- Every write must name this server in its `Host` header: an IP address, `localhost` on loopback, the
  name served, this machine's name on a wildcard address, or a name of `ALLOWED_HOSTS`. A web page
  that re-points its own name at this server (DNS rebinding) sends its own name, and is refused.
- A write that carries an `Origin` header must come from this server's own pages.
- HTML forms carry a per-session CSRF token (`csrf_token` field, or `X-CSRF-Token` header).
  JSON requests must say `Content-Type: application/json`, which another site's page cannot send
  without a CORS preflight this server never grants; when they carry `X-CSRF-Token` it is checked.
  API requests without a body (`/activate`, `/calibration/solve`) need no content type.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
import time
from urllib.parse import urlsplit

from flask import Flask, Response, abort, current_app, has_request_context, jsonify, request, session
from flask.sessions import SecureCookieSessionInterface

STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
EXEMPT_ENDPOINTS = {"pages.referee_login"}  # entering the token is how one gets it
WILDCARD_HOSTS = {"", "0.0.0.0", "::", "[::]"}
REFEREE_SESSION_SECONDS = 12 * 3600  # one long game night


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def served_names(host: str, allowed: tuple[str, ...] | list[str] = ()) -> set[str]:
    """The host names (not IP addresses) a write may name: see the module's description."""
    names = {name.lower().rstrip(".") for name in allowed}
    if is_loopback(host):
        names.add("localhost")
    elif host in WILDCARD_HOSTS:
        machine = socket.gethostname().lower()
        names |= {"localhost", machine, f"{machine}.local", socket.getfqdn().lower()}
    elif not _is_ip(host):
        names.add(host.lower().rstrip("."))
    return names


def host_allowed(host_header: str, names: set[str]) -> bool:
    """True when the request's Host names this server; an IP address always does (rebinding needs a name)."""
    try:
        name = urlsplit("//" + host_header).hostname
    except ValueError:
        return False
    if not name:
        return False
    return _is_ip(name) or name.rstrip(".") in names


def _same_origin(origin: str) -> bool:
    try:
        return urlsplit(origin).netloc.lower() == request.host.lower()
    except ValueError:
        return False


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def _token_fingerprint() -> str:
    """A keyed hash of the current referee token: what a referee session holds, so a new token ends it."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, current_app.config["REFEREE_TOKEN"].encode(), "sha256").hexdigest()


def start_referee_session() -> None:
    session["referee"] = _token_fingerprint()
    session["referee_until"] = time.time() + current_app.config.get("REFEREE_SESSION_SECONDS",
                                                                     REFEREE_SESSION_SECONDS)
    csrf_token()


def end_referee_session() -> None:
    session.pop("referee", None)
    session.pop("referee_until", None)


def _referee_session() -> bool:
    held = session.get("referee")
    if not isinstance(held, str) or not hmac.compare_digest(held, _token_fingerprint()):
        return False
    until = session.get("referee_until")
    return isinstance(until, int | float) and time.time() < until


def is_referee() -> bool:
    if not current_app.config["REQUIRE_TOKEN"]:
        return True
    return _referee_session()


def token_matches(candidate: str | None) -> bool:
    token = current_app.config["REFEREE_TOKEN"]
    return bool(candidate) and hmac.compare_digest(str(candidate), token)


def _refuse(status: int, message: str, field: str | None = None) -> Response:
    response = jsonify({"error": message, "field": field})
    response.status_code = status
    return response


def _has_body() -> bool:
    return bool(request.content_length) or "chunked" in request.headers.get("Transfer-Encoding", "").lower()


def check_request() -> Response | None:
    if request.method not in STATE_CHANGING or request.routing_exception is not None:
        return None  # reads, and unknown paths or methods (404, 405 with Allow) pass on
    if not host_allowed(request.host, current_app.config["SERVED_NAMES"]):
        return _refuse(403, f"Host {request.host!r} is not this server's address: changes are refused (a web page "
                            "may be reaching this server through DNS rebinding); serve with --allowed-host NAME "
                            "to accept that name", "Host")
    origin = request.headers.get("Origin")
    if origin is not None and not _same_origin(origin):
        return _refuse(403, f"a page of {origin} cannot change anything here (cross-site request)", "Origin")
    json_request = request.mimetype == "application/json"
    if current_app.config["REQUIRE_TOKEN"] and request.endpoint not in EXEMPT_ENDPOINTS:
        header = request.headers.get("X-Referee-Token")
        form_token = None if json_request else request.form.get("token")
        if not (token_matches(header) or token_matches(form_token) or _referee_session()):
            return _refuse(403, "the referee token is needed to change anything (X-Referee-Token header, "
                                "or enter it on the Referee page)", "token")
    sent = request.headers.get("X-CSRF-Token")
    is_api = request.endpoint is not None and request.endpoint.startswith("api.")
    if json_request or (is_api and not _has_body()):
        if sent is not None and not hmac.compare_digest(sent, session.get("csrf", "")):
            return _refuse(403, "bad CSRF token", "csrf_token")
        return None
    if is_api and request.mimetype not in ("multipart/form-data",):
        return _refuse(415, "the API takes JSON bodies (Content-Type: application/json)", "Content-Type")
    sent = sent or request.form.get("csrf_token")
    expected = session.get("csrf")
    if not sent or not expected or not hmac.compare_digest(sent, expected):
        return _refuse(403, "missing or bad CSRF token: reload the page and try again", "csrf_token")
    return None


class SessionCookies(SecureCookieSessionInterface):
    """Flask's signed session cookie, marked `Secure` when the request came over TLS."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return super().get_cookie_secure(app) or (has_request_context() and request.is_secure)


def init_security(app: Flask) -> None:
    app.session_interface = SessionCookies()
    app.config["SERVED_NAMES"] = served_names(app.config["HOST"], app.config.get("ALLOWED_HOSTS", ()))
    app.before_request(check_request)
    app.jinja_env.globals["csrf_token"] = csrf_token
    app.jinja_env.globals["is_referee"] = is_referee


def require(condition: bool, status: int = 400) -> None:
    if not condition:
        abort(status)
