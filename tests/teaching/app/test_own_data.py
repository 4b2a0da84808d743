"""Issue 31 on the pages, with files written here from scikit-learn's bundled data: the usual covariate-shift
file (test rows without outputs) is checked with every row, a decimal-comma file with thousands dots is read as
meant, and an identifier column is not offered as an input while a date column splits the rows. Column names with
commas, quotes, "&", "%", "#" and non-ASCII letters go into the page's link exactly: a copied link reproduces the
view, and links of before still work."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from streamlit.testing.v1 import AppTest

from teaching.settings import MAX_TEXT
from tests.teaching.app.helpers import ROOT, go, no_exception, open_link, view
from tests.teaching.test_uploads_honest import european_wine, penguin_like

INPUTS = ["age", "bmi", "bp", "s1", "s5"]


def choose(raw, inputs, outputs, split, query=None):
    at = open_link({"source": "csv", **(query or {})})
    at.session_state["csv_bytes"] = raw
    at = go(at, "pages/data.py")
    at.multiselect(key="w.csv_inputs").set_value(inputs).run()
    at.multiselect(key="w.csv_outputs").set_value(outputs).run()
    at.selectbox(key="w.csv_split").set_value(split).run()
    return no_exception(at)


@pytest.fixture(scope="module")
def unlabelled():
    frame, test = penguin_like(0.6)
    at = choose(frame.to_csv(index=False).encode(), INPUTS, ["target"], "train")
    data_page = [i.value for i in at.info]
    at.switch_page("pages/check.py").run()
    return no_exception(at), data_page, test


def test_data_page_uses_every_row_and_says_how_many_have_outputs(unlabelled):
    at, data_page, test = unlabelled
    n_te, n_tr = int(test.sum()), int((~test).sum())
    assert not [w.value for w in at.warning if "non-numeric" in w.value]
    said = " ".join(data_page)
    assert f"Outputs known on {n_tr - 5} of {n_tr} training rows and 0 of {n_te} test rows" in said, data_page
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["training points"] == str(n_tr) and metrics["test points"] == str(n_te)


def test_check_page_tests_and_weights_every_row_and_scores_only_where_outputs_exist(unlabelled):
    at, _, test = unlabelled
    assert not at.error, [e.value for e in at.error]
    assert any("inputs differ" in w.value for w in at.warning)  # the bmi bias is found with no test output
    cv = next(m.value for m in at.markdown if "cross-validation says" in m.value)
    assert "No test row has outputs, so the actual test error cannot be measured here" in cv
    assert "±" in cv and ("cannot be told apart" in cv or "differ by more than twice" in cv)
    report = next(b for b in at.get("download_button") if "Markdown" in b.proto.label)
    assert report is not None


def test_decimal_comma_file_with_thousands_dots_is_read_as_meant_on_the_page():
    at = choose(european_wine(), ["degré alcool", "magnesium", "proline"], ["malic_acid"], "selection bias")
    notes = " ".join(w.value for w in at.warning)
    assert "'.' as the thousands separator" in notes and "proline" in notes and "Latin-1" in notes
    at.switch_page("pages/check.py").run()
    at = no_exception(at)
    top = next(d.value for d in at.dataframe if "weight" in d.value.columns)
    assert top["proline"].between(278, 1680).all()  # the file's units, thousands read as thousands


def test_identifier_is_not_offered_and_a_date_splits_the_rows():
    X = load_diabetes(scaled=False).data
    days = pd.date_range("2021-01-01", periods=len(X)).strftime("%d.%m.%Y")
    frame = pd.DataFrame({"id": np.arange(len(X)), "day": days,
                          "age": X[:, 0], "bmi": X[:, 2], "bp": X[:, 3], "y": load_diabetes().target})
    at = open_link({"source": "csv"})
    at.session_state["csv_bytes"] = frame.to_csv(index=False).encode()
    at = no_exception(go(at, "pages/data.py"))
    assert "id" not in at.multiselect(key="w.csv_inputs").options
    assert any("identifiers" in w.value and "id" in w.value for w in at.warning)
    at = choose(frame.to_csv(index=False).encode(), ["age", "bmi", "bp"], ["y"], "day")
    assert any("dated before" in c.value for c in at.caption)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["training points"] == str(len(X) // 2)
    at.text_input(key="w.csv_split_date").set_value("2021-03-01").run()
    metrics = {m.label: m.value for m in no_exception(at).metric}
    assert metrics["training points"] == "59"  # January and February 2021


def test_regression_page_scores_only_the_test_rows_with_outputs():
    frame, test = penguin_like(0.6)
    at = choose(frame.to_csv(index=False).encode(), INPUTS, ["target"], "train", {"models": "GPR,WKNN"})
    at = no_exception(go(at, "pages/regression.py"))
    assert any(f"Only 0 of {int(test.sum())} test rows have outputs" in i.value for i in at.info)
    half = np.flatnonzero(test)[::2]  # now half of the test rows have their outputs
    frame.loc[half, "target"] = load_diabetes(scaled=False).target[half]
    at = choose(frame.to_csv(index=False).encode(), INPUTS, ["target"], "train", {"models": "GPR,WKNN"})
    at = no_exception(go(at, "pages/regression.py"))
    assert any(f"Outputs known on {len(half)} of {int(test.sum())} test rows" in i.value for i in at.info)
    r2 = next(d.value for d in at.dataframe if "R^2" in d.value.columns)["R^2"]
    assert np.isfinite(r2).all() and (r2 > 0).all(), r2.to_dict()


# ------------------------------------------------------------ column names with commas in the page's link
#: Column names a link of the old comma-separated form could not carry (commas, quotes, "&", "=", "%", "#",
#: non-ASCII); the header writes the ones with commas or quotes quoted, as a spreadsheet does.
WEIGHT, HEIGHT, RATIO, LOCAL = "weight, kg", 'height "cm", at rest', "a & b = 50% #1", "naïve Größe"
SPLIT = "train, 0/1"


def named_file(n=120, seed=0):
    X = load_diabetes(scaled=False).data[:n]
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({WEIGHT: X[:, 2], HEIGHT: X[:, 3], LOCAL: X[:, 0], RATIO: X[:, 4] / 10,
                          "y": load_diabetes().target[:n]})
    frame[SPLIT] = (rng.random(n) < 1 / (1 + np.exp((frame[WEIGHT] - frame[WEIGHT].mean()) / 4))).astype(int)
    return frame.to_csv(index=False).encode()


def opened(link, raw, page="pages/data.py"):
    """A fresh session opened on ``page`` with the address ``link`` (the query as AppTest holds it), the
    file uploaded (a link cannot carry the file)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.query_params.update(link)
    at.session_state["csv_bytes"] = raw
    return no_exception(at.switch_page(page).run())


@pytest.mark.parametrize("inputs", [[WEIGHT], [WEIGHT, HEIGHT, LOCAL]])
def test_a_copied_link_with_commas_in_column_names_reproduces_the_view(inputs):
    raw = named_file()
    at = choose(raw, inputs, [RATIO], SPLIT)
    assert at.multiselect(key="w.csv_inputs").value == inputs
    link = dict(at.query_params)  # the address the app wrote, as the browser holds it
    assert link["csv_inputs"] == (inputs if len(inputs) > 1 else [WEIGHT, ""]) and link["csv_split"] == SPLIT
    again = opened(link, raw)
    assert again.multiselect(key="w.csv_inputs").value == inputs
    assert not [w.value for w in again.warning if "this link" in w.value]
    assert view(again) == view(at)
    assert dict(again.query_params) == link


def test_a_link_of_before_with_comma_separated_names_still_chooses_them():
    link = {"source": "csv", "csv_inputs": f"{LOCAL},{RATIO}", "csv_outputs": "y", "csv_split": SPLIT}
    at = opened(link, named_file())
    assert at.multiselect(key="w.csv_inputs").value == [LOCAL, RATIO]
    assert at.multiselect(key="w.csv_outputs").value == ["y"] and at.selectbox(key="w.csv_split").value == SPLIT
    assert not [w.value for w in at.warning if "this link" in w.value]


def test_a_column_name_longer_than_a_link_carries_is_named_on_the_page():
    long = "weight, " + "k" * MAX_TEXT
    raw = named_file().replace(WEIGHT.join('""').encode(), long.join('""').encode(), 1)
    at = choose(raw, [long, HEIGHT], [RATIO], SPLIT)
    said = [w.value for w in at.warning if "longer than a link carries" in w.value]
    assert len(said) == 1 and f"({len(long)} characters)" in said[0], said
    again = opened(dict(at.query_params), raw)  # the link is cut to MAX_TEXT characters: another view, as said
    assert again.multiselect(key="w.csv_inputs").value == [HEIGHT]
    assert [w.value for w in again.warning if "this link" in w.value]
