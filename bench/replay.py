"""Size of the KLIEP lesson's page and time per replay step, measured in a real browser (issue 22).

Starts ``streamlit run app.py`` on a free port, clicks the lesson "KLIEP and its Frank-Wolfe
solvers" in Chromium, then opens the lesson's address in a fresh tab and sums every websocket
message Streamlit sends for that page (its elements, the replay's data and script included; the
frontend's own static files are the same for every page and are not counted). With the replay
component on the page it then times "Step" in the browser: the mean of 200 clicks, from the click
to the new SVG laid out.

    python bench/replay.py [--no-write]     # writes bench/results/replay.md

Target: the whole page <= 400 KB, a step within a frame's time (16 ms).
"""

import argparse
import os
import pathlib
import socket
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from _table import markdown_table, write_report  # noqa: E402

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
LESSON = "KLIEP and its Frank-Wolfe solvers"
BUDGET_KB = 400


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve():
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port",
         str(port), "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://localhost:{port}"
    for _ in range(120):
        try:
            if urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return process, url
        except OSError:
            time.sleep(0.5)
    process.terminate()
    raise RuntimeError("streamlit did not become healthy within 60 s")


def _settled(tab):
    tab.wait_for_selector("[data-testid='stApp']", timeout=60_000)
    tab.wait_for_timeout(1500)
    tab.wait_for_function("() => !document.querySelector(\"[data-testid='stStatusWidget']\")", timeout=240_000)


def lesson_address(browser, url):
    """The address the app shows after the lesson's sidebar button is clicked."""
    tab = browser.new_page(viewport={"width": 1280, "height": 800})
    tab.goto(url)
    _settled(tab)
    tab.get_by_role("button", name=LESSON, exact=True).first.click()
    tab.get_by_text(f"Lesson: {LESSON}.").first.wait_for(timeout=120_000)
    _settled(tab)
    address = tab.url
    tab.close()
    return address


def page_bytes(browser, address):
    """Bytes of every websocket message received while a fresh tab loads ``address`` and runs it once."""
    tab = browser.new_page(viewport={"width": 1280, "height": 800})
    received = []
    tab.on("websocket", lambda ws: ws.on(
        "framereceived", lambda payload: received.append(len(payload))))
    tab.goto(address)
    tab.get_by_role("heading", name="Importance weights").first.wait_for(timeout=120_000)
    _settled(tab)
    tab.wait_for_timeout(2000)
    return sum(received), tab


def step_ms(tab, clicks=200):
    """Mean milliseconds of one "Step" in the replay component (the click, the rebuilt iterate, the new
    SVG and the browser's layout of it, forced by reading its size), measured inside its frame."""
    for _ in range(120):
        frames = [f for f in tab.frames if f != tab.main_frame and f.locator("text=/^iteration t = \\d+$/").count()]
        if frames:
            break
        tab.wait_for_timeout(500)
    else:
        return None
    return frames[0].evaluate(
        """(clicks) => {
             const step = [...document.querySelectorAll('button')].find(b => b.textContent.trim() === 'Step');
             const start = performance.now();
             for (let i = 0; i < clicks; i++) {
               step.click();
               document.querySelector('.main svg').getBoundingClientRect();
             }
             return (performance.now() - start) / clicks;
           }""", clicks)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print only; leave bench/results alone")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    process, url = _serve()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                        args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            address = lesson_address(browser, url)
            size, tab = page_bytes(browser, address)
            ms = step_ms(tab)
            browser.close()
    finally:
        process.terminate()
        process.wait(timeout=10)
    rows = [[LESSON, size / 1000, BUDGET_KB, "yes" if size <= BUDGET_KB * 1000 else "no",
             "-" if ms is None else ms]]
    table = markdown_table(["page", "KB sent (websocket)", "budget KB", "within", "ms per Step"], rows)
    print(table)
    if not args.no_write:
        write_report("replay", "Replay: page size and time per step",
                     "Measured by `python bench/replay.py` in Chromium: the bytes of every websocket message Streamlit "
                     "sends for the KLIEP lesson's page (a fresh tab on the lesson's address; the replay shows PFWCS, "
                     "2000 steps), and the mean time of one Step of the replay in the browser: the click, the rebuilt "
                     "iterate, the new SVG and its layout (200 clicks from t = 0). Before issue 22 the page sent "
                     "734 KB (the replay as 100 plotly animation frames, every 20th iteration; alpha stems of all "
                     "300 centres).", [("KLIEP lesson", table)])

if __name__ == "__main__":
    main()
