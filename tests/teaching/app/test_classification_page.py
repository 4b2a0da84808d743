"""The classification page through streamlit.testing.v1.AppTest: defaults, a widget, the URL."""

import pathlib

from streamlit.testing.v1 import AppTest

ROOT = pathlib.Path(__file__).resolve().parents[3]
PAGE = "pages/classification.py"


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    return at


def _page(**query):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    _ok(at.run())
    return _ok(at.switch_page(PAGE).run())


def _table(at):
    return at.dataframe[0].value


def test_page_renders_with_defaults():
    at = _page()
    assert at.title[0].value == "Classification under shift"
    table = _table(at)
    assert list(table.index) == ["iid", "two-stage (LogisticRatio)", "integrated"]
    assert table["accuracy"].between(0, 1).all() and table["AUC"].between(0, 1).all()
    assert len(at.get("plotly_chart")) >= 1


def test_settings_come_from_the_url_and_rbf_runs():
    at = _page(**{"clf.kernel": "rbf", "clf.weights": "KMM", "clf.n": "300"})
    assert list(_table(at).index) == ["iid", "two-stage (KMM)", "integrated"]
    at.slider(key="w.clf.steepness").set_value(0.0).run()
    _ok(at)
    assert at.query_params["clf.steepness"] in ("0.0", ["0.0"])


def test_broken_link_values_fall_back_to_the_registry_domain():
    at = _page(**{"clf.n": "1e400", "clf.kernel": "poly", "clf.C": "nan", "clf.steepness": "-inf",
                  "clf.weights": "<script>", "clf.sigma": "-3"})
    assert list(_table(at).index) == ["iid", "two-stage (LogisticRatio)", "integrated"]
    assert at.slider(key="w.clf.n").value == 400 and at.radio(key="w.clf.kernel").value == "linear"
