"""Importance-weighted cross-validation (Sugiyama, Krauledat and Mueller 2007) of a regressor under covariate shift."""

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils.validation import has_fit_parameter

from ._validation import as_2d_float, check_int


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
