"""What the app offers, by name: data sets, weight estimators, regression models.

Plain functions that build and run the core objects and collect their warnings, so the
Streamlit pages only choose names and draw results (this module never imports streamlit).
"""

import re
import time
from numbers import Real
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, clone

from covshift import data as datasets
from teaching import budget
from covshift._validation import check_positive
from covshift.exceptions import record_warnings
from covshift.model_selection import kliep_sigma
from covshift.regression import GPR, WKNN, TwinGP, rho_from_paper
from covshift.transfer import ResidualDeltaRegressor
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, KMM, PFWCS, EnsembleKMM, LogisticRatio, RuLSIF

def _sizes(name, n_tr, n_te):
    """Slider specs (default, min, max, step) of n_tr and n_te; the maxima follow the time
    budget (:func:`teaching.budget.dataset_size_max`), the defaults never exceed them."""
    top = budget.dataset_size_max(name)
    return {"n_tr": (min(n_tr, top), budget.MIN_POINTS[0], top, 10),
            "n_te": (min(n_te, top), budget.MIN_POINTS[1], top, 10)}


#: Data sets and their adjustable parameters: name -> (label, {param: (default, min, max, step)}).
DATASETS = {
    "sinc": ("Sinc shift (paper Fig. 2)", {
        **_sizes("sinc", 500, 300), "mean_tr": (0.5, -2.0, 2.0, 0.1),
        "std_tr": (0.5, 0.1, 2.0, 0.05), "mean_te": (0.0, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.1, 0.0, 1.0, 0.01)}),
    "s_shape": ("S-shape (Toy 1)", {**_sizes("s_shape", 250, 250),
                                    "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "double_s": ("Double S (Toy 2)", {**_sizes("double_s", 250, 500),
                                      "noise": (0.005, 0.0, 0.1, 0.005), "shift": (2.0, 0.0, 6.0, 0.5)}),
    "circle": ("Circle (2 correlated outputs)", {
        **_sizes("circle", 300, 200), "mean_tr": (0.0, -2.0, 2.0, 0.1),
        "std_tr": (0.6, 0.1, 2.0, 0.05), "mean_te": (0.5, -2.0, 2.0, 0.1), "std_te": (0.3, 0.1, 2.0, 0.05),
        "noise": (0.03, 0.0, 0.5, 0.01)}),
    "digits": ("Digits centre pixels (selection bias)",
               {"n_tr": (300, 50, budget.dataset_size_max("digits"), 10)}),
}
_GENERATORS = {"sinc": datasets.sinc_shift, "s_shape": datasets.s_shape, "double_s": datasets.double_s,
               "circle": datasets.circle_outputs, "digits": datasets.digits_center}
#: Rows kept from an uploaded CSV when no methods are named (the fastest method's limit);
#: use :func:`max_csv_rows` with the selected methods.
MAX_CSV_ROWS = budget.max_points_for([])


def size_limit(names, sigma=None):
    """Largest n_tr and n_te the selected weight estimators and models all handle within the
    time budget (the slowest decides): the app offers no larger size. ``sigma``: None for the
    "auto" width, a number for a fixed one (faster for the KLIEP family). See :mod:`covshift.limits`."""
    return budget.max_points_for(names, sigma)


def max_csv_rows(names, sigma=None):
    """Rows to keep from an uploaded CSV when these methods (weight estimators and regression
    models, catalog names) will run on it: the slowest one decides (:func:`teaching.budget.max_csv_rows`).
    Pass the result to :func:`read_csv` as ``max_rows``."""
    return budget.max_csv_rows(names, sigma)


def check_size(names, n_tr, n_te, sigma=None):
    """ValueError naming the first method that would exceed the time budget at this size."""
    for name in names:
        budget.check_size(name, n_tr, n_te, sigma)


def make_dataset(name, seed=0, **params):
    """Build a built-in data set by name with the given parameters."""
    if name not in _GENERATORS:
        raise ValueError(f"Unknown data set {name!r}; choose one of {sorted(_GENERATORS)}.")
    unknown = set(params) - set(DATASETS[name][1])
    if unknown:
        raise ValueError(f"Unknown parameter(s) {sorted(unknown)} of data set {name!r}; "
                         f"it has {sorted(DATASETS[name][1])}.")
    ints = {k: whole_number(v, k) for k, v in params.items() if k in ("n_tr", "n_te")}
    return _GENERATORS[name](**{**params, **ints}, random_state=whole_number(seed, "seed"))


def whole_number(value, name):
    """An integer from an int or an integer-valued float (as read from a URL); ValueError
    naming ``name`` for NaN, infinity, fractions, text or booleans."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not np.isfinite(value) \
            or float(value) != int(value):
        raise ValueError(f"{name} must be a whole number; got {value!r}.")
    return int(value)


WEIGHT_ESTIMATORS = ["FCFWCS", "PFWCS", "AFWCS", "FWCS", "KLIEP", "KMM", "ENSKMM", "ENSTRKMM",
                     "VFKMM", "EVFKMM", "LogisticRatio", "RuLSIF"]
FRANK_WOLFE = {"FCFWCS", "PFWCS", "AFWCS", "FWCS"}
KLIEP_FAMILY = FRANK_WOLFE | {"KLIEP"}


def make_weight_estimator(name, sigma=None, max_iter=2000, tol=1e-5):
    """An estimator by name. sigma: number, or None for "auto" (KLIEP family: the shared
    :func:`covshift.model_selection.kliep_sigma`, see :func:`shared_kliep_sigma`; others: the
    median heuristic / their own cross-validation)."""
    sigma = None if sigma is None else check_positive(sigma, "sigma (kernel width)")
    kliep_sigma = "auto" if sigma is None else sigma
    fw = dict(sigma=kliep_sigma, tol=tol, max_iter=max_iter)
    factories = {
        "FCFWCS": lambda: FCFWCS(**fw), "PFWCS": lambda: PFWCS(**fw), "AFWCS": lambda: AFWCS(**fw),
        "FWCS": lambda: FWCS(**fw), "KLIEP": lambda: KLIEP(sigma=kliep_sigma),
        "KMM": lambda: KMM(sigma=sigma), "ENSKMM": lambda: EnsembleKMM("ens", sigma=sigma),
        "ENSTRKMM": lambda: EnsembleKMM("enstr", sigma=sigma), "VFKMM": lambda: EnsembleKMM("vf", sigma=sigma),
        "EVFKMM": lambda: EnsembleKMM("evf", sigma=sigma), "LogisticRatio": lambda: LogisticRatio(sigma=sigma),
        "RuLSIF": lambda: RuLSIF(sigma=sigma),
    }
    if name not in factories:
        raise ValueError(f"Unknown estimator {name!r}.")
    return factories[name]()


@dataclass
class Outcome:
    """A fitted object with its wall time and the warnings it raised (for st.warning)."""

    model: object
    seconds: float
    warnings: list


def run_with_warnings(fn):
    """Call fn(); return (result, seconds, [warning messages]) without printing the warnings.

    Only the warnings raised by this call (this thread) are collected, so concurrent
    sessions never see each other's warnings (:func:`covshift.exceptions.record_warnings`).
    """
    with record_warnings() as caught:
        start = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - start
    kept = [w for w in caught if not issubclass(w.category, (DeprecationWarning, FutureWarning))]
    numeric = [str(w.message) for w in kept if issubclass(w.category, RuntimeWarning)
               and NUMPY_WARNING.search(str(w.message))]
    messages = list(dict.fromkeys(str(w.message) for w in kept if str(w.message) not in numeric))
    if numeric:
        messages.append(numeric_warning(numeric))
    return result, seconds, messages


#: numpy's floating-point warnings ("overflow encountered in divide", "invalid value encountered in reduce").
NUMPY_WARNING = re.compile(r"(overflow|underflow|divide by zero|invalid value) encountered")


def numeric_warning(messages):
    """One sentence for numpy's floating-point warnings: what happened and what to do about it."""
    seen = ", ".join(f"'{m}'" for m in list(dict.fromkeys(messages))[:3])
    return ("Some numbers overflowed or became undefined during this computation (numpy: " + seen + "). "
            "This happens when the inputs have very different scales or the kernel width is extreme for them: "
            "keep \"Standardise the inputs and outputs\" on (Data & shift) or set the kernel width to auto (Importance weights); "
            "the result shown may be inaccurate.")


#: How the shared kernel width of the KLIEP family was chosen, for the page's caption.
SIGMA_RULES = {"lcv": "likelihood cross-validation", "iwcv": "importance-weighted cross-validation",
               "manual": "hand (the sigma slider)"}


@dataclass
class SharedSigma:
    """The one kernel width every KLIEP-family solver uses on a view, and how it was chosen."""

    sigma: float
    rule: str
    seconds: float
    cv_results: dict = None
    warnings: list = field(default_factory=list)

    @property
    def rule_label(self):
        return SIGMA_RULES[self.rule]


def shared_kliep_sigma(data, sigma=None, rule="lcv"):
    """One sigma for all KLIEP-family solvers on ``data``: ``sigma`` if given, else
    :func:`covshift.model_selection.kliep_sigma` with ``rule`` ("lcv" or "iwcv", the latter
    scoring a GPR on the training outputs)."""
    if sigma is not None:
        return SharedSigma(float(sigma), "manual", 0.0)
    labelled = data.labelled_tr
    if rule == "iwcv":  # scored on the training rows with outputs
        X_tr, y_tr = data.X_tr[labelled], data.Y_tr[labelled]
    else:
        X_tr, y_tr = data.X_tr, None
    result, seconds, messages = run_with_warnings(
        lambda: kliep_sigma(X_tr, data.X_te, rule=rule, y_tr=y_tr))
    return SharedSigma(result["best_sigma"], rule, seconds, result, messages)


def fit_weights(data, name, sigma=None):
    """Fit a weight estimator on a data set; an :class:`Outcome`."""
    est, seconds, messages = run_with_warnings(
        lambda: make_weight_estimator(name, sigma).fit(data.X_tr, data.X_te))
    return Outcome(est, seconds, messages)


#: Regression models: name -> needs importance weights.
#: Display names where the short name claims more than the model is.
MODEL_LABELS = {"IKLTGP": "IKLTGP (SMTGP paper eq. 7)", "IW-IKLTGP": "IW-IKLTGP (SMTGP paper eq. 7)"}


def model_label(name):
    """The name a page shows for a regression model (see MODEL_LABELS)."""
    return MODEL_LABELS.get(name, name)


REGRESSORS = {"GPR": False, "WKNN": False, "KLTGP": False, "IKLTGP": False, "SMTGP": False,
              "IW-GPR": True, "IW-KLTGP": True, "IW-SMTGP": True}


#: Models whose cross-validation error the Check your data page estimates (5 fits each: the fast ones).
CHECK_MODELS = ("GPR", "IW-GPR", "WKNN")


class Unweighted(RegressorMixin, BaseEstimator):
    """A regressor that is fitted without importance weights (its ``fit`` takes no ``sample_weight``),
    so that :func:`covshift.diagnostics.iw_cv_error` fits a non-IW model as it is used."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator).fit(X, y)
        return self

    def predict(self, X):
        return self.estimator_.predict(X)


def cv_model(name, standardise_outputs=False, **hyper):
    """The model ``name`` (:data:`CHECK_MODELS`) as cross-validation refits it: IW- models with the
    weights, the others without; ``standardise_outputs`` as in :func:`fit_predict` (GPR's
    ``normalize_y``; W-KNN averages training outputs, so their scale changes nothing)."""
    if name not in CHECK_MODELS:
        raise ValueError(f"The cross-validation check offers {list(CHECK_MODELS)}; got {name!r}.")
    model = make_regressor(name, **hyper)
    if standardise_outputs and isinstance(model, GPR):
        model.set_params(normalize_y=True)
    return model if REGRESSORS[name] else Unweighted(model)


def paper_tgp_defaults(data_name):
    """The papers' TGP hyper-parameters where they exist (sharma-mittal-tgp Table 1)."""
    if data_name == "s_shape":
        return dict(theta=0.9, gamma=1.5, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4, tgp_start="linear")
    if data_name == "double_s":
        return dict(theta=0.6, gamma=0.99, rho_x=rho_from_paper(5.0), rho_y=rho_from_paper(0.05),
                    lambda_x=1e-4, lambda_y=1e-4, tgp_start="linear")
    return None


#: Starts of the Twin GPs offered by the app: the original one, and kernel ridge.
TGP_STARTS = {"linear": "auto", "ridge": "ridge"}
#: Threads of a Twin-GP prediction (TwinGP n_jobs): a fixed number, so that every machine
#: splits the test points alike and gives the same numbers; two for the 2-core reference.
TGP_THREADS = 2


def make_regressor(name, theta=0.9, gamma=1.5, rho_x=1.0, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3,
                   tgp_start="linear"):
    """A regression model by name (REGRESSORS) with the app's hyper-parameters.

    ``tgp_start`` "linear" is the original start of the Twin GPs (affine least squares, and
    the chain linear -> KLTGP -> SMTGP for SMTGP); "ridge" starts every Twin GP from kernel ridge.
    """
    if name not in REGRESSORS:
        raise ValueError(f"Unknown regression model {name!r}; choose one of {list(REGRESSORS)}.")
    base = name.replace("IW-", "")
    if base == "GPR":
        return GPR(rho=rho_x, lam=max(check_positive(lambda_x, "lambda_x"), 1e-6))
    if base == "WKNN":
        return WKNN(5)
    divergence = {"KLTGP": "kl", "IKLTGP": "ikl", "SMTGP": "sm"}[base]
    if tgp_start not in TGP_STARTS:
        raise ValueError(f"tgp_start must be one of {list(TGP_STARTS)}; got {tgp_start!r}.")
    return TwinGP(divergence, theta=theta, gamma=gamma, rho_x=rho_x, rho_y=rho_y,
                  lambda_x=lambda_x, lambda_y=lambda_y, init=TGP_STARTS[tgp_start], n_jobs=TGP_THREADS)


def chain_start(name, tgp_start="linear"):
    """The model whose prediction starts ``name``'s minimisation, or None.

    With the original start the SMTGPs start from the KLTGP prediction with the same
    weights (linear -> KLTGP -> SMTGP): "SMTGP" -> "KLTGP", "IW-SMTGP" -> "IW-KLTGP".
    """
    if tgp_start == "linear" and name.replace("IW-", "") == "SMTGP":
        return name.replace("SMTGP", "KLTGP")
    return None


def output_scaling(Y):
    """(mean, scale) of each output column over the training points: standardised y = (y - mean) / scale
    (a constant column keeps scale 1)."""
    Y = np.asarray(Y, dtype=float).reshape(len(Y), -1)
    scale = Y.std(axis=0)
    return Y.mean(axis=0), np.where(scale > 0, scale, 1.0)


#: The data's own hyper-parameters (:func:`data_hyper`): noise variances tried, as fractions of the
#: fitted outputs' variance, and the output width as a fraction of their standard deviation.
NOISE_GRID = (1e-3, 3e-3, 1e-2, 3e-2, 0.1, 0.3, 1.0)
OUTPUT_WIDTH = 0.25


def leave_one_out_error(X, Y, rho, lam):
    """Mean squared leave-one-out error of an unweighted :class:`GPR` (width ``rho``, noise ``lam``) on
    (X, Y), in closed form: the residual of point i is [K^-1 Y]_i / [K^-1]_ii with K = K_X + lam I."""
    from covshift.kernels import gaussian_kernel

    K = gaussian_kernel(X, X, rho)
    K[np.diag_indices(len(X))] += lam
    inverse = np.linalg.inv(K)
    residuals = (inverse @ Y) / np.diag(inverse)[:, None]
    return float(np.mean(np.sum(residuals ** 2, axis=1)))


def data_hyper(data, standardise_outputs=True):
    """Hyper-parameters that follow the scale of ``data`` (the "auto" choice for uploaded data).

    - rho_x: the median heuristic, the median distance between two training inputs;
    - lambda_x: of :data:`NOISE_GRID` times the fitted outputs' variance (1 with
      ``standardise_outputs``, see :func:`fit_predict`), the noise variance whose GPR predicts the
      training outputs best from the other training points (:func:`leave_one_out_error`);
    - rho_y: :data:`OUTPUT_WIDTH` times the fitted outputs' standard deviation; lambda_y = lambda_x.

    Returns a dict with these four keys (floats).
    """
    from covshift.kernels import median_heuristic

    X_fit, Y_fit = data.X_tr[data.labelled_tr], data.Y_tr[data.labelled_tr]  # the rows the models fit
    shift, scale = output_scaling(Y_fit) if standardise_outputs else (0.0, 1.0)
    Y = (np.asarray(Y_fit, dtype=float).reshape(len(Y_fit), -1) - shift) / scale
    spread = float(np.mean(np.var(Y, axis=0))) or 1.0
    rho_x = median_heuristic(X_fit)
    lambda_x = min((lam * spread for lam in NOISE_GRID), key=lambda lam: leave_one_out_error(X_fit, Y, rho_x, lam))
    return {"rho_x": float(rho_x), "rho_y": float(OUTPUT_WIDTH * np.sqrt(spread)), "lambda_x": float(lambda_x),
            "lambda_y": float(lambda_x)}


def fit_predict(data, name, weights=None, start=None, standardise_outputs=False, **hyper):
    """Fit a regression model (with weights for IW-*) on the labelled training rows and predict the test set.

    ``start``: for an SMTGP with the original start, the :class:`Outcome` of its
    :func:`chain_start` model on the same data, weights and hyper-parameters; the SMTGP
    then starts from that prediction instead of computing it again (the same numbers),
    and its seconds include the start's.

    ``standardise_outputs``: fit on the training outputs centred and divided by their standard
    deviation (:func:`output_scaling`), so that the zero-mean GP prior, lambda_x (a noise variance)
    and rho_y (an output width) are relative to the outputs' spread; the predictions (and GPR's
    standard deviations) are mapped back to the outputs' units. The uploaded data's setting.

    Returns an :class:`Outcome` whose model is a dict: mean, std (GPR) or certainty (TGP).
    """
    if start is not None and chain_start(name, hyper.get("tgp_start", "linear")) is None:
        raise ValueError(f"start is only used by an SMTGP with tgp_start='linear'; got it for {name!r}.")

    labelled = data.labelled_tr  # training rows without outputs (NaN) count for the weights only

    def run():
        model = make_regressor(name, **hyper)
        Y_fit = data.Y_tr[labelled]
        shift, scale = output_scaling(Y_fit) if standardise_outputs else (0.0, 1.0)
        if start is not None:
            model.set_params(init=(start.model["mean"] - shift) / scale)
        w = np.asarray(weights)[labelled] if REGRESSORS.get(name) and weights is not None else None
        model.fit(data.X_tr[labelled], (Y_fit - shift) / scale, sample_weight=w)
        result = {"mean": None, "std": None, "certainty": None}
        if isinstance(model, GPR):
            mean, std = model.predict(data.X_te, return_std=True)
            result.update(mean=mean, std=std)
        elif isinstance(model, TwinGP):
            result["mean"], result["certainty"] = model.predict(data.X_te, return_certainty=True)
        else:
            result["mean"] = model.predict(data.X_te)
        result["mean"] = np.asarray(result["mean"]).reshape(len(data.X_te), -1) * scale + shift
        if result["std"] is not None:
            result["std"] = np.asarray(result["std"]).reshape(len(data.X_te), -1) * scale
        return result

    result, seconds, messages = run_with_warnings(run)
    return Outcome(result, seconds + (start.seconds if start is not None else 0.0), messages)


def labelled_test_points(n_te, n_labels, seed=0):
    """Mask of the test points whose labels :func:`few_labels_comparison` reveals (seeded)."""
    rng = np.random.default_rng(whole_number(seed, "seed"))
    n_labels = int(min(max(whole_number(n_labels, "n_labels"), 2), n_te - 2))
    labelled = np.zeros(n_te, dtype=bool)
    labelled[rng.choice(n_te, n_labels, replace=False)] = True
    return labelled


def few_labels_comparison(data, weights, n_labels=10, seed=0, standardise_outputs=False, **hyper):
    """No adaptation vs importance weighting vs delta adaptation with a few target labels.

    ``n_labels`` test points are revealed (seeded); all three GPRs are scored on the rest.
    ``standardise_outputs``: as in :func:`fit_predict` (GPR's ``normalize_y``).
    """
    if len(data.X_te) < 4:
        raise ValueError(f"The few-labels comparison needs at least 4 test points; there are {len(data.X_te)}.")
    if not (data.labelled_te.all() and data.labelled_tr.all()):
        raise ValueError(f"The few-labels comparison reveals and scores test outputs; {int((~data.labelled_te).sum())} "
                         f"of {len(data.X_te)} test rows (and {int((~data.labelled_tr).sum())} training rows) of this "
                         "data have none. Use data with outputs on every row.")
    check_size(["GPR"], len(data.X_tr), len(data.X_te))
    labelled = labelled_test_points(len(data.X_te), n_labels, seed)
    X_eval, Y_eval = data.X_te[~labelled], data.Y_te[~labelled]
    def gpr():
        return make_regressor("GPR", **hyper).set_params(normalize_y=bool(standardise_outputs))

    preds = {
        "no adaptation": gpr().fit(data.X_tr, data.Y_tr).predict(X_eval),
        "importance weighting": gpr().fit(data.X_tr, data.Y_tr, sample_weight=weights).predict(X_eval),
        "delta adaptation": ResidualDeltaRegressor(gpr()).fit(
            data.X_tr, data.Y_tr, data.X_te[labelled], data.Y_te[labelled]).predict(X_eval),
    }
    return X_eval, Y_eval, {k: np.asarray(v).reshape(len(X_eval), -1) for k, v in preds.items()}


def weighting_effect(data, estimated_weights, width, lambda_x=1e-3, grid=None):
    """A GPR of input width ``width`` fitted without weights, with the true ratio and with
    ``estimated_weights`` (the Why-weights lesson).

    Returns {label: (test MAE, predictions on ``grid`` or None)}; the true-ratio fit is left
    out when the data set's ratio is unknown.
    """
    from covshift.metrics import mae

    fits = {"no weights": None, "true weights": data.true_weights, "estimated weights": estimated_weights}
    result = {}
    for label, w in fits.items():
        if label == "true weights" and w is None:
            continue
        model = make_regressor("GPR", rho_x=width, lambda_x=lambda_x).fit(data.X_tr, data.Y_tr, sample_weight=w)
        pred = np.asarray(model.predict(data.X_te)).reshape(len(data.X_te), -1)
        on_grid = None if grid is None else np.asarray(model.predict(grid)).reshape(len(grid), -1)
        result[label] = (mae(data.Y_te, pred), on_grid)
    return result


def weighting_by_width(data, estimated_weights, widths, lambda_x=1e-3):
    """Test MAE of :func:`weighting_effect` for several widths: {width: {label: MAE}}."""
    return {float(width): {label: value[0] for label, value in
                           weighting_effect(data, estimated_weights, width, lambda_x).items()}
            for width in widths}


def relative_gaps(history):
    """Duality gap relative to the objective, |<g_t, d_t^FW>| / |F(mu_t)|: the quantity the
    Frank-Wolfe solvers compare with their tolerance ``tol``."""
    return np.asarray(history.gap, dtype=float) / np.maximum(np.abs(np.asarray(history.objective, float)), 1e-300)


def first_at_gap(history, level):
    """(iteration, active atoms) at the first Frank-Wolfe iterate whose relative duality gap is
    <= ``level``; (None, None) when the run never got there.

    Row t of the history holds the gap at mu_t and the active-set size after the step
    from mu_t, so the iterate mu_t has ``active_size[t - 1]`` atoms (one at the start).
    """
    reached = np.flatnonzero(relative_gaps(history) <= level)
    if reached.size == 0:
        return None, None
    t = int(reached[0])
    return t, (1 if t == 0 else int(history.active_size[t - 1]))


def weight_error(weights, true_weights):
    """NMSE of the weights on a readable scale: mean_i (w_i / mean(w) - t_i / mean(t))^2.

    This is :func:`covshift.metrics.normalized_mse` (both vectors scaled to sum 1) times n^2,
    i.e. the mean squared error of weights rescaled to mean 1: 0 is perfect, 1 is an error as
    large as the weights themselves.
    """
    from covshift.metrics import normalized_mse

    return normalized_mse(weights, true_weights) * len(np.ravel(weights)) ** 2

