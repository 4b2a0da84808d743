"""Every lesson is one screen (issue 29), in a real browser: its address opened at 1280 x 800 with
Presentation off and on shows the lesson's figure whole, the top of its green claim box and the control its
banner invites the student to move, without scrolling; at 390 x 844 (a phone) at least half of the figure,
and nothing scrolls sideways. The address the sidebar writes for a lesson, pasted into a fresh browser, is the
lesson; a change the lesson invites keeps it (claims re-checked). Screenshots: tests/screenshots/stage-*.png.

With ``COVSHIFT_UPDATE_ASSETS=1`` the presentation-mode screenshots at 1280 x 800 replace README's pictures in
assets/ (``COVSHIFT_UPDATE_ASSETS=1 pytest tests/browser/test_lessons_browser.py``).

Skipped when Playwright or /usr/bin/chromium is missing (see conftest.py)."""

import os
import shutil
from urllib import parse

import pytest

from teaching import lessons, settings
from tests.browser.conftest import ROOT, SHOTS, wait_for_page

#: README's lesson pictures, rewritten by this test when COVSHIFT_UPDATE_ASSETS=1.
ASSETS = ROOT / "assets"
UPDATE_ASSETS = os.environ.get("COVSHIFT_UPDATE_ASSETS") == "1"

HEADINGS = {"pages/home.py": "Covariate shift", "pages/weights.py": "Importance weights",
            "pages/regression.py": "Structured regression", "pages/classification.py": "Classification under shift"}
#: The label of the control each lesson's banner invites the student to move (None: the banner invites none).
CONTROLS = {"why-weights": "Model width rho_x", "kliep-solvers": "Replay the steps of",
            "estimators-disagree": None, "structured-output": "rho_x (input width)",
            "iw-smtgp": "rho_x (input width)", "few-labels": "labelled test points",
            "boundary-turns": "Selection steepness"}
SIZES = {"off": (1280, 800), "on": (1280, 800), "phone": (390, 844)}

#: Where the stage's parts are in the first viewport: boxes [top, bottom, left, right] in px.
_STAGE = """(control) => {
  const box = e => { if (!e) return null; const r = e.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; };
  const stage = document.querySelector('.st-key-stage');
  const labels = stage ? [...stage.querySelectorAll('[data-testid="stWidgetLabel"]')] : [];
  const label = control ? labels.find(l => l.innerText.trim().startsWith(control)) : null;
  return {figure: box(stage && stage.querySelector('.js-plotly-plot')),
          title: box(stage && stage.querySelector('.js-plotly-plot .gtitle')),
          claim: box(stage && stage.querySelector('[data-testid="stAlertContentSuccess"]')),
          control: box(label), scrollWidth: document.documentElement.scrollWidth,
          mainScrollWidth: document.querySelector('[data-testid="stMain"]').scrollWidth};
}"""


def lesson_address(lesson, presentation=False):
    """The query a fresh open of ``lesson`` uses (navigation.lesson_query: every setting at its default but
    the lesson's)."""
    return settings.to_query({**settings.defaults(), **lesson.settings, "presentation": presentation})


def _path(lesson):
    return "" if lesson.page == "pages/home.py" else lesson.page[len("pages/"):-len(".py")]


def _settle(tab, heading):
    tab.wait_for_timeout(1500)
    wait_for_page(tab, heading)
    tab.wait_for_selector(".st-key-stage .js-plotly-plot", timeout=180_000)
    tab.wait_for_timeout(1500)  # plotly's layout and the last reruns
    wait_for_page(tab, heading)
    assert tab.locator("[data-testid='stException']").count() == 0


@pytest.mark.parametrize("key", [lesson.key for lesson in lessons.LESSONS.values()])
def test_a_lesson_is_one_screen(server, browser, key):
    lesson = next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for mode, (width, height) in SIZES.items():
        context = browser.new_context(viewport={"width": width, "height": height})
        tab = context.new_page()
        tab.goto(f"{server}/{_path(lesson)}?{parse.urlencode(lesson_address(lesson, mode == 'on'))}")
        _settle(tab, HEADINGS[lesson.page])
        tab.get_by_text(f"Lesson: {lesson.title}.").first.wait_for(timeout=60_000)
        tab.mouse.move(width - 5, height - 5)  # no tooltip over the figure
        tab.wait_for_timeout(500)
        shot = SHOTS / f"stage-{key}-{mode}.png"
        tab.screenshot(path=str(shot))
        stage = tab.evaluate(_STAGE, CONTROLS[key])
        context.close()
        figure, claim, control = stage["figure"], stage["claim"], stage["control"]
        assert figure is not None, (mode, "no figure on the stage")
        assert stage["scrollWidth"] <= width and stage["mainScrollWidth"] <= width, (mode, stage)
        if mode == "phone":  # at least half of the figure on the first screen, its title not cut at the edge
            visible = min(figure[1], height) - max(figure[0], 0)
            assert visible >= 0.5 * (figure[1] - figure[0]), (mode, figure)
            assert stage["title"] is None or stage["title"][3] <= min(figure[3], width), (mode, stage["title"])
            continue
        assert 0 <= figure[0] and figure[1] <= height, (mode, "the figure is not whole", figure)
        assert claim is not None and claim[0] <= height - 60, (mode, "no claim box on the first screen", claim)
        if CONTROLS[key]:
            assert control is not None and control[1] <= height, (mode, "the control is not on the first screen")
        if mode == "on" and UPDATE_ASSETS:
            shutil.copyfile(shot, ASSETS / f"lesson-{key}.png")


def test_every_sidebar_lesson_address_pasted_into_a_fresh_browser_is_the_lesson(server, browser):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(server)
    _settle(tab, "Covariate shift")
    links = tab.locator("[data-testid='stSidebar'] [class*='st-key-lesson-sidebar-'] a")
    hrefs = {text.strip().split("\n")[-1]: href for text, href in zip(links.all_inner_texts(),
                                                      [a.get_attribute("href") for a in links.all()])}
    context.close()
    assert set(hrefs) == set(lessons.LESSONS), hrefs
    for title, href in hrefs.items():
        lesson = lessons.LESSONS[title]
        fresh = browser.new_context(viewport={"width": 1280, "height": 800})
        tab = fresh.new_page()
        tab.goto(parse.urljoin(server + "/", href))
        _settle(tab, HEADINGS[lesson.page])
        tab.get_by_text(f"Lesson: {title}.").first.wait_for(timeout=60_000)
        assert tab.get_by_text(lesson.claims[0].text[:50]).count() >= 1, title
        assert tab.get_by_text("This view started from the lesson").count() == 0, title
        # the page does not rewrite the lesson's address (a widget that coerces a setting would)
        shown = parse.parse_qs(parse.urlsplit(tab.url).query)
        assert shown == parse.parse_qs(parse.urlsplit(href).query), (title, tab.url, href)
        # only this lesson's link is highlighted
        backgrounds = tab.evaluate("""() => [...document.querySelectorAll(
            "[data-testid='stSidebar'] [class*='st-key-lesson-sidebar-'] a")].map(
            a => [a.innerText.trim().split("\\n").pop(), getComputedStyle(a).backgroundColor])""")
        highlighted = [text for text, colour in backgrounds if colour not in ("rgba(0, 0, 0, 0)", "transparent")]
        assert highlighted == [title], (title, backgrounds)
        fresh.close()


def test_a_change_the_lesson_invites_keeps_the_lesson_and_rechecks_its_claims(server, browser):
    lesson = lessons.IW_SMTGP
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(f"{server}/{_path(lesson)}?{parse.urlencode(lesson_address(lesson))}")
    _settle(tab, HEADINGS[lesson.page])
    field = tab.locator(".st-key-stage").get_by_role("spinbutton", name="rho_x (input width)")
    field.fill("0.3")
    field.press("Enter")
    # the run that the change started shows the lesson, the change and the claims re-checked on it
    tab.get_by_text("You changed rho_x = 0.3 (lesson: 2.0)").first.wait_for(timeout=120_000)
    _settle(tab, HEADINGS[lesson.page])
    assert "rho_x=2" not in tab.url  # (0.3 is rho_x's default: the address leaves it out)
    assert tab.get_by_text(f"Lesson: {lesson.title}.").count() >= 1
    tab.get_by_text("re-checked here with rho_x = 0.3").first.wait_for(timeout=60_000)
    assert tab.get_by_text("does not hold on this view").count() >= 1  # the rho_x = 2 claim, at rho_x = 0.3
    address = tab.url
    context.close()
    fresh = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = fresh.new_page()
    tab.goto(address)
    _settle(tab, HEADINGS[lesson.page])
    tab.get_by_text(f"Lesson: {lesson.title}.").first.wait_for(timeout=60_000)
    tab.get_by_text("re-checked here with rho_x = 0.3").first.wait_for(timeout=60_000)
    fresh.close()


def test_choosing_a_lesson_in_presentation_mode_closes_the_popover_and_shows_the_top(server, browser):
    first, second = lessons.IW_SMTGP, lessons.STRUCTURED_OUTPUT  # two lessons of one page
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(f"{server}/{_path(first)}?{parse.urlencode(lesson_address(first, True))}")
    _settle(tab, HEADINGS[first.page])
    tab.evaluate("() => document.querySelector(\"[data-testid='stMain']\").scrollTo(0, 1500)")
    tab.get_by_role("button", name="Lessons").click()
    body = tab.locator("[data-testid='stPopoverBody']")
    body.get_by_role("link", name=second.title, exact=True).click()
    tab.get_by_text(f"Lesson: {second.title}.").first.wait_for(timeout=120_000)
    _settle(tab, HEADINGS[second.page])
    assert not body.is_visible()  # the popover closed after the choice
    assert tab.evaluate("() => document.querySelector(\"[data-testid='stMain']\").scrollTop") == 0
    focused = tab.evaluate("() => document.activeElement === document.body || !document.activeElement")
    assert focused, "a link kept the focus (and its tooltip) after the choice"
    tab.screenshot(path=str(SHOTS / "stage-popover-after-choice.png"))
    context.close()
