"""This session's view: its settings and uploaded file turned into calls of the view pipeline (teaching.views)."""

import functools
import hashlib

import streamlit as st

from teaching import budget, figures, views
from teaching.ui.guard import guard
from teaching.ui.state import get

CSV_MISSING = ("This view uses an uploaded CSV file, and a link cannot carry the file. Upload it on "
               "the **Data & shift** page to see the view (the column choices of the link are kept).")


@functools.lru_cache(maxsize=16)
def digest(raw):
    """SHA-256 of uploaded bytes: the cache key of everything computed from them."""
    return hashlib.sha256(raw).hexdigest()


def csv_bytes():
    """The uploaded CSV of this session, or None."""
    return st.session_state.get("csv_bytes")


def _settings():
    get("seed")  # a page run without app.py recovers here (see state.get)
    return st.session_state.settings


def data_spec(dataset=None):
    """The data spec of the current settings (:func:`teaching.views.data_spec`); ``dataset``
    forces a built-in data set with its current parameters (Home always uses sinc)."""
    raw = csv_bytes()
    return views.data_spec(_settings(), None if raw is None else digest(raw), dataset)


def _raw_for(spec):
    """This session's CSV bytes for a CSV spec (checked against its digest), None for built-in data."""
    if spec[0] != "csv":
        return None
    raw = csv_bytes()
    if spec[1] is None or raw is None:
        raise ValueError(CSV_MISSING.replace("**", ""))
    if digest(raw) != spec[1]:
        raise ValueError("The uploaded file changed during this run; please run the page again.")
    return raw


def load_data(spec=None):
    """The data set a spec names (default: the current settings')."""
    spec = spec or data_spec()
    return views.data(spec, _raw_for(spec))


def csv_table(raw, seed=None):
    """The parsed CSV (cached by the digest of its bytes, the subsample seed and the row limit)."""
    seed = int(get("seed")) if seed is None else int(seed)
    return views.csv_table(digest(raw), seed, views.csv_row_limit(_settings()), raw)


def csv_missing():
    """True (with the request to upload shown) when the view is of a CSV this session lacks."""
    if get("source") == "csv" and csv_bytes() is None:
        st.info(CSV_MISSING, icon=":material/upload_file:")
        return True
    return False


def current_data():
    """The data set of the current settings, or None (with a message shown)."""
    if csv_missing():
        return None
    return guard("Data", load_data)


def data_name():
    return "csv" if get("source") == "csv" else get("dataset")


def refused_at_size(n_tr, n_te):
    """{method: limit} of the methods the current settings run that would be refused at this size."""
    return budget.refused(views.selected_methods(_settings()), n_tr, n_te, sigma_setting())


def sigma_setting():
    return views.sigma_setting(_settings())


def shared_sigma(spec=None):
    """The one sigma of all KLIEP-family solvers on this view (chosen once, cached)."""
    spec = spec or data_spec()
    raw = _raw_for(spec)
    if sigma_setting() is None:
        views.check_size([views.budget.SHARED_SIGMA], spec, None, raw)
    return views.shared_sigma(spec, sigma_setting(), raw)


def weights(name, spec=None):
    """The weight fit of estimator ``name`` on the current data (teaching.catalog.Outcome)."""
    spec = spec or data_spec()
    return views.weights(spec, name, sigma_setting(), _raw_for(spec))


def prediction(name):
    """The fit and test predictions of regression model ``name`` with the current settings."""
    spec = data_spec()
    return views.prediction(spec, name, get("weights_for_models"), sigma_setting(),
                            views.hyper_items(_settings()), _raw_for(spec))


def model_hyper():
    """(hyper-parameters the models use, whether the outputs are standardised for fitting) of the current
    view: for an uploaded CSV with automatic widths, those chosen from the data (teaching.views.model_hyper)."""
    spec = data_spec()
    return views.model_hyper(spec, views.hyper_items(_settings()), _raw_for(spec))


def weighting_effect(spec, weight_name, sigma, width, lambda_x, grid_range):
    """Home's Why-weights figure data (teaching.views.weighting_effect)."""
    return views.weighting_effect(spec, weight_name, sigma, width, lambda_x, grid_range, _raw_for(spec))


def few_labels(n_labels):
    """The few-target-labels comparison of the current view (teaching.views.few_labels)."""
    spec = data_spec()
    hyper, standardise = model_hyper()
    return views.few_labels(spec, get("weights_for_models"), sigma_setting(), int(n_labels), int(get("seed")),
                            float(hyper["rho_x"]), float(hyper["lambda_x"]), _raw_for(spec), standardise)


def weighting_by_width(spec, weight_name, sigma, widths, lambda_x):
    return views.weighting_by_width(spec, weight_name, sigma, tuple(widths), lambda_x, _raw_for(spec))


@st.cache_data(show_spinner=False, max_entries=16)
def _replay(spec, name, sigma, presentation, _raw):
    points = views.data(spec, _raw)
    model = views.weights(spec, name, sigma, _raw).model
    payload = figures.replay_payload(model, points.X_tr, points.X_te, points.density_ratio)
    return figures.replay_html(payload, presentation), figures.replay_height(presentation), payload["meta"]


def replay(spec, name, sigma, presentation=False):
    """The step-by-step replay of a fitted Frank-Wolfe run as one self-contained HTML document, built
    once from its history (no re-solve); every step runs in the browser. Returns (html, height in
    pixels, the payload's meta: solver, steps, whether 1-D)."""
    return _replay(spec, name, sigma, bool(presentation), _raw_for(spec))


def shift_test(method):
    """The two-sample test of the current view's training against test inputs (teaching.views.shift_test)."""
    spec = data_spec()
    return views.shift_test(spec, method, _raw_for(spec))


def column_shift():
    """The per-input shift (KS statistic) of the current view (teaching.views.column_shift)."""
    spec = data_spec()
    return views.column_shift(spec, _raw_for(spec))


def inputs_in_units():
    """(names, X_tr, X_te) of the current view in the file's units (teaching.views.inputs_in_units)."""
    spec = data_spec()
    return views.inputs_in_units(spec, _raw_for(spec))


def output_names():
    spec = data_spec()
    return views.output_names(spec, _raw_for(spec))


def weight_check(name):
    """Mean-1 weights of estimator ``name``, their summary and the largest (teaching.views.weight_check)."""
    spec = data_spec()
    return views.weight_check(spec, name, sigma_setting(), _raw_for(spec))


def cv_errors(model_name, weight_name):
    """Ordinary vs importance-weighted CV error of a model, and its test error (teaching.views.cv_errors)."""
    spec = data_spec()
    return views.cv_errors(spec, model_name, weight_name, sigma_setting(), views.hyper_items(_settings()),
                           _raw_for(spec))


def csv_rows():
    """Sentences on the rows of the current CSV view: left out and why, how many have outputs
    (teaching.views.csv_rows); [] for built-in data."""
    spec = data_spec()
    return views.csv_rows(spec, _raw_for(spec))
