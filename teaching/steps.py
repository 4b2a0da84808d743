"""The view pipeline's steps, written once: data -> sigma -> weights -> predictions, and one cache for them.

Every step is a plain function of small hashable arguments (a data spec, names, numbers), so a
page, a lesson's claim check, a benchmark or a worker process computes a view by calling the
same functions; :class:`teaching.view.View` is how the app and the lessons call them. Nothing here
imports Streamlit. The steps call each other through one cache, applied at one place:
:func:`use_cache` (the app installs ``st.cache_data``; without it, a bounded ``functools.lru_cache``
per step), and the cache misses of the fits may run on an executor (:func:`use_executor`).

A *data spec* names the data of a view: :class:`BuiltInData` (a generator of :mod:`teaching.catalog`)
or :class:`UploadedData` (an uploaded CSV, by the digest of its bytes, which :mod:`teaching.uploaded_files`
keeps beside the pipeline: the digest is the cache key; the bytes are not hashed again, nor passed along).

The steps do not check the time budget: :meth:`teaching.view.View.admit` does, before calling them.
"""

import functools
import threading
import time
from dataclasses import dataclass

import numpy as np

from covshift import diagnostics
from covshift.kernels import median_heuristic
from teaching import budget, catalog, fits, outcomes, uploaded_files, uploads

#: Cache entries kept per step (the app's st.cache_data and the default lru_cache alike).
CACHE_ENTRIES = {"csv_parsed": 8, "csv_table": 8, "data": 32, "shared_sigma": 32, "median_sigma": 32,
                 "fitted_weights": 64,
                 "fitted_prediction": 64, "weighting_effect": 160, "weighting_by_width": 32,
                 "few_labels": 32, "shift_test": 32,
                 "column_shift": 32, "fitted_cv_errors": 32, "data_hyper": 32, "timing": 64,
                 "classification_toy": 32, "classifiers": 32, "transfer_data": 12, "transfer_source": 12, "transfer_fit": 32,
                 "replay_document": 16, "reproduction_row": 64}

#: The steps that fit something (tenths of a CPU-second and more): with an executor installed
#: (:func:`use_executor`), a cache miss of one of them is computed there. The others are cheap.
REMOTE_STEPS = ("shared_sigma", "fitted_weights", "fitted_prediction", "weighting_effect",
                "few_labels", "timing", "fitted_cv_errors", "classifiers", "transfer_source", "transfer_fit",
                "reproduction_row")

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
    ``dask.distributed.Client`` (a cluster); while its ``takes_work()`` (if it has one) is False, the misses are
    computed here, one at a time (the server's first view, while its workers start). The result comes back into this process's cache, so
    only a miss travels; the worker computes the step with its own default cache. A step's
    ValueError (the time budget, bad input) reaches the caller unchanged. Returns the executor
    that was installed before.
    """
    previous, _EXECUTOR[0] = _EXECUTOR[0], executor
    return previous


def compute(name, args, kwargs, files=()):
    """Step ``name`` computed here, through this process's cache: what an executor's worker runs.

    The steps it calls are computed here too, never sent on. ``files``: ((digest, bytes), ...) of the
    uploaded files the step's data specs name, kept here first (:func:`teaching.uploaded_files.add_file`).
    """
    for _, raw in files:
        uploaded_files.add_file(raw)
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
        if not _takes_work(executor) and _STARTING_SLOT.acquire(blocking=False):
            outer, _HERE.computing = getattr(_HERE, "computing", False), True  # its nested steps stay here too
            try:
                return function(*args, **kwargs)
            finally:
                _HERE.computing = outer
                _STARTING_SLOT.release()
        files = _files_of(args)
        return executor.submit(compute, name, args, kwargs, *([files] if files else [])).result()

    return run


#: While the executor's workers start, one computation at a time is made here (the teacher's first view, at once);
#: the others wait for the workers instead of sharing this process's interpreter lock (a class arriving together).
_STARTING_SLOT = threading.Lock()


def _takes_work(executor):
    """False while the executor's workers start (:meth:`teaching.workers.ProcessFits.takes_work`): a view then
    computes here, at once, instead of queueing behind them, if no other does (:data:`_STARTING_SLOT`). An executor
    without the method always takes work."""
    takes_work = getattr(executor, "takes_work", None)
    return takes_work is None or takes_work()


def _files_of(args):
    """(digest, bytes) of the uploaded files the data specs among ``args`` name: sent with a step to a worker."""
    return tuple((a.digest, uploaded_files.file_bytes(a.digest)) for a in args if isinstance(a, UploadedData))


# ------------------------------------------------------------------ data specs
@dataclass(frozen=True)
class BuiltInData:
    """A built-in data set of :mod:`teaching.catalog`: its name, its parameters ((name, value), ...) and seed."""

    name: str
    params: tuple
    seed: int


@dataclass(frozen=True)
class UploadedData:
    """An uploaded CSV (by the digest of its bytes, :func:`teaching.uploaded_files.add_file`): its input and output columns, the
    train/test choice (None: selection bias, the seeded sampler; a column name; or (date column, first
    test date), :func:`teaching.view.csv_split`), whether inputs are standardised, and the seed (which also
    draws the rows kept from a file longer than :data:`teaching.budget.CSV_MAX_ROWS`)."""

    digest: str
    inputs: tuple
    outputs: tuple
    split: object
    standardise: bool
    seed: int


# ------------------------------------------------------------------ the steps
@_step
def csv_parsed(file_digest):
    """The parsed CSV (:class:`teaching.uploads.CsvTable`, :func:`teaching.uploads.parse_csv`: bounded in
    size and time), keyed by the digest of its bytes alone: a new seed does not parse it again."""
    return uploads.parse_csv(uploaded_files.file_bytes(file_digest))


@_step
def csv_table(file_digest, seed):
    """The parsed CSV with at most :data:`teaching.budget.CSV_MAX_ROWS` rows, drawn with ``seed``
    (:func:`teaching.uploads.subsample`): the same rows whatever the methods and the width rule."""
    return uploads.subsample(csv_parsed(file_digest), seed, budget.CSV_MAX_ROWS)


@_step
def data(spec):
    """The data set a spec names (a :class:`covshift.data.ShiftData`)."""
    if isinstance(spec, UploadedData):
        table = csv_table(spec.digest, spec.seed)
        split = list(spec.split) if isinstance(spec.split, tuple) else spec.split
        return uploads.csv_dataset(table, list(spec.inputs), list(spec.outputs), split, spec.seed,
                                   standardise=spec.standardise)
    return catalog.make_dataset(spec.name, seed=spec.seed, **dict(spec.params))


@_step
def shared_sigma(spec, sigma):
    """The one width of every KLIEP-family solver on this data (:func:`teaching.fits.regression.shared_kliep_sigma`);
    ``sigma``: a number, or "auto" (likelihood cross-validation)."""
    return fits.regression.shared_kliep_sigma(data(spec), sigma)


@_step
def median_sigma(spec):
    """The median-heuristic width of this data (:func:`covshift.kernels.median_heuristic` of the training and test
    inputs stacked, seed 0): the "auto" width of the :data:`teaching.catalog.MEDIAN_RULE` estimators, computed once
    for all of them (each would compute the same number itself)."""
    points = data(spec)
    return median_heuristic(np.vstack([points.X_tr, points.X_te]), random_state=0)


@_step
def fitted_weights(spec, name, sigma):
    """Weight estimator ``name`` (:func:`teaching.catalog.make_weight_estimator`) fitted with the width ``sigma``
    already resolved (:meth:`teaching.view.View.sigma_for`): an :class:`teaching.outcomes.Outcome`."""
    points = data(spec)
    return outcomes.Outcome(*outcomes.run_with_warnings(
        lambda: catalog.make_weight_estimator(name, sigma).fit(points.X_tr, points.X_te)))


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
    :data:`TIMING_SECONDS`. The time budget is checked before (:meth:`teaching.view.View.timing`).
    """
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


#: Fewest training rows with outputs a model is fitted on (and cross-validated on: one per fold).
MIN_LABELLED = 5


def labelled_data(spec):
    """The view's data (:func:`data`) when enough training rows have outputs to fit a model; else ValueError
    saying how many have them and what can still be done (the shift test and the weights need none)."""
    points = data(spec)
    n_labelled = int(points.labelled_tr.sum())
    if n_labelled < MIN_LABELLED:
        raise ValueError(f"{n_labelled} of the {len(points.X_tr)} training rows have outputs; a model needs at least "
                         f"{MIN_LABELLED} to be fitted and cross-validated. The shift test, the ranking of the inputs "
                         "and the weights use the inputs alone; to fit a model, make the rows with outputs the training "
                         "rows (the train/test choice on Data & shift).")
    return points


@_step
def data_hyper(spec, standardise_outputs):
    """The hyper-parameters that follow the scale of the view's data (:func:`teaching.fits.regression.data_hyper`)."""
    return fits.regression.data_hyper(labelled_data(spec), standardise_outputs)


def model_hyper(spec, hyper):
    """(hyper-parameters as a dict, whether outputs are standardised for fitting) of the hyper items
    ``hyper`` (:attr:`teaching.view.View.hyper`), the "auto" widths of an uploaded CSV replaced by
    :func:`data_hyper`'s values."""
    values = dict(hyper)
    standardise = values.pop("standardise_outputs", False)
    if values.pop("widths", "manual") == "auto":
        values.update(data_hyper(spec, standardise))
    return values, standardise


@_step
def fitted_prediction(spec, name, weight_name, weight_sigma, hyper):
    """Model ``name`` fitted (with the weights of ``weight_name`` at width ``weight_sigma`` for IW-*
    models; None and None for the others, so that one fit serves every weighting) and its test
    predictions. An SMTGP with the linear start computes its KLTGP start inside its own fit, on the
    kernel inverses it needs anyway (the same numbers as the KLTGP step's; that step, a fit of its own,
    inverted the same two matrices again: issue 40)."""
    points = labelled_data(spec)
    w = fitted_weights(spec, weight_name, weight_sigma).model.weights_ if catalog.REGRESSORS[name] else None
    values, standardise = model_hyper(spec, hyper)
    return fits.regression.fit_predict(points, name, w, standardise_outputs=standardise, **values)


@_step
def replay_document(spec, name, sigma, presentation):
    """The step-by-step replay of the Frank-Wolfe fit :func:`fitted_weights` of ``name`` as one self-contained HTML
    document (:mod:`teaching.figures.replay`: built from the fit's history, no re-solve; every step runs in the
    browser): (html, height in pixels, the payload's meta: solver, steps, whether 1-D). Fits nothing itself, so it
    is built here (the fit it reads is a step of its own, on the executor)."""
    from teaching import figures  # drawing code: only the server builds a document, never a worker

    points = data(spec)
    payload = figures.replay_payload(fitted_weights(spec, name, sigma).model, points.X_tr, points.X_te,
                                     points.density_ratio)
    return figures.replay_html(payload, presentation), figures.replay_height(presentation), payload["meta"]


@_step
def weighting_effect(spec, weight_name, weight_sigma, width, lambda_x):
    """A GP of input width ``width`` without, with true and with estimated weights
    (:func:`teaching.fits.regression.weighting_effect`): {label: (test MAE, predictions on the data's
    :func:`teaching.fits.regression.effect_grid`)}. Home's figure draws the predictions of its width; its
    table (:func:`weighting_by_width`) reads the MAEs of every width, the figure's width among them, fitted once."""
    points = data(spec)
    estimated = fitted_weights(spec, weight_name, weight_sigma).model.weights_
    return fits.regression.weighting_effect(points, estimated, width, lambda_x, fits.regression.effect_grid(points))


@_step
def weighting_by_width(spec, weight_name, weight_sigma, widths, lambda_x):
    """Test MAE without, with true and with estimated weights, per GP width: {width: {label: MAE}}, each width
    one cached step (:func:`weighting_effect`), so the Home page's figure and table and the Why-weights claims,
    which ask for different lists of widths, fit each width once."""
    return {float(width): {label: mae for label, (mae, _) in
                           weighting_effect(spec, weight_name, weight_sigma, float(width), lambda_x).items()}
            for width in widths}


@_step
def few_labels(spec, weight_name, weight_sigma, n_labels, rho_x, lambda_x, standardise_outputs=False):
    """No adaptation, importance weighting and delta adaptation with ``n_labels`` labelled test
    points (:func:`teaching.fits.regression.few_labels_comparison`, seeded by the data's seed):
    (X_eval, Y_eval, {method: predictions})."""
    estimated = fitted_weights(spec, weight_name, weight_sigma).model.weights_
    return fits.regression.few_labels_comparison(data(spec), estimated, n_labels=n_labels, seed=spec.seed,
                                      standardise_outputs=standardise_outputs, rho_x=rho_x, lambda_x=lambda_x)


# ------------------------------------------------------------------ Check your data
#: Folds of the cross-validation check.
CHECK_FOLDS = 5


@_step
def shift_test(spec, method):
    """:func:`covshift.diagnostics.two_sample_test` of the view's training against test inputs
    (seeded by the view's seed), as an Outcome (result, seconds, warnings)."""
    points = data(spec)
    return outcomes.Outcome(*outcomes.run_with_warnings(lambda: diagnostics.two_sample_test(
        points.X_tr, points.X_te, method=method, random_state=spec.seed)))


@_step
def column_shift(spec):
    """:func:`covshift.diagnostics.feature_shift` of the view's inputs: KS statistic per column."""
    points = data(spec)
    return diagnostics.feature_shift(points.X_tr, points.X_te)


@_step
def fitted_cv_errors(spec, model_name, weight_name, weight_sigma, hyper):
    """Unweighted and importance-weighted cross-validation error of ``model_name`` (squared error
    summed over the outputs, :func:`covshift.diagnostics.iw_cv_error` with the weights of
    ``weight_name`` on the mean-1 scale) on the training rows with outputs, its actual error on the
    test rows with outputs (None when no test row has one), and the error of predicting the training
    mean on the training points (the outputs' variance): {"cv": IWCVResult, "test": float or None,
    "baseline": float, "n_scored": test rows scored, "n_fitted": training rows cross-validated}."""
    points = labelled_data(spec)
    w = fitted_weights(spec, weight_name, weight_sigma).model.weights_
    w = np.asarray(w, dtype=float) / np.mean(w)
    values, standardise = model_hyper(spec, hyper)
    model = catalog.cv_model(model_name, standardise_outputs=standardise, **values)
    labelled, scored = points.labelled_tr, points.labelled_te  # rows without outputs are neither fitted nor scored
    Y_tr = points.Y_tr[labelled]
    cv = diagnostics.iw_cv_error(model, points.X_tr[labelled], Y_tr, w[labelled], cv=CHECK_FOLDS,
                                 random_state=spec.seed)
    weighting = (weight_name, weight_sigma) if catalog.REGRESSORS[model_name] else (None, None)
    pred = fitted_prediction(spec, model_name, *weighting, hyper).model["mean"]
    test = float(np.mean(np.sum((points.Y_te[scored] - pred[scored]) ** 2, axis=1))) if scored.any() else None
    return {"cv": cv, "test": test, "baseline": float(np.sum(np.var(Y_tr, axis=0))), "n_scored": int(scored.sum()),
            "n_fitted": int(labelled.sum())}


# ------------------------------------------------------------------ the Classification and Domain transfer pages
@_step
def classification_toy(n, steepness, label_noise, seed):
    """The Classification page's 2-D toy (:func:`teaching.fits.classification.classification_toy`)."""
    return fits.classification.classification_toy(n, steepness, label_noise, seed)


@_step
def classifiers(n, steepness, label_noise, seed, kernel, sigma, C, C_v, weights_name):
    """The iid, two-stage and integrated classifiers on :func:`classification_toy`'s data, read for the page:
    (score rows, the grid (xs, ys, scores, p_test), {name: training weights}, {name: warnings})."""
    points = classification_toy(n, steepness, label_noise, seed)
    fitted = fits.classification.fit_shift_classifiers(points, kernel, sigma, C, C_v, weights_name)
    return (fits.classification.classification_scores(fitted, points),
            fits.classification.classification_grid(fitted, points), fits.classification.training_weights(fitted),
            {name: o.warnings for name, o in fitted.items()})


@_step
def transfer_data(task, shift):
    """Source and transformed target digits of a transfer task (:func:`teaching.fits.transfer.transfer_data`)."""
    return fits.transfer.transfer_data(task, shift)


@_step
def transfer_source(task, shift):
    """The source structural SVM of a transfer task (:func:`teaching.fits.transfer.transfer_source`)."""
    return fits.transfer.transfer_source(task, shift)


@_step
def transfer_fit(task, shift, n_labelled, seed, C, epsilon):
    """The delta-function transfer from :func:`transfer_source`'s model (:func:`teaching.fits.transfer.transfer_fit`)."""
    return fits.transfer.transfer_fit(task, shift, transfer_source(task, shift).model, n_labelled, seed=seed,
                                       C=C, epsilon=epsilon)



# ------------------------------------------------------------------ the Reproduction page
@_step
def reproduction_row(key, seed, size):
    """One seed of the papers' claim ``key`` at ``size`` (:func:`teaching.reproduction.run_row`): {metric: number}."""
    from teaching import reproduction  # the rows register on import: only what computes one loads them

    return reproduction.run_row(key, seed, size)


use_cache()
