"""Diagnostics of covariate shift: is there a shift, where, what do the weights cost, and do they correct it?

- :func:`two_sample_test` (``covshift.two_sample``): do training and test inputs come from the
  same distribution? Kernel MMD (Gretton et al. 2012) or a classifier two-sample test (Lopez-Paz
  and Oquab 2017), both with permutation p-values.
- :func:`feature_shift`: which input columns moved (two-sample Kolmogorov-Smirnov per column), with
  p-values corrected for testing every column (Holm 1979, or Benjamini-Hochberg 1995).
- :func:`effective_sample_size` and :func:`weight_summary`: how many training points the
  importance weights are worth (Kish 1965), how concentrated they are, and, given the inputs,
  whether they move the training means onto the test means and what ESS weights that did so
  could have at most.
- :func:`iw_cv_error` (``covshift.cross_validation``): importance-weighted cross-validation
  (Sugiyama, Krauledat and Mueller 2007) of a model's test error, beside the ordinary estimate,
  each with its standard error.

Library code only (numpy, scipy, scikit-learn): no app imports.
"""

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np
from scipy import stats

from .cross_validation import IWCVResult, iw_cv_error
from .metrics import check_weights, effective_sample_size, max_weight
from .two_sample import (DEFAULT_PERMUTATIONS, MAX_TEST_POINTS, TwoSampleResult, check_samples, read_only,
                         two_sample_test)

__all__ = ["TwoSampleResult", "FeatureShiftResult", "WeightSummary", "IWCVResult",
           "two_sample_test", "feature_shift", "adjust_p_values", "effective_sample_size", "weight_summary",
           "iw_cv_error", "MAX_TEST_POINTS", "DEFAULT_PERMUTATIONS", "CORRECTIONS"]

#: Corrections of per-column p-values for testing several columns, by name (used in messages).
CORRECTIONS = {"holm": "Holm", "bh": "Benjamini-Hochberg"}


# ---------------------------------------------------------------------- result objects
@dataclass(frozen=True, eq=False)
class FeatureShiftResult:
    """Outcome of :func:`feature_shift`: one entry per input column, in column order.

    Parameters
    ----------
    statistic : ndarray of shape (d,)
        Two-sample Kolmogorov-Smirnov statistic ``sup_t |F_tr(t) - F_te(t)|`` in [0, 1];
        higher = more shifted.
    p_value : ndarray of shape (d,)
        Its p-value per column, each column tested alone (not corrected).
    p_value_adjusted : ndarray of shape (d,)
        The p-values corrected for testing d columns (``correction``): a column whose adjusted
        p-value is below a level a is declared shifted with a family-wise error rate ("holm") or
        a false discovery rate ("bh") of at most a.
    ranking : ndarray of int, shape (d,)
        Column indices from most to least shifted (ties keep column order).
    correction : str
        "holm" or "bh" (:data:`CORRECTIONS` gives the names).
    """

    statistic: np.ndarray
    p_value: np.ndarray
    p_value_adjusted: np.ndarray
    ranking: np.ndarray
    correction: str = "holm"

    def most_shifted(self, level=0.05):
        """Index of the most shifted column if its adjusted p-value is below ``level``, else None.

        None means that no single column can be named as shifted: the ranking is only a ranking.

        Parameters
        ----------
        level : float, default 0.05
            The level of the adjusted p-value.

        Returns
        -------
        int or None
            The column index, or None.
        """
        first = int(self.ranking[0])
        return first if self.p_value_adjusted[first] < level else None


@dataclass(frozen=True, eq=False)
class WeightSummary:
    """Outcome of :func:`weight_summary`.

    Parameters
    ----------
    ess : float
        Effective sample size (sum w)^2 / sum w^2.
    ess_fraction : float
        ess / n, in (0, 1]; 1 for equal weights.
    max_weight : float
        Largest weight on the mean-1 scale (max w / mean w).
    top_share : float
        Share of the total weight carried by the ceil(n / 100) heaviest points (the top 1 %,
        at least one point); 0.01 or a little more for equal weights.
    n : int
        Number of weights.
    mean_shift, weighted_mean_shift : ndarray of shape (d,) or None
        Given the inputs: per column, (test mean - training mean) / training standard deviation,
        without and with the weights (weights that correct the shift bring the second near 0).
    ess_bound : float or None
        Given the inputs: the largest ESS / n that weights moving the training means onto the test
        means can have (see :func:`weight_summary`); 1 when the means do not differ beyond noise.
    """

    ess: float
    ess_fraction: float
    max_weight: float
    top_share: float
    n: int
    mean_shift: Optional[np.ndarray] = None
    weighted_mean_shift: Optional[np.ndarray] = None
    ess_bound: Optional[float] = None


# ---------------------------------------------------------------------- per-feature shift
def adjust_p_values(p_values, correction="holm"):
    """p-values corrected for testing them all at once.

    "holm": Holm's step-down correction (Holm, "A simple sequentially rejective multiple test
    procedure", Scand. J. Statist. 6, 1979): with p_(1) <= ... <= p_(m) the sorted p-values,
    adjusted p_(i) = max_{j <= i} min(1, (m - j + 1) p_(j)); controls the family-wise error
    rate (the chance of declaring any unshifted column shifted) for any dependence between
    the tests. "bh": Benjamini and Hochberg's (JRSS B 57, 1995) false discovery rate
    (:func:`scipy.stats.false_discovery_control`).

    Parameters
    ----------
    p_values : array-like
        The p-values.
    correction : {"holm", "bh"}, default "holm"
        Holm's family-wise or Benjamini-Hochberg's false-discovery-rate correction.

    Returns
    -------
    ndarray
        The adjusted p-values, in the input order.

    Examples
    --------
    >>> from covshift.diagnostics import adjust_p_values
    >>> [round(float(p), 3) for p in adjust_p_values([0.01, 0.04, 0.03])]
    [0.03, 0.06, 0.06]
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {sorted(CORRECTIONS)}; got {correction!r}.")
    p = np.asarray(p_values, dtype=float).ravel()
    if p.size == 0:
        return p
    if correction == "bh":
        return np.asarray(stats.false_discovery_control(p, method="bh"), dtype=float)
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (p.size - np.arange(p.size)) * p[order])
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def feature_shift(X_tr, X_te, correction="holm"):
    """How much each input column moved: the two-sample Kolmogorov-Smirnov statistic.

    For column j, ``D_j = sup_t |F_tr,j(t) - F_te,j(t)|`` of the two empirical distribution
    functions (:func:`scipy.stats.ks_2samp`), with its p-value, and the p-values corrected
    for testing all d columns (:func:`adjust_p_values`). D_j is scale-free (any increasing
    transformation of a column leaves it unchanged) and lies in [0, 1]. Marginal only: a
    shift of the joint distribution that leaves every column's marginal in place is not seen
    (:func:`two_sample_test` sees it).

    Without correction, under no shift at all some column has p < 0.05 in 27 % of random
    halves of scikit-learn's wine data (13 columns) and 51 % of breast cancer (30 columns);
    with Holm's correction a column is named in 2.3 % and 2.7 % (300 halves each). Name a
    column as shifted only when its adjusted p-value is below the level
    (:meth:`FeatureShiftResult.most_shifted`).

    Parameters
    ----------
    X_tr, X_te : array-like of shape (n_tr, d), (n_te, d)
        At least 2 points each, the same columns, finite numbers.
    correction : {"holm", "bh"}, default "holm"

    Returns
    -------
    FeatureShiftResult
        ``statistic``, ``p_value`` and ``p_value_adjusted`` per column (column order),
        ``ranking`` the columns from most to least shifted.
    """
    if correction not in CORRECTIONS:
        raise ValueError(f"correction must be one of {sorted(CORRECTIONS)}; got {correction!r}.")
    X_tr, X_te = check_samples(X_tr, X_te)
    result = stats.ks_2samp(X_tr, X_te, axis=0)
    statistic = np.atleast_1d(np.asarray(result.statistic, dtype=float))
    p_value = np.atleast_1d(np.asarray(result.pvalue, dtype=float))
    ranking = np.argsort(-statistic, kind="stable")
    ranking.setflags(write=False)
    return FeatureShiftResult(statistic=read_only(statistic), p_value=read_only(p_value),
                              p_value_adjusted=read_only(adjust_p_values(p_value, correction)), ranking=ranking,
                              correction=correction)


# ---------------------------------------------------------------------- weights
def weight_summary(w, X_tr=None, X_te=None):
    """How much the importance weights ``w`` cost in sample size, how concentrated they are and,
    given the inputs, whether they move the training means onto the test means.

    The effective sample size (Kish, "Survey Sampling", 1965) ESS = (sum w)^2 / sum w^2
    (:func:`effective_sample_size`) is the number of equally weighted points that would
    give a weighted mean the same variance; it is n for equal weights and 1 when one point
    carries all the weight. Scale-free: w and c w give the same summary.

    What ESS does not tell: whether the weights correct the shift. Equal weights have the
    best ESS and correct nothing. With ``X_tr`` and ``X_te``, the summary adds, per column j,
    the standardised mean shift Delta_j = (mean_te,j - mean_tr,j) / sd_tr,j, without and with
    the weights, and the bound ``ess_bound``: weights of mean 1 whose weighted training mean of
    column j equals the test mean satisfy mean((w - 1)(x_j - mean_tr,j)) = Delta_j sd_tr,j,
    so by Cauchy-Schwarz var(w) >= Delta_j^2 and ESS / n = 1 / (1 + var(w)) <= 1 / (1 + Delta_j^2).
    The bound uses the largest Delta_j^2 less its sampling noise 1/n_tr + 1/n_te (the expected
    Delta_j^2 without shift), so it holds for the true ratio too, up to noise. Weights whose
    ESS / n is well above ``ess_bound`` leave some mean shift uncorrected (``weighted_mean_shift``
    says where).

    Parameters
    ----------
    w : array-like of shape (n,)
        Non-negative finite weights, not all zero.
    X_tr, X_te : array-like of shape (n, d), (n_te, d), optional
        The training inputs (one row per weight) and the test inputs.

    Returns
    -------
    WeightSummary
        ``ess``, ``ess_fraction`` = ess / n, ``max_weight`` (max w / mean w), ``top_share``
        (share of sum w in the ceil(n / 100) largest weights) and ``n``; with the inputs also
        ``mean_shift``, ``weighted_mean_shift`` and ``ess_bound``.
    """
    w = check_weights(w, "w (weights)")
    if not np.any(w > 0):
        raise ValueError("w (weights) are all zero: no point has weight, so nothing can be summarised.")
    n = w.size
    scaled = w / w.max()  # huge weights cannot overflow the sums
    top = max(1, math.ceil(n / 100))
    top_share = float(np.partition(scaled, n - top)[n - top:].sum() / scaled.sum())
    ess = effective_sample_size(w)
    balance = {}
    if X_tr is not None or X_te is not None:
        balance = _mean_balance(scaled, X_tr, X_te)
    return WeightSummary(ess=ess, ess_fraction=ess / n, max_weight=max_weight(w),
                         top_share=min(top_share, 1.0), n=n, **balance)


def _mean_balance(w, X_tr, X_te):
    """mean_shift, weighted_mean_shift and ess_bound of :func:`weight_summary`."""
    if X_tr is None or X_te is None:
        raise ValueError("Pass both X_tr and X_te (the training and test inputs), or neither.")
    X_tr, X_te = check_samples(X_tr, X_te)
    if len(X_tr) != len(w):
        raise ValueError(f"X_tr has {len(X_tr)} rows but there are {len(w)} weights; one weight per training row.")
    mean_tr = X_tr.mean(axis=0)
    sd = X_tr.std(axis=0)
    sd = np.where(sd > 0, sd, 1.0)
    shift = (X_te.mean(axis=0) - mean_tr) / sd
    weighted = (X_te.mean(axis=0) - (w @ X_tr) / w.sum()) / sd
    noise = 1.0 / len(X_tr) + 1.0 / len(X_te)
    excess = float(np.max(np.maximum(shift ** 2 - noise, 0.0)))
    return {"mean_shift": read_only(shift), "weighted_mean_shift": read_only(weighted),
            "ess_bound": 1.0 / (1.0 + excess)}
