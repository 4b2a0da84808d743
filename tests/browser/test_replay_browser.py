"""The Frank-Wolfe replay in a real browser at 1280 x 800: open the KLIEP lesson, step PFWCS one
iteration at a time, jump to the next drop and swap steps, and check that none of it reran the
Streamlit script (no websocket message in either direction while stepping).

Skipped when Playwright or /usr/bin/chromium is missing (see conftest.py)."""

import re
from urllib import parse

from teaching import lessons, settings
from tests.browser.conftest import SHOTS, wait_for_page
from tests.browser.test_lessons_browser import _path

LESSON = "KLIEP and its Frank-Wolfe solvers"


def _replay_frame(page):
    """The replay component's frame (an iframe showing ``iteration t = N``)."""
    for _ in range(240):
        for frame in page.frames:
            if frame != page.main_frame and frame.locator("text=/^iteration t = \\d+$/").count():
                return frame
        page.wait_for_timeout(500)
    raise AssertionError("no replay component with 'iteration t = N' on the page")


def _shot(page, frame, name):
    frame.frame_element().evaluate("node => node.scrollIntoView({block: 'start'})")
    page.mouse.move(700, 400)
    page.mouse.wheel(0, -70)  # below Streamlit's header
    page.mouse.move(1270, 790)
    page.wait_for_timeout(500)
    page.screenshot(path=str(SHOTS / f"replay-{name}.png"))


def test_step_and_jump_through_every_iteration_without_a_rerun(server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    traffic = {"sent": 0, "received": 0}

    def watch(ws):
        ws.on("framesent", lambda _: traffic.__setitem__("sent", traffic["sent"] + 1))
        ws.on("framereceived", lambda _: traffic.__setitem__("received", traffic["received"] + 1))

    page.on("websocket", watch)
    try:
        page.goto(server)
        wait_for_page(page, "Covariate shift")
        lesson = lessons.LESSONS[LESSON]
        # the lesson's link with PFWCS in the replay (a change the lesson invites: the banner stays)
        query = settings.to_query({**settings.defaults(), **lesson.settings, "replay": "PFWCS"})
        page.goto(f"{server}/{_path(lesson)}?{parse.urlencode(query)}")
        page.get_by_text(f"Lesson: {LESSON}.").first.wait_for(timeout=120_000)
        wait_for_page(page, "Importance weights")
        page.wait_for_timeout(1500)
        wait_for_page(page, "Importance weights")
        assert page.locator("[data-testid='stException']").count() == 0
        frame = _replay_frame(page)
        assert frame.locator("#replay").get_attribute("aria-label") == "PFWCS replay"
        t_now = frame.locator(".t")
        assert t_now.text_content() == "iteration t = 0"
        before = dict(traffic)
        assert before["received"] > 0  # the watcher sees the page's own messages

        # the app's font (Streamlit's Source Sans, loaded in the replay's frame too)
        font = frame.evaluate("getComputedStyle(document.body).fontFamily")
        assert "Source Sans" in font.split(",")[0], font
        assert frame.evaluate("document.fonts.ready.then(() => document.fonts.check('16px ' + "
                              "getComputedStyle(document.body).fontFamily.split(',')[0]))")

        def chart_top():  # where the drawing starts: it must not move as the sentence re-wraps
            return frame.locator(".main").evaluate("node => node.getBoundingClientRect().top")

        tops = {chart_top()}
        step = frame.get_by_role("button", name="Step", exact=True)
        for _ in range(25):
            step.click()
            tops.add(chart_top())
        frame.get_by_text("iteration t = 25", exact=True).wait_for(timeout=5000)
        assert frame.locator("text=/^iteration t = \\d+$/").count() == 1  # one such value on screen

        frame.get_by_role("button", name="Next drop step", exact=True).click()
        drop_t = int(re.search(r"\d+$", t_now.text_content()).group())
        assert drop_t > 25 and frame.locator(".kind").text_content() == "drop step"
        assert frame.locator(".say").text_content().startswith("drop step:")
        assert "left the active set" in frame.locator(".say").text_content()
        _shot(page, frame, "drop")

        tops.add(chart_top())
        frame.get_by_role("button", name="Next swap step", exact=True).click()
        tops.add(chart_top())
        assert len(tops) == 1, tops  # no jump between steps
        swap_t = int(re.search(r"\d+$", t_now.text_content()).group())
        assert swap_t > drop_t and frame.locator(".kind").text_content() == "swap step"
        assert frame.locator(".say").text_content().startswith("swap step:")
        _shot(page, frame, "swap")

        frame.get_by_role("button", name="Back", exact=True).click()
        assert t_now.text_content() == f"iteration t = {swap_t - 1}"
        page.wait_for_timeout(1500)
        # no rerun: the browser asked nothing of the server and the server sent nothing
        assert traffic == before
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        page.remove_listener("websocket", watch)
