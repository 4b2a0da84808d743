"""Issue 9 in a real browser: the address keeps every setting across sidebar navigation and
reloads, a bad link opens with one notice, and a CSV link without its file asks for it."""

from tests.teaching.browser.conftest import SHOTS, wait_for_page


def _no_exception(tab):
    assert tab.locator("[data-testid='stException']").count() == 0


def test_settings_survive_sidebar_navigation_and_reload(server, page):
    page.goto(f"{server}/?dataset=circle&seed=3&circle.n_tr=120")
    wait_for_page(page, "Covariate shift")
    page.get_by_role("link", name="Data & shift").first.click()
    wait_for_page(page, "Data & shift")
    page.wait_for_function("() => ['dataset=circle', 'seed=3', 'circle.n_tr=120'].every("
                           "part => window.location.search.includes(part))", timeout=60_000)
    page.reload()
    wait_for_page(page, "Data & shift")
    _no_exception(page)
    assert page.get_by_text("Circle (2 correlated outputs)").count() >= 1
    assert page.locator("[data-testid='stMetricValue']").first.inner_text() == "120"


def test_bad_link_opens_with_one_notice(server, page):
    page.goto(f"{server}/regression?theta=5&seed=inf&sinc.n_tr=-5&sinc.n_te=40&models=GPR")
    wait_for_page(page, "Structured regression")
    _no_exception(page)
    assert page.get_by_text("could not be used as given").count() == 1
    page.wait_for_function("() => window.location.search.includes('theta=0.99')", timeout=60_000)


def test_csv_link_without_its_file_asks_for_the_upload(server, page):
    # Run alone (a fresh server), this also checks a page's address as the server's very first
    # request, when Streamlit runs the page file without app.py once (ui.get recovers).
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.goto(f"{server}/weights?source=csv&csv_inputs=x&csv_outputs=y")
    wait_for_page(page, "Importance weights")
    page.get_by_text("a link cannot carry the file").first.wait_for(timeout=60_000)
    wait_for_page(page, "Importance weights")
    page.screenshot(path=str(SHOTS / "csv_link_without_file.png"), full_page=True)
    _no_exception(page)
    assert page.locator(".js-plotly-plot").count() == 0
