"""Fixtures for the dashboard tests, in the flaskr style: an app on a temporary data folder and its client."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from web import context, create_app


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def app(data_dir: Path):
    app = create_app({"DATA_DIR": data_dir, "TESTING": True})
    yield app
    context(app).store.close()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def remote_app(tmp_path: Path):
    """The app as served on a non-loopback address: changes need the referee token."""
    app = create_app({"DATA_DIR": tmp_path / "remote", "TESTING": True, "HOST": "0.0.0.0",
                      "REFEREE_TOKEN": "let-me-referee"})
    yield app
    context(app).store.close()


@pytest.fixture
def synthetic_video(tmp_path: Path) -> Path:
    """A short video OpenCV can read (moving square on grey), for the live runner without a real clip."""
    path = tmp_path / "synthetic.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30.0, (320, 240))
    for i in range(60):
        frame = np.full((240, 320, 3), 120, np.uint8)
        cv2.rectangle(frame, (10 + 4 * i, 100), (30 + 4 * i, 120), (40, 90, 210), -1)
        writer.write(frame)
    writer.release()
    return path


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright (browser tests; skipped where either is missing)."""
    from web_helpers import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing: run `sh scripts/ensure-chromium.sh`")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()
