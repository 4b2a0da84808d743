"""Issue 23, items 4-6 in a real browser at 1280 x 800: each claim box shows its numbers, the weights
table fits the page, every selected estimator's chip is visible, the certainty lesson draws its bins.
Screenshots: tests/screenshots/claims-*.png."""

from urllib import parse

from teaching import lessons
from tests.teaching.browser.conftest import SHOTS
from tests.teaching.browser.test_lecture import HEADINGS, _settle, lessons_query


def _open(server, page, title):
    lesson = lessons.LESSONS[title]
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/{lesson.page.split('/')[1][:-3]}?{parse.urlencode(lessons_query(title))}")
    page.get_by_text(f"Lesson: {title}.").first.wait_for(timeout=120_000)
    for claim in lesson.claims:
        anchor = page.locator(f"#view-{claim.figure.replace('.', '-')}")
        anchor.wait_for(state="attached", timeout=180_000)
    _settle(page, HEADINGS[lesson.page])
    assert page.locator("[data-testid='stException']").count() == 0
    return lesson


def _claim_lines(page):
    return [line for text in page.locator("[data-testid='stAlert']").all_inner_texts()
            for line in text.splitlines() if "measured here" in line]


def test_kliep_claims_show_their_numbers_and_the_table_fits(server, page):
    lesson = _open(server, page, "KLIEP and its Frank-Wolfe solvers")
    lines = _claim_lines(page)
    assert len(lines) == len(lesson.claims), lines
    objectives = next(line for line in lines if "within 0.1 %" in line)
    for name in ("FCFWCS", "PFWCS", "AFWCS", "FWCS"):
        assert f"{name} 2" in objectives.split("objective:")[1], objectives  # e.g. "FCFWCS 215.224"
    table = page.locator("[data-testid='stMain'] [data-testid='stDataFrame']").first
    table.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    scroller = table.locator(".dvn-scroller").first
    widths = scroller.evaluate("node => [node.scrollWidth, node.clientWidth]")
    assert widths[0] <= widths[1], f"the table needs {widths[0]} px and has {widths[1]}"
    page.screenshot(path=str(SHOTS / "claims-kliep-table.png"))


def test_every_selected_estimator_is_visible(server, page):
    lesson = _open(server, page, "Estimators disagree")
    box = page.locator("[data-testid='stMain'] [data-testid='stMultiSelect']").first
    box.scroll_into_view_if_needed()
    outer = box.bounding_box()
    chips = box.locator("[data-testid='stMultiSelectTagsContainer'] [data-tag]")
    assert chips.count() == len(lesson.settings["estimators"])
    for i in range(chips.count()):
        chip = chips.nth(i).bounding_box()
        assert outer["x"] <= chip["x"] and chip["x"] + chip["width"] <= outer["x"] + outer["width"], i
        assert outer["y"] <= chip["y"] and chip["y"] + chip["height"] <= outer["y"] + outer["height"], i
    page.screenshot(path=str(SHOTS / "claims-estimators-chips.png"))


def test_certainty_lesson_draws_the_error_per_certainty_bin(server, page):
    _open(server, page, "Structured output")
    titles = page.locator(".js-plotly-plot .gtitle").all_text_contents()
    assert "SMTGP: mean error per certainty bin" in titles, titles
    assert any("most certain fifth" in line for line in _claim_lines(page))
    page.locator("#view-regression-certainty").scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=str(SHOTS / "claims-certainty.png"))
