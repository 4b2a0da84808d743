"""Every page through streamlit.testing.v1.AppTest: no exception, presets, widgets, CSV upload."""

import re
import pathlib

import pytest
from streamlit.testing.v1 import AppTest

from tests.teaching.app.helpers import follow

ROOT = pathlib.Path(__file__).resolve().parents[3]
PAGES = ["pages/home.py", "pages/data.py", "pages/weights.py", "pages/regression.py",
         "pages/scaling.py", "pages/theory.py"]


def _app(**query):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    for key, value in query.items():
        at.query_params[key] = value
    return at.run()


def _ok(at):
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_without_exception(page):
    at = _ok(_app())
    _ok(at.switch_page(page).run())
    assert len(at.title) == 1


def _press(at, label):
    return follow(at, label)


@pytest.mark.parametrize("lesson", ["KLIEP and its Frank-Wolfe solvers", "Structured output", "IW-SMTGP"])
def test_lessons_on_weights_and_regression_pages(lesson):
    at = _ok(_app())
    _ok(_press(at, lesson))
    for page in ["pages/weights.py", "pages/regression.py"]:
        _ok(at.switch_page(page).run())
        assert not at.error, [e.value for e in at.error]


def _metric_table(at):
    return at.dataframe[0].value


def test_widget_change_changes_the_numbers():
    at = _ok(_app(estimators="FCFWCS", sigma_mode="manual", sigma="0.3"))
    _ok(at.switch_page("pages/weights.py").run())
    before = _metric_table(at).loc["FCFWCS", "objective"]
    at.slider(key="w.sigma").set_value(0.6).run()
    _ok(at)
    after = _metric_table(at).loc["FCFWCS", "objective"]
    assert before != after
    assert at.query_params["sigma"] in ("0.6", ["0.6"])  # the setting is in the URL


def test_settings_persist_across_pages():
    at = _ok(_app())
    _ok(at.switch_page("pages/data.py").run())
    at.slider(key="w.sinc.n_tr").set_value(200).run()
    _ok(at.switch_page("pages/weights.py").run())
    _ok(at.switch_page("pages/data.py").run())
    assert at.slider(key="w.sinc.n_tr").value == 200
    assert at.metric[0].value == "200"


def test_link_reproduces_the_view():
    at = _ok(_app(dataset="circle", seed="3", estimators="LogisticRatio"))
    _ok(at.switch_page("pages/data.py").run())
    assert at.metric[0].value == "300" and at.metric[2].value == "1 / 2"


def test_csv_upload_flow():
    rows = "\n".join(f"{i / 10},{(i / 10) ** 2},{int(i % 3 == 0)}" for i in range(60))
    at = _app(source="csv")
    at.session_state["csv_bytes"] = ("x,y,train\n" + rows).encode()
    _ok(at.switch_page("pages/data.py").run())
    at.multiselect(key="w.csv_inputs").set_value(["x"]).run()
    at.multiselect(key="w.csv_outputs").set_value(["y"]).run()
    at.selectbox(key="w.csv_split").set_value("train").run()
    _ok(at)
    assert not at.error, [e.value for e in at.error]
    assert at.metric[0].value == "20"
    _ok(at.switch_page("pages/weights.py").run())
    assert not at.error


@pytest.mark.parametrize("content,message", [
    (b"", "empty"), (b"a,b\nx,y\nz,w\n", "two numeric columns"), (b"only\n1\n2\n3\n", "two numeric columns"),
    (b"a,b\n1,2\n3,4\n", "at least 10"),
    # a mostly empty column is kept (an output may be missing on most rows), its empty cells counted
    (b"a,b\n" + b"nan,1\n" * 30 + b"1,2\n" * 3, "Empty cells in column(s) a (30 of 33)"),
    (b"a,b\n" + b"x,1\n" * 30 + b"1,2\n" * 3, "non-numeric: a"),
    (b"a,b,c\n" + b"1,,3\n" * 8 + b"1,2,3\n" * 30, "Empty cells in column(s) b (8 of 38)"),
])
def test_bad_csv_gives_a_message_not_a_traceback(content, message):
    at = _app(source="csv")
    at.session_state["csv_bytes"] = content
    _ok(at.switch_page("pages/data.py").run())
    shown = [e.value for e in at.error] + [w.value for w in at.warning]
    assert any(message in text for text in shown), shown


def test_extreme_sigma_warns_but_page_keeps_working():
    at = _ok(_app(estimators="FCFWCS,KLIEP,RuLSIF", sigma_mode="manual", sigma="0.01",
                  dataset="digits"))
    _ok(at.switch_page("pages/weights.py").run())
    assert at.warning  # numerical trouble is reported
    assert at.dataframe  # and the metrics table is still there


def test_reset_restores_defaults():
    at = _ok(_app(seed="7", dataset="circle"))
    at.sidebar.button(key="reset").click()
    _ok(at.run())
    assert at.session_state["settings"]["dataset"] == "sinc"
    assert "dataset" not in at.query_params


def test_kliep_family_shares_one_sigma_chosen_once():
    at = _ok(_app(estimators="FCFWCS,PFWCS,KLIEP"))
    _ok(at.switch_page("pages/weights.py").run())
    table = _metric_table(at)
    assert table.loc[["FCFWCS", "PFWCS", "KLIEP"], "sigma"].nunique() == 1
    assert any(re.search(r"chosen by likelihood cross-validation for all KLIEP-family solvers \(once, "
                         r"\d+\.\d\d s\)", c.value) for c in at.caption)
