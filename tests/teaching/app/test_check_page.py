"""The Check your data page on data nobody here made: scikit-learn's bundled diabetes data, uploaded as a CSV
with a selection bias on one column, and a built-in data set without shift."""

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from teaching import uploaded_files
from teaching.view import View
from tests.teaching.app.helpers import go, no_exception, open_link

INPUTS = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]


def diabetes_csv(strength=2.0, seed=0):
    """The diabetes data (raw units) with a 0/1 column ``train``: rows with a large bmi are rarely training
    rows (P(train) = 1 / (1 + exp(strength z)), z the standardised bmi)."""
    bunch = load_diabetes(scaled=False)
    frame = pd.DataFrame(bunch.data, columns=bunch.feature_names)
    frame["target"] = bunch.target
    z = (frame["bmi"] - frame["bmi"].mean()) / frame["bmi"].std()
    frame["train"] = (np.random.default_rng(seed).random(len(frame)) < 1 / (1 + np.exp(strength * z))).astype(int)
    return frame.to_csv(index=False).encode()


def upload(raw, query=None):
    at = open_link({"source": "csv", **(query or {})})
    at.session_state["csv_bytes"] = raw
    at = go(at, "pages/data.py")
    at.multiselect(key="w.csv_inputs").set_value(INPUTS).run()
    at.multiselect(key="w.csv_outputs").set_value(["target"]).run()
    at.selectbox(key="w.csv_split").set_value("train").run()
    return no_exception(at)


@pytest.fixture(scope="module")
def checked():
    raw = diabetes_csv()
    at = upload(raw)
    at.switch_page("pages/check.py").run()
    return no_exception(at), raw


def test_uploaded_csv_shift_is_found_and_its_column_ranked_first(checked):
    at, _ = checked
    assert not at.error, [e.value for e in at.error]
    verdicts = [w.value for w in at.warning if "inputs differ" in w.value]
    assert verdicts and "MMD p = 0.002" in verdicts[0], [w.value for w in at.warning]
    ranking = next(d.value for d in [*at.dataframe, *at.table] if "KS" in d.value.columns)  # a wrapped table
    assert ranking.index[0] == "bmi"
    assert list(ranking["KS"]) == sorted(ranking["KS"], reverse=True)
    assert any("Most shifted input: **bmi**" in m.value for m in at.markdown)


def test_uploaded_csv_ess_is_the_formula_on_the_page_weights(checked):
    at, raw = checked
    view = View.from_settings({**at.session_state["settings"], "sigma_mode": "auto"}, uploaded_files.add_file(raw))
    assert view.data_spec.standardise is True  # standardised by default
    w = np.asarray(view.weights("FCFWCS").model.weights_)
    ess = w.sum() ** 2 / np.sum(w ** 2)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["ESS (effective sample size)"] == f"{ess:.0f}"
    assert metrics["ESS / training points"] == f"{100 * ess / len(w):.0f} %"
    top = next(d.value for d in at.dataframe if "weight" in d.value.columns)
    assert top["weight"].iloc[0] == pytest.approx(w.max() / w.mean())
    assert top["bmi"].between(18, 43).all()  # the file's units (bmi 18-42.2), not standardised values


def test_uploaded_csv_cross_validation_and_report(checked):
    at, _ = checked
    errors = next(d.value for d in at.dataframe if "mean squared error" in d.value.columns)
    assert len(errors) == 4 and np.isfinite(errors["mean squared error"]).all()
    assert any("importance-weighted cross-validation estimates" in m.value for m in at.markdown)
    labels = [b.proto.label for b in at.get("download_button")]
    assert {"Download the report (Markdown)", "Download the report (HTML)"} <= set(labels), labels
    assert any("weights" in label and "CSV" in label for label in labels)
    assert any("Inputs standardised" in c.value for c in at.caption)


def test_standardise_switch_is_in_the_link_and_changes_the_data():
    raw = diabetes_csv()
    at = upload(raw, {"csv_standardise": "false"})
    assert at.toggle(key="w.csv_standardise").value is False
    assert any("not standardised" in c.value for c in at.caption)
    at.toggle(key="w.csv_standardise").set_value(True).run()
    assert "csv_standardise" not in at.query_params  # back to the default


def test_regression_page_plots_along_a_chosen_input_and_warns_about_negative_r2():
    at = upload(diabetes_csv(), {"models": "GPR"})
    at = no_exception(go(at, "pages/regression.py"))
    assert at.selectbox(key="w.plot_input").value == 0
    at.selectbox(key="w.plot_input").set_value(2).run()
    titles = [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]
    assert "Predictions along bmi" in titles, titles
    r2 = at.dataframe[0].value.loc["GPR", "R^2"]
    warned = any("R^2 < 0" in w.value for w in at.warning)
    assert warned == (r2 < 0)


def test_built_in_data_without_shift_is_not_called_shifted():
    at = open_link({"sinc.n_tr": "150", "sinc.n_te": "100", "sinc.mean_te": "0.5", "sinc.std_te": "0.5"})
    at = no_exception(go(at, "pages/check.py"))
    assert any("No difference between the training and test inputs was detected" in i.value for i in at.info)
    assert not any("inputs differ" in w.value for w in at.warning)


def test_few_training_points_are_warned_about():
    rows = "\n".join(f"{i / 10},{(i / 10) ** 2},{int(i % 4 == 0)}" for i in range(80))
    at = open_link({"source": "csv"})
    at.session_state["csv_bytes"] = ("x,y,train\n" + rows).encode()
    at = go(at, "pages/data.py")
    at.multiselect(key="w.csv_inputs").set_value(["x"]).run()
    at.multiselect(key="w.csv_outputs").set_value(["y"]).run()
    at.selectbox(key="w.csv_split").set_value("train").run()
    assert any("Only 20 training points" in w.value for w in no_exception(at).warning)


def test_dropped_rows_name_their_column():
    at = open_link({"source": "csv"})
    at.session_state["csv_bytes"] = b"a,b,c\n" + b"1,,3\n" * 8 + b"1,2,3\n" * 30
    at = no_exception(go(at, "pages/data.py"))
    assert any("Empty cells in column(s) b (8 of 38)" in w.value for w in at.warning)
