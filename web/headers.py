"""Security headers on every response, and the name the server gives itself (no versions)."""

from __future__ import annotations

from flask import Flask, Response

SERVER_NAME = "meteors-judge"

# Scripts, styles, pictures and the replay video all come from this server; no page may frame it.
CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "img-src 'self' data: blob:",
    "media-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # form errors go back to the page they came from
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


def add_security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def init_headers(app: Flask) -> None:
    app.after_request(add_security_headers)


def quiet_request_handler() -> type:
    """Werkzeug's request handler, naming the server `meteors-judge` instead of Werkzeug's and Python's versions."""
    from werkzeug.serving import WSGIRequestHandler

    class Handler(WSGIRequestHandler):
        @property
        def server_version(self) -> str:  # also the WSGI SERVER_SOFTWARE
            return SERVER_NAME

        def version_string(self) -> str:
            return SERVER_NAME

    return Handler
