"""Least-squares density-ratio fitting: uLSIF (Kanamori et al. 2009) and RuLSIF
(Yamada et al. 2011), closed form with leave-one-out cross-validation."""

import warnings
from numbers import Real

import numpy as np

from sklearn.utils._param_validation import StrOptions

from .._constraints import POSITIVE, RANDOM_STATE, Number, count
from .._validation import AUTO, check_grid
from ..exceptions import NumericalWarning
from ..kernels import gaussian_kernel, median_heuristic
from ..limits import check_feature_memory
from ._base import WeightEstimator, warn_flat_kernel, warn_no_kernel_mass
from ._kliep_problem import choose_centers


class RuLSIF(WeightEstimator):
    """Relative unconstrained least-squares importance fitting.

    Standardise the inputs first (centre each column and divide it by its standard deviation over
    training and test inputs together): one kernel width serves every column (:class:`WeightEstimator`).

    Fits r_a(x) = p_te(x) / (a p_te(x) + (1 - a) p_tr(x)) with r(x) = sum_l theta_l
    k(x, c_l), centres a seeded subset of test points, by minimising
    a/2 E_te[r^2] + (1-a)/2 E_tr[r^2] - E_te[r] + lam/2 ||theta||^2:
    theta = (H + lam I)^-1 h with H = a Phi_te'Phi_te / n_te + (1-a) Phi_tr'Phi_tr / n_tr,
    h = mean of Phi_te. Negative coefficients are clipped to 0. sigma and lam are chosen
    on grids by leave-one-out cross-validation (closed form: one pair of training and test
    points left out at a time, a rank-2 Woodbury update of (H + lam I)^-1).
    ``alpha = 0`` is uLSIF, the plain ratio. RuLSIF's ratio is bounded by 1 / alpha.

    Parameters
    ----------
    alpha : float in [0, 1), default 0.1
        Relative weight a of the test density in the denominator; 0 is uLSIF.
    sigma : float, sequence or "auto", default "auto"
        Width or grid of widths; "auto" is median * {1/4, 1/2, 1, 2}, chosen by leave-one-out
        least-squares cross-validation.
    lam : float, sequence or None, default None
        Ridge or grid; None is 10^{-3 .. 0}.
    n_centers : int, default 100
        Seeded subset of test points used as Gaussian centres.
    random_state : None, int, RandomState or Generator, default 0
        Seeds the centre subset (scikit-learn's convention; an instance gives one seed per fit,
        drawn from it).

    Attributes
    ----------
    weights_ : ndarray of shape (n_tr,)
        Importance weights of the training points, mean 1.
    theta_ : ndarray of shape (n_centers,)
        Coefficients of r(x) = sum_l theta_l k(x, c_l), clipped at 0.
    centers_ : ndarray of shape (n_centers, d)
        The Gaussian centres (test points).
    sigma_ : float
        The chosen width.
    lam_ : float
        The chosen ridge.
    cv_results_ : dict
        ``sigma``, ``lam`` and the leave-one-out score per grid point (``loo_score``).

    See Also
    --------
    ULSIF : The plain ratio (alpha = 0).
    FCFWCS : KLIEP's likelihood objective instead of least squares.
    LogisticRatio : The ratio from a classifier of training vs test inputs.

    References
    ----------
    M. Yamada, T. Suzuki, T. Kanamori, H. Hachiya and M. Sugiyama (2013). Relative density-ratio
    estimation for robust distribution comparison. *Neural Computation* 25(5), 1324-1370 (the
    relative ratio, its least-squares objective and closed form). T. Kanamori, S. Hido and
    M. Sugiyama (2009). A least-squares approach to direct importance estimation. *JMLR* 10,
    1391-1445 (uLSIF and its leave-one-out score).

    Examples
    --------
    >>> from covshift import RuLSIF, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> rulsif = RuLSIF(alpha=0.1).fit(shift.X_tr, shift.X_te)
    >>> rulsif.weights_.shape, sorted(rulsif.cv_results_)
    ((100,), ['lam', 'loo_score', 'sigma'])
    >>> bool(rulsif.predict_weights(shift.X_te).max() <= 1 / 0.1 * rulsif.weight_scale_ + 1e-9)
    True
    """

    def __init__(self, alpha=0.1, sigma="auto", lam=None, n_centers=100, random_state=0):
        self.alpha = alpha
        self.sigma = sigma
        self.lam = lam
        self.n_centers = n_centers
        self.random_state = random_state

    #: A grid's entries (positive numbers, not True) are checked at fit (check_grid).
    _parameter_constraints = {
        "alpha": [Number(Real, 0, 1, closed="left")],
        "sigma": [POSITIVE, "array-like", StrOptions({AUTO})],
        "lam": [None, POSITIVE, "array-like"],
        "n_centers": [count(1)],
        "random_state": RANDOM_STATE,
    }

    def _fit(self, X_tr, X_te):
        alpha = float(self.alpha)
        centers = X_te[choose_centers(len(X_te), int(self.n_centers), self.random_state)]
        check_feature_memory("RuLSIF", max(len(X_tr), len(X_te)), len(centers), 12, "n_centers")
        sigmas = (median_heuristic(np.vstack([X_tr, X_te]), random_state=self.random_state)
                  * np.array([0.25, 0.5, 1.0, 2.0]) if isinstance(self.sigma, str)
                  else check_grid(self.sigma, "sigma"))  # the median only for "auto" (~5 ms at 800 points)
        lams = _grid(self.lam, 10.0 ** np.arange(-3, 1), "lam")
        moments = [_moments(X_tr, X_te, centers, s, alpha) for s in sigmas]
        scores = np.array([loo_scores(m, lams, alpha) for m in moments])
        i, j = np.unravel_index(np.nanargmin(np.where(np.isfinite(scores), scores, np.nan)), scores.shape) \
            if np.any(np.isfinite(scores)) else (0, 0)
        self.cv_results_ = {"sigma": sigmas, "lam": lams, "loo_score": scores}
        self.sigma_, self.lam_, self.centers_ = float(sigmas[i]), float(lams[j]), centers
        # the chosen width's kernels and moments serve the checks, the solve and the training points' ratios (the
        # numbers gaussian_kernel, kernel_column_means and _moments would compute again at that width)
        Phi_tr, _, H, h = moments[i]
        warn_flat_kernel(self, X_tr, X_te, self.sigma_)
        warn_no_kernel_mass(self, X_tr, centers, self.sigma_, what="Gaussian centres",
                            column_means=Phi_tr.sum(axis=0) / len(X_tr))
        self.theta_ = _solved(H, h, self.lam_)
        raw = Phi_tr @ self.theta_ if np.any(self.theta_ > 0) else np.ones(len(X_tr))  # as _predict_raw(X_tr)
        if not np.any(raw > 0):
            warnings.warn(f"{type(self).__name__}'s fitted ratio is 0 at every training point (every "
                          "coefficient clipped to 0, or no centre has kernel mass there: the ratio is not "
                          "resolvable with these widths); returning uniform weights.", NumericalWarning,
                          stacklevel=4)
            self.theta_ = np.zeros_like(self.theta_)
            return np.ones(len(X_tr))
        return raw

    def _predict_raw(self, X):
        if not np.any(self.theta_ > 0):
            return np.ones(len(X))
        return gaussian_kernel(X, self.centers_, self.sigma_) @ self.theta_


class ULSIF(RuLSIF):
    """uLSIF: :class:`RuLSIF` with alpha = 0 (the plain density ratio).

    Parameters
    ----------
    sigma : float, sequence or "auto", default "auto"
        As :class:`RuLSIF`.
    lam : float, sequence or None, default None
        Ridge or grid; None is 10^{-3 .. 0}.
    n_centers : int, default 100
        Seeded subset of test points used as Gaussian centres.
    random_state : None, int, RandomState or Generator, default 0
        Seeds the centre subset.

    Attributes
    ----------
    weights_ : ndarray of shape (n_tr,)
        Importance weights of the training points, mean 1.
    theta_ : ndarray of shape (n_centers,)
        Coefficients of w(x) = sum_l theta_l k(x, c_l), clipped at 0.
    sigma_ : float
        The chosen width.
    lam_ : float
        The chosen ridge.

    See Also
    --------
    RuLSIF : The relative ratio, bounded by 1 / alpha.

    References
    ----------
    T. Kanamori, S. Hido and M. Sugiyama (2009). A least-squares approach to direct importance
    estimation. *JMLR* 10, 1391-1445 (uLSIF and its leave-one-out score).

    Examples
    --------
    >>> from covshift import ULSIF, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> ulsif = ULSIF().fit(shift.X_tr, shift.X_te)
    >>> ulsif.alpha, ulsif.weights_.shape
    (0.0, (100,))
    """

    _parameter_constraints = {name: constraint for name, constraint in RuLSIF._parameter_constraints.items()
                              if name != "alpha"}

    def __init__(self, sigma="auto", lam=None, n_centers=100, random_state=0):
        super().__init__(alpha=0.0, sigma=sigma, lam=lam, n_centers=n_centers,
                         random_state=random_state)

    def get_params(self, deep=True):
        """Parameters of this estimator (those of RuLSIF without ``alpha``, which is fixed at 0).

        Parameters
        ----------
        deep : bool, default True
            Also the parameters of contained estimators (there are none).

        Returns
        -------
        dict
            Parameter names mapped to their values.
        """
        params = super().get_params(deep)
        params.pop("alpha", None)
        return params


def _grid(value, default, name):
    """``value`` as a 1-D grid of positive numbers (:func:`check_grid`), ``default`` when None (``lam``)."""
    return default if value is None else check_grid(value, name)


def _moments(X_tr, X_te, centers, sigma, alpha):
    Phi_tr = gaussian_kernel(X_tr, centers, sigma)
    Phi_te = gaussian_kernel(X_te, centers, sigma)
    H = alpha * Phi_te.T @ Phi_te / len(X_te) + (1 - alpha) * Phi_tr.T @ Phi_tr / len(X_tr)
    return Phi_tr, Phi_te, H, Phi_te.mean(axis=0)


def _solved(H, h, lam):
    """theta = max((H + lam I)^-1 h, 0) from the moments of :func:`_moments`."""
    theta = np.linalg.solve(H + lam * np.eye(len(h)), h)
    return np.maximum(theta, 0.0)


def loo_score(X_tr, X_te, centers, sigma, lam, alpha):
    """Leave-one-out RuLSIF objective for one (sigma, lam); see :func:`loo_scores`."""
    return loo_scores(_moments(X_tr, X_te, centers, sigma, alpha), [lam], alpha)[0]


def loo_scores(moments, lams, alpha):
    """Leave-one-out RuLSIF objective for each lam: pair i = (x_tr_i, x_te_i), i < min(n_tr, n_te).

    Without pair i: H_i = H - U_i U_i', U_i = [sqrt(a/n_te) phi_te_i, sqrt((1-a)/n_tr) phi_tr_i],
    h_i = h - phi_te_i / n_te. (H_i + lam I)^-1 follows from (H + lam I)^-1 by Woodbury
    with a 2 x 2 inverse per i, all pairs at once. Score of pair i:
    a/2 r(x_te_i)^2 + (1-a)/2 r(x_tr_i)^2 - r(x_te_i), with theta clipped at 0.
    """
    Phi_tr, Phi_te, H, h = moments
    n_tr, n_te = len(Phi_tr), len(Phi_te)
    n = min(n_tr, n_te)
    if n < 2:
        return np.full(len(lams), np.inf)
    # what does not depend on lam, once for the grid
    u = np.sqrt(alpha / n_te) * Phi_te[:n]          # first column of U_i, one row per i
    v = np.sqrt((1 - alpha) / n_tr) * Phi_tr[:n]    # second column
    h_i = h[None, :] - Phi_te[:n] / n_te
    return np.array([_loo(Phi_tr[:n], Phi_te[:n], H, h_i, u, v, lam, alpha) for lam in lams])


def _loo(Phi_tr, Phi_te, H, h_i, u, v, lam, alpha):
    """The score of one lam (:func:`loo_scores`) from the n pairs' rows ``Phi_tr``, ``Phi_te``, ``h_i``, ``u``, ``v``."""
    A_inv = np.linalg.inv(H + lam * np.eye(len(H)))
    Au, Av = u @ A_inv, v @ A_inv                   # A^-1 U_i, as rows (A symmetric)
    Ah = h_i @ A_inv                                # A^-1 h_i
    # S_i = I - U_i' A^-1 U_i (2 x 2) and z_i = U_i' A^-1 h_i, then theta_i = A^-1 h_i + A^-1 U_i S_i^-1 z_i
    s11, s12, s22 = 1 - np.sum(u * Au, 1), -np.sum(u * Av, 1), 1 - np.sum(v * Av, 1)
    z1, z2 = np.sum(u * Ah, 1), np.sum(v * Ah, 1)
    det = s11 * s22 - s12**2
    c1, c2 = (s22 * z1 - s12 * z2) / det, (s11 * z2 - s12 * z1) / det
    theta = np.maximum(Ah + c1[:, None] * Au + c2[:, None] * Av, 0.0)
    r_te = np.sum(Phi_te * theta, axis=1)
    r_tr = np.sum(Phi_tr * theta, axis=1)
    return float(np.mean(alpha / 2 * r_te**2 + (1 - alpha) / 2 * r_tr**2 - r_te))
