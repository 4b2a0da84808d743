"""End to end in a real browser: Debian's Chromium driven by Playwright against `streamlit run app.py`.

Skipped when Playwright or /usr/bin/chromium is missing (.ci/run installs both).
Screenshots of every page go to tests/screenshots/. The server, browser tab and
``wait_for_page`` helper live in conftest.py, so other browser tests can share them.
"""

import pytest

from tests.teaching.browser.conftest import SHOTS, wait_for_page as _wait_for_page

PAGES = [("", "Covariate shift"), ("data", "Data & shift"), ("weights", "Importance weights"),
         ("regression", "Structured regression"), ("classification", "Classification under shift"),
         ("transfer", "Domain transfer"), ("scaling", "Scaling"), ("reproduction", "Reproduction"),
         ("theory", "About & theory")]


@pytest.mark.parametrize("path,heading", PAGES)
def test_every_page_renders_without_exception(server, page, path, heading):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{server}/{path}")
    _wait_for_page(page, heading)
    assert page.locator("[data-testid='stException']").count() == 0
    if path in ("", "data", "weights", "regression", "classification", "transfer", "reproduction"):
        page.wait_for_selector(".js-plotly-plot", timeout=120_000)
        assert page.locator(".js-plotly-plot").count() >= 1
    page.screenshot(path=str(SHOTS / f"{path or 'home'}.png"), full_page=True)


def test_lesson_link_and_shared_link(server, page):
    page.goto(f"{server}/weights")
    _wait_for_page(page, "Importance weights")
    page.locator("[data-testid=stSidebar]").get_by_role("link", name="KLIEP and its Frank-Wolfe solvers").click()
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
