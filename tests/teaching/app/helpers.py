"""Shared AppTest helpers: open the app with a link, switch pages as the browser does, and
describe what a page shows so two sessions can be compared."""

import json
import pathlib

from streamlit.testing.v1 import AppTest

from teaching import ui

ROOT = pathlib.Path(__file__).resolve().parents[3]
PAGES = ["pages/home.py", "pages/data.py", "pages/check.py", "pages/weights.py", "pages/regression.py",
         "pages/scaling.py", "pages/theory.py"]
#: Small built-in data, so that the app tests stay quick.
SMALL = {"sinc.n_tr": "100", "sinc.n_te": "60"}


def open_link(query=None, timeout=120):
    """A fresh session opened with the query parameters ``query`` (on the home page)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.query_params.update(query or {})
    return at.run()


def go(at, page):
    """Switch page the way st.navigation does in the browser: the address loses its query."""
    at.query_params.clear()
    return at.switch_page(page).run()


def no_exception(at):
    """No exception element and no page that fell through to the last line of defence."""
    assert not at.exception, [e.value for e in at.exception]
    failed = [e.value for e in at.error if ui.PAGE_FAILED in e.value]
    assert not failed, failed
    return at


WIDGETS = ["slider", "number_input", "selectbox", "multiselect", "radio", "toggle", "checkbox"]
TEXTS = ["title", "subheader", "markdown", "caption", "info", "warning", "error", "success"]


def view(at):
    """What the page shows: widget values, texts, numbers, tables and the data of every chart."""
    shown = {kind: [(w.key, w.value) for w in getattr(at, kind)] for kind in WIDGETS}
    shown.update({kind: [e.value for e in getattr(at, kind)] for kind in TEXTS})
    shown["metric"] = [(m.label, m.value) for m in at.metric]
    shown["dataframe"] = [d.value.to_json() for d in at.dataframe]
    shown["chart"] = [json.loads(c.proto.spec)["data"] for c in at.get("plotly_chart")]
    return shown


def table(at):
    """The first data frame of the page (the metrics table of the weights and regression pages)."""
    assert at.dataframe, [e.value for e in at.error]
    return at.dataframe[0].value


def follow(at, label):
    """Follow the sidebar's page link ``label`` (a lesson) as the browser does: its
    page at its address, in the same session."""
    from urllib import parse

    [link] = [link for link in at.sidebar.get("page_link") if link.proto.label == label]
    at.query_params.clear()
    at.query_params.update(parse.parse_qs(link.proto.query_string))
    return at.switch_page(f"pages/{link.proto.page or 'home'}.py").run()
