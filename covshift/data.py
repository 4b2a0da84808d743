"""Seeded data generators with a known covariate shift.

Every generator returns a :class:`ShiftData`: training and test inputs/outputs
and, where the densities are known, the true ratio w(x) = p_te(x) / p_tr(x).
"""

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np
from scipy import stats

from ._validation import check_int, check_positive


@dataclass(frozen=True)
class ShiftData:
    """A covariate-shift data set.

    Attributes
    ----------
    X_tr, Y_tr : training inputs (n_tr, d) and outputs (n_tr, p)
    X_te, Y_te : test inputs (n_te, d) and outputs (n_te, p)
    density_ratio : callable or None
        x -> p_te(x) / p_tr(x) when the densities are known.
    name : str
    """

    X_tr: np.ndarray
    Y_tr: np.ndarray
    X_te: np.ndarray
    Y_te: np.ndarray
    density_ratio: Optional[Callable[[np.ndarray], np.ndarray]] = None
    name: str = ""

    @property
    def true_weights(self):
        """The true ratio on the training inputs, or None when unknown."""
        if self.density_ratio is None:
            return None
        return self.density_ratio(self.X_tr)


def sinc_function(x):
    """The paper's regression function y = -2 x^3 + 3 sinc(x) + 1 (numpy's normalised sinc)."""
    return -2.0 * x**3 + 3.0 * np.sinc(x) + 1.0


def gaussian_ratio(mean_tr, std_tr, mean_te, std_te):
    """True ratio N(mean_te, std_te^2) / N(mean_tr, std_tr^2) of 1-D inputs, as a function."""
    p_tr = stats.norm(mean_tr, std_tr)
    p_te = stats.norm(mean_te, std_te)

    def ratio(X):
        x = np.asarray(X, dtype=float).reshape(len(X), -1)[:, 0]
        return np.exp(p_te.logpdf(x) - p_tr.logpdf(x))

    return ratio


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
    """
    n_tr = check_int(n_tr, "n_tr")
    n_te = check_int(n_te, "n_te")
    for value, name in [(std_tr, "std_tr"), (std_te, "std_te")]:
        check_positive(value, name)
    check_positive(noise, "noise", allow_zero=True)
    rng = np.random.default_rng(random_state)
    x_tr = rng.normal(mean_tr, std_tr, size=(n_tr, 1))
    x_te = rng.normal(mean_te, std_te, size=(n_te, 1))
    y_tr = sinc_function(x_tr) + rng.normal(0.0, noise, size=(n_tr, 1))
    y_te = sinc_function(x_te) + rng.normal(0.0, noise, size=(n_te, 1))
    return ShiftData(
        x_tr, y_tr, x_te, y_te, gaussian_ratio(mean_tr, std_tr, mean_te, std_te), "sinc shift"
    )
