"""Issue 37 in a real browser: an uploaded file whose column names and cells are HTML, Markdown links and images,
LaTeX and spreadsheet formulas is shown as text on Data & shift and Check your data (the DOM holds no such element,
no script runs, nothing is fetched), and its Markdown and HTML reports and weights CSV are escaped; the usual
unlabelled file (diabetes-shaped, test rows without outputs, 'is_test') on the Check page, with screenshots."""

import pathlib
import re
import urllib.parse

import numpy as np
import pandas as pd
import pytest

from teaching import settings
from tests.teaching.app.test_own_data import HEIGHT, LOCAL, RATIO, SPLIT, WEIGHT, named_file
from tests.teaching.app.test_unlabelled_pages import diabetes
from tests.teaching.browser.conftest import SHOTS, wait_for_page

HOSTILE = {"script": "<script>window.__owned=1</script>", "img": "<img src=x onerror=window.__owned=2>",
           "link": "[x](javascript:window.__owned=3)", "image": "![t](http://127.0.0.1:9/x.png)",
           "maths": "$\\href{javascript:window.__owned=4}{y}$", "formula": "=HYPERLINK(\"http://e.invalid\")"}


def hostile_file(n=120, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({HOSTILE["script"]: rng.normal(size=n), HOSTILE["img"]: rng.normal(size=n),
                          HOSTILE["link"]: rng.normal(size=n), HOSTILE["image"]: rng.normal(size=n),
                          HOSTILE["formula"]: rng.normal(size=n)})
    frame[HOSTILE["maths"]] = frame.iloc[:, 0] + 0.1 * rng.normal(size=n)
    frame["train"] = (rng.random(n) < 1 / (1 + np.exp(2 * frame.iloc[:, 0]))).astype(int)
    frame = frame.astype(object)
    frame.iloc[5, 1] = "<img src=y onerror=window.__owned=5>"  # a cell quoted in a note
    return frame.to_csv(index=False).encode()


def open_with_upload(page, server, raw, inputs, outputs, split, name="data.csv"):
    query = urllib.parse.urlencode({"source": "csv", "csv_inputs": ",".join(inputs), "csv_outputs": ",".join(outputs),
                                    "csv_split": split})
    upload_at(page, f"{server}/data?{query}", raw, name)


def upload_at(page, address, raw, name="data.csv"):
    """Open the Data & shift page at ``address`` and upload ``raw`` (a link cannot carry the file)."""
    page.goto(address)
    wait_for_page(page, "Data & shift")
    page.locator("input[type='file']").set_input_files({"name": name, "mimeType": "text/csv", "buffer": raw})
    page.get_by_text("training points").first.wait_for(timeout=180_000)
    wait_for_page(page, "Data & shift")


def to_check_page(page):
    page.locator("[data-testid='stMain']").get_by_role("link", name=re.compile("Check this data")).click()
    wait_for_page(page, "Check your data")
    page.get_by_text("The report holds the verdicts").wait_for(timeout=300_000)
    wait_for_page(page, "Check your data")


def no_injected_elements(page):
    """Nothing from a name became an element or ran."""
    found = page.evaluate("""() => ({
        owned: window.__owned || null,
        onerror: document.querySelectorAll('[onerror]').length,
        js_links: [...document.querySelectorAll('a[href]')].filter(a => a.href.trim().toLowerCase().startsWith('javascript')).length,
        remote_images: [...document.querySelectorAll('img')].filter(i => (i.src || '').includes('x.png')).length,
        scripts: [...document.querySelectorAll('script')].filter(s => s.textContent.includes('__owned')).length,
        maths_links: [...document.querySelectorAll('.katex a, .katex [href]')].length,
    })""")
    assert found == {"owned": None, "onerror": 0, "js_links": 0, "remote_images": 0, "scripts": 0, "maths_links": 0}, found


def download(page, label):
    with page.expect_download(timeout=120_000) as info:
        page.get_by_role("button", name=label).click()
    return pathlib.Path(info.value.path()).read_text(encoding="utf-8")


def test_hostile_column_names_are_text_on_the_pages_and_in_every_download(server, browser):
    page = browser.new_page(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    requests, dialogs = [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        inputs = [HOSTILE[k] for k in ("script", "img", "link", "image", "formula")]
        open_with_upload(page, server, hostile_file(), inputs, [HOSTILE["maths"]], "train")
        assert page.locator("[data-testid='stException']").count() == 0
        no_injected_elements(page)
        notes = page.locator("[data-testid='stAlert']").all_inner_texts()
        assert any("<img src=y onerror=window.__owned=5>" in note for note in notes), notes  # the cell, as text
        to_check_page(page)
        assert page.locator("[data-testid='stException']").count() == 0
        no_injected_elements(page)
        shown = page.locator("[data-testid='stMain']").inner_text()
        assert HOSTILE["script"] in shown or HOSTILE["img"] in shown  # the ranking names an input as written
        markdown = download(page, "Download the report (Markdown)")
        assert not re.search(r"(?<!\\)[<\[!$]", markdown.replace("\\\\", "").split("<http", 1)[0]), markdown[:2000]
        assert "\\<script\\>window." in markdown and "\\</script\\>" in markdown and "\\!\\[t\\](http\\://" in markdown
        report_html = download(page, "Download the report (HTML)")
        assert "<script>window" not in report_html and "<img src=" not in report_html
        assert "&lt;script&gt;window.__owned=1&lt;/script&gt;" in report_html
        weights = download(page, "Download the weights (one row per training point) as CSV")
        header = weights.splitlines()[0]
        assert "'=HYPERLINK(" in header and not re.search(r'(^|,)"?[=+\-@]', header), header
        assert not [url for url in requests if url.startswith(("http://127.0.0.1:9/", "http://e.invalid"))]
        assert not dialogs
    finally:
        page.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (390, 844)])
def test_the_unlabelled_diabetes_file_on_the_check_page(server, browser, width, height):
    SHOTS.mkdir(parents=True, exist_ok=True)
    frame, test, inputs, output = diabetes()
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        open_with_upload(page, server, frame.to_csv(index=False).encode(), inputs, [output], "is_test",
                         name="diabetes.csv")
        to_check_page(page)
        assert page.locator("[data-testid='stException']").count() == 0
        assert page.locator("[data-testid='stAlert'] [data-testid='stAlertContentError']").count() == 0
        shown = page.locator("[data-testid='stMain']").inner_text()
        assert re.search(rf"test points\s+{int(test.sum())}\b", shown) and "The training and test inputs differ" in shown
        assert "No test row has outputs, so the actual test error cannot be measured here" in shown
        suffix = "" if width > 600 else "_phone"
        page.screenshot(path=str(SHOTS / f"check_unlabelled{suffix}.png"))
        for i, heading in enumerate(["1. Do the training and test inputs differ?", "2. Which inputs moved?",
                                     "3. What do importance weights cost?",
                                     "4. What do they change in a model's error estimate?"], start=1):
            page.get_by_role("heading", name=heading).evaluate("e => e.scrollIntoView({block: 'start'})")
            page.wait_for_timeout(500)
            page.screenshot(path=str(SHOTS / f"check_unlabelled{suffix}_{i}.png"))
    finally:
        page.close()


def words_and_charts(page):
    """(the main area's text without its figures, how many figures): a figure's tick labels are in the page's text
    only once plotly has drawn it, which a busy machine does later in one tab than in the other."""
    text = page.locator("[data-testid='stMain']").evaluate(
        "main => { const copy = main.cloneNode(true);"
        " copy.querySelectorAll(\"[data-testid='stPlotlyChart']\").forEach(chart => chart.remove());"
        " document.body.appendChild(copy); const text = copy.innerText; copy.remove(); return text; }")
    return text, page.locator("[data-testid='stPlotlyChart']").count()


@pytest.mark.parametrize("inputs", [[WEIGHT], [WEIGHT, HEIGHT, LOCAL]])
def test_a_copied_link_with_commas_in_column_names_opens_the_same_view(server, browser, inputs):
    """The address the browser shows after choosing columns named with commas, quotes, '&', '%', '#' and
    non-ASCII letters, opened in another tab with the same file, shows the same columns and numbers."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    raw = named_file()
    values = {**settings.defaults(), "source": "csv", "csv_inputs": inputs, "csv_outputs": [RATIO], "csv_split": SPLIT}
    tabs = [browser.new_page(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    try:
        first, second = tabs
        upload_at(first, f"{server}/data?{settings.query_string(values)}", raw)
        copied = first.url
        query = urllib.parse.urlsplit(copied).query
        assert settings.parse_query(urllib.parse.parse_qs(query, keep_blank_values=True)) == (values, [])
        upload_at(second, copied, raw)
        charts = first.locator("[data-testid='stPlotlyChart']").count()
        assert charts >= 1
        # the run that the upload starts can still be drawing when the status widget has not come up yet (busy machine)
        drawn = f"() => document.querySelectorAll(\"[data-testid='stPlotlyChart']\").length >= {charts}"
        second.wait_for_function(drawn, timeout=180_000)
        wait_for_page(second, "Data & shift")
        shown = [words_and_charts(tab) for tab in tabs]
        assert shown[0] == shown[1]
        shown = [text for text, _ in shown]
        chips = first.locator("[data-testid='stMultiSelect']").first.inner_text()
        assert all(name in chips for name in inputs), chips
        assert "could not be used as given" not in shown[0] and "Choose at least one" not in shown[0]
        assert first.locator("[data-testid='stException']").count() == 0
        first.screenshot(path=str(SHOTS / f"own_data_comma_names_{len(inputs)}.png"))
    finally:
        for tab in tabs:
            tab.close()


def test_back_and_forward_through_choices_of_columns_with_commas_give_their_views(server, browser):
    """Removing the second input leaves one whose name holds a comma (the address marks it with an empty second
    value); Back gives the two inputs again, Forward the one."""
    raw = named_file()
    values = {**settings.defaults(), "source": "csv", "csv_inputs": [WEIGHT, HEIGHT], "csv_outputs": [RATIO],
              "csv_split": SPLIT}
    tab = browser.new_page(viewport={"width": 1280, "height": 800})

    def chosen():
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(tab.url).query, keep_blank_values=True)
        parsed, notices = settings.parse_query(query)
        assert notices == []
        return parsed["csv_inputs"], tab.locator("[data-testid='stMultiSelect']").first.inner_text()

    try:
        upload_at(tab, f"{server}/data?{settings.query_string(values)}", raw)
        two = tab.url
        tab.locator("[data-testid='stMultiSelect']").first.locator("input").click()
        tab.keyboard.press("Backspace")  # removes the last chip, HEIGHT
        tab.keyboard.press("Escape")  # the open option list hides the rest of the page from role queries
        tab.wait_for_function(f"() => window.location.href !== {two!r}", timeout=60_000)
        wait_for_page(tab, "Data & shift")
        inputs, chips = chosen()
        assert inputs == [WEIGHT] and WEIGHT in chips and "at rest" not in chips
        assert urllib.parse.urlsplit(tab.url).query.count("csv_inputs=") == 2  # the name and the empty mark
        one = tab.url
        tab.go_back()
        tab.wait_for_function(f"() => window.location.href === {two!r}", timeout=60_000)
        tab.get_by_text("at rest").first.wait_for(timeout=60_000)
        wait_for_page(tab, "Data & shift")
        inputs, chips = chosen()
        assert inputs == [WEIGHT, HEIGHT] and WEIGHT in chips and HEIGHT in chips
        tab.go_forward()
        tab.wait_for_function(f"() => window.location.href === {one!r}", timeout=60_000)
        wait_for_page(tab, "Data & shift")
        tab.wait_for_function("() => !document.querySelector(\"[data-testid='stMultiSelect']\").innerText"
                              ".includes('at rest')", timeout=60_000)
        inputs, chips = chosen()
        assert inputs == [WEIGHT] and WEIGHT in chips
        assert tab.locator("[data-testid='stException']").count() == 0
    finally:
        tab.close()
