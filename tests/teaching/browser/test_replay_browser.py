"""The Frank-Wolfe replay in a real browser at 1280 x 800: open the KLIEP lesson, step PFWCS one
iteration at a time, jump to the next drop and swap steps, and check that stepping does not rerun the
Streamlit script (the replay runs in the browser: only once it rests does the page's address, and with it
the app's settings, learn its position: one rerun, not one per step). On the stage (issue 35, item 5): the
replay in the lesson's first screen, Play at a chosen speed and Pause, each "Next ... step" landing on a step
of its kind, a legend naming only what the solver draws, its solver and position in the link.

Skipped when Playwright or /usr/bin/chromium is missing (see conftest.py)."""

import re
from urllib import parse

from teaching import lessons, settings
from tests.teaching.browser.conftest import SHOTS, wait_for_page
from tests.teaching.browser.test_lessons_browser import _path

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
        # the position is in the address at once; the app's settings learn it once the replay rests
        assert f"step={swap_t - 1}" in page.url
        page.wait_for_timeout(3000)
        wait_for_page(page, "Importance weights")
        # 28 moves in the browser, a handful of reruns at most (one per rest longer than 1.2 s on a busy machine)
        assert traffic["sent"] - before["sent"] <= 6, (before, traffic)
        assert t_now.text_content() == f"iteration t = {swap_t - 1}"  # the rerun kept the replay where it was
        assert page.locator("[data-testid='stException']").count() == 0
    finally:
        page.remove_listener("websocket", watch)


def _stage_replay(page, server, solver, step=None):
    lesson = lessons.LESSONS[LESSON]
    query = settings.to_query({**settings.defaults(), **lesson.settings, "replay": solver, "weights_stage": "replay",
                               **({"step": step} if step is not None else {})})
    page.goto(f"{server}/{_path(lesson)}?{parse.urlencode(query)}")
    page.get_by_text(f"Lesson: {LESSON}.").first.wait_for(timeout=120_000)
    page.wait_for_timeout(1500)
    wait_for_page(page, "Importance weights")
    return _replay_frame(page)


def _t(frame):
    return int(re.search(r"\d+$", frame.locator(".t").text_content()).group())


def test_the_replay_on_the_stage_plays_at_its_speed_and_lands_on_each_kind_of_step(server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    frame = _stage_replay(page, server, "AFWCS")
    # on the first screen: the stage's figure column holds the replay, its buttons below Streamlit's header (60 px)
    assert frame.frame_element().evaluate("e => !!e.closest('.st-key-stage')")
    step_button = frame.get_by_role("button", name="Step", exact=True)
    button = step_button.bounding_box()  # in the page's coordinates (Playwright adds the frame's offset)
    assert 60 < button["y"] and button["y"] + button["height"] <= 800, button
    page.screenshot(path=str(SHOTS / "replay-stage.png"))

    for kind in ["away", "drop", "away"]:  # each jump lands on a step badged with its kind
        frame.get_by_role("button", name=f"Next {kind} step", exact=True).click()
        assert frame.locator(".kind").text_content() == f"{kind} step", (kind, _t(frame))
        assert frame.locator(".say").text_content().startswith(f"{kind} step"), frame.locator(".say").text_content()

    legend = frame.locator(".main svg").evaluate("s => [...s.querySelectorAll('text')].map(t => t.textContent)")
    assert any("l^AFW" in text for text in legend) and not any("moved" in text for text in legend), legend

    # speed: 2 steps per second; setInterval never runs early, so at most 2 per second (and one at once)
    frame.locator("[data-speed]").select_option("2")
    start = _t(frame)
    frame.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_timeout(3000)
    frame.get_by_role("button", name="Pause", exact=True).click()
    played = _t(frame) - start
    assert 1 <= played <= 2 * 3 + 2, played
    paused = _t(frame)
    page.wait_for_timeout(1500)
    assert _t(frame) == paused  # Pause stopped it

    # the solver and the position travel in the link: the address, opened fresh, shows the same iteration
    page.wait_for_function(f"() => new URLSearchParams(location.search).get('step') === '{paused}'", timeout=30_000)
    page.wait_for_timeout(2000)
    wait_for_page(page, "Importance weights")
    link = page.url
    assert "replay=AFWCS" in link and "presentation" not in link
    fresh = page.context.browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        fresh.goto(link)
        fresh.get_by_text(f"Lesson: {LESSON}.").first.wait_for(timeout=120_000)
        copy = _replay_frame(fresh)
        assert copy.locator("#replay").get_attribute("aria-label") == "AFWCS replay"
        assert _t(copy) == paused
    finally:
        fresh.close()


def test_the_legend_of_fcfwcs_names_no_away_vertex_and_no_moved_weight(server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    frame = _stage_replay(page, server, "FCFWCS")
    legend = frame.locator(".main svg").evaluate("s => [...s.querySelectorAll('text')].map(t => t.textContent)")
    assert any("l^FW" in text for text in legend), legend
    assert not any("l^AFW" in text or "moved" in text for text in legend), legend
    drop = frame.get_by_role("button", name="Next drop step", exact=True)
    if drop.is_enabled():  # the run has a drop step: the button lands on it
        drop.click()
        assert frame.locator(".kind").text_content() == "drop step"
