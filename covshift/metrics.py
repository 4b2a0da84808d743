"""The numbers shown beside every plot: weight quality and regression error."""

import numpy as np
from scipy import stats

from ._validation import as_2d_float
from .kernels import gaussian_kernel


def _weights(w, name="weights"):
    w = np.asarray(w, dtype=float).ravel()
    if w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"{name} must be a non-empty array of finite, non-negative numbers.")
    return w


def normalized_mse(w, true_w):
    """Normalised mean squared error of weights (sampling-based-kmm, section IV):
    mean_i (w_i / sum w - t_i / sum t)^2, both weight vectors scaled to sum to 1."""
    w, t = _weights(w), _weights(true_w, "true weights")
    if len(w) != len(t):
        raise ValueError("Estimated and true weights need the same length.")
    return float(np.mean((w / w.sum() - t / t.sum()) ** 2))


def effective_sample_size(w):
    """(sum w)^2 / sum w^2: how many equally weighted points the weights are worth."""
    w = _weights(w)
    return float(w.sum() ** 2 / np.sum(w**2)) if np.any(w > 0) else 0.0


def max_weight(w):
    """Largest weight after normalising to mean 1."""
    w = _weights(w)
    return float(w.max() / w.mean()) if w.mean() > 0 else 0.0


def weighted_mmd2(X_tr, X_te, w, sigma):
    """MMD^2 between the w-weighted training sample and the test sample (Gaussian kernel).

    || (1/sum w) sum_i w_i phi(x_tr_i) - (1/n_te) sum_j phi(x_te_j) ||^2 in the RKHS; 0 when
    the weighted training sample matches the test sample in kernel mean.
    """
    X_tr, X_te = as_2d_float(X_tr, "X_tr"), as_2d_float(X_te, "X_te")
    w = _weights(w)
    a = w / w.sum()
    b = np.full(len(X_te), 1.0 / len(X_te))
    value = (a @ gaussian_kernel(X_tr, X_tr, sigma) @ a - 2 * a @ gaussian_kernel(X_tr, X_te, sigma) @ b
             + b @ gaussian_kernel(X_te, X_te, sigma) @ b)
    return float(max(value, 0.0))


def _pair(y_true, y_pred):
    Y, P = as_2d_float(y_true, "y_true"), as_2d_float(y_pred, "y_pred")
    if Y.shape != P.shape:
        raise ValueError(f"y_true and y_pred have different shapes {Y.shape} and {P.shape}.")
    return Y, P


def mae(y_true, y_pred):
    """Mean absolute error over all points and outputs (the toys' error measure)."""
    Y, P = _pair(y_true, y_pred)
    return float(np.mean(np.abs(Y - P)))


def rmse(y_true, y_pred):
    """Root mean squared error per output (array of length dy)."""
    Y, P = _pair(y_true, y_pred)
    return np.sqrt(np.mean((Y - P) ** 2, axis=0))


def r2(y_true, y_pred):
    """Coefficient of determination per output (eq. 19 of fw-covariate-shift-iw-smtgp)."""
    Y, P = _pair(y_true, y_pred)
    total = np.sum((Y - Y.mean(axis=0)) ** 2, axis=0)
    resid = np.sum((Y - P) ** 2, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, 1.0 - resid / total, 0.0)


def euclidean_errors(y_true, y_pred):
    """Per-point Euclidean error ||y_hat - y|| of structured outputs (eq. 18 style)."""
    Y, P = _pair(y_true, y_pred)
    return np.linalg.norm(Y - P, axis=1)


def mean_euclidean_error(y_true, y_pred):
    return float(np.mean(euclidean_errors(y_true, y_pred)))


def paired_ttest(errors_a, errors_b):
    """Paired t-test of two models' per-point errors: (t statistic, two-sided p-value)."""
    a, b = np.asarray(errors_a, float).ravel(), np.asarray(errors_b, float).ravel()
    if a.shape != b.shape or a.size < 2:
        raise ValueError("The paired t-test needs two error arrays of the same length >= 2.")
    if np.allclose(a, b):
        return 0.0, 1.0
    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


def certainty_error_correlation(certainty, errors):
    """Pearson correlation of the TGP certainty phi with the per-point error (and p-value).

    The SMTGP papers claim it is negative: more certain predictions are more accurate.
    """
    c, e = np.asarray(certainty, float).ravel(), np.asarray(errors, float).ravel()
    if c.shape != e.shape or c.size < 3:
        raise ValueError("Certainty and errors need the same length >= 3.")
    if np.ptp(c) == 0 or np.ptp(e) == 0:
        return 0.0, 1.0
    result = stats.pearsonr(c, e)
    return float(result.statistic), float(result.pvalue)
