"""Importance-weighted cross-validation (Sugiyama, Krauledat and Mueller 2007) of a regressor under covariate shift, with its uncertainty."""

from dataclasses import dataclass

import numpy as np
from sklearn.base import clone
from sklearn.model_selection import KFold
from sklearn.utils.validation import has_fit_parameter

from ._validation import as_2d_float, check_int, check_random_state
from .metrics import check_weights

__all__ = ["IWCVResult", "iw_cv_error", "iwcv_score", "held_out_log_likelihood"]

#: Two cross-validation estimates whose difference is within this many standard errors of it
#: cannot be told apart (about a 95 % interval of the mean of the fold differences).
DISTINGUISHABLE_SE = 2.0


def _frozen(values):
    values = np.asarray(values, dtype=float)
    values.setflags(write=False)
    return values


def _standard_error(folds):
    """Standard error of the mean of the fold values (sample standard deviation / sqrt(K))."""
    return float(np.std(folds, ddof=1) / np.sqrt(len(folds))) if len(folds) > 1 else float("nan")


@dataclass(frozen=True, eq=False)
class IWCVResult:
    """Outcome of :func:`iw_cv_error`.

    Parameters
    ----------
    weighted : float
        Importance-weighted cross-validation error: the estimate of the test error.
    unweighted : float
        Ordinary cross-validation error of the same fold models: the estimate of the error
        on the training distribution.
    weighted_folds, unweighted_folds : ndarray of shape (n_folds,)
        The per-fold values whose means are ``weighted`` and ``unweighted``.
    n_folds : int
        Number of folds.
    weighted_se, unweighted_se : float
        Standard error of each estimate: the standard deviation of its fold values / sqrt(n_folds).
        The folds share training points, so this is a rough (usually optimistic) measure.
    difference_se : float
        Standard error of ``weighted - unweighted`` from the paired fold differences.
    """

    weighted: float
    unweighted: float
    weighted_folds: np.ndarray
    unweighted_folds: np.ndarray
    n_folds: int
    weighted_se: float = float("nan")
    unweighted_se: float = float("nan")
    difference_se: float = float("nan")

    @property
    def distinguishable(self):
        """True when ``|weighted - unweighted|`` exceeds DISTINGUISHABLE_SE (2) standard errors of the
        difference: only then do the two estimates say different things."""
        return bool(abs(self.weighted - self.unweighted) > DISTINGUISHABLE_SE * self.difference_se)


def iw_cv_error(model, X_tr, y_tr, weights, cv=5, random_state=None):
    """Importance-weighted cross-validation error of a regression model, and the ordinary one.

    The training points are split into ``cv`` folds (shuffled KFold). Each fold Z_k is
    predicted by a clone of ``model`` fitted on the other folds, with their importance
    weights when ``model.fit`` accepts ``sample_weight`` (importance-weighted empirical risk
    minimisation; without weights otherwise). With the squared loss
    l_i = ||y_i - f(x_i)||^2 (summed over outputs)::

        weighted   = mean_k (1 / |Z_k|) sum_{i in Z_k} w_i l_i,
        unweighted = mean_k (1 / |Z_k|) sum_{i in Z_k} l_i.

    With w = p_te / p_tr the weighted value is an (almost) unbiased estimate of the error
    on the test distribution under covariate shift (Sugiyama, Krauledat and Mueller,
    "Covariate shift adaptation by importance weighted cross validation", JMLR 8, 2007);
    the unweighted one estimates the error on the training distribution, which is what
    ordinary cross-validation reports and which a shift makes misleading. Both come from
    the same fold models, so their difference is due to the weights in the validation
    loss only. Weights all 1 give ``weighted == unweighted``.

    When IWCV helps: unbiasedness is bought with variance (the weighted losses are as noisy
    as an ESS of the weights suggests). On real data sets of a few hundred training points
    it picked a better model than ordinary cross-validation only about half the time, even
    with the exact weights (40 and 36 of 74 ridge-regression splits, issue 31), and clearly
    better only from about 2000 training points. Read ``weighted_se``, ``unweighted_se``
    and ``distinguishable`` before preferring one number to the other.

    Parameters
    ----------
    model : scikit-learn regressor
        With ``fit`` and ``predict``.
    X_tr : array-like of shape (n, d)
        Training inputs, n >= 2.
    y_tr : array-like of shape (n,) or (n, p)
        Training outputs.
    weights : array-like of shape (n,)
        Importance weights of the training points (finite, >= 0), e.g. an estimator's
        ``weights_``; on the scale where they average 1 over the training points.
    cv : int >= 2, default 5
        Number of folds (capped at n).
    random_state : None, int >= 0 or numpy Generator
        Seeds the shuffling of the folds (an int gives ``KFold(cv, shuffle=True,
        random_state=random_state)`` exactly).

    Returns
    -------
    IWCVResult
        ``weighted``, ``unweighted``, the per-fold values of each, ``n_folds`` and the
        standard errors.
    """
    X = as_2d_float(X_tr, "X_tr (training inputs)", min_samples=2)
    Y = as_2d_float(y_tr, "y_tr (training outputs)")
    w = check_weights(weights, "weights")
    if len(Y) != len(X) or len(w) != len(X):
        raise ValueError(f"X_tr, y_tr and weights need the same number of samples; got {len(X)}, "
                         f"{len(Y)}, {len(w)}.")
    n_folds = min(check_int(cv, "cv (number of folds)", minimum=2), len(X))
    seed = check_random_state(random_state)
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(2**31 - 1))
    splits = list(KFold(n_folds, shuffle=True, random_state=seed).split(X))
    fit_weighted = has_fit_parameter(model, "sample_weight")
    target_all = Y[:, 0] if np.ndim(y_tr) == 1 else Y
    weighted, unweighted = np.empty(n_folds), np.empty(n_folds)
    for k, (fit_idx, held_idx) in enumerate(splits):
        fold_model = clone(model)
        if fit_weighted:
            fold_model.fit(X[fit_idx], target_all[fit_idx], sample_weight=w[fit_idx])
        else:
            fold_model.fit(X[fit_idx], target_all[fit_idx])
        pred = np.asarray(fold_model.predict(X[held_idx]), dtype=float).reshape(len(held_idx), -1)
        loss = np.sum((Y[held_idx] - pred) ** 2, axis=1)
        weighted[k] = np.mean(w[held_idx] * loss)
        unweighted[k] = np.mean(loss)
    return IWCVResult(weighted=float(np.mean(weighted)), unweighted=float(np.mean(unweighted)),
                      weighted_folds=_frozen(weighted), unweighted_folds=_frozen(unweighted),
                      n_folds=n_folds, weighted_se=_standard_error(weighted),
                      unweighted_se=_standard_error(unweighted),
                      difference_se=_standard_error(weighted - unweighted))


def iwcv_score(estimator, X, y, sample_weight, n_folds=5, random_state=0):
    """Importance-weighted cross-validation error of a regression model (lower is better).

    The ``weighted`` value of :func:`iw_cv_error` (one implementation), which also reports the
    unweighted error, the per-fold values and the standard errors.

    Parameters
    ----------
    estimator : regressor
        With ``fit`` and ``predict``.
    X : array-like of shape (n, d)
        Training inputs.
    y : array-like of shape (n,) or (n, p)
        Training outputs.
    sample_weight : array-like of shape (n,)
        Importance weights (>= 0).
    n_folds : int, default 5
        Folds of the cross-validation.
    random_state : None, int or RandomState, default 0
        Seeds the folds.

    Returns
    -------
    float
        The IWCV error.
    """
    return iw_cv_error(estimator, X, y, sample_weight, cv=n_folds, random_state=random_state).weighted


def held_out_log_likelihood(estimator, X_tr_held, X_te_held):
    """Held-out log-likelihood of a fitted weight estimator: mean log w(x_te) - log mean w(x_tr).

    Parameters
    ----------
    estimator : WeightEstimator
        Fitted, with ``predict_weights``.
    X_tr_held : array-like of shape (k, d)
        Held-out training inputs.
    X_te_held : array-like of shape (m, d)
        Held-out test inputs.

    Returns
    -------
    float
        The score (-inf where w vanishes).
    """
    w_te = estimator.predict_weights(X_te_held)
    w_tr_mean = float(np.mean(estimator.predict_weights(X_tr_held)))
    if not np.all(w_te > 0) or not w_tr_mean > 0:
        return -np.inf
    return float(np.mean(np.log(w_te)) - np.log(w_tr_mean))
