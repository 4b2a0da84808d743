"""Uploaded data are fitted on their own scale (issue 25, item 3): on CSVs of scikit-learn's bundled diabetes and
wine data the default regression models beat predicting the mean, the page says which widths it used, and
built-in views keep the hyper-parameters as set."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_wine

from teaching import catalog, settings, steps, uploaded_files
from teaching.view import View, hyper_items
from tests.teaching.app.helpers import go, no_exception, open_link, table
from tests.teaching.app.test_check_page import INPUTS, diabetes_csv

#: The default models of the Structured regression page and the baseline without kernels.
MODELS = "GPR,SMTGP,IW-SMTGP,WKNN"


def wine_csv():
    """The wine data as a CSV (alcohol and proline in their units, colour intensity the output)."""
    bunch = load_wine()
    return pd.DataFrame(bunch.data, columns=bunch.feature_names).to_csv(index=False).encode()


def ui_digest(at):
    return uploaded_files.add_file(at.session_state["csv_bytes"])


def upload(raw, inputs, outputs, split, query=None):
    at = open_link({"source": "csv", "models": MODELS, **(query or {})})
    at.session_state["csv_bytes"] = raw
    at = go(at, "pages/data.py")
    at.multiselect(key="w.csv_inputs").set_value(inputs).run()
    at.multiselect(key="w.csv_outputs").set_value(outputs).run()
    at.selectbox(key="w.csv_split").set_value(split).run()
    return no_exception(go(at, "pages/regression.py"))


CASES = {"diabetes": (diabetes_csv, INPUTS, ["target"], "train"),
         "wine": (wine_csv, ["alcohol", "proline"], ["color_intensity"], "selection bias")}


@pytest.fixture(scope="module", params=list(CASES))
def page(request):
    make, inputs, outputs, split = CASES[request.param]
    return upload(make(), inputs, outputs, split), request.param


def test_default_models_beat_the_mean_on_uploaded_data(page):
    at, name = page
    r2 = table(at)["R^2"]
    assert set(r2.index) == set(MODELS.split(",")), r2
    assert (r2 > 0).all(), (name, r2.to_dict())  # before: GPR -5.3 (diabetes), -2.7 (wine)
    assert not any("R^2 < 0" in w.value for w in at.warning)


def test_page_names_the_widths_it_chose(page):
    at, _ = page
    assert at.radio(key="w.csv_hyper").value == "auto"
    assert not [w for w in at.number_input if w.key in ("w.rho_x", "w.lambda_x")]  # the values used instead:
    used, _ = View.from_settings({**settings.defaults(), **at.session_state.settings}, ui_digest(at)).model_hyper()
    shown = " ".join(m.value for m in at.markdown)
    assert f"Input width: **{used['rho_x']:.3g}**" in shown and used["rho_x"] != settings.defaults()["rho_x"]
    said = " ".join(c.value for c in at.caption)
    assert "the median distance between two training inputs" in said
    assert "mapped back" in said and "leave-one-out" in said


def test_manual_widths_are_the_sliders_in_standardised_units():
    at = upload(wine_csv(), ["alcohol", "proline"], ["color_intensity"], "selection bias",
                {"csv_hyper": "manual", "models": "GPR"})
    assert at.number_input(key="w.rho_x").value == settings.defaults()["rho_x"]
    assert "the values set above" in " ".join(c.value for c in at.caption)
    r2_manual = table(at).loc["GPR", "R^2"]
    at.radio(key="w.csv_hyper").set_value("auto").run()
    assert table(no_exception(at)).loc["GPR", "R^2"] > max(r2_manual, 0)


def test_built_in_views_keep_the_hyper_parameters_as_set():
    values = settings.defaults()
    hyper = hyper_items(values)
    assert dict(hyper) == {k: values[k] for k in ["theta", "gamma", "rho_x", "rho_y", "lambda_x", "lambda_y",
                                                   "tgp_start"]}
    view = View.from_settings({**values, "sinc.n_tr": 100, "sinc.n_te": 60})
    used, standardise = view.model_hyper()
    assert view.hyper == hyper and used == dict(hyper) and standardise is False
    direct = catalog.make_regressor("GPR", **used).fit(view.data().X_tr, view.data().Y_tr)
    np.testing.assert_array_equal(view.prediction("GPR").model["mean"][:, 0], direct.predict(view.data().X_te)[:, 0])
