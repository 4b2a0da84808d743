"""Issue 37, item 1: the usual covariate-shift file (test rows without outputs) goes through Data & shift, Check
your data, Importance weights and Structured regression with no error box. Files shaped like scikit-learn's
diabetes and wine data and a 2-input toy, split by a 0/1 column ('is_test': 1 marks the test rows), by a date, and
by selection bias."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes, load_wine

from tests.teaching.app.helpers import go, no_exception, open_link

SPLITS = {"0/1 column": "is_test", "date": "visit", "selection bias": "selection bias"}


def unlabelled(frame, output, shifted, seed=0):
    """``frame`` with the output empty on the test rows (chosen with a bias on column ``shifted``), a 0/1 column
    'is_test' and a date column 'visit' (training rows in 2021, test rows from 2022-01-01)."""
    rng = np.random.default_rng(seed)
    z = (frame[shifted] - frame[shifted].mean()) / frame[shifted].std()
    test = rng.random(len(frame)) < np.clip(0.35 + 0.25 * z, 0.05, 0.95)
    frame = frame.copy()
    frame[output] = np.where(test, np.nan, frame[output])
    frame["is_test"] = test.astype(int)
    days = np.where(test, rng.integers(0, 300, len(frame)) + 365, rng.integers(0, 365, len(frame)))
    frame["visit"] = (np.datetime64("2021-01-01") + days.astype("timedelta64[D]")).astype(str)
    return frame, test


def diabetes():
    bunch = load_diabetes(scaled=False)
    frame = pd.DataFrame(bunch.data, columns=bunch.feature_names).assign(progression=bunch.target)
    return (*unlabelled(frame, "progression", "bmi"), list(bunch.feature_names), "progression")


def wine():
    frame = load_wine(as_frame=True).frame.drop(columns=["target"])
    inputs = [c for c in frame.columns if c != "alcohol"]
    return (*unlabelled(frame, "alcohol", "flavanoids"), inputs, "alcohol")


def toy(n=200, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x1": rng.normal(size=n), "x2": rng.uniform(-1, 1, n)})
    frame["y"] = np.sin(2 * frame["x1"]) + frame["x2"] ** 2 + 0.1 * rng.normal(size=n)
    return (*unlabelled(frame, "y", "x1"), ["x1", "x2"], "y")


FILES = {"diabetes": diabetes, "wine": wine, "toy": toy}


def no_error_box(at, where):
    no_exception(at)
    assert not at.error, (where, [e.value for e in at.error])
    return at


@pytest.fixture(scope="module", params=[("diabetes", "0/1 column"), ("wine", "date"), ("toy", "selection bias"),
                                        ("toy", "0/1 column"), ("diabetes", "date"), ("wine", "selection bias")])
def uploaded(request):
    shape, split = request.param
    frame, test, inputs, output = FILES[shape]()
    at = open_link({"source": "csv", "models": "GPR,WKNN", "estimators": "FCFWCS,KLIEP"})
    at.session_state["csv_bytes"] = frame.to_csv(index=False).encode()
    at = go(at, "pages/data.py")
    at.multiselect(key="w.csv_inputs").set_value(inputs).run()
    at.multiselect(key="w.csv_outputs").set_value([output]).run()
    at.selectbox(key="w.csv_split").set_value(SPLITS[split]).run()
    if split == "date":
        at.text_input(key="w.csv_split_date").set_value("2022-01-01").run()
    return no_error_box(at, "Data & shift"), test, split


def test_data_page_splits_as_the_file_says(uploaded):
    at, test, split = uploaded
    metrics = {m.label: m.value for m in at.metric}
    said = " ".join(i.value for i in at.info)
    if split == "selection bias":
        assert int(metrics["training points"]) + int(metrics["test points"]) == len(test)
    else:  # the rows without outputs are exactly the test rows
        assert metrics["test points"] == str(int(test.sum())) and metrics["training points"] == str(int((~test).sum()))
        assert f"and 0 of {int(test.sum())} test rows" in said, said
    if split == "0/1 column":
        assert "is_test' (1 = test, 0 = training: the name says 1 marks the test rows)" in said, said


def test_check_page_tests_weights_and_says_what_cross_validation_can_score(uploaded):
    at, test, split = uploaded
    at.switch_page("pages/check.py").run()
    no_error_box(at, "Check your data")
    assert any("inputs differ" in w.value for w in at.warning), [w.value for w in at.warning]  # the bias is seen
    cv = next(m.value for m in at.markdown if "cross-validation says" in m.value)
    if split != "selection bias":
        assert "No test row has outputs, so the actual test error cannot be measured here" in cv
    assert any("Markdown" in b.proto.label for b in at.get("download_button"))


def test_weights_and_regression_pages_draw_without_an_error_box(uploaded):
    at, test, split = uploaded
    at.switch_page("pages/weights.py").run()
    no_error_box(at, "Importance weights")
    assert at.get("plotly_chart")
    at.switch_page("pages/regression.py").run()
    no_error_box(at, "Structured regression")
    if split != "selection bias":
        assert any(f"Only 0 of {int(test.sum())} test rows have outputs" in i.value for i in at.info), \
            [i.value for i in at.info]
