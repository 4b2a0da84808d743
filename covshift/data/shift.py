"""Seeded regression data with a known covariate shift: the ShiftData container, selection by inputs, the sinc data
(the papers' other toys: ``covshift.data.toys``).

Every generator returns a :class:`ShiftData`: training and test inputs/outputs
and, where the densities are known, the true ratio w(x) = p_te(x) / p_tr(x).
"""

from dataclasses import dataclass
from numbers import Real
from typing import Callable, Optional

import numpy as np
from scipy import stats

from .._validation import as_generator, check_finite, check_int, check_positive

#: Largest magnitude of a generator's location and scale parameters (means, standard
#: deviations, noise). The inputs then stay within about 1e31 and sinc_shift's outputs
#: y = -2 x^3 + ... within 1e94, below the MAX_ABS_VALUE = 1e100 that the estimators accept
#: (std_tr=1e300 made x^3 overflow to inf).
MAX_PARAMETER = 1e30


def check_location(value, name):
    """A finite mean of magnitude <= MAX_PARAMETER (ValueError naming it)."""
    if isinstance(value, Real) and not isinstance(value, (bool, np.bool_)) and np.isfinite(value) \
            and abs(value) > MAX_PARAMETER:
        raise ValueError(f"{name}={value:.3g} is too large: a generator's means, standard deviations and "
                         f"noise must be at most {MAX_PARAMETER:.0e} in magnitude, so that the data "
                         "(sinc_shift's outputs grow as x^3) stay finite and within what the estimators "
                         "accept. Rescale: the toys are defined on inputs of order 1.")
    return check_finite(value, name)


def check_scale(value, name, allow_zero=False):
    """A standard deviation or noise level: finite, > 0 (>= 0 with allow_zero), <= MAX_PARAMETER."""
    return check_location(check_positive(value, name, allow_zero=allow_zero), name)


@dataclass(frozen=True)
class ShiftData:
    """A covariate-shift data set.

    Parameters
    ----------
    X_tr, Y_tr : ndarray
        Training inputs (n_tr, d) and outputs (n_tr, p).
    X_te, Y_te : ndarray
        Test inputs (n_te, d) and outputs (n_te, p).
        A row of outputs that is not known (an unlabelled point, e.g. the test rows of an
        uploaded file) is NaN: inputs are always complete, so tests of the shift and weights
        use every row, while models fit on and are scored at the labelled rows only
        (:attr:`labelled_tr`, :attr:`labelled_te`).
    density_ratio : callable or None, default None
        x -> p_te(x) / p_tr(x) when the densities are known.
    name : str, default ""
        A label for tables and figures.
    """

    X_tr: np.ndarray
    Y_tr: np.ndarray
    X_te: np.ndarray
    Y_te: np.ndarray
    density_ratio: Optional[Callable[[np.ndarray], np.ndarray]] = None
    name: str = ""

    @property
    def labelled_tr(self):
        """Mask of the training rows whose outputs are all known (not NaN)."""
        return np.all(np.isfinite(np.asarray(self.Y_tr, dtype=float).reshape(len(self.Y_tr), -1)), axis=1)

    @property
    def labelled_te(self):
        """Mask of the test rows whose outputs are all known (not NaN)."""
        return np.all(np.isfinite(np.asarray(self.Y_te, dtype=float).reshape(len(self.Y_te), -1)), axis=1)

    @property
    def true_weights(self):
        """The true ratio on the training inputs, or None when unknown."""
        if self.density_ratio is None:
            return None
        return self.density_ratio(self.X_tr)


def sinc_function(x):
    """The paper's regression function y = -2 x^3 + 3 sinc(x) + 1 (numpy's normalised sinc).

    Parameters
    ----------
    x : float or ndarray
        Inputs.

    Returns
    -------
    float or ndarray
        y without noise.
    """
    return -2.0 * x**3 + 3.0 * np.sinc(x) + 1.0


@dataclass(frozen=True)
class GaussianRatio:
    """True ratio N(mean_te, std_te^2) / N(mean_tr, std_tr^2) of the first input (picklable).

    Parameters
    ----------
    mean_tr, std_tr : float
        The training distribution of the first input.
    mean_te, std_te : float
        The test distribution of the first input.
    """

    mean_tr: float
    std_tr: float
    mean_te: float
    std_te: float

    def __call__(self, X):
        x = np.asarray(X, dtype=float).reshape(len(X), -1)[:, 0]
        with np.errstate(over="ignore"):  # a tiny std: ((x - mean) / std)^2 = inf, density 0 (the limit)
            return np.exp(stats.norm.logpdf(x, self.mean_te, self.std_te)
                          - stats.norm.logpdf(x, self.mean_tr, self.std_tr))


def gaussian_ratio(mean_tr, std_tr, mean_te, std_te):
    """True ratio N(mean_te, std_te^2) / N(mean_tr, std_tr^2) of 1-D inputs, as a function.

    Parameters
    ----------
    mean_tr : float
        Mean of the training inputs.
    std_tr : float
        Their standard deviation.
    mean_te : float
        Mean of the test inputs.
    std_te : float
        Their standard deviation.

    Returns
    -------
    GaussianRatio
        A picklable callable X -> w(x).
    """
    return GaussianRatio(float(mean_tr), float(std_tr), float(mean_te), float(std_te))


@dataclass(frozen=True)
class _RadialSelection:
    """P(train | x) = min(1, factor exp(-||x - center|| / scale)): the selection-bias sampler."""

    center: np.ndarray
    scale: float
    factor: float = 1.0

    def __call__(self, X):
        X = np.atleast_2d(np.asarray(X, dtype=float))
        return np.minimum(1.0, self.factor * np.exp(-np.linalg.norm(X - self.center, axis=1) / self.scale))


@dataclass(frozen=True)
class LeftSelection:
    """P(train | x) = exp(-shift (x - lo) / (hi - lo)) on the first input (toys' shift)."""

    lo: float
    hi: float
    shift: float

    def __call__(self, X):
        z = (np.asarray(X, dtype=float).reshape(len(X), -1)[:, 0] - self.lo) / (self.hi - self.lo)
        return np.exp(-self.shift * np.clip(z, 0.0, 1.0))


@dataclass(frozen=True)
class SelectionRatio:
    """Exact ratio p_te / p_tr of a split by P(train | x) = q(x) (picklable).

    Z (1 - q) / ((1 - Z) q) when the test set is the rest, Z / q when it is the whole pool.

    Parameters
    ----------
    probability : callable
        q, X -> P(train | x).
    Z : float
        E[q] over the pool.
    test_is_rest : bool, default True
        Whether the test set is the rest of the pool (else the whole pool).
    """

    probability: object
    Z: float
    test_is_rest: bool = True

    def __call__(self, X):
        q = np.clip(self.probability(np.asarray(X, dtype=float)), 1e-300, 1.0)
        if self.test_is_rest:
            return self.Z * (1.0 - q) / ((1.0 - self.Z) * q)
        return self.Z / q


def sinc_shift(
    n_tr=500,
    n_te=300,
    mean_tr=0.5,
    std_tr=0.5,
    mean_te=0.0,
    std_te=0.3,
    noise=0.1,
    random_state=0,
):
    """The synthetic data of section III-D of fw-covariate-shift-iw-smtgp.

    y = -2x^3 + 3 sinc(x) + 1 + N(0, noise^2); x_tr ~ N(mean_tr, std_tr^2),
    x_te ~ N(mean_te, std_te^2). Defaults are the paper's (500 / 300 points).

    Parameters
    ----------
    n_tr : int, default 500
        Training points.
    n_te : int, default 300
        Test points.
    mean_tr : float, default 0.5
        Mean of the training inputs.
    std_tr : float, default 0.5
        Their standard deviation.
    mean_te : float, default 0.0
        Mean of the test inputs.
    std_te : float, default 0.3
        Their standard deviation.
    noise : float, default 0.1
        Standard deviation of the output noise.
    random_state : None, int, RandomState or Generator, default 0
        The seed.

    Returns
    -------
    ShiftData
        With the true ratio as ``density_ratio``.

    Examples
    --------
    >>> from covshift import data
    >>> shift = data.sinc_shift(n_tr=50, n_te=30, random_state=0)
    >>> shift.X_tr.shape, shift.Y_te.shape, shift.true_weights.shape
    ((50, 1), (30, 1), (50,))
    """
    n_tr = check_int(n_tr, "n_tr")
    n_te = check_int(n_te, "n_te")
    for value, name in [(std_tr, "std_tr"), (std_te, "std_te")]:
        check_scale(value, name)
    for value, name in [(mean_tr, "mean_tr"), (mean_te, "mean_te")]:
        check_location(value, name)
    check_scale(noise, "noise", allow_zero=True)
    rng = as_generator(random_state)
    x_tr = rng.normal(mean_tr, std_tr, size=(n_tr, 1))
    x_te = rng.normal(mean_te, std_te, size=(n_te, 1))
    y_tr = sinc_function(x_tr) + rng.normal(0.0, noise, size=(n_tr, 1))
    y_te = sinc_function(x_te) + rng.normal(0.0, noise, size=(n_te, 1))
    return ShiftData(
        x_tr, y_tr, x_te, y_te, gaussian_ratio(mean_tr, std_tr, mean_te, std_te), "sinc shift"
    )


def input_selection(X, probability, rng):
    """Split rows by a Bernoulli draw with P(train | x) = probability(x).

    Returns train and test masks and the true ratio p_te / p_tr of the split as a
    function: with Z = E[q], p_tr = p q / Z and p_te = p (1 - q) / (1 - Z), so
    w(x) = Z (1 - q(x)) / ((1 - Z) q(x)).
    """
    q = probability(X)
    train = rng.random(len(X)) < q
    return train, ~train, SelectionRatio(probability, float(np.mean(q)))


def selection_bias(X, Y, scale=None, n_tr=None, random_state=0, name="selection bias"):
    """Split a data set into training and test parts by sample-selection bias.

    The protocol of sampling-based-kmm (section IV): with the covariate mean x_bar,
    each point is a training point with probability q(x) = exp(-||x - x_bar|| / s), s the
    standard deviation of ||x - x_bar|| (or ``scale``); the rest is the test set. With
    ``n_tr``, q is scaled to min(1, c q) with c chosen so that n_tr points are expected
    in training (in high dimension q alone selects very few).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Inputs of the pool.
    Y : array-like of shape (n,) or (n, p)
        Their outputs.
    scale : float or None, default None
        s (None: the standard deviation of the distances to the mean).
    n_tr : int or None, default None
        Expected number of training points.
    random_state : None, int, RandomState or Generator, default 0
        The seed.
    name : str, default "selection bias"
        The data set's label.

    Returns
    -------
    ShiftData
        Whose ``density_ratio`` is the exact ratio of this split, Z (1 - q) / ((1 - Z) q),
        Z = E[q] (the paper's 1/q is the ratio to the whole pool).
    """
    from .._validation import as_2d_float

    X = as_2d_float(X, "X")
    Y = as_2d_float(Y, "Y")
    if len(X) != len(Y):
        raise ValueError(f"X and Y need the same number of rows; got {len(X)} and {len(Y)}.")
    if len(X) < 4:
        raise ValueError("Selection bias needs at least 4 rows to leave both a training and a test set.")
    center = X.mean(axis=0)
    distance = np.linalg.norm(X - center, axis=1)
    s = float(distance.std()) if scale is None else check_positive(scale, "scale")
    s = s if s > 0 else 1.0

    factor = 1.0
    if n_tr is not None:
        n_tr = check_int(n_tr, "n_tr", minimum=2)
        if n_tr >= len(X):
            raise ValueError(f"n_tr must be smaller than the number of rows ({len(X)}).")
        factor = _scale_to_expected_count(np.exp(-distance / s), n_tr)
    probability = _RadialSelection(center, s, factor)

    rng = as_generator(random_state)
    train, test, ratio = input_selection(X, probability, rng)
    if train.sum() < 2 or test.sum() < 1:
        raise ValueError(_selection_failure(X, distance, int(train.sum()), int(test.sum()), n_tr))
    return ShiftData(X[train], Y[train], X[test], Y[test], ratio, name)


def _selection_failure(X, distance, n_train, n_test, n_tr):
    """Why selection_bias left fewer than 2 training or 1 test points, and what to change."""
    found = f"The selection left {n_train} training and {n_test} test points (at least 2 and 1 are needed)"
    if np.ptp(distance) > 0:
        return f"{found}; use more rows, or {'a lower' if n_train >= 2 else 'a higher'} n_tr."
    why = ("X is constant (every row is the same point), so every row is at distance 0 from the mean and "
           "is selected for training with probability exp(0) = 1: the selection keeps everything"
           if np.ptp(X, axis=0).max() == 0 else
           "every row of X is at the same distance from the mean, so every row has the same probability "
           "of selection: the split carries no selection bias")
    if n_tr is None:
        return (f"{found}: {why}. Pass inputs that vary, or n_tr (the expected training size) for a "
                "plain random split.")
    return f"{found}: {why}, and this random split was unlucky; use more rows."


def _scale_to_expected_count(q, count):
    """c such that sum_i min(1, c q_i) = count (bisection on the monotone sum)."""
    lo, hi = 0.0, 1.0
    while np.minimum(1.0, hi * q).sum() < count:
        hi *= 2.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if np.minimum(1.0, mid * q).sum() < count else (lo, mid)
    return hi
