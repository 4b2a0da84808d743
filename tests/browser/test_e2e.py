"""End to end in a real browser: Debian's Chromium driven by Playwright against `streamlit run app.py`.

Skipped when Playwright or /usr/bin/chromium is missing (.ci/run installs both).
Screenshots of every page go to tests/screenshots/.
"""

import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

playwright = pytest.importorskip("playwright.sync_api")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
if not pathlib.Path(CHROMIUM).exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)", allow_module_level=True)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SHOTS = ROOT / "tests" / "screenshots"
PAGES = [("", "Covariate shift"), ("data", "Data & shift"), ("weights", "Importance weights"),
         ("regression", "Structured regression"), ("scaling", "Scaling"), ("theory", "About & theory")]


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://localhost:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        process.terminate()
        pytest.fail("streamlit did not become healthy within 60 s")
    yield url
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture(scope="module")
def page():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        yield tab
        browser.close()


def _wait_for_page(tab, heading):
    tab.wait_for_selector("[data-testid='stApp']", timeout=60_000)
    tab.get_by_role("heading", name=heading).first.wait_for(timeout=120_000)
    # wait until the script run has finished (no running indicator)
    tab.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=180_000)


@pytest.mark.parametrize("path,heading", PAGES)
def test_every_page_renders_without_exception(server, page, path, heading):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{server}/{path}")
    _wait_for_page(page, heading)
    assert page.locator("[data-testid='stException']").count() == 0
    if path in ("", "data", "weights", "regression"):
        page.wait_for_selector(".js-plotly-plot", timeout=120_000)
        assert page.locator(".js-plotly-plot").count() >= 1
    page.screenshot(path=str(SHOTS / f"{path or 'home'}.png"), full_page=True)


def test_preset_button_and_shared_link(server, page):
    page.goto(f"{server}/weights")
    _wait_for_page(page, "Importance weights")
    page.get_by_role("button", name="Paper Fig. 2 (sinc shift)").click()
    page.wait_for_function("() => window.location.search.includes('estimators=')", timeout=60_000)
    _wait_for_page(page, "Importance weights")
    link = page.url
    assert "sigma_mode=manual" in link
    page.goto(link)  # the copied link reproduces the view
    _wait_for_page(page, "Importance weights")
    page.wait_for_selector(".js-plotly-plot", timeout=120_000)
    assert page.locator("[data-testid='stException']").count() == 0
    assert page.get_by_text("Frank-Wolfe duality gap").count() >= 1 or page.locator(".js-plotly-plot").count() >= 3
    page.screenshot(path=str(SHOTS / "weights_preset.png"), full_page=True)
