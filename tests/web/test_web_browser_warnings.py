"""In a real browser: a launch the judge could not judge reaches the Live page as a warning that stands out.

`meteors-judge serve` plays a bundled clip cut short while the meteor is still in the launcher's hand
(sample_videos/clip_006, held from about frame 37, released at frame 98, cut at frame 90). When the video
ends the judge cannot judge that throw: its `warning` event is listed in the judge log, marked "⚠".
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from web_helpers import CHROMIUM, ROOT, call, start_server, stop_server

sys.path.insert(0, str(ROOT / "tests" / "vision"))  # the clip cutter the vision tests use
from launch_inputs import first_frames  # noqa: E402

pytestmark = pytest.mark.browser

SAMPLE = ROOT / "sample_videos" / "clip_006.mp4"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    if not Path(CHROMIUM).exists() or pytest.importorskip("playwright") is None:
        pytest.skip(f"{CHROMIUM} is missing: run `sh scripts/ensure-chromium.sh`")
    folder = tmp_path_factory.mktemp("stopped")
    clip = first_frames(SAMPLE, folder / "stopped_while_held.avi", 90)
    process, url = start_server(folder / "data", "--video", str(clip), "--rig", str(SAMPLE.with_suffix(".json")),
                                "--no-loop")
    yield url
    stop_server(process)


def test_a_launch_the_judge_could_not_judge_is_a_warning_on_the_live_page(served, browser):
    url = served
    deadline = time.monotonic() + 180
    while call(f"{url}/api/status")[1]["live"]["state"] != "ended":
        assert time.monotonic() < deadline, "the video never ended"
        time.sleep(0.25)
    page = browser.new_page()
    page.set_default_timeout(30_000)
    page.goto(f"{url}/live")
    warning = page.locator("#judge-log li.warn", has_text="the video ended while the judge took the meteor")
    warning.wait_for()
    text = warning.inner_text()
    assert text.startswith("⚠ frame 89: warning — the video ended while the judge took the meteor for held in a hand")
    assert text.endswith("a launch from that hand, if any, was not judged")
    assert page.locator("#judge-log li.warn").count() == 1  # the only warning: nothing else went wrong
    assert page.locator("#verdict-card").count() == 0  # and no launch was made up
    page.close()
