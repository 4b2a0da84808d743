"""The Check your data page in a real browser on a built-in data set, screenshot at the projector's 1280 x 800."""

from tests.teaching.browser.conftest import SHOTS, wait_for_page


def test_check_page_on_built_in_data(server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    try:
        page.goto(f"{server}/check?dataset=s_shape")
        wait_for_page(page, "Check your data")
        page.wait_for_selector(".js-plotly-plot", timeout=120_000)
        page.get_by_text("The report holds the verdicts").wait_for(timeout=120_000)
        page.screenshot(path=str(SHOTS / "check.png"))
        headings = ["1. Do the training and test inputs differ?", "2. Which inputs moved?",
                    "3. What do importance weights cost?", "4. What do they change in a model's error estimate?"]
        for i, heading in enumerate(headings, start=1):
            # the app scrolls inside its own container: bring each section to the top for its screenshot
            page.get_by_role("heading", name=heading).evaluate("e => e.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)
            page.screenshot(path=str(SHOTS / f"check_{i}.png"))
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.get_by_text("The training and test inputs differ: MMD p = ").count() >= 1
        assert page.locator(".js-plotly-plot").count() >= 3  # null, inputs, weights
        assert page.get_by_text("ESS (effective sample size)").count() == 1
    finally:
        page.set_viewport_size({"width": 1400, "height": 1000})
