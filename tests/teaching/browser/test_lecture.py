"""Issue 23 in a real browser at 1280 x 800 (a projector): presentation mode enlarges every text of
the main area and folds the sidebar; Back and Forward after two lessons give the views a fresh open
of their addresses gives. Screenshots: tests/screenshots/presentation-*.png, history-*.png."""

from urllib import parse

from teaching import lessons
from teaching.ui.presentation import MIN_TEXT_PX
from tests.teaching.browser.conftest import SHOTS, wait_for_page

A, B = "KLIEP and its Frank-Wolfe solvers", "IW-SMTGP"
HEADINGS = {"pages/weights.py": "Importance weights", "pages/regression.py": "Structured regression"}

#: Every visible element of the main area with text of its own (plotly's SVG text aside):
#: [font size in px, tag, text].
_TEXTS = """() => {
  const out = [], main = document.querySelector("[data-testid='stMain']");
  for (const el of main.querySelectorAll('*')) {
    if (el.closest('svg')) continue;
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    const r = el.getBoundingClientRect(), style = getComputedStyle(el);
    if (!r.width || !r.height || style.visibility === 'hidden') continue;
    out.push([parseFloat(style.fontSize), el.tagName, el.textContent.trim().slice(0, 60)]);
  }
  return out;
}"""
_SIDEBAR_RIGHT = "() => document.querySelector(\"[data-testid='stSidebar']\").getBoundingClientRect().right"


def _settle(page, heading):
    page.wait_for_timeout(1500)
    wait_for_page(page, heading)
    page.wait_for_timeout(500)


def _texts_after_scrolling(page):
    """The texts of the whole main area (scrolled through, so that lazily drawn parts are there)."""
    seen = []
    for top in range(0, 6000, 700):
        page.evaluate(f"() => document.querySelector(\"[data-testid='stMain']\").scrollTo(0, {top})")
        page.wait_for_timeout(300)
        seen += page.evaluate(_TEXTS)
    return seen


def test_presentation_mode_enlarges_every_text_and_folds_the_sidebar(server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    query = parse.urlencode(lessons_query(A) | {"presentation": "true"})
    page.goto(f"{server}/weights?{query}")  # a link with the mode on, opened fresh
    _settle(page, "Importance weights")
    page.wait_for_selector(".js-plotly-plot", timeout=180_000)
    assert page.evaluate(_SIDEBAR_RIGHT) <= 0
    page.screenshot(path=str(SHOTS / "presentation-weights-top.png"))
    texts = _texts_after_scrolling(page)
    assert len(texts) > 40  # captions, table cells, widget labels, claim boxes...
    small = [t for t in texts if t[0] < MIN_TEXT_PX]
    assert not small, small[:10]
    assert any("Lesson: " + A in t[2] for t in texts)
    page.locator("#view-weights-gap").evaluate("node => node.scrollIntoView({block: 'end'})")
    page.wait_for_timeout(800)
    page.screenshot(path=str(SHOTS / "presentation-weights-gap.png"))


def test_switching_presentation_on_folds_the_sidebar_in_the_same_run(server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/regression?{parse.urlencode(lessons_query(B))}")
    _settle(page, "Structured regression")
    assert page.evaluate(_SIDEBAR_RIGHT) > 200
    page.get_by_text("Presentation (projector)").click()
    page.wait_for_function(f"() => ({_SIDEBAR_RIGHT})() <= 0", timeout=60_000)
    _settle(page, "Structured regression")
    assert "presentation=true" in page.url
    small = [t for t in _texts_after_scrolling(page) if t[0] < MIN_TEXT_PX]
    assert not small, small[:10]
    page.evaluate("() => document.querySelector(\"[data-testid='stMain']\").scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "presentation-regression-top.png"))
    page.get_by_role("button", name="Leave presentation mode").click()
    page.wait_for_function(f"() => ({_SIDEBAR_RIGHT})() > 200", timeout=60_000)


def lessons_query(title):
    """The address a fresh open of the lesson uses (every setting at its default but the lesson's)."""
    from teaching import settings

    return settings.to_query({**settings.defaults(), **lessons.LESSONS[title].settings})


def _view(page, title):
    """What a student sees of the lesson ``title``'s view once drawn (its main figure's anchor is
    there): the address, the title, the alerts, the widget values, the tables."""
    lesson = lessons.LESSONS[title]
    page.locator(f"#view-{lesson.main_view.replace('.', '-')}").wait_for(state="attached", timeout=180_000)
    _settle(page, HEADINGS[lesson.page])
    alerts = page.locator("[data-testid='stAlert']").all_inner_texts()
    chips = page.locator("[data-testid='stMain'] [data-testid='stMultiSelectTagsContainer'] [data-tag]").all_inner_texts()
    assert chips, "the view's multiselect chips (its estimators or models) were not found"
    tables = [t for t in page.locator("[data-testid='stMain'] [data-testid='stDataFrame']").all_inner_texts()]
    return {"url": page.url, "title": page.locator("h1").first.inner_text(), "alerts": alerts, "chips": chips,
            "tables": len(tables)}


def _open_lesson(page, title):
    page.locator("[data-testid='stSidebar']").get_by_role("link", name=title, exact=True).click()
    lesson = lessons.LESSONS[title]
    page.wait_for_function("t => document.querySelector('h1') && document.querySelector('h1').innerText.startsWith(t)",
                           arg=HEADINGS[lesson.page], timeout=120_000)
    page.get_by_text(f"Lesson: {title}.").first.wait_for(timeout=120_000)
    _settle(page, HEADINGS[lesson.page])


def test_back_and_forward_after_two_lessons_show_the_views_of_their_addresses(server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    fresh = {}
    for title in (A, B):
        lesson = lessons.LESSONS[title]
        page.goto(f"{server}/{lesson.page[6:-3]}?{parse.urlencode(lessons_query(title))}")
        _settle(page, HEADINGS[lesson.page])
        fresh[title] = _view(page, title)
    page.goto(server)
    _settle(page, "Covariate shift")
    _open_lesson(page, A)
    assert _view(page, A) == fresh[A]  # the link gives exactly the address and view of a fresh open
    _open_lesson(page, B)
    assert _view(page, B) == fresh[B]
    page.go_back()
    page.get_by_text(f"Lesson: {A}.").first.wait_for(timeout=120_000)
    _settle(page, "Importance weights")
    assert _view(page, A) == fresh[A]
    page.screenshot(path=str(SHOTS / "history-back.png"))
    page.go_forward()
    page.get_by_text(f"Lesson: {B}.").first.wait_for(timeout=120_000)
    _settle(page, "Structured regression")
    assert _view(page, B) == fresh[B]
    page.screenshot(path=str(SHOTS / "history-forward.png"))


def test_a_changed_lesson_is_no_longer_presented_as_the_lesson(server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/weights?{parse.urlencode(lessons_query(A) | {'sigma': '0.5'})}")
    _settle(page, "Importance weights")
    assert page.get_by_text(f"Lesson: {A}.").count() == 0
    assert page.get_by_text("checked on seeds 0-2").count() == 0  # no claim box
    page.get_by_text(f"This view started from the lesson {A}").first.wait_for(timeout=10_000)
    assert page.get_by_text("you set the kernel width sigma to 0.5; the lesson uses 0.3").count() == 1


def test_a_9000_point_link_shows_its_refusals_where_the_results_would_be(server, page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.set_viewport_size({"width": 1280, "height": 800})
    for path, heading in (("weights", "Importance weights"), ("regression", "Structured regression")):
        page.goto(f"{server}/{path}?sinc.n_tr=9000&sinc.n_te=9000")
        _settle(page, heading)
        page.get_by_text("Nothing to draw").first.wait_for(timeout=120_000)
        assert page.get_by_text(" ready").count() == 0  # no "Weights ready" above nothing
        errors = page.locator("[data-testid='stMain'] [data-testid='stAlertContentError']")
        assert errors.count() >= 1
        for text in errors.all_inner_texts():  # visible (not in a collapsed box), limit and way out
            assert "limited to" in text and "points" in text and "Use fewer points" in text, text
        assert all(e.is_visible() for e in errors.all())
        page.screenshot(path=str(SHOTS / f"refused-9000-{path}.png"))
