"""Two-sample tests of covariate shift: do the training and test inputs come from one distribution (kernel MMD or a classifier, with permutation p-values)?"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from ._validation import as_2d_float, check_choice, check_int, check_random_state
from .kernels import gaussian_kernel, median_heuristic

__all__ = ["TwoSampleResult", "two_sample_test", "MAX_TEST_POINTS", "DEFAULT_PERMUTATIONS"]

#: At most this many points of each sample enter :func:`two_sample_test` (a seeded random
#: subset beyond, with a warning): the pooled kernel matrix is then at most 2000 x 2000
#: (32 MB) and the test stays well under a second.
MAX_TEST_POINTS = 1000
#: Permutations drawn when ``n_permutations`` is None, per method.
DEFAULT_PERMUTATIONS = {"mmd": 500, "classifier": 200}
#: Folds of the classifier test (fewer when a sample has fewer points).
CLASSIFIER_FOLDS = 5
#: Ridge penalty of the default classifier (on standardised inputs; keeps the solve defined
#: when a column is constant or duplicated, and hardly shrinks at a few dozen points).
RIDGE_ALPHA = 1.0
#: Bytes of one block of permutation work (bounds the memory of the vectorised null).
_BLOCK_BYTES = 2**24


def read_only(array):
    """``array`` as a read-only float array (results are frozen)."""
    array = np.asarray(array, dtype=float)
    array.setflags(write=False)
    return array


@dataclass(frozen=True, eq=False)
class TwoSampleResult:
    """Outcome of :func:`two_sample_test`.

    Parameters
    ----------
    statistic : float
        "mmd": the unbiased estimate of MMD^2 (may be slightly negative when there is no
        shift); "classifier": the mean held-out ROC AUC over the folds (0.5 = the classifier
        cannot tell the samples apart).
    p_value : float
        Permutation p-value (1 + #{null >= statistic}) / (1 + n_permutations), in
        (0, 1]; never below 1 / (1 + n_permutations).
    method : str
        "mmd" or "classifier".
    null_distribution : ndarray of shape (n_permutations,)
        The statistic on each permutation (read-only), for a histogram of the null.
    n_permutations : int
        Number of permutations.
    n_tr, n_te : int
        Points of each sample actually used (fewer than given beyond MAX_TEST_POINTS).
    """

    statistic: float
    p_value: float
    method: str
    null_distribution: np.ndarray
    n_permutations: int
    n_tr: int
    n_te: int


# ---------------------------------------------------------------------- input checks
def check_samples(X_tr, X_te):
    """Two finite numeric 2-D arrays with >= 2 rows each and the same columns, or ValueError
    naming X_tr / X_te."""
    X_tr = as_2d_float(X_tr, "X_tr (training inputs)", min_samples=2)
    X_te = as_2d_float(X_te, "X_te (test inputs)", min_samples=2)
    if X_tr.shape[1] != X_te.shape[1]:
        raise ValueError(f"X_tr and X_te must have the same number of columns (features); "
                         f"X_tr has {X_tr.shape[1]}, X_te has {X_te.shape[1]}.")
    return X_tr, X_te


def _rng(random_state):
    return np.random.default_rng(check_random_state(random_state))


def _seed(rng):
    """An integer seed for scikit-learn drawn from a numpy Generator."""
    return int(rng.integers(2**31 - 1))


# ---------------------------------------------------------------------- two-sample tests
def two_sample_test(X_tr, X_te, method="mmd", n_permutations=None, random_state=None,
                    classifier=None):
    """Permutation test of "training and test inputs have the same distribution".

    Both samples are pooled and standardised with the pooled mean and standard deviation
    of each column (a constant column is left at 0). The statistic is computed on the
    observed split and on ``n_permutations`` random re-assignments of the pooled points
    to two samples of the same sizes; the p-value is

        p = (1 + #{b : T_b >= T_observed}) / (1 + n_permutations),

    which is valid (P(p <= a) <= a for every level a) when there is no shift, whatever
    the sample sizes: the permuted statistics and the observed one are then exchangeable.

    Two statistics (``method``):

    "mmd" (default)
        The unbiased estimate of the squared maximum mean discrepancy MMD^2_u (Gretton,
        Borgwardt, Rasch, Schoelkopf and Smola, "A kernel two-sample test", JMLR 13, 2012,
        eq. 3) with the Gaussian kernel (:func:`covshift.kernels.gaussian_kernel`) whose
        width is the median heuristic (:func:`covshift.kernels.median_heuristic`) of all
        pooled, standardised points. Detects any difference of distributions (the Gaussian
        kernel is characteristic). The pooled kernel matrix is computed once; every
        permutation only re-labels its rows, and blocks of permutations are evaluated by
        one matrix product each. Cost with the default 500 permutations, 10 columns, on 2
        busy cores: 0.05-0.2 s at 500 points per sample, 0.2-0.45 s at 1000 or more (the
        cap).
    "classifier"
        A classifier two-sample test (Lopez-Paz and Oquab, "Revisiting classifier
        two-sample tests", ICLR 2017): the mean held-out ROC AUC, over stratified
        ``CLASSIFIER_FOLDS``-fold cross-validation, of a classifier telling training (0)
        from test (1) points. Under no shift no classifier beats chance on held-out points
        (AUC near 0.5). The default classifier is linear (ridge regression of the domain
        label with penalty ``RIDGE_ALPHA``: the direction of Fisher's discriminant), fitted
        in closed form for all permutations at once (0.1-0.35 s with the default 200
        permutations at 500 or 1000 points per sample, 10 columns); it detects
        shifts of the means (not, e.g., of the spread only; "mmd" does). Any scikit-learn
        classifier may be passed instead (``classifier=``): it is then refitted
        ``CLASSIFIER_FOLDS x (n_permutations + 1)`` times, so keep ``n_permutations``
        small (e.g. 50-100) with a slow one. The permutations move the points and keep
        the labels and folds: each held-out fold keeps both samples in every permutation.

    Parameters
    ----------
    X_tr, X_te : array-like of shape (n_tr, d), (n_te, d)
        At least 2 points each, the same columns, finite numbers. Beyond
        ``MAX_TEST_POINTS`` (1000) points, a seeded random subset of that many is tested
        (a UserWarning says so).
    method : {"mmd", "classifier"}
    n_permutations : int >= 1 or None
        Default ``DEFAULT_PERMUTATIONS[method]`` (500 for "mmd", 200 for "classifier").
        The smallest attainable p-value is 1 / (1 + n_permutations).
    random_state : None, int >= 0 or numpy Generator
        Seeds the subsets, the folds and the permutations.
    classifier : scikit-learn classifier or None
        Only for method="classifier"; scored by ``decision_function`` (or the second
        column of ``predict_proba``).

    Returns
    -------
    TwoSampleResult
    """
    method = check_choice(method, "method", {"mmd", "classifier"})
    if n_permutations is None:
        n_permutations = DEFAULT_PERMUTATIONS[method]
    n_permutations = check_int(n_permutations, "n_permutations", minimum=1)
    X_tr, X_te = check_samples(X_tr, X_te)
    if classifier is not None and method != "classifier":
        raise ValueError(f"classifier is only used by method='classifier'; got method={method!r}.")
    rng = _rng(random_state)
    X_tr, X_te = _capped(X_tr, "X_tr", rng), _capped(X_te, "X_te", rng)
    pooled = np.vstack([X_tr, X_te])
    pooled -= pooled.mean(axis=0)
    spread = pooled.std(axis=0)
    pooled /= np.where(spread > 0, spread, 1.0)
    n = len(X_tr)
    if method == "mmd":
        values = _mmd_statistics(pooled, n, n_permutations, rng)
    elif classifier is None:
        values = _linear_auc_statistics(pooled, n, n_permutations, rng)
    else:
        values = _classifier_auc_statistics(pooled, n, n_permutations, rng, classifier)
    observed, null = float(values[0]), values[1:]
    tolerance = 1e-12 * max(1.0, abs(observed))  # equal statistics count as "as extreme"
    p_value = (1.0 + np.sum(null >= observed - tolerance)) / (1.0 + n_permutations)
    return TwoSampleResult(statistic=observed, p_value=float(p_value), method=method,
                           null_distribution=read_only(null), n_permutations=n_permutations,
                           n_tr=n, n_te=len(X_te))


def _capped(X, name, rng):
    if len(X) <= MAX_TEST_POINTS:
        return X
    warnings.warn(f"{name} has {len(X)} points; the two-sample test uses a random subset of "
                  f"{MAX_TEST_POINTS} (MAX_TEST_POINTS) to bound its cost.", UserWarning,
                  stacklevel=3)
    return X[np.sort(rng.choice(len(X), MAX_TEST_POINTS, replace=False))]


def _label_blocks(N, n, n_permutations, rng, block):
    """Yield (start, Z): 0/1 matrices (N, b) whose column j marks the n points of the first
    sample in statistic start + j; statistic 0 is the observed split (the first n points)."""
    total = n_permutations + 1
    for start in range(0, total, block):
        width = min(block, total - start)
        chosen = np.argsort(rng.random((width, N)), axis=1)[:, :n]  # a uniform n-subset each
        if start == 0:
            chosen[0] = np.arange(n)
        Z = np.zeros((N, width))
        Z[chosen, np.arange(width)[:, None]] = 1.0
        yield start, Z


def _mmd_statistics(pooled, n, n_permutations, rng):
    """MMD^2_u of the observed split (entry 0) and of each permutation (entries 1..B).

    With z the indicator of the first sample, K the pooled kernel matrix (unit diagonal),
    r = K 1 and T = 1' K 1: S_xx = z'Kz, S_xy = z'r - S_xx, S_yy = T - S_xx - 2 S_xy, and
    MMD^2_u = (S_xx - n) / (n(n-1)) + (S_yy - m) / (m(m-1)) - 2 S_xy / (nm).
    """
    N = len(pooled)
    m = N - n
    sigma = median_heuristic(pooled, max_samples=N)  # all pairs: a function of the pooled set
    K = gaussian_kernel(pooled, pooled, sigma)
    np.fill_diagonal(K, 1.0)  # k(x, x) = 1 exactly (the expansion can leave 1 - 1e-16)
    row_sums = K.sum(axis=1)
    total = row_sums.sum()
    values = np.empty(n_permutations + 1)
    block = max(1, _BLOCK_BYTES // (8 * N))
    for start, Z in _label_blocks(N, n, n_permutations, rng, block):
        s_xx = np.einsum("ij,ij->j", K @ Z, Z)
        s_xy = row_sums @ Z - s_xx
        s_yy = total - s_xx - 2.0 * s_xy
        values[start:start + Z.shape[1]] = ((s_xx - n) / (n * (n - 1.0)) + (s_yy - m) / (m * (m - 1.0))
                                            - 2.0 * s_xy / (n * m))
    return values


def _stratified_folds(n, m, rng):
    """Fold of each pooled position (first n: training) by scikit-learn's shuffled
    :class:`~sklearn.model_selection.StratifiedKFold` on the sample labels, so every held-out fold
    holds points of both samples in their proportions."""
    n_folds = min(CLASSIFIER_FOLDS, n, m)
    labels = np.arange(n + m) >= n
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=int(rng.integers(2**31 - 1)))
    folds = np.empty(n + m, dtype=int)
    for k, (_, held) in enumerate(splitter.split(np.zeros((n + m, 1)), labels)):
        folds[held] = k
    return folds, n_folds


def _auc(scores, positive):
    """ROC AUC of each row of ``scores`` (b, n_held) for the boolean labels ``positive``
    (Mann-Whitney U with average ranks for ties, as sklearn.metrics.roc_auc_score)."""
    n1 = int(positive.sum())
    n0 = positive.size - n1
    ranks = stats.rankdata(scores, axis=1)
    return (ranks[:, positive].sum(axis=1) - n1 * (n1 + 1) / 2.0) / (n1 * n0)


def _permutations(N, n_permutations, rng, block):
    """Yield (start, P): row permutations (b, N) of the pooled points; statistic 0 (the
    observed split) is the identity."""
    total = n_permutations + 1
    for start in range(0, total, block):
        width = min(block, total - start)
        order = np.argsort(rng.random((width, N)), axis=1)
        if start == 0:
            order[0] = np.arange(N)
        yield start, order


def _linear_auc_statistics(pooled, n, n_permutations, rng):
    """Mean held-out AUC of the ridge classifier for the observed split and each permutation.

    Per fold, w = (X_c' X_c + alpha I)^-1 X_c' (y - mean y) on the fitting points (X_c the
    centred inputs; y - mean y sums to zero, so X' (y - mean y) needs no centring), and the
    held-out points are ranked by x' w. All permutations of a block are solved by batched
    matrix products and one batched solve.
    """
    N, d = pooled.shape
    labels = np.arange(N) >= n  # test points are the positives
    folds, n_folds = _stratified_folds(n, N - n, rng)
    values = np.zeros(n_permutations + 1)
    block = max(1, _BLOCK_BYTES // (8 * N * d))
    for start, order in _permutations(N, n_permutations, rng, block):
        X = pooled[order]  # (b, N, d): the points moved, labels and folds kept
        for k in range(n_folds):
            fit, held = folds != k, folds == k
            Xf = X[:, fit]
            centred_y = labels[fit] - labels[fit].mean()
            mean = Xf.mean(axis=1)
            gram = np.matmul(Xf.transpose(0, 2, 1), Xf)
            gram -= Xf.shape[1] * mean[:, :, None] * mean[:, None, :]
            gram += RIDGE_ALPHA * np.eye(d)
            w = np.linalg.solve(gram, (centred_y @ Xf)[:, :, None])[:, :, 0]
            scores = np.einsum("bnd,bd->bn", X[:, held], w)
            values[start:start + len(order)] += _auc(scores, labels[held])
    return values / n_folds


def _classifier_auc_statistics(pooled, n, n_permutations, rng, classifier):
    """The same statistic as _linear_auc_statistics with any scikit-learn classifier
    (refitted per fold and permutation)."""
    N = len(pooled)
    labels = (np.arange(N) >= n).astype(int)
    folds, n_folds = _stratified_folds(n, N - n, rng)
    values = np.zeros(n_permutations + 1)
    for start, order in _permutations(N, n_permutations, rng, 64):
        for j, permutation in enumerate(order):
            X = pooled[permutation]
            for k in range(n_folds):
                fit, held = folds != k, folds == k
                model = clone(classifier).fit(X[fit], labels[fit])
                values[start + j] += _auc(_scores(model, X[held])[None, :], labels[held] == 1)[0]
    return values / n_folds


def _scores(model, X):
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X), dtype=float).ravel()
    return np.asarray(model.predict_proba(X), dtype=float)[:, 1]
