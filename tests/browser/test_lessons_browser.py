"""Every lesson in a real browser at 1280 x 800 (a classroom projector): click it in the sidebar,
wait for its page, scroll to its main figure and save a screenshot to tests/screenshots/lesson-*.png.

With ``COVSHIFT_UPDATE_ASSETS=1`` the same screenshots also replace README's pictures in assets/
(``COVSHIFT_UPDATE_ASSETS=1 pytest tests/browser/test_lessons_browser.py``).

Skipped when Playwright or /usr/bin/chromium is missing (see conftest.py)."""

import os
import shutil

import pytest

from teaching import lessons
from tests.browser.conftest import ROOT, SHOTS, wait_for_page

#: README's lesson pictures, rewritten by this test when COVSHIFT_UPDATE_ASSETS=1.
ASSETS = ROOT / "assets"
UPDATE_ASSETS = os.environ.get("COVSHIFT_UPDATE_ASSETS") == "1"

HEADINGS = {"pages/home.py": "Covariate shift", "pages/weights.py": "Importance weights",
            "pages/regression.py": "Structured regression", "pages/classification.py": "Classification under shift"}


def _click_lesson(page, server, title, attempts=4):
    """Click the lesson's sidebar link until its banner shows (the click's run has started).

    A click that lands while the first page run is still settling can be dropped by the
    frontend; the button is then clicked again, at most ``attempts`` times.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    for attempt in range(attempts):
        page.wait_for_timeout(2000)  # let the first run (and its URL sync) settle
        wait_for_page(page, "Covariate shift")
        page.locator("[data-testid=stSidebar]").get_by_role("link", name=title, exact=True).click()
        try:
            page.get_by_text(f"Lesson: {title}.").first.wait_for(timeout=45_000)
            return
        except PlaywrightTimeoutError:
            if attempt == attempts - 1:
                raise
            page.goto(server)


@pytest.mark.parametrize("title", list(lessons.LESSONS))
def test_lesson_main_view_screenshot(server, page, title):
    lesson = lessons.LESSONS[title]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server)
    wait_for_page(page, "Covariate shift")
    _click_lesson(page, server, title)
    wait_for_page(page, HEADINGS[lesson.page])
    page.wait_for_timeout(1000)
    wait_for_page(page, HEADINGS[lesson.page])
    page.wait_for_selector(".js-plotly-plot", timeout=180_000)
    assert page.locator("[data-testid='stException']").count() == 0
    anchor = page.locator(f"#view-{lesson.main_view.replace('.', '-')}")
    anchor.wait_for(state="attached", timeout=180_000)
    anchor.evaluate("node => node.scrollIntoView({block: 'end'})")
    page.mouse.move(1270, 790)  # no tooltip over the figure
    page.wait_for_timeout(1500)
    assert page.get_by_text(lesson.claims[0].text[:40]).count() >= 1
    shot = SHOTS / f"lesson-{lesson.key}.png"
    page.screenshot(path=str(shot))
    if UPDATE_ASSETS:
        shutil.copyfile(shot, ASSETS / shot.name)
