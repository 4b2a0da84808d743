"""Every lesson is one screen (issue 29), in a real browser: its address opened at 1280 x 800 with
Presentation off and on shows the lesson's figure whole, the top of its green claim box and the control its
banner invites the student to move, without scrolling; at 390 x 844 (a phone) at least half of the figure,
and nothing scrolls sideways. The address the sidebar writes for a lesson, pasted into a fresh browser, is the
lesson; a change the lesson invites keeps it (claims re-checked). Screenshots: tests/screenshots/stage-*.png.

With ``COVSHIFT_UPDATE_ASSETS=1`` the presentation-mode screenshots at 1280 x 800 replace README's pictures in
assets/ (``COVSHIFT_UPDATE_ASSETS=1 pytest tests/teaching/browser/test_lessons_browser.py``).

Skipped when Playwright or /usr/bin/chromium is missing (see conftest.py)."""

import os
import re
import shutil
from urllib import parse

import pytest

from teaching import lessons, settings
from tests.teaching.browser.conftest import ROOT, SHOTS, wait_for_page

#: README's lesson pictures, rewritten by this test when COVSHIFT_UPDATE_ASSETS=1.
ASSETS = ROOT / "assets"
UPDATE_ASSETS = os.environ.get("COVSHIFT_UPDATE_ASSETS") == "1"

HEADINGS = {"pages/home.py": "Covariate shift", "pages/weights.py": "Importance weights",
            "pages/regression.py": "Structured regression", "pages/classification.py": "Classification under shift"}
#: The label of the control each lesson's banner invites the student to move (None: the banner invites none).
CONTROLS = {"why-weights": "Model width", "kliep-solvers": "Replay the steps of",
            "estimators-disagree": None, "structured-output": "Input width",
            "iw-smtgp": "Input width", "few-labels": "labelled test points",
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
    field = tab.locator(".st-key-stage").get_by_role("spinbutton", name="Input width")
    field.fill("0.3")
    field.press("Enter")
    # the run that the change started shows the lesson, its reveal (0.3 is what its banner invites) and the claims
    # re-checked on it
    tab.get_by_text(f"You now see: {lesson.reveal.sees}").first.wait_for(timeout=120_000)
    _settle(tab, HEADINGS[lesson.page])
    assert "rho_x=2" not in tab.url  # (0.3 is rho_x's default: the address leaves it out)
    assert tab.get_by_text(f"Lesson: {lesson.title}.").count() >= 1
    tab.get_by_text("re-checked here with the input width 0.3").first.wait_for(timeout=60_000)
    assert tab.get_by_text("Not on this view.").count() >= 1  # the width-2 claim, at width 0.3
    address = tab.url
    context.close()
    fresh = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = fresh.new_page()
    tab.goto(address)
    _settle(tab, HEADINGS[lesson.page])
    tab.get_by_text(f"Lesson: {lesson.title}.").first.wait_for(timeout=60_000)
    tab.get_by_text("re-checked here with the input width 0.3").first.wait_for(timeout=60_000)
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


#: Every visible text of the page's main area and its figures (maths drawn as symbols: MathML's TeX source hidden).
_TEXT = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const figures = [...main.querySelectorAll('.js-plotly-plot text')].map(t => t.textContent);
  return [main.innerText, ...figures];
}"""
#: The claims under a check mark and those shown apart as not borne out by the view.
_CLAIMS = """() => ({
  checked: [...document.querySelectorAll('[data-testid="stAlertContentSuccess"]')].map(e => e.innerText).join(' '),
  apart: [...document.querySelectorAll('[class*="st-key-claims-not-holding"]')].map(e => e.innerText).join(' '),
  banner: [...document.querySelectorAll('[data-testid="stAlertContentInfo"]')].map(e => e.innerText).join(' ')})"""


def _claims_on_revealed_view(lesson, seed=0):
    """{claim text: holds} of the claims the revealed stage can show, checked on the revealed view's own data."""
    run = lessons.LessonRun(lesson, seed=seed, changes=lesson.reveal.changes)
    return {claim.text: claim.check(run).holds for claim in lesson.reveal.claims + lesson.claims}


@pytest.mark.parametrize("key", [lesson.key for lesson in lessons.LESSONS.values()])
def test_show_me_reveals_on_the_stage_and_marks_only_what_holds(server, browser, key):
    """Presentation on, 1280 x 800: "Show me" keeps the lesson's banner, which now says what the eye sees; the
    reveal's claims are under a check mark and hold on the view's data; no claim that does not hold is under one;
    no setting key or long number is in the page's text. Then a phone (390 x 844) opens the revealed address.
    Screenshots before and after: tests/screenshots/reveal-<key>-{before,after,phone}.png."""
    from tests.teaching.app.test_reveal_app import faults

    lesson = next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)
    SHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(f"{server}/{_path(lesson)}?{parse.urlencode(lesson_address(lesson, True))}")
    _settle(tab, HEADINGS[lesson.page])
    tab.get_by_text(f"Lesson: {lesson.title}.").first.wait_for(timeout=60_000)
    tab.mouse.move(1275, 795)
    tab.screenshot(path=str(SHOTS / f"reveal-{key}-before.png"))
    found = faults(tab.evaluate(_TEXT))
    tab.get_by_role("button", name="Show me").click()
    tab.get_by_text("You now see:").first.wait_for(timeout=180_000)
    _settle(tab, HEADINGS[lesson.page])
    tab.get_by_text(lesson.reveal.claims[0].text[:60]).first.wait_for(timeout=180_000)
    tab.mouse.move(1275, 795)  # no tooltip of the button that was under the pointer in the picture
    tab.evaluate("() => document.activeElement && document.activeElement.blur()")
    tab.wait_for_timeout(1500)
    tab.screenshot(path=str(SHOTS / f"reveal-{key}-after.png"))
    if UPDATE_ASSETS:  # README's pair: the lesson as it opens and after Show me (presentation on, 1280 x 800)
        shutil.copyfile(SHOTS / f"reveal-{key}-before.png", ASSETS / f"lesson-{key}.png")
        shutil.copyfile(SHOTS / f"reveal-{key}-after.png", ASSETS / f"lesson-{key}-revealed.png")
    shown = tab.evaluate(_CLAIMS)
    found += [f"after Show me: {f}" for f in faults(tab.evaluate(_TEXT))]
    address = tab.url
    context.close()
    assert f"Lesson: {lesson.title}." in shown["banner"] and lesson.reveal.sees in shown["banner"]
    holds = _claims_on_revealed_view(lesson)
    assert all(holds[c.text] for c in lesson.reveal.claims), holds
    wrongly = [text for text, ok in holds.items() if not ok and text in shown["checked"]]
    assert not wrongly, f"under a check mark but not holding here: {wrongly}"
    for text, ok in holds.items():  # every claim on the page: under a check mark exactly when it holds here
        assert text in (shown["checked"] if ok else shown["apart"]), (ok, text, shown)
    assert not found, found
    phone = browser.new_context(viewport={"width": 390, "height": 844})
    tab = phone.new_page()
    tab.goto(address)
    _settle(tab, HEADINGS[lesson.page])
    tab.get_by_text("You now see:").first.wait_for(timeout=60_000)
    tab.screenshot(path=str(SHOTS / f"reveal-{key}-phone.png"))
    phone.close()


def test_back_undoes_show_me(server, browser):
    lesson = lessons.WHY_WEIGHTS
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    tab.goto(f"{server}/{_path(lesson)}?{parse.urlencode(lesson_address(lesson))}")
    _settle(tab, HEADINGS[lesson.page])
    before = tab.url
    tab.get_by_role("button", name="Show me").click()
    tab.get_by_text("You now see:").first.wait_for(timeout=120_000)
    _settle(tab, HEADINGS[lesson.page])
    assert "home_width=0.3" in tab.url
    tab.go_back()
    tab.get_by_role("button", name="Show me").wait_for(timeout=120_000)
    _settle(tab, HEADINGS[lesson.page])
    assert tab.url == before and tab.get_by_text("You now see:").count() == 0
    assert tab.get_by_text(f"Lesson: {lesson.title}.").count() >= 1
    context.close()


#: The stage's controls: [kind, label] of every slider, number field, select box and radio on the stage.
_STAGE_CONTROLS = """() => [...document.querySelectorAll('.st-key-stage [data-testid="stSlider"], '
  + '.st-key-stage [data-testid="stNumberInput"], .st-key-stage [data-testid="stSelectbox"], '
  + '.st-key-stage [data-testid="stRadio"]')].map(e => [e.dataset.testid,
  (e.querySelector('[data-testid="stWidgetLabel"]') || e).innerText.trim().split('\\n')[0]])"""


def _move(tab, kind, label):
    """Change the stage control ``label`` once, as a student would."""
    stage = tab.locator(".st-key-stage")
    if kind == "stSlider":
        thumb = stage.locator(f'[data-testid="{kind}"]').filter(has_text=label).get_by_role("slider")
        thumb.focus()
        thumb.press("ArrowLeft" if thumb.get_attribute("aria-valuenow") != thumb.get_attribute("aria-valuemin")
                    else "ArrowRight")
    elif kind == "stNumberInput":
        field = stage.get_by_role("spinbutton", name=label)
        field.fill("0.5")
        field.press("Enter")
    elif kind == "stSelectbox":
        stage.locator('[data-testid="stSelectbox"]').filter(has_text=label).click()
        tab.get_by_role("option").nth(1).click()
    else:
        radio = stage.locator('[data-testid="stRadio"]').filter(has_text=label)
        radio.locator("label").filter(has_not=tab.locator("input:checked")).last.click()


#: Stage controls that change what the stage shows, not the view (settings navigation._NOT_THE_VIEW): the banner
#: stays and has nothing to say about them (the KLIEP lesson's "On the stage": the gaps or the replay).
_WHERE_THE_EYE_IS = ("On the stage",)


@pytest.mark.parametrize("key", [lesson.key for lesson in lessons.LESSONS.values()])
def test_every_stage_control_keeps_the_lesson(server, browser, key):
    """Presentation on, 1280 x 800: each control on the lesson's stage changed once keeps the lesson's banner, which
    says the change in words (or, for the reveal's own value, what the eye now sees); no setting key or long number
    appears. Screenshots: tests/screenshots/control-<key>-<n>.png."""
    from tests.teaching.app.test_reveal_app import faults

    lesson = next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    tab = context.new_page()
    address = f"{server}/{_path(lesson)}?{parse.urlencode(lesson_address(lesson, True))}"
    tab.goto(address)
    _settle(tab, HEADINGS[lesson.page])
    controls = tab.evaluate(_STAGE_CONTROLS)
    for n, (kind, label) in enumerate(controls):
        if n:
            tab.goto(address)
            _settle(tab, HEADINGS[lesson.page])
        _move(tab, kind, label)
        if label in _WHERE_THE_EYE_IS:  # the stage shows the replay (an iframe) instead of the figure
            tab.wait_for_timeout(1500)
            tab.wait_for_selector(".st-key-stage iframe", timeout=180_000)
            wait_for_page(tab, HEADINGS[lesson.page])
        else:
            tab.locator("[data-testid='stAlertContentInfo']").filter(has_text=re.compile("You set|You now see")).first \
                .wait_for(timeout=240_000)
            _settle(tab, HEADINGS[lesson.page])
        banner = " ".join(tab.locator("[data-testid='stAlertContentInfo']").all_inner_texts())
        tab.screenshot(path=str(SHOTS / f"control-{key}-{n}.png"))
        assert f"Lesson: {lesson.title}." in banner, (label, banner)
        assert not faults(tab.evaluate(_TEXT)), (label, faults(tab.evaluate(_TEXT)))
    context.close()
    assert len(controls) >= (0 if key == "estimators-disagree" else 1), controls
