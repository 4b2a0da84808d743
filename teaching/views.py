"""The view pipeline, written once: settings -> data -> sigma -> weights -> predictions.

Every step is a plain function of small hashable arguments (a data spec, names, numbers), so a
page, a lesson's claim check, a benchmark or a worker process computes a view by calling the
same functions. Nothing here imports Streamlit. The steps call each other through one cache,
applied at one place: :func:`use_cache` (the app installs ``st.cache_data``; without it, a
bounded ``functools.lru_cache`` per step).

A *data spec* names the data of a view:

- ``("built-in", name, ((parameter, value), ...), seed)`` for a generator of :mod:`teaching.catalog`;
- ``("csv", file_digest, columns_json, seed, max_rows)`` for an uploaded file (``columns_json``: the
  inputs, outputs, train/test column and whether the inputs are standardised), whose bytes are
  passed beside the spec as ``raw`` (the digest is the cache key; the bytes are not hashed again).

Sizes are checked against the time budget (:mod:`teaching.budget`) before a step computes:
:func:`weights` and :func:`prediction` raise the budget's ``ValueError`` (limit and way out).
"""

import functools
import json
import threading
import time

import numpy as np

from covshift import diagnostics
from teaching import budget, catalog, uploads

#: Cache entries kept per step (the app's st.cache_data and the default lru_cache alike).
CACHE_ENTRIES = {"csv_table": 8, "data": 32, "shared_sigma": 32, "fitted_weights": 64, "fitted_prediction": 64,
                 "weighting_effect": 64, "weighting_by_width": 32, "few_labels": 32, "shift_test": 32,
                 "column_shift": 32, "fitted_cv_errors": 32, "data_hyper": 32, "timing": 64}

#: The steps that fit something (tenths of a CPU-second and more): with an executor installed
#: (:func:`use_executor`), a cache miss of one of them is computed there. The others are cheap.
REMOTE_STEPS = ("shared_sigma", "fitted_weights", "fitted_prediction", "weighting_effect", "weighting_by_width",
                "few_labels", "timing")

_STEPS = {}
_CACHED = {}
_EXECUTOR = [None]
_HERE = threading.local()  # .computing: this thread computes a step for an executor (nested steps stay here)


def _step(function):
    """Register a pipeline step: calls go through the cache installed by :func:`use_cache`."""
    name = function.__name__
    _STEPS[name] = function

    @functools.wraps(function)
    def call(*args, **kwargs):
        return _CACHED[name](*args, **kwargs)

    call.uncached = function
    return call


def use_cache(make_cache=None):
    """Apply ``make_cache(step_function, max_entries)`` to every step (one place for the whole app).

    ``None`` restores the default: ``functools.lru_cache(maxsize=max_entries)``. The app passes a
    wrapper around ``st.cache_data``, shared between sessions. A step of :data:`REMOTE_STEPS`
    is computed on the executor of :func:`use_executor` when one is installed.
    """
    make_cache = make_cache or (lambda function, entries: functools.lru_cache(maxsize=entries)(function))
    for name, function in _STEPS.items():
        _CACHED[name] = make_cache(_remote(name, function) if name in REMOTE_STEPS else function,
                                   CACHE_ENTRIES[name])


def use_executor(executor=None):
    """Compute the cache misses of :data:`REMOTE_STEPS` on ``executor``; None: in this process.

    ``executor``: anything whose ``submit(function, *args)`` returns a future with ``result()``: a
    ``concurrent.futures.ProcessPoolExecutor`` (every core of one server), a
    ``dask.distributed.Client`` (a cluster). The result comes back into this process's cache, so
    only a miss travels; the worker computes the step with its own default cache. A step's
    ValueError (the time budget, bad input) reaches the caller unchanged. Returns the executor
    that was installed before.
    """
    previous, _EXECUTOR[0] = _EXECUTOR[0], executor
    return previous


def compute(name, args, kwargs):
    """Step ``name`` computed here, through this process's cache: what an executor's worker runs.

    The steps it calls are computed here too, never sent on.
    """
    outer, _HERE.computing = getattr(_HERE, "computing", False), True
    try:
        return _CACHED[name](*args, **kwargs)
    finally:
        _HERE.computing = outer


def _remote(name, function):
    """``function`` (step ``name``) sent to the installed executor when there is one."""

    @functools.wraps(function)
    def run(*args, **kwargs):
        executor = _EXECUTOR[0]
        if executor is None or getattr(_HERE, "computing", False):
            return function(*args, **kwargs)
        return executor.submit(compute, name, args, kwargs).result()

    return run


# ------------------------------------------------------------------ settings -> arguments
def sigma_setting(settings):
    """The view's kernel width: None for "auto" (the shared likelihood-CV choice), else the number."""
    return None if settings["sigma_mode"] == "auto" else float(settings["sigma"])


def hyper_items(settings, **overrides):
    """The regression hyper-parameters of a view as a sorted tuple of items (a cache key).

    For an uploaded CSV two more items say how the models follow the data's scale (resolved by
    :func:`model_hyper`): ``standardise_outputs`` (the "Standardise" switch) and ``widths`` ("auto":
    rho_x, rho_y, lambda_x and lambda_y from the data, :func:`teaching.catalog.data_hyper`; "manual").
    """
    numbers = {k: float(settings[k]) for k in ["theta", "gamma", "rho_x", "rho_y", "lambda_x", "lambda_y"]}
    if settings["source"] == "csv":
        numbers.update(standardise_outputs=bool(settings["csv_standardise"]), widths=settings["csv_hyper"])
    return tuple(sorted({**numbers, "tgp_start": settings["tgp_start"], **overrides}.items()))


def selected_methods(settings):
    """Every weight estimator and regression model the settings run somewhere in the app."""
    return list(dict.fromkeys([*settings["estimators"], *settings["models"], settings["weights_for_models"],
                               settings["check_weights"], settings["check_model"]]))


def csv_row_limit(settings):
    """Rows kept from an uploaded CSV: the slowest selected method decides (:mod:`teaching.budget`)."""
    return catalog.max_csv_rows(selected_methods(settings), sigma_setting(settings))


def csv_split(settings):
    """The train/test choice of an uploaded CSV as :func:`teaching.uploads.csv_dataset` takes it: None for
    selection bias, a column name, or [date column, first test date] when a date is typed."""
    split = settings["csv_split"]
    if split == "selection bias":
        return None
    date = settings.get("csv_split_date", "")
    return [split, date] if date else split


def csv_rows(spec, _raw=None):
    """Sentences on the rows of an uploaded CSV view: rows left out and why, how many have outputs
    (:func:`teaching.uploads.describe_rows`); [] for built-in data."""
    if spec[0] != "csv":
        return []
    _, file_digest, columns, seed, max_rows = spec
    inputs = json.loads(columns)[0]
    return uploads.describe_rows(csv_table(file_digest, seed, max_rows, _raw), inputs, data(spec, _raw))


def data_spec(settings, csv_digest=None, dataset=None):
    """The data spec of ``settings`` (see the module docstring).

    ``csv_digest``: the digest of this session's uploaded file (None if it has none) when the
    source is a CSV; ``dataset`` forces a built-in data set with its current parameters.
    """
    if dataset is None and settings["source"] == "csv":
        columns = json.dumps([settings["csv_inputs"], settings["csv_outputs"], csv_split(settings),
                              bool(settings["csv_standardise"])])
        return ("csv", csv_digest, columns, int(settings["seed"]), csv_row_limit(settings))
    name = dataset or settings["dataset"]
    params = tuple((p, settings[f"{name}.{p}"]) for p in catalog.DATASETS[name][1])
    return ("built-in", name, params, int(settings["seed"]))


# ------------------------------------------------------------------ the steps
@_step
def csv_table(file_digest, seed, max_rows, _raw):
    """The parsed CSV (:class:`teaching.catalog.CsvTable`), keyed by the digest of its bytes."""
    return uploads.read_csv(_raw, seed=seed, max_rows=max_rows)


@_step
def data(spec, _raw=None):
    """The data set a spec names (a :class:`covshift.data.ShiftData`)."""
    if spec[0] == "csv":
        _, file_digest, columns, seed, max_rows = spec
        inputs, outputs, split, standardise = json.loads(columns)
        table = csv_table(file_digest, seed, max_rows, _raw)
        return uploads.csv_dataset(table, inputs, outputs, split, seed, standardise=standardise)
    _, name, params, seed = spec
    return catalog.make_dataset(name, seed=seed, **dict(params))


@_step
def shared_sigma(spec, sigma, _raw=None):
    """The one width of every KLIEP-family solver on this data (:func:`teaching.catalog.shared_kliep_sigma`)."""
    return catalog.shared_kliep_sigma(data(spec, _raw), sigma)


def sigma_for(spec, name, sigma, _raw=None):
    """The width estimator ``name`` uses: the shared choice for the KLIEP family, else ``sigma``."""
    return shared_sigma(spec, sigma, _raw).sigma if name in catalog.KLIEP_FAMILY else sigma


@_step
def fitted_weights(spec, name, sigma, _raw=None):
    """:func:`teaching.catalog.fit_weights` with the width ``sigma`` already resolved (:func:`sigma_for`)."""
    return catalog.fit_weights(data(spec, _raw), name, sigma)


def check_size(names, spec, sigma=None, _raw=None):
    """ValueError naming the limit and the way out when a method would exceed the time budget."""
    points = data(spec, _raw)
    catalog.check_size(names, len(points.X_tr), len(points.X_te), sigma)


def weights(spec, name, sigma, _raw=None):
    """The weight fit of estimator ``name`` (a :class:`teaching.catalog.Outcome`), within the budget.

    ``sigma``: the view's setting (None: "auto").
    """
    if sigma is None and name in catalog.KLIEP_FAMILY:
        check_size([budget.SHARED_SIGMA], spec, None, _raw)
    resolved = sigma_for(spec, name, sigma, _raw)
    check_size([name], spec, resolved, _raw)
    return fitted_weights(spec, name, resolved, _raw)


#: Timed runs of one point of the Scaling page (:func:`timing`) at most, and the CPU seconds after
#: which no further run starts: a point costs at most about this plus two runs.
TIMING_RUNS, TIMING_SECONDS = 5, 1.0


@_step
def timing(name, n, sigma):
    """CPU seconds of fitting weight estimator ``name`` with the fixed width ``sigma`` on the sinc
    data (seed 0) at n_tr = n_te = n: ``(seconds, iterations, limited)``: a tuple of one time per timed
    run, the solver's iteration count (``n_iter_``; None for an estimator without one) and whether it
    stopped at its iteration limit (``max_iter``).

    The time is this thread's CPU time (``time.thread_time``; the app's BLAS runs one thread per
    computation), so other sessions on the machine do not inflate it as they do wall time. The
    first run is a warm-up, dropped when a further run follows (first-call costs: allocation,
    caches); runs follow while fewer than :data:`TIMING_RUNS` are timed and their sum stays under
    :data:`TIMING_SECONDS`. ValueError (the budget's limit and way out) beyond the time budget.
    """
    budget.check_size(name, n, n, sigma)
    points = catalog.make_dataset("sinc", seed=0, n_tr=n, n_te=n)
    runs, fitted = [], None
    while len(runs) < TIMING_RUNS + 1 and (len(runs) < 2 or sum(runs[1:]) < TIMING_SECONDS):
        start = time.thread_time()
        fitted = catalog.make_weight_estimator(name, sigma).fit(points.X_tr, points.X_te)
        runs.append(time.thread_time() - start)
        if len(runs) == 1 and runs[0] >= TIMING_SECONDS:
            break  # one slow run: first-call costs are negligible beside it, a second run would break the budget
    iterations = getattr(fitted, "n_iter_", None)
    limited = iterations is not None and iterations >= getattr(fitted, "max_iter", float("inf"))
    return tuple(runs[1:] or runs), None if iterations is None else int(iterations), bool(limited)


def timing_summary(timings):
    """The Scaling page's table and slopes from :func:`timing` results.

    Parameters
    ----------
    timings : dict
        {name: {n: (seconds, iterations, limited)}}; a refused size is absent.

    Returns
    -------
    rows : list of dict
        One per method and size: median CPU seconds, the range of the runs, the number of runs,
        the iterations, whether they reached the limit, and the milliseconds per iteration.
    slopes : dict
        {name: slope of log(median seconds) against log(n)} (least squares), for the methods
        timed at two sizes or more: about 1 means time proportional to n, 2 to n^2.
    """
    rows, slopes = [], {}
    for name, by_size in timings.items():
        sizes = sorted(by_size)
        medians = [float(np.median(by_size[n][0])) for n in sizes]
        for n, median in zip(sizes, medians):
            runs, iterations, limited = by_size[n]
            rows.append({"method": name, "n": n, "median s": median, "min s": min(runs), "max s": max(runs),
                         "runs": len(runs), "iterations": iterations, "at iteration limit": limited,
                         "ms / iteration": 1000 * median / iterations if iterations else None})
        if len(sizes) >= 2:
            slopes[name] = float(np.polyfit(np.log(sizes), np.log(medians), 1)[0])
    return rows, slopes


@_step
def data_hyper(spec, standardise_outputs, _raw=None):
    """The hyper-parameters that follow the scale of the view's data (:func:`teaching.catalog.data_hyper`)."""
    return catalog.data_hyper(data(spec, _raw), standardise_outputs)


def model_hyper(spec, hyper, _raw=None):
    """(hyper-parameters as a dict, whether outputs are standardised for fitting) of :func:`hyper_items`
    ``hyper``, with the "auto" widths of an uploaded CSV replaced by :func:`data_hyper`'s values."""
    values = dict(hyper)
    standardise = values.pop("standardise_outputs", False)
    if values.pop("widths", "manual") == "auto":
        values.update(data_hyper(spec, standardise, _raw))
    return values, standardise


@_step
def fitted_prediction(spec, name, weight_name, sigma, hyper, _raw=None):
    """Model ``name`` fitted (with the weights of ``weight_name`` for IW-* models) and its test
    predictions; an SMTGP with the linear start reuses its cached KLTGP start."""
    w = None
    if catalog.REGRESSORS[name]:
        w = fitted_weights(spec, weight_name, sigma_for(spec, weight_name, sigma, _raw), _raw).model.weights_
    values, standardise = model_hyper(spec, hyper, _raw)
    stage = catalog.chain_start(name, values["tgp_start"])
    start = fitted_prediction(spec, stage, weight_name, sigma, hyper, _raw) if stage else None
    return catalog.fit_predict(data(spec, _raw), name, w, start=start, standardise_outputs=standardise, **values)


def prediction(spec, name, weight_name, sigma, hyper, _raw=None):
    """The fit and test predictions of regression model ``name`` (an Outcome), within the budget."""
    check_size([name], spec, None, _raw)
    if catalog.REGRESSORS.get(name):
        if sigma is None and weight_name in catalog.KLIEP_FAMILY:
            check_size([budget.SHARED_SIGMA], spec, None, _raw)
        check_size([weight_name], spec, sigma_for(spec, weight_name, sigma, _raw), _raw)
    return fitted_prediction(spec, name, weight_name, sigma, hyper, _raw)


@_step
def weighting_effect(spec, weight_name, sigma, width, lambda_x, grid_range, _raw=None):
    """Home's Why-weights figure data (:func:`teaching.catalog.weighting_effect`) on a 300-point grid."""
    check_size([weight_name, "GPR"], spec, None, _raw)
    grid = np.linspace(*grid_range, 300)[:, None]
    estimated = weights(spec, weight_name, sigma, _raw).model.weights_
    return catalog.weighting_effect(data(spec, _raw), estimated, width, lambda_x, grid)


@_step
def weighting_by_width(spec, weight_name, sigma, widths, lambda_x, _raw=None):
    """Test MAE without, with true and with estimated weights, per GP width (:func:`teaching.catalog.weighting_by_width`)."""
    check_size([weight_name, "GPR"], spec, None, _raw)
    estimated = weights(spec, weight_name, sigma, _raw).model.weights_
    return catalog.weighting_by_width(data(spec, _raw), estimated, list(widths), lambda_x)



@_step
def few_labels(spec, weight_name, sigma, n_labels, seed, rho_x, lambda_x, _raw=None, standardise_outputs=False):
    """No adaptation, importance weighting and delta adaptation with ``n_labels`` labelled test
    points (:func:`teaching.catalog.few_labels_comparison`): (X_eval, Y_eval, {method: predictions})."""
    estimated = weights(spec, weight_name, sigma, _raw).model.weights_
    return catalog.few_labels_comparison(data(spec, _raw), estimated, n_labels=n_labels, seed=seed,
                                         standardise_outputs=standardise_outputs, rho_x=rho_x, lambda_x=lambda_x)

# ------------------------------------------------------------------ Check your data
#: Folds of the cross-validation check; the largest weights listed.
CHECK_FOLDS, TOP_WEIGHTS = 5, 10


def input_units(spec, _raw=None):
    """(names, mean, scale) of the inputs of a view: original units = x * scale + mean (the
    standardisation of an uploaded CSV, :func:`teaching.uploads.input_scaling`; identity otherwise)."""
    d = data(spec, _raw).X_tr.shape[1]
    if spec[0] != "csv":
        return [f"x{j}" for j in range(d)], np.zeros(d), np.ones(d)
    _, file_digest, columns, seed, max_rows = spec
    inputs, _, _, standardise = json.loads(columns)
    mean, scale = uploads.input_scaling(csv_table(file_digest, seed, max_rows, _raw), inputs, standardise)
    return list(inputs), mean, scale


def inputs_in_units(spec, _raw=None):
    """(names, X_tr, X_te) of a view with the inputs in the units of the file (:func:`input_units`)."""
    points = data(spec, _raw)
    names, mean, scale = input_units(spec, _raw)
    return names, points.X_tr * scale + mean, points.X_te * scale + mean


def output_names(spec, _raw=None):
    """The output names of a view (the CSV's columns, else y0, y1, ...)."""
    if spec[0] == "csv":
        return list(json.loads(spec[2])[1])
    return [f"y{k}" for k in range(data(spec, _raw).Y_tr.shape[1])]


@_step
def shift_test(spec, method, _raw=None):
    """:func:`covshift.diagnostics.two_sample_test` of the view's training against test inputs
    (seeded by the view's seed), as an Outcome (result, seconds, warnings)."""
    points = data(spec, _raw)
    return catalog.Outcome(*catalog.run_with_warnings(lambda: diagnostics.two_sample_test(
        points.X_tr, points.X_te, method=method, random_state=int(spec[3]))))


@_step
def column_shift(spec, _raw=None):
    """:func:`covshift.diagnostics.feature_shift` of the view's inputs: KS statistic per column."""
    points = data(spec, _raw)
    return diagnostics.feature_shift(points.X_tr, points.X_te)


def weight_check(spec, name, sigma, _raw=None):
    """The weights of estimator ``name`` on the mean-1 scale, their :func:`covshift.diagnostics.weight_summary`
    and the training points with the :data:`TOP_WEIGHTS` largest weights (indices, largest first)."""
    w = np.asarray(weights(spec, name, sigma, _raw).model.weights_, dtype=float)
    w = w / w.mean()
    top = np.argsort(-w, kind="stable")[:TOP_WEIGHTS]
    points = data(spec, _raw)
    return {"weights": w, "summary": diagnostics.weight_summary(w, points.X_tr, points.X_te), "top": top}


@_step
def fitted_cv_errors(spec, model_name, weight_name, sigma, hyper, _raw=None):
    """Unweighted and importance-weighted cross-validation error of ``model_name`` (squared error
    summed over the outputs, :func:`covshift.diagnostics.iw_cv_error` with the weights of
    ``weight_name`` on the mean-1 scale) on the training rows with outputs, its actual error on the
    test rows with outputs (None when no test row has one), and the error of predicting the training
    mean on the training points (the outputs' variance): {"cv": IWCVResult, "test": float or None,
    "baseline": float, "n_scored": test rows scored, "n_fitted": training rows cross-validated}."""
    points = data(spec, _raw)
    w = fitted_weights(spec, weight_name, sigma_for(spec, weight_name, sigma, _raw), _raw).model.weights_
    w = np.asarray(w, dtype=float) / np.mean(w)
    values, standardise = model_hyper(spec, hyper, _raw)
    model = catalog.cv_model(model_name, standardise_outputs=standardise, **values)
    labelled, scored = points.labelled_tr, points.labelled_te  # rows without outputs are neither fitted nor scored
    Y_tr = points.Y_tr[labelled]
    cv = diagnostics.iw_cv_error(model, points.X_tr[labelled], Y_tr, w[labelled], cv=CHECK_FOLDS,
                                 random_state=int(spec[3]))
    pred = fitted_prediction(spec, model_name, weight_name, sigma, hyper, _raw).model["mean"]
    test = float(np.mean(np.sum((points.Y_te[scored] - pred[scored]) ** 2, axis=1))) if scored.any() else None
    return {"cv": cv, "test": test, "baseline": float(np.sum(np.var(Y_tr, axis=0))), "n_scored": int(scored.sum()),
            "n_fitted": int(labelled.sum())}


def cv_errors(spec, model_name, weight_name, sigma, hyper, _raw=None):
    """:func:`fitted_cv_errors` within the time budget (the model and the weights, as :func:`prediction`)."""
    weights(spec, weight_name, sigma, _raw)  # both check the sizes; their results are cached for the step
    prediction(spec, model_name, weight_name, sigma, hyper, _raw)
    return fitted_cv_errors(spec, model_name, weight_name, sigma, hyper, _raw)


use_cache()
