"""Shared base of all importance-weight estimators."""

import warnings
from contextlib import contextmanager

import numpy as np
from sklearn.base import BaseEstimator, _fit_context

from .._validation import seed_of, validate_predict, validate_train_test
from ..exceptions import NumericalWarning
from ..kernels import kernel_column_means
from ._kliep_problem import MIN_MEAN_KERNEL, choose_centers

#: The kernel-mass check of :func:`warn_no_kernel_mass` looks at no more than this many points.
MAX_CHECKED_POINTS = 1000


class WeightEstimator(BaseEstimator):
    """Base class: ``fit(X_tr, X_te)`` learns w(x) = p_te(x) / p_tr(x).

    Subclasses declare ``_parameter_constraints`` (scikit-learn's declarative checks, see
    ``covshift._constraints``: run first, before the data are looked at, each failure a ValueError
    naming the parameter) and implement ``_fit(X_tr, X_te)`` (set fitted attributes, return the
    raw weights on the training points; checks across parameters go there) and ``_predict_raw(X)``.
    The base class validates input and scales everything so that ``weights_`` has mean 1;
    the same scale is applied by :meth:`predict_weights`.

    Standardise the inputs before fitting (each column centred and divided by its standard
    deviation over training and test inputs together, e.g. ``StandardScaler``): the kernel
    estimators use one width for every column, so a column in large units decides every distance.

    ``random_state`` follows scikit-learn: None, an integer seed, a ``np.random.RandomState``
    (or a ``np.random.Generator``). An instance gives one integer seed per fit, drawn from it
    (``covshift._validation.seed_of``): every random choice of that fit uses the seed, so
    a fit with ``RandomState(s)`` equals the fit with ``seed_of(RandomState(s))``.
    """

    #: Subclasses whose computations run over row blocks accept lazy dask arrays.
    _accepts_dask = False
    _parameter_constraints = {}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X_tr, X_te):
        """Learn the importance weights.

        Parameters
        ----------
        X_tr : array-like of shape (n_tr, d)
            Training inputs, drawn from p_tr.
        X_te : array-like of shape (n_te, d)
            Test inputs, drawn from p_te.

        Returns
        -------
        self : WeightEstimator
            The fitted estimator: ``weights_`` holds the training points' weights (mean 1).
        """
        seed = seed_of(getattr(self, "random_state", None))
        X_tr, X_te = validate_train_test(self, X_tr, X_te, allow_dask=self._accepts_dask)
        with _seeded(self, seed):
            raw = np.asarray(self._fit(X_tr, X_te), dtype=float)
        mean = raw.mean()
        self.weight_scale_ = 1.0 / mean if mean > 0 and np.isfinite(mean) else 1.0
        self.weights_ = raw * self.weight_scale_ if mean > 0 else np.ones_like(raw)
        return self

    def predict_weights(self, X):
        """Importance weight w(x) at any inputs ``X`` (same scale as ``weights_``).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs at which to evaluate the fitted ratio.

        Returns
        -------
        ndarray of shape (n,)
            w(x) for each row of ``X``, on the scale where the training weights have mean 1.
        """
        X = validate_predict(self, X, "weights_")
        return self._predict_raw(X) * self.weight_scale_

    def __sklearn_tags__(self):
        """Unsupervised (no target: ``fit(X_tr, X_te)``), of type "density_ratio_estimator"."""
        tags = super().__sklearn_tags__()
        tags.estimator_type = "density_ratio_estimator"
        tags.target_tags.required = False
        return tags

    def _fit(self, X_tr, X_te):  # pragma: no cover - abstract
        raise NotImplementedError

    def _predict_raw(self, X):  # pragma: no cover - abstract
        raise NotImplementedError


@contextmanager
def _seeded(estimator, seed):
    """``estimator.random_state`` is the integer ``seed`` for the duration of one fit.

    Only when random_state is a RandomState or Generator (an integer or None is left alone):
    the KLIEP family's centre choice and cross-validation folds seed numpy's ``default_rng``
    with ``random_state`` directly, which takes no RandomState. The parameter is restored
    afterwards (``get_params`` still returns the instance the user passed).
    """
    original = getattr(estimator, "random_state", None)
    if seed is original:  # None, or an int (the same object returned by seed_of)
        yield
        return
    estimator.random_state = seed
    try:
        yield
    finally:
        estimator.random_state = original


#: A kernel whose exponent stays below this at the largest distance of the data is 1 everywhere to 12 digits.
FLAT_EXPONENT = 1e-12


def warn_flat_kernel(estimator, X_tr, X_te, sigma, parameter="sigma", stacklevel=5):
    """NumericalWarning when ``sigma`` is so large that every Gaussian kernel value between the points is 1
    (to 12 digits): the weights are then uniform whatever the shift. The largest distance is bounded by the
    diagonal of the pooled points' bounding box (no pairwise distances computed). Returns True if it warned."""
    pooled = [np.asarray(X_tr), np.asarray(X_te)]
    spread = np.max([p.max(axis=0) for p in pooled], axis=0) - np.min([p.min(axis=0) for p in pooled], axis=0)
    diagonal = float(np.sqrt(np.sum(spread.astype(float) ** 2)))
    # 0.5 (diagonal / sigma)^2 < FLAT_EXPONENT, without squaring: a tiny sigma makes the ratio ~1e300
    if diagonal / float(sigma) < np.sqrt(2 * FLAT_EXPONENT):
        warnings.warn(
            f"{type(estimator).__name__}: {parameter}={float(sigma):.3g} is so large against the data's spread (largest "
            f"distance at most {diagonal:.3g}) that every Gaussian kernel value is 1 to 12 digits: the weights are "
            f"uniform whatever the shift. Use a {parameter} near the distances of the data (e.g. the median "
            "distance, or the estimator's automatic choice).", NumericalWarning, stacklevel=stacklevel)
        return True
    return False


def warn_no_kernel_mass(estimator, X_tr, points, sigma, what="test points", stacklevel=5, column_means=None):
    """The KLIEP family's underflow check for any kernel estimator (NumericalWarning).

    A point c whose mean kernel value over the training points, mean_i k(x_tr_i, c), is at
    most ``MIN_MEAN_KERNEL`` (the threshold below which KLIEP excludes a centre, see
    ``_kliep_problem.build_kliep_problem``) has (numerically) no training mass: sigma is too
    small for the data (the kernel matrix has collapsed to the identity) or c lies outside
    the training support. Looks at ``points`` (at most ``MAX_CHECKED_POINTS`` of them, a
    seeded subset) and warns with the count; returns that count. ``column_means``: those mean
    kernel values of all ``points`` when the estimator has them already (the column means of a
    kernel it builds anyway), instead of computing them here.
    """
    points = np.asarray(points)
    checked = slice(None)
    if len(points) > MAX_CHECKED_POINTS:
        checked = choose_centers(len(points), MAX_CHECKED_POINTS, 0)
        points = points[checked]
    mean_kernel = (kernel_column_means(X_tr, points, sigma) if column_means is None
                   else np.asarray(column_means)[checked])
    n_empty = int(np.sum(mean_kernel <= MIN_MEAN_KERNEL))
    if n_empty:
        share = "all" if n_empty == len(points) else f"{n_empty} of"
        warnings.warn(
            f"{type(estimator).__name__}: {share} {len(points)} {what} have (almost) no kernel mass "
            f"on the training points (mean kernel value <= {MIN_MEAN_KERNEL:.0e} at sigma={sigma:.3g}): "
            "sigma is too small for the data (the kernel matrix is numerically the identity), or "
            "those points lie outside the training support. The weights cannot account for them; "
            "try a larger sigma, or sigma='auto' (the default, from the median distance).",
            NumericalWarning, stacklevel=stacklevel)
    return n_empty
