"""Shared fixtures of the browser tests: one `streamlit run app.py` server and one Chromium tab per session."""

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

try:
    from playwright import sync_api as playwright
except ImportError:  # the browser tests skip themselves below
    playwright = None
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def _require_browser():
    if playwright is None:
        pytest.skip("playwright is not installed (pip install -e '.[test]')")
    if not pathlib.Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHOTS = ROOT / "tests" / "screenshots"


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def poll_database(tmp_path_factory):
    """The server's poll store (Ask the class): a SQLite file of this test session, not the user's."""
    return tmp_path_factory.mktemp("polls") / "polls.sqlite"


@pytest.fixture(scope="session")
def server(poll_database):
    _require_browser()
    port = _free_port()
    environ = {key: value for key, value in os.environ.items() if key != "COVSHIFT_POLL_URL"}
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
         "--server.port", str(port), "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**environ, "COVSHIFT_POLL_DB": str(poll_database)})
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
    try:  # a busy machine can take its time to stop the server and its fit workers
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def browser():
    """One Chromium for the whole session: Playwright's sync API allows one running instance per thread, so
    every module opens its tabs and contexts in this one."""
    _require_browser()
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def page(browser):
    tab = browser.new_page(viewport={"width": 1400, "height": 1000})
    yield tab
    tab.close()


def wait_for_page(tab, heading):
    """Wait until the app shows ``heading``, the script run has finished and the page's style sheet is in (Streamlit
    inserts an ``st.html`` style 0.1-0.2 s after the run's last element: a Tab pressed before found no focus ring)."""
    tab.wait_for_selector("[data-testid='stApp']", timeout=60_000)
    tab.get_by_role("heading", name=heading).first.wait_for(timeout=120_000)
    tab.wait_for_function(
        "() => !document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=180_000)
    tab.wait_for_function(
        "() => [...document.querySelectorAll('style')].some(s => s.textContent.includes('covshift page style'))",
        timeout=30_000)


#: The axe-core release the accessibility test injects (npm package axe-core; .ci/run installs the same one).
AXE_VERSION = "4.14.1"
AXE_DIR = pathlib.Path(os.environ.get("COVSHIFT_AXE_DIR", "/tmp/covshift-axe"))


@pytest.fixture(scope="session")
def axe_script():
    """The path of axe-core's axe.min.js (to inject with page.add_script_tag): npm's axe-core, installed
    into COVSHIFT_AXE_DIR (default /tmp/covshift-axe) by .ci/run, or here once if it is missing there."""
    script = AXE_DIR / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.skip("npm is not installed (apt-get install npm): axe-core cannot be installed")
        done = subprocess.run([npm, "install", "--prefix", str(AXE_DIR), "--no-audit", "--no-fund",
                               f"axe-core@{AXE_VERSION}"], capture_output=True, text=True, timeout=300)
        if done.returncode != 0 or not script.exists():
            pytest.skip(f"npm could not install axe-core@{AXE_VERSION}: {done.stderr.strip()[-300:]}")
    return script
