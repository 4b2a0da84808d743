"""A lesson on each device (issue 35, items 4 and 7), in a real browser.

- A phone (390 x 844, a phone's user agent, touch) opening every lesson's students' link, and the same link with
  presentation mode on (a copied projector link): every figure of the page has plot areas of at least
  280 x 200 px, text of 11-14 px, no plotly toolbar, a legend clear of the axis titles, labels clear of the title;
  nothing scrolls sideways.
- The students' link the stage shows carries the lesson, its seed and no presentation flag.
- Presentation mode at 1280 x 800: Tab from the lesson's title reaches the stage's control within 10 stops,
  never in the folded sidebar, with a focus ring of at least 3:1 contrast.
- A slider keeps the focus while its arrow keys move it, and a run of key presses is one history entry.
- A chart not drawn yet shows a spinner.

Screenshots: tests/screenshots/device-*.png. Skipped when Playwright or /usr/bin/chromium is missing."""

from urllib import parse

import pytest

from teaching import lessons, settings
from tests.teaching.browser.conftest import SHOTS, wait_for_page
from tests.teaching.browser.test_lessons_browser import CONTROLS, HEADINGS, _path, lesson_address

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2,
         "user_agent": "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) "
                       "Chrome/124.0.0.0 Mobile Safari/537.36"}
MIN_PLOT, FONT_RANGE = (280, 200), (11, 14)

#: Every plotly figure of the main area on screen (not in a closed expander): its plot areas (px), the sizes of its texts, whether plotly's toolbar
#: shows, whether the legend overlaps an axis title and which of its labels (annotations) overlap its title.
_FIGURES = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const hit = (a, b) => a[0] < b[2] - 1 && b[0] < a[2] - 1 && a[1] < b[3] - 1 && b[1] < a[3] - 1;
  return [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')].filter(plot => plot.getBoundingClientRect().width > 0).map(plot => {
    const title = plot.querySelector('.gtitle');
    const bar = plot.querySelector('.modebar');
    const legend = plot.querySelector('.legend');
    const axisTitles = [...plot.querySelectorAll('.g-xtitle text, .g-ytitle text, [class^="g-x"][class$="title"] text, [class^="g-y"][class$="title"] text')].map(box);
    return {title: title ? title.textContent : '',
            areas: [...plot.querySelectorAll('.draglayer .nsewdrag')].map(e => { const r = e.getBoundingClientRect(); return [Math.round(r.width), Math.round(r.height)]; }),
            fonts: [...plot.querySelectorAll('.main-svg text, .main-svg tspan')].filter(t => t.textContent.trim())
                     .map(t => parseFloat(getComputedStyle(t).fontSize)),
            toolbar: !!(bar && bar.getBoundingClientRect().width > 0 && getComputedStyle(bar).visibility !== 'hidden'),
            legendOverAxisTitle: !!(legend && axisTitles.some(a => hit(box(legend), a))),
            labelsOverTitle: title ? [...plot.querySelectorAll('.annotation-text-g')]
              .filter(a => a.getBoundingClientRect().width > 0 && hit(box(a), box(title))).map(a => a.textContent) : []};
  });
}"""


#: Every plotly figure of the main area on screen has drawn its plot areas.
_DRAWN = """() => [...document.querySelectorAll('[data-testid="stMain"] .js-plotly-plot')]
  .filter(plot => plot.getBoundingClientRect().width > 0)
  .every(plot => plot.querySelector('.draglayer .nsewdrag'))"""


def _open(tab, server, lesson, query):
    tab.goto(f"{server}/{_path(lesson)}?{parse.urlencode(query, doseq=True)}")
    tab.get_by_text(f"Lesson: {lesson.title}.").first.wait_for(timeout=240_000)
    tab.wait_for_timeout(1500)
    wait_for_page(tab, HEADINGS[lesson.page])
    tab.wait_for_function(_DRAWN, timeout=120_000)  # plotly draws after the run: a busy machine takes its time
    tab.wait_for_timeout(1000)
    assert tab.locator("[data-testid='stException']").count() == 0


@pytest.fixture(scope="module")
def phone(browser):
    context = browser.new_context(**PHONE)
    tab = context.new_page()
    yield tab
    context.close()


@pytest.mark.parametrize("key", [lesson.key for lesson in lessons.LESSONS.values()])
def test_a_phone_opening_a_lesson_link_gets_figures_laid_out_for_its_width(server, phone, key):
    lesson = next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)
    SHOTS.mkdir(parents=True, exist_ok=True)
    for presentation in (False, True):  # the students' link, and a copied presentation link
        _open(phone, server, lesson, lesson_address(lesson, presentation=presentation))
        if presentation:
            assert "presentation=true" in phone.url
            assert phone.get_by_role("button", name="Leave presentation mode").count() == 0  # not on a phone
        phone.screenshot(path=str(SHOTS / f"device-phone-{key}{'-presentation' if presentation else ''}.png"))
        measured = phone.evaluate(_FIGURES)
        assert measured, "no figure on the lesson's page"
        for figure in measured:
            name = f"{key} ({'presentation link' if presentation else 'students link'}): {figure['title']!r}"
            assert figure["areas"], name
            for width, height in figure["areas"]:
                assert width >= MIN_PLOT[0] and height >= MIN_PLOT[1], (name, figure["areas"])
            assert FONT_RANGE[0] <= min(figure["fonts"]) and max(figure["fonts"]) <= FONT_RANGE[1], \
                (name, sorted(set(figure["fonts"])))
            assert not figure["toolbar"], f"{name}: plotly's toolbar shows on a touch screen"
            assert not figure["legendOverAxisTitle"], name
            assert not figure["labelsOverTitle"], (name, figure["labelsOverTitle"])
        assert phone.evaluate("document.documentElement.scrollWidth") <= 390


def test_the_students_link_is_the_lesson_and_its_seed_without_presentation(server, browser):
    """The presentation bar's Students' link: the lesson's settings and the seed on the screen, every other
    setting at its default, no presentation flag; opened on a phone it is the lesson."""
    lesson = lessons.KLIEP_SOLVERS
    tab = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        _open(tab, server, lesson, {**lesson_address(lesson, presentation=True), "seed": "2", "replay": "AFWCS"})
        tab.get_by_role("button", name="Students' link").click()
        code = tab.locator("[data-testid='stPopoverBody'] code").first
        code.wait_for(timeout=30_000)
        link = code.inner_text().strip()
        tab.screenshot(path=str(SHOTS / "device-students-link.png"))
        query = dict(parse.parse_qsl(parse.urlsplit(link).query))
        assert "presentation" not in query, link
        assert parse.urlsplit(link).path.rstrip("/").endswith(_path(lesson)), link
        values, notices = settings.parse_query(query)
        assert not notices
        assert values == {**settings.defaults(), **lesson.settings, "seed": 2}  # the lesson's start, this seed
    finally:
        tab.close()


def _contrast(rgb_a, rgb_b):
    def luminance(rgb):
        channels = [c / 255 for c in rgb]
        channels = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * channels[0] + 0.7152 * channels[1] + 0.0722 * channels[2]
    high, low = sorted([luminance(rgb_a), luminance(rgb_b)], reverse=True)
    return (high + 0.05) / (low + 0.05)


_FOCUSED = """() => {
  const e = document.activeElement;
  let ring = e;  // a slider's input is visually hidden (in a 1 px box): its ring is drawn on the thumb
  if (e.matches('input[type="range"]')) for (ring = e.parentElement; ring && ring.getBoundingClientRect().width < 8; ) ring = ring.parentElement;
  const style = getComputedStyle(ring);
  const rgb = s => (s.match(/\\d+(\\.\\d+)?/g) || []).slice(0, 3).map(Number);
  let back = null;
  for (let p = e; p && !back; p = p.parentElement) { const c = getComputedStyle(p).backgroundColor; if (!/rgba\\(.*, 0\\)|transparent/.test(c)) back = rgb(c); }
  return {tag: e.tagName, label: e.getAttribute('aria-label') || e.innerText.slice(0, 40), sidebar: !!e.closest('[data-testid="stSidebar"]'),
          stage: !!e.closest('.st-key-stage'), control: e.matches('input, select, textarea, [role="slider"], [role="combobox"], [role="radio"], [role="switch"], [role="checkbox"], [role="spinbutton"]'),
          outline: parseFloat(style.outlineWidth) || 0, outlineStyle: style.outlineStyle, colour: rgb(style.outlineColor), back: back || [255, 255, 255]};
}"""


@pytest.mark.parametrize("key", [key for key, control in CONTROLS.items() if control is not None])
def test_in_presentation_mode_tab_reaches_the_stage_control_from_the_title(server, browser, key):
    lesson = next(lesson for lesson in lessons.LESSONS.values() if lesson.key == key)
    tab = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        _open(tab, server, lesson, lesson_address(lesson, presentation=True))
        tab.evaluate("() => { const h = document.querySelector('[data-testid=\"stMain\"] h1'); "
                     "h.setAttribute('tabindex', '-1'); h.focus(); }")
        stops = []
        for _ in range(10):
            tab.keyboard.press("Tab")
            stops.append(tab.evaluate(_FOCUSED))
            if stops[-1]["stage"] and stops[-1]["control"]:
                break
        assert not any(stop["sidebar"] for stop in stops), [s["label"] for s in stops]
        reached = stops[-1]
        assert reached["stage"] and reached["control"], f"not within 10 Tab stops: {[s['label'] for s in stops]}"
        assert reached["outline"] >= 2 and reached["outlineStyle"] != "none", reached
        assert _contrast(reached["colour"], reached["back"]) >= 3, reached
        if key == "why-weights":
            tab.screenshot(path=str(SHOTS / "device-focus-ring.png"))
    finally:
        tab.close()


def test_a_slider_keeps_the_focus_and_a_run_of_arrow_keys_is_one_history_entry(server, browser):
    """The few-labels lesson's slider kept the focus for one arrow key only (an element drawn in some runs only
    shifted the stage, which Streamlit then drew anew); each value was its own history entry."""
    lesson = lessons.FEW_LABELS
    tab = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        _open(tab, server, lesson, lesson_address(lesson))
        slider = tab.locator('.st-key-stage input[type="range"]').first
        slider.wait_for(timeout=60_000)
        entries = tab.evaluate("history.length")
        for _ in range(20):  # the page's own first writes of its address are done
            tab.wait_for_timeout(1000)
            entries, before = tab.evaluate("history.length"), entries
            if entries == before:
                break
        start = int(float(slider.get_attribute("aria-valuetext")))
        slider.focus()
        for _ in range(3):
            tab.keyboard.press("ArrowRight")
            tab.wait_for_timeout(100)
        tab.wait_for_function(f"() => new URLSearchParams(location.search).get('n_labels') === '{start + 3}'",
                              timeout=120_000)
        wait_for_page(tab, HEADINGS[lesson.page])
        tab.wait_for_timeout(1500)
        focused = tab.evaluate("() => [document.activeElement.tagName, document.activeElement.getAttribute('aria-label')]")
        assert focused == ["INPUT", "labelled test points"], focused
        assert tab.evaluate("history.length") == entries + 1
        tab.go_back()
        tab.wait_for_timeout(1500)
        wait_for_page(tab, HEADINGS[lesson.page])
        assert "n_labels" not in parse.parse_qs(parse.urlsplit(tab.url).query)  # the lesson's 10, before the run
    finally:
        tab.close()


def test_a_chart_not_drawn_yet_shows_a_spinner(server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(server)
    wait_for_page(page, "Covariate shift")
    page.wait_for_function("() => [...document.querySelectorAll('style')].some(s => s.textContent.includes("
                           "'covshift-spin'))", timeout=60_000)  # the page's style is drawn
    animation = page.evaluate("""() => {
      const chart = document.createElement('div');
      chart.setAttribute('data-testid', 'stPlotlyChart');
      document.querySelector('[data-testid="stMain"]').appendChild(chart);
      const style = getComputedStyle(chart, '::after');
      const result = [style.animationName, parseFloat(getComputedStyle(chart).minHeight)];
      chart.remove();
      return result;
    }""")
    assert animation[0] == "covshift-spin" and animation[1] >= 200, animation
