"""axe-core (npm axe-core, see conftest.axe_script) on every page of the app in Chromium, Presentation off and
on: no violation of WCAG 2.0/2.1 A and AA (colour contrast included). Streamlit's own best-practice findings
(landmarks, regions) are not WCAG requirements and are not checked.

Skipped when Playwright, /usr/bin/chromium or npm's axe-core is missing (see conftest.py)."""

import pytest

from teaching.ui.pages import PAGES
from tests.teaching.browser.conftest import wait_for_page

#: The rules axe runs: WCAG 2.0 and 2.1, levels A and AA.
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: The heading each page shows (wait_for_page waits for it).
HEADINGS = {"pages/home.py": "Covariate shift", "pages/data.py": "Data & shift", "pages/check.py": "Check your data",
            "pages/weights.py": "Importance weights", "pages/regression.py": "Structured regression",
            "pages/classification.py": "Classification under shift", "pages/transfer.py": "Domain transfer",
            "pages/scaling.py": "Scaling", "pages/reproduction.py": "Reproduction", "pages/theory.py": "About & theory",
            "pages/join.py": "Join a poll"}


@pytest.mark.parametrize("presentation", [False, True], ids=["presentation-off", "presentation-on"])
def test_axe_finds_no_violation_on_any_page(server, page, axe_script, presentation):
    page.set_viewport_size({"width": 1280, "height": 800})
    found = {}
    for path, title, _ in PAGES:
        address = "" if path == "pages/home.py" else path[len("pages/"):-len(".py")]
        page.goto(f"{server}/{address}" + ("?presentation=true" if presentation else ""))
        page.wait_for_timeout(1500)
        wait_for_page(page, HEADINGS[path])
        page.wait_for_timeout(1500)
        wait_for_page(page, HEADINGS[path])
        page.add_script_tag(path=str(axe_script))
        result = page.evaluate("tags => axe.run(document, {runOnly: {type: 'tag', values: tags}})", WCAG)
        violations = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:5],
                       v["nodes"][0].get("failureSummary", "")[:300]) for v in result["violations"]]
        if violations:
            found[title] = violations
    assert not found, found


def test_keyboard_focus_on_a_sidebar_link_is_drawn(server, page):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{server}/scaling")
    wait_for_page(page, "Scaling")
    for _ in range(60):  # Tab until a sidebar link has the focus (the keyboard's way there)
        page.keyboard.press("Tab")
        outline = page.evaluate("""() => { const e = document.activeElement;
            if (!e || e.tagName !== 'A' || !e.closest("[data-testid='stSidebar']")) return null;
            const s = getComputedStyle(e); return [s.outlineStyle, parseFloat(s.outlineWidth)]; }""")
        if outline is not None:
            break
    assert outline is not None, "Tab never reached a sidebar link"
    assert outline[0] != "none" and outline[1] >= 2, outline
