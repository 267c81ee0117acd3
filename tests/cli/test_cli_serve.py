"""`meteors-judge serve` as a real process: an empty host is off loopback, HTTPS gives Secure cookies."""

from __future__ import annotations

import http.cookiejar
import json
import re
import shutil
import ssl
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
from web_helpers import PLAYERS, call, start_server, stop_server  # noqa: E402


def test_an_empty_host_listens_everywhere_and_needs_the_token(tmp_path):
    lines: list[str] = []
    process, url = start_server(tmp_path / "data", "--host", "", banner=lines)
    try:
        banner = "".join(lines)
        token = re.search(r"referee token: (\S+)", banner)
        assert token, banner
        assert "listening on every interface" in banner
        here = f"http://127.0.0.1:{url.rsplit(':', 1)[1]}"  # only loopback traffic in tests
        assert call(f"{here}/api/games", "POST", {"players": PLAYERS})[0] == 403
        assert call(f"{here}/api/games", "POST", {"players": PLAYERS},
                    headers={"X-Referee-Token": token.group(1)})[0] == 201
    finally:
        stop_server(process)


@pytest.fixture
def certificate(tmp_path) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=localhost"], check=True, capture_output=True)
    return cert, key


def test_served_over_tls_the_session_cookie_is_secure(tmp_path, certificate):
    cert, key = certificate
    process, url = start_server(tmp_path / "data", "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert url.startswith("https://127.0.0.1:")
        unverified = ssl.create_default_context()
        unverified.check_hostname = False
        unverified.verify_mode = ssl.CERT_NONE  # our own throwaway certificate
        jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPSHandler(context=unverified),
                                             urllib.request.HTTPCookieProcessor(jar))
        page = opener.open(f"{url}/referee", timeout=10).read().decode()
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)
        form = urllib.parse.urlencode({"csrf_token": csrf}).encode()
        opener.open(urllib.request.Request(f"{url}/referee", data=form, method="POST"), timeout=10)
        session = next(cookie for cookie in jar if cookie.name == "session")
        assert session.secure
        request = urllib.request.Request(f"{url}/api/games", data=json.dumps({"players": PLAYERS}).encode(),
                                         method="POST", headers={"Content-Type": "application/json"})
        assert opener.open(request, timeout=10).status == 201  # the session over HTTPS writes
    finally:
        stop_server(process)


def test_a_bad_certificate_is_one_clear_line(tmp_path, capsys):
    from cli.main import main

    (tmp_path / "cert.pem").write_text("not a certificate")
    code = main(["serve", "--port", "0", "--data", str(tmp_path / "data"), "--tls-cert", str(tmp_path / "cert.pem"),
                 "--tls-key", str(tmp_path / "cert.pem")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert err.strip().startswith("meteors-judge serve: error: cannot use the TLS certificate"), err
