"""Model selection under covariate shift.

- :func:`kliep_likelihood_cv`: likelihood cross-validation of the KLIEP kernel width
  (Sugiyama et al. 2008, section 4.2): fit on all test folds but one, score the mean
  log w(x) on the held-out fold.
- :func:`iwcv_score`: importance-weighted cross-validation (Sugiyama, Krauledat and
  Mueller 2007) of a regression model, unbiased under covariate shift.
"""

import warnings

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils.validation import has_fit_parameter

from ._validation import as_2d_float, check_int
from .exceptions import quiet_warnings
from .kernels import median_heuristic

def default_sigma_grid(X_tr, X_te, n=9, random_state=0):
    """Geometric grid from max(median / 8, median nearest-neighbour distance of the test
    points) to 2 x median, the median heuristic of all inputs.

    In high dimension every point is far from its neighbours, so widths far below the
    nearest-neighbour distance only fit single points (and make the optimum dense and slow).
    """
    from sklearn.neighbors import NearestNeighbors

    median = median_heuristic(np.vstack([X_tr, X_te]), random_state=random_state)
    lower = median / 8.0
    if len(X_te) > 2:
        sample = X_te[np.random.default_rng(random_state).permutation(len(X_te))[:1000]]
        distance, _ = NearestNeighbors(n_neighbors=2).fit(sample).kneighbors(sample)
        nearest = distance[:, 1][distance[:, 1] > 0]
        if nearest.size:
            lower = max(lower, float(np.median(nearest)))
    lower = min(lower, median / 2.0)
    return np.geomspace(lower, 2.0 * median, n)



def kliep_likelihood_cv(estimator, X_tr, X_te, sigma_grid=None, n_folds=5, random_state=0):
    """Choose the kernel width of a KLIEP-family estimator by likelihood cross-validation.

    Training and test points are each split into ``n_folds`` folds. For fold k the
    estimator is fitted on the other folds with its own settings (loosely converged fits
    are smoother and would bias the ranking towards small widths) and scored only on the
    held-out points:

        score_k = mean_{x in held-out test} log w(x) - log mean_{x in held-out train} w(x),

    the held-out log-likelihood of p_te ~ w p_tr (Sugiyama et al. 2008, section 4.2), with
    the normalisation of w checked on held-out training points too. Sugiyama's variant
    holds out test points only; on the paper's own data it then prefers ever smaller
    sigma (spikes placed between training points cost nothing in the fitted
    constraint), so the training side is held out as well.

    Parameters
    ----------
    estimator : KLIEP-family estimator (its other parameters are kept)
    X_tr, X_te : ndarray
    sigma_grid : sequence of float or None
        Candidate widths; default :func:`default_sigma_grid`.
    n_folds : int
        Number of folds (capped at the smaller sample size).

    Returns
    -------
    dict with ``sigma``, ``mean_log_likelihood``, ``std_log_likelihood`` (per grid point)
    and ``best_sigma`` (the best mean score).
    """
    if sigma_grid is None:
        sigma_grid = default_sigma_grid(X_tr, X_te, random_state=random_state)
    sigma_grid = np.asarray(sigma_grid, dtype=float).ravel()
    if sigma_grid.size == 0 or np.any(~np.isfinite(sigma_grid)) or np.any(sigma_grid <= 0):
        raise ValueError("sigma_grid must be a non-empty list of positive numbers.")
    n_folds = min(check_int(n_folds, "cv (number of folds)", minimum=2), len(X_te), len(X_tr))
    if n_folds < 2:
        warnings.warn("Only one test or training point: likelihood cross-validation is "
                      "impossible; using the median heuristic.", UserWarning, stacklevel=3)
        best = median_heuristic(np.vstack([X_tr, X_te]))
        return {"sigma": sigma_grid, "mean_log_likelihood": np.full(sigma_grid.size, np.nan),
                "std_log_likelihood": np.full(sigma_grid.size, np.nan), "best_sigma": best}
    splitter = KFold(n_folds, shuffle=True, random_state=random_state)
    folds = list(zip(splitter.split(X_tr), splitter.split(X_te)))
    scores = np.empty((sigma_grid.size, n_folds))
    for i, sigma in enumerate(sigma_grid):
        model = clone(estimator).set_params(sigma=float(sigma))
        for k, ((fit_tr, held_tr), (fit_te, held_te)) in enumerate(folds):
            with quiet_warnings():  # thread-safe, unlike catch_warnings
                model.fit(X_tr[fit_tr], X_te[fit_te])
                scores[i, k] = held_out_log_likelihood(model, X_tr[held_tr], X_te[held_te])
    mean = scores.mean(axis=1)
    with np.errstate(invalid="ignore"):
        std = scores.std(axis=1)
    best = float(sigma_grid[np.nanargmax(np.where(np.isfinite(mean), mean, np.nan))]) \
        if np.any(np.isfinite(mean)) else float(np.max(sigma_grid))
    return {"sigma": sigma_grid, "mean_log_likelihood": mean, "std_log_likelihood": std,
            "best_sigma": best}


def held_out_log_likelihood(estimator, X_tr_held, X_te_held):
    """mean log w(x_te) - log mean w(x_tr) on held-out points (-inf where w vanishes)."""
    w_te = estimator.predict_weights(X_te_held)
    w_tr_mean = float(np.mean(estimator.predict_weights(X_tr_held)))
    if not np.all(w_te > 0) or not w_tr_mean > 0:
        return -np.inf
    return float(np.mean(np.log(w_te)) - np.log(w_tr_mean))


def iwcv_score(estimator, X, y, sample_weight, n_folds=5, random_state=0):
    """Importance-weighted cross-validation error of a regression model (lower is better).

    Each fold is predicted by a model fitted on the other folds (with their importance
    weights if the model's ``fit`` accepts ``sample_weight``); the error is
    mean_k [ (1/|Z_k|) sum_{i in Z_k} w_i ||y_i - f(x_i)||^2 ], an unbiased estimate of
    the test error under covariate shift when w = p_te / p_tr.

    Parameters
    ----------
    estimator : regressor with fit / predict
    X : array-like (n, d)
    y : array-like (n,) or (n, p)
    sample_weight : array-like (n,), importance weights (>= 0)
    """
    X = as_2d_float(X, "X", min_samples=2)
    Y = as_2d_float(y, "y")
    w = np.asarray(sample_weight, dtype=float).ravel()
    if len(Y) != len(X) or len(w) != len(X):
        raise ValueError(
            f"X, y and sample_weight need the same number of samples; got {len(X)}, {len(Y)}, {len(w)}."
        )
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ValueError("sample_weight must be finite and non-negative.")
    n_folds = min(check_int(n_folds, "n_folds", minimum=2), len(X))
    weighted = has_fit_parameter(estimator, "sample_weight")
    target_all = Y[:, 0] if np.ndim(y) == 1 else Y
    errors = []
    for fit_idx, held_idx in KFold(n_folds, shuffle=True, random_state=random_state).split(X):
        model = clone(estimator)
        target = target_all[fit_idx]
        if weighted:
            model.fit(X[fit_idx], target, sample_weight=w[fit_idx])
        else:
            model.fit(X[fit_idx], target)
        pred = np.asarray(model.predict(X[held_idx]), dtype=float).reshape(len(held_idx), -1)
        loss = np.sum((Y[held_idx] - pred) ** 2, axis=1)
        errors.append(np.mean(w[held_idx] * loss))
    return float(np.mean(errors))
