"""The numbers the pages' tables and the claims read from fitted models: covshift's metrics, duality gaps, weight errors.

Pages import only :mod:`teaching`: they read :mod:`covshift.metrics` as ``readings.metrics``.
"""

import math

import numpy as np
from scipy import stats

from covshift import metrics  # noqa: F401  (the pages' metrics, through teaching)
from covshift.metrics import normalized_mse
from teaching.numbers import format_p


def quiet(fn, *args):
    """fn(*args), or None (shown as an empty cell) when it fails or is not finite: for the
    numbers beside a figure, which must not take the page down with them."""
    try:
        value = fn(*args)
    except Exception:  # a number that cannot be computed is shown as missing
        return None
    numbers = value if isinstance(value, tuple) else (value,)
    if any(isinstance(v, float) and not math.isfinite(v) for v in numbers):
        return None
    return value


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
    return normalized_mse(weights, true_weights) * len(np.ravel(weights)) ** 2


def weight_curves(view, names):
    """What the Importance weights page draws of ``names``' weights on a view of 1-D inputs:
    (grid, {name: w(x) on the grid}, {name: weights of the training points} for the estimators that weight only the
    training points, the true ratio on the grid or None). The grid: 300 points across the training and test inputs.
    Computed from the view's fits (cache hits), once per view (``teaching.ui.of_view``): predicting every estimator's
    w(x) on the grid again on every rerun was a fifth of the Estimators-disagree lesson's warm run."""
    data = view.data()
    x = data.X_tr[:, 0]
    grid = np.linspace(min(x.min(), data.X_te.min()), max(x.max(), data.X_te.max()), 300)
    curves, on_points = {}, {}
    for name in names:
        model = view.weights(name).model
        try:
            curves[name] = model.predict_weights(grid[:, None])
        except NotImplementedError:
            on_points[name] = model.weights_
    true_curve = data.density_ratio(grid[:, None]) if data.density_ratio is not None else None
    return grid, curves, on_points, true_curve


def regression_table(view, names):
    """The Structured regression page's table of models ``names`` on ``view`` (each a fit the view has), scored on
    the test rows with outputs: (rows of MAE, RMSE, R^2, mean Euclidean error, seconds and the paired t-test's p-value
    against the best model (the lowest mean Euclidean error), {name: each scored test point's Euclidean error}, the best
    model's name or None when no model's errors are finite). Once per view (``teaching.ui.of_view``): scikit-learn's
    checks of every metric were a fifth of a regression lesson's warm run."""
    data = view.data()
    scored = data.labelled_te
    truth = data.Y_te[scored]
    rows, errors = [], {}
    for name in names:
        outcome = view.prediction(name)
        pred = outcome.model["mean"][scored]
        errors[name] = metrics.euclidean_errors(truth, pred)
        rows.append({"model": name, "MAE": metrics.mae(truth, pred), "RMSE": float(np.mean(metrics.rmse(truth, pred))),
                     "R^2": float(np.mean(metrics.r2(truth, pred))), "mean Euclidean error": float(errors[name].mean()),
                     "seconds": outcome.seconds})
    finite = [n for n in errors if np.isfinite(errors[n].mean())]
    best = min(finite, key=lambda n: errors[n].mean()) if finite else None
    for row in rows:
        test = quiet(metrics.paired_ttest, errors[row["model"]], errors[best]) if best and row["model"] != best else None
        row["p-value vs best"] = format_p(test[1]) if test else ("(the best)" if row["model"] == best else None)
    return rows, errors, best


def certainty_readings(view, names, n_bins):
    """The Structured regression page's numbers on the certainty of each Twin GP of ``names`` (the models with a
    certainty) on ``view``, scored on the test rows with outputs: {name: (certainty, errors, Pearson (r, p) or None,
    :func:`covshift.metrics.certainty_error_bins` in ``n_bins`` bins or None, Spearman rho or None)} (None: the
    number cannot be computed here, :func:`quiet`). Once per view (``teaching.ui.of_view``): scipy's statistics of
    two Twin GPs were ~2 ms of every rerun of a regression lesson."""
    data = view.data()
    scored = data.labelled_te
    result = {}
    for name in names:
        fit = view.prediction(name).model
        if fit["certainty"] is None:
            continue
        certainty = fit["certainty"][scored]
        errors = metrics.euclidean_errors(data.Y_te[scored], fit["mean"][scored])
        r_p = quiet(metrics.certainty_error_correlation, certainty, errors)
        bins = quiet(metrics.certainty_error_bins, certainty, errors, n_bins) if r_p is not None else None
        rho = quiet(spearman_rho, certainty, errors) if r_p is not None else None
        result[name] = (certainty, errors, r_p, bins, rho)
    return result


def spearman_rho(a, b):
    """Spearman's rank correlation of ``a`` and ``b`` (scipy's): the Structured regression page's and the
    Structured-output lesson's claim's."""
    return float(stats.spearmanr(a, b).statistic)
