"""The numbers shown beside every plot: weight quality and regression error."""

import warnings

import numpy as np
from scipy import stats
from sklearn import config_context
from sklearn.metrics import mean_absolute_error, r2_score, root_mean_squared_error

from ._validation import as_2d_float, check_sample_weight, check_scale
from .exceptions import NumericalWarning
from .kernels import gaussian_kernel


def _real_vector(values, name):
    """``values`` flattened to a 1-D float array, or ValueError naming it (None, complex, text)."""
    if values is None or np.iscomplexobj(values):
        raise ValueError(f"{name} must be an array of real numbers; got {type(values).__name__}.")
    try:
        return np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(f"{name} must contain numbers only.") from None


def check_weights(w, name="weights"):
    """``w`` as a 1-D float array; ValueError naming it unless non-empty, finite and non-negative.

    Parameters
    ----------
    w : array-like
        The weights.
    name : str, default "weights"
        Their name in the error message.

    Returns
    -------
    ndarray of shape (n,)
        The weights as floats.
    """
    w = _real_vector(w, name)
    if w.size == 0 or not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"{name} must be a non-empty array of finite, non-negative numbers.")
    return w


def _normalised(w, name):
    """w / sum(w), computed as (w / max w) / sum(w / max w) so that huge weights (1e200)
    cannot overflow the sum; ValueError when every weight is zero."""
    top = w.max()
    if top == 0:
        raise ValueError(f"{name} are all zero: they cannot be normalised (no point has weight).")
    scaled = w / top
    return scaled / scaled.sum()


def normalized_mse(w, true_w):
    """Normalised mean squared error of weights (sampling-based-kmm, section IV).

    mean_i (w_i / sum w - t_i / sum t)^2, both weight vectors scaled to sum to 1. Multiply by n^2
    for the value on the mean-1 scale.

    Parameters
    ----------
    w : array-like of shape (n,)
        Estimated weights.
    true_w : array-like of shape (n,)
        True weights.

    Returns
    -------
    float
        The NMSE.

    Examples
    --------
    >>> from covshift.metrics import normalized_mse
    >>> normalized_mse([1.0, 1.0], [2.0, 2.0])
    0.0
    """
    w, t = check_weights(w), check_weights(true_w, "true weights")
    if len(w) != len(t):
        raise ValueError(f"Estimated and true weights need the same length; got {len(w)} and {len(t)}.")
    return float(np.mean((_normalised(w, "weights") - _normalised(t, "true weights")) ** 2))


def effective_sample_size(w):
    """How many equally weighted points the weights are worth: (sum w)^2 / sum w^2.

    Scale-free: computed on w / max w, so huge weights cannot overflow (Kish 1965).

    Parameters
    ----------
    w : array-like of shape (n,)
        Non-negative weights.

    Returns
    -------
    float
        Between 1 and n (0 when every weight is 0).

    Examples
    --------
    >>> from covshift.metrics import effective_sample_size
    >>> effective_sample_size([1.0, 1.0, 1.0, 1.0]), effective_sample_size([1.0, 0.0, 0.0, 0.0])
    (4.0, 1.0)
    """
    w = check_weights(w)
    if not np.any(w > 0):
        return 0.0
    scaled = w / w.max()
    return float(scaled.sum() ** 2 / np.sum(scaled**2))


def max_weight(w):
    """Largest weight after normalising to mean 1 (max / mean, computed on w / max w).

    Parameters
    ----------
    w : array-like of shape (n,)
        Non-negative weights.

    Returns
    -------
    float
        max(w) / mean(w) (0 when every weight is 0).
    """
    w = check_weights(w)
    if not np.any(w > 0):
        return 0.0
    return float(1.0 / np.mean(w / w.max()))


def weighted_mmd2(X_tr, X_te, w, sigma):
    """MMD^2 between the w-weighted training sample and the test sample (Gaussian kernel).

    ``|| (1/sum w) sum_i w_i phi(x_tr_i) - (1/n_te) sum_j phi(x_te_j) ||^2`` in the RKHS; 0 when
    the weighted training sample matches the test sample in kernel mean.

    Parameters
    ----------
    X_tr : array-like of shape (n_tr, d)
        Training inputs.
    X_te : array-like of shape (n_te, d)
        Test inputs.
    w : array-like of shape (n_tr,)
        Weights of the training inputs.
    sigma : float
        Kernel width.

    Returns
    -------
    float
        The squared MMD, >= 0.
    """
    X_tr, X_te = as_2d_float(X_tr, "X_tr"), as_2d_float(X_te, "X_te")
    a = _normalised(check_weights(w), "weights")
    if len(a) != len(X_tr):
        raise ValueError(f"weights need one value per training point ({len(X_tr)}); got {len(a)}.")
    b = np.full(len(X_te), 1.0 / len(X_te))
    value = (a @ gaussian_kernel(X_tr, X_tr, sigma) @ a - 2 * a @ gaussian_kernel(X_tr, X_te, sigma) @ b
             + b @ gaussian_kernel(X_te, X_te, sigma) @ b)
    return float(max(value, 0.0))


def _checked():
    """scikit-learn's configuration for its metrics on arrays this module has checked (:func:`_pair`, finite
    float64 of one shape; weights by ``check_sample_weight``): no second finiteness check nor validation of the
    constant arguments passed (~0.1 ms a call; a regression table scores 12 times). The same numbers."""
    return config_context(assume_finite=True, skip_parameter_validation=True)


def _pair(y_true, y_pred):
    Y, P = as_2d_float(y_true, "y_true"), as_2d_float(y_pred, "y_pred")
    if Y.shape != P.shape:
        raise ValueError(f"y_true and y_pred have different shapes {Y.shape} and {P.shape}.")
    return Y, P


def _checked_weights(sample_weight, n):
    return None if sample_weight is None else check_sample_weight(sample_weight, n)


def mae(y_true, y_pred, sample_weight=None):
    """Mean absolute error over all points and outputs (the toys' error measure).

    scikit-learn's ``mean_absolute_error`` averaged uniformly over the outputs.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, p)
        True outputs.
    y_pred : array-like of the same shape
        Predictions.
    sample_weight : array-like of shape (n,) or None, default None
        Weights of the points.

    Returns
    -------
    float
        The MAE.
    """
    Y, P = _pair(y_true, y_pred)
    w = _checked_weights(sample_weight, len(Y))
    with _checked():
        return float(mean_absolute_error(Y, P, sample_weight=w))


def rmse(y_true, y_pred, sample_weight=None):
    """Root mean squared error per output: scikit-learn's ``root_mean_squared_error``, raw values.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, p)
        True outputs.
    y_pred : array-like of the same shape
        Predictions.
    sample_weight : array-like of shape (n,) or None, default None
        Weights of the points.

    Returns
    -------
    ndarray of shape (p,)
        The RMSE of each output.
    """
    Y, P = _pair(y_true, y_pred)
    w = _checked_weights(sample_weight, len(Y))
    with _checked():
        return root_mean_squared_error(Y, P, sample_weight=w, multioutput="raw_values")


def r2(y_true, y_pred, sample_weight=None):
    """Coefficient of determination per output (eq. 19 of fw-covariate-shift-iw-smtgp).

    scikit-learn's ``r2_score`` with ``multioutput="raw_values"``. An output whose true values do
    not vary (over the points of positive weight) scores 0. A score below -1e300 (true outputs that
    hardly vary compared with the errors: the ratio of the sums of squares overflows) is reported as
    -1e300 with a NumericalWarning.

    Parameters
    ----------
    y_true : array-like of shape (n,) or (n, p)
        True outputs.
    y_pred : array-like of the same shape
        Predictions.
    sample_weight : array-like of shape (n,) or None, default None
        Weights of the points.

    Returns
    -------
    ndarray of shape (p,)
        R^2 of each output.
    """
    Y, P = _pair(y_true, y_pred)
    w = _checked_weights(sample_weight, len(Y))
    constant = np.ptp(Y if w is None else Y[w > 0], axis=0) == 0
    if np.all(constant):  # includes one point, where scikit-learn warns and returns NaN
        return np.zeros(Y.shape[1])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"), _checked():
        score = r2_score(Y, P, sample_weight=w, multioutput="raw_values", force_finite=False)
    score = np.where(constant, 0.0, score)
    if not np.all(np.isfinite(score)):
        warnings.warn("R^2 is below -1e300 (the true outputs hardly vary compared with the errors); "
                      "reported as -1e300.", NumericalWarning, stacklevel=2)
        score = np.where(np.isfinite(score), score, -1e300)
    return score


def euclidean_errors(y_true, y_pred):
    """Per-point Euclidean error ``||y_hat - y||`` of structured outputs (eq. 18 style).

    Parameters
    ----------
    y_true : array-like of shape (n, p)
        True outputs.
    y_pred : array-like of shape (n, p)
        Predictions.

    Returns
    -------
    ndarray of shape (n,)
        The error of each point.
    """
    Y, P = _pair(y_true, y_pred)
    return np.linalg.norm(Y - P, axis=1)


def mean_euclidean_error(y_true, y_pred):
    """Mean of :func:`euclidean_errors`.

    Parameters
    ----------
    y_true : array-like of shape (n, p)
        True outputs.
    y_pred : array-like of shape (n, p)
        Predictions.

    Returns
    -------
    float
        The mean Euclidean error.
    """
    return float(np.mean(euclidean_errors(y_true, y_pred)))


def _errors(values, name):
    """A finite 1-D float array of per-point errors, or ValueError naming it."""
    values = _real_vector(values, name)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} contains NaN or infinite values.")
    check_scale(values, name)
    return values


def paired_ttest(errors_a, errors_b):
    """Paired t-test of two models' per-point errors.

    Identical errors give (0, 1). Differences that are all the same nonzero number have zero
    spread, so t is unbounded: a NumericalWarning says so and t is returned as +-1e300 with p = 0
    (finite numbers for display).

    Parameters
    ----------
    errors_a : array-like of shape (n,)
        Per-point errors of the first model.
    errors_b : array-like of shape (n,)
        Per-point errors of the second, at the same points.

    Returns
    -------
    tuple of float
        (t statistic, two-sided p-value).
    """
    a, b = _errors(errors_a, "errors_a"), _errors(errors_b, "errors_b")
    if a.shape != b.shape or a.size < 2:
        raise ValueError(f"The paired t-test needs two error arrays of the same length >= 2; "
                         f"got {a.size} and {b.size}.")
    difference = a - b
    if np.allclose(a, b):
        return 0.0, 1.0
    if np.ptp(difference) <= 1e-12 * np.max(np.abs(difference)):
        warnings.warn("The two error arrays differ by the same amount at every point: the "
                      "differences have no spread, so the t statistic is unbounded (reported as "
                      "+-1e300, p = 0).", NumericalWarning, stacklevel=2)
        return float(np.sign(difference.mean()) * 1e300), 0.0
    result = stats.ttest_rel(a, b)
    return float(result.statistic), float(result.pvalue)


def certainty_error_correlation(certainty, errors):
    """Pearson correlation of the TGP certainty phi with the per-point error, and its p-value.

    The SMTGP papers claim it is negative: more certain predictions are more accurate. A constant
    certainty or error has no correlation: (0, 1).

    Parameters
    ----------
    certainty : array-like of shape (n,)
        Per-point certainty (e.g. the TGP's phi).
    errors : array-like of shape (n,)
        Per-point errors.

    Returns
    -------
    tuple of float
        (r, two-sided p-value).
    """
    c, e = _errors(certainty, "certainty"), _errors(errors, "errors")
    if c.shape != e.shape:
        raise ValueError(f"Certainty and errors need the same length; got {c.size} and {e.size}.")
    if c.size < 3:
        raise ValueError(f"The certainty-error correlation needs at least 3 test points; got {c.size}.")
    if np.ptp(c) == 0 or np.ptp(e) == 0:
        return 0.0, 1.0
    # scale-free: standardise first so that huge values cannot overflow the sums of products
    c, e = (c - c.mean()) / np.ptp(c), (e - e.mean()) / np.ptp(e)
    result = stats.pearsonr(c, e)
    return float(result.statistic), float(result.pvalue)


def correlation_interval(r, n, level=0.95):
    """Confidence interval of a correlation coefficient by Fisher's z transform.

    Parameters
    ----------
    r : float
        Pearson or Spearman correlation, in [-1, 1].
    n : int
        Number of pairs it was computed on (at least 4).
    level : float, default 0.95
        Coverage of the interval, in (0, 1).

    Returns
    -------
    tuple of float
        (low, high).
    """
    if not -1.0 <= r <= 1.0:
        raise ValueError(f"r must be in [-1, 1]; got {r}.")
    if int(n) < 4:
        raise ValueError(f"n must be at least 4 for a Fisher interval; got {n}.")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1); got {level}.")
    z = np.arctanh(np.clip(r, -1 + 1e-15, 1 - 1e-15))
    half = stats.norm.ppf(0.5 + level / 2) / np.sqrt(int(n) - 3)
    return float(np.tanh(z - half)), float(np.tanh(z + half))


def certainty_error_bins(certainty, errors, n_bins=5, level=0.95):
    """Mean error per certainty quantile bin: the points ranked by certainty, cut into ``n_bins``
    groups of (nearly) equal size, from the least to the most certain.

    Ranks, not values, make the bins: a certainty crowded near 1 still fills every bin.

    Parameters
    ----------
    certainty : array-like of shape (n,)
        Per-point certainty (e.g. the TGP's phi).
    errors : array-like of shape (n,)
        Per-point error.
    n_bins : int, default 5
        Number of bins (2 <= n_bins <= n / 2).
    level : float, default 0.95
        Coverage of the t-interval of each bin's mean error.

    Returns
    -------
    dict of arrays of shape (n_bins,)
        ``certainty`` (mean certainty of the bin), ``error`` (mean error), ``low`` and ``high``
        (t-interval of the mean error), ``count``; and ``members``, a list of index arrays.
    """
    c, e = _errors(certainty, "certainty"), _errors(errors, "errors")
    if c.shape != e.shape:
        raise ValueError(f"Certainty and errors need the same length; got {c.size} and {e.size}.")
    if not 2 <= int(n_bins) <= c.size // 2:
        raise ValueError(f"n_bins must be between 2 and n / 2 = {c.size // 2}; got {n_bins}.")
    members = np.array_split(np.argsort(c, kind="stable"), int(n_bins))
    mean = np.array([e[m].mean() for m in members])
    spread = np.array([e[m].std(ddof=1) / np.sqrt(m.size) for m in members])
    t = np.array([stats.t.ppf(0.5 + level / 2, m.size - 1) for m in members])
    return {"certainty": np.array([c[m].mean() for m in members]), "error": mean, "low": mean - t * spread,
            "high": mean + t * spread, "count": np.array([m.size for m in members]), "members": members}
