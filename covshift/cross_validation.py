"""Importance-weighted cross-validation (Sugiyama, Krauledat and Mueller 2007) of a regressor under covariate shift."""

import numpy as np

from .diagnostics import iw_cv_error


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
    the test error under covariate shift when w = p_te / p_tr. The ``weighted`` value of
    :func:`covshift.diagnostics.iw_cv_error` (one implementation), which also reports the
    unweighted error and the per-fold values.

    Parameters
    ----------
    estimator : regressor with fit / predict
    X : array-like (n, d)
    y : array-like (n,) or (n, p)
    sample_weight : array-like (n,), importance weights (>= 0)
    """
    return iw_cv_error(estimator, X, y, sample_weight, cv=n_folds, random_state=random_state).weighted
