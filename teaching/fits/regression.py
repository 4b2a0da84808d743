"""The fits the view pipeline runs: the shared KLIEP width, regression fits and the comparisons of the lessons.

Plain functions of a data set (:class:`covshift.data.ShiftData`) and names of :mod:`teaching.catalog`;
each returns its result with its time and warnings (:class:`teaching.outcomes.Outcome`). The steps of
:mod:`teaching.steps` call them; they check no time budget (:meth:`teaching.view.View.admit` does).
"""

from dataclasses import dataclass, field

import numpy as np

from covshift.kernels import gaussian_kernel, median_heuristic
from covshift.metrics import mae
from covshift.model_selection import kliep_sigma
from covshift.regression import GPR, TwinGP
from covshift.transfer import ResidualDeltaRegressor
from teaching.catalog import REGRESSORS, make_regressor, whole_number
from teaching.outcomes import Outcome, run_with_warnings

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


def shared_kliep_sigma(data, sigma="auto", rule="lcv"):
    """One sigma for all KLIEP-family solvers on ``data``: ``sigma`` if a number, else ("auto")
    :func:`covshift.model_selection.kliep_sigma` with ``rule`` ("lcv" or "iwcv", the latter
    scoring a GPR on the training outputs)."""
    if sigma != "auto":
        return SharedSigma(float(sigma), "manual", 0.0)
    labelled = data.labelled_tr
    if rule == "iwcv":  # scored on the training rows with outputs
        X_tr, y_tr = data.X_tr[labelled], data.Y_tr[labelled]
    else:
        X_tr, y_tr = data.X_tr, None
    result, seconds, messages = run_with_warnings(
        lambda: kliep_sigma(X_tr, data.X_te, rule=rule, y_tr=y_tr))
    return SharedSigma(result["best_sigma"], rule, seconds, result, messages)


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


def leave_one_out_error(X, Y, rho_x, lambda_x):
    """Mean squared leave-one-out error of an unweighted :class:`GPR` (width ``rho_x``, noise ``lambda_x``)
    on (X, Y), in closed form: the residual of point i is [K^-1 Y]_i / [K^-1]_ii with K = K_X + lambda_x I."""
    K = gaussian_kernel(X, X, rho_x)
    K[np.diag_indices(len(X))] += lambda_x
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
    X_fit, Y_fit = data.X_tr[data.labelled_tr], data.Y_tr[data.labelled_tr]  # the rows the models fit
    shift, scale = output_scaling(Y_fit) if standardise_outputs else (0.0, 1.0)
    Y = (np.asarray(Y_fit, dtype=float).reshape(len(Y_fit), -1) - shift) / scale
    spread = float(np.mean(np.var(Y, axis=0))) or 1.0
    rho_x = median_heuristic(X_fit)
    lambda_x = min((lam * spread for lam in NOISE_GRID), key=lambda lam: leave_one_out_error(X_fit, Y, rho_x, lam))
    return {"rho_x": float(rho_x), "rho_y": float(OUTPUT_WIDTH * np.sqrt(spread)), "lambda_x": float(lambda_x),
            "lambda_y": float(lambda_x)}


def fit_predict(data, name, weights=None, standardise_outputs=False, **hyper):
    """Fit a regression model (with weights for IW-*) on the labelled training rows and predict the test set.

    An SMTGP with the original start (``tgp_start="linear"``) computes its KLTGP start inside its own
    fit (:func:`teaching.catalog.make_regressor`), and its seconds include that start's.

    ``standardise_outputs``: fit on the training outputs centred and divided by their standard
    deviation (:func:`output_scaling`), so that the zero-mean GP prior, lambda_x (a noise variance)
    and rho_y (an output width) are relative to the outputs' spread; the predictions (and GPR's
    standard deviations) are mapped back to the outputs' units. The uploaded data's setting.

    Returns an :class:`Outcome` whose model is a dict: mean, std (GPR) or certainty (TGP).
    """
    labelled = data.labelled_tr  # training rows without outputs (NaN) count for the weights only

    def run():
        model = make_regressor(name, **hyper)
        Y_fit = data.Y_tr[labelled]
        shift, scale = output_scaling(Y_fit) if standardise_outputs else (0.0, 1.0)
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
    return Outcome(result, seconds, messages)


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


#: Inputs of the grid the Why-weights figure draws its fits on (:func:`effect_grid`).
EFFECT_GRID_POINTS = 300


def effect_grid(data):
    """The inputs at which the Why-weights figure draws its fits (:func:`weighting_effect`'s ``grid``):
    :data:`EFFECT_GRID_POINTS` evenly spaced from the smallest to the largest training or test input, as a column."""
    lo = float(min(data.X_tr.min(), data.X_te.min()))
    hi = float(max(data.X_tr.max(), data.X_te.max()))
    return np.linspace(lo, hi, EFFECT_GRID_POINTS)[:, None]
