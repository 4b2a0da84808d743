"""Issue 9, item 2: the address is the state. Every page writes its settings into the URL on
every run; a link opened in a fresh session shows the same view; bad values in a link are
clamped or ignored with one notice; a CSV link without its file asks for the upload."""

import pytest
from streamlit.testing.v1 import AppTest

from tests.teaching.app.helpers import PAGES, ROOT, SMALL, go, no_exception, open_link, view


def _set(at, kind, key, value):
    getattr(at, kind)(key=key).set_value(value)
    return no_exception(at.run())


def _click(at, key):
    at.button(key=key).click()
    return no_exception(at.run())


#: What a student changes on each page before copying the link (widget kind, key, value).
CHANGES = {
    "pages/home.py": [("number_input", "w.seed", 4)],
    "pages/data.py": [("selectbox", "w.dataset", "circle"), ("slider", "w.circle.n_tr", 120),
                      ("slider", "w.circle.noise", 0.1)],
    "pages/weights.py": [("multiselect", "w.estimators", ["PFWCS", "KLIEP"]), ("radio", "w.sigma_mode", "manual"),
                         ("slider", "w.sigma", 0.45), ("radio", "w.gap_axis", "seconds")],
    # (the replay's Step/Back/Next/slider run in the browser, inside its component: no server state to link)
    "pages/regression.py": [("multiselect", "w.models", ["GPR", "IW-GPR", "SMTGP"]), ("slider", "w.theta", 0.7),
                            ("number_input", "w.rho_x", 0.5), ("toggle", "w.few_labels", True),
                            ("slider", "w.n_labels", 6)],
    "pages/scaling.py": [("multiselect", "w.scaling_estimators", ["FCFWCS"]),
                         ("multiselect", "w.scaling_sizes", [100]), ("button", "scaling_run", None)],
    "pages/theory.py": [("number_input", "w.seed", 9)],
    "pages/check.py": [("radio", "w.check_test", "classifier"), ("selectbox", "w.check_weights", "KMM"),
                       ("selectbox", "w.check_model", "IW-GPR")],
}


@pytest.mark.parametrize("page", PAGES)
def test_a_link_copied_after_a_page_switch_reproduces_every_view(page):
    at = no_exception(go(open_link(SMALL), page))
    for kind, key, value in CHANGES[page]:
        _click(at, key) if kind == "button" else _set(at, kind, key, value)
    here = view(at)
    elsewhere = "pages/theory.py" if page != "pages/theory.py" else "pages/home.py"
    no_exception(go(at, elsewhere))  # the browser drops the query; the app writes it back
    link = dict(at.query_params)
    assert link, "the settings are not in the address after a page switch"
    fresh = no_exception(open_link(link))
    assert not fresh.warning, [w.value for w in fresh.warning]  # the app's own link is valid
    no_exception(go(fresh, elsewhere))
    assert view(fresh) == view(at)
    no_exception(go(fresh, page))
    no_exception(go(at, page))
    assert view(fresh) == view(at) == here
    assert dict(fresh.query_params) == link


BAD_LINK = {"sinc.n_tr": "-5", "sinc.n_te": "1e9", "sigma": "inf", "sigma_mode": "manual", "theta": "5",
            "step": "-5", "n_labels": "1000", "few_labels": "true", "seed": "inf", "rho_x": "-1",
            "lambda_x": "nan", "gamma": "1e400", "estimators": "FCFWCS,bogus", "models": "GPR,SMTGP",
            "dataset": "sinc", "replay": "KMM", "plot_output": "7", "scaling_sizes": "100,-3",
            "utm_source": "mail"}


@pytest.mark.parametrize("page", PAGES)
def test_a_bad_link_opens_every_page_with_one_notice(page):
    at = no_exception(open_link({**BAD_LINK, "sinc.n_te": "50"}))
    notices = [w.value for w in at.warning if "this link" in w.value]
    assert len(notices) == 1
    for name in ["seed", "sigma", "theta", "step", "n_labels", "rho_x", "lambda_x", "gamma", "bogus",
                 "replay", "scaling_sizes", "utm_source"]:
        assert name in notices[0], name
    no_exception(go(at, page))
    assert at.session_state["settings"]["seed"] == 0 and at.session_state["settings"]["theta"] == 0.99
    assert "utm_source" not in at.query_params and at.query_params["theta"] == "0.99"


def test_the_notice_goes_once_the_student_changes_a_setting():
    at = no_exception(open_link({"theta": "5"}))
    assert [w for w in at.warning if "this link" in w.value]
    _set(at, "number_input", "w.seed", 2)
    assert not [w for w in at.warning if "this link" in w.value]


CSV_LINK = {"source": "csv", "csv_inputs": "x", "csv_outputs": "y", "csv_split": "train"}


@pytest.mark.parametrize("page", ["pages/data.py", "pages/weights.py", "pages/regression.py"])
def test_a_csv_link_without_its_file_asks_for_the_upload(page):
    at = no_exception(go(open_link(CSV_LINK), page))
    shown = " ".join(e.value for e in at.info)
    assert "Upload" in shown or "upload" in shown, shown
    assert not at.metric and not at.dataframe and not at.get("plotly_chart")  # no other data shown
    assert at.radio(key="w.source").value == "csv"
    assert at.query_params["csv_inputs"] == "x"  # the link keeps the column choices for the upload


def test_the_column_choices_of_a_csv_link_apply_once_the_file_is_uploaded():
    at = no_exception(go(open_link(CSV_LINK), "pages/data.py"))
    rows = "\n".join(f"{i / 10},{(i / 10) ** 2},{int(i % 3 == 0)}" for i in range(60))
    at.session_state["csv_bytes"] = ("x,y,train\n" + rows).encode()
    no_exception(at.run())
    assert at.metric[0].value == "20"
    assert at.multiselect(key="w.csv_inputs").value == ["x"]


def test_a_page_link_as_the_first_request_of_a_fresh_server(monkeypatch):
    """Without st.navigation having run, Streamlit runs a requested page file alone (multipage
    v1, because pages/ exists); the page must still read the link and draw the whole app."""
    monkeypatch.undo()  # as on a fresh server (see conftest.py)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"seed": "3", "source": "csv"})
    no_exception(at.switch_page("pages/weights.py").run())
    assert [title.value for title in at.title] == ["Importance weights"]
    assert at.number_input(key="w.seed").value == 3  # the sidebar of app.py is there
    assert any("cannot carry the file" in info.value for info in at.info)


@pytest.mark.parametrize("page", sorted(p.name for p in (ROOT / "pages").glob("*.py")))
def test_every_page_link_as_a_fresh_server_s_first_request_draws_the_whole_app(monkeypatch, page):
    """As above, for every page: the sidebar of app.py (its lessons and seed) is drawn."""
    monkeypatch.undo()  # as on a fresh server (see conftest.py)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update({"seed": "4"})
    no_exception(at.switch_page(f"pages/{page}").run())
    assert at.number_input(key="w.seed").value == 4
    assert any(link.proto.label == "Why weights" for link in at.sidebar.get("page_link"))
