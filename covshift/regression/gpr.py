"""Gaussian process regression with importance weights."""

import numpy as np
from scipy.linalg import cho_solve, solve_triangular
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, _fit_context

from .._constraints import POSITIVE
from .._validation import check_int, check_sample_weight, seed_of, validate_predict
from ..kernels import gaussian_kernel
from ..limits import check_gpr_memory
from ._common import check_xy, spd_cholesky, validate_xy


class GPR(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Independent GP per output dimension with one RBF input kernel (eq. 6 of
    fw-covariate-shift-iw-smtgp), and its importance-weighted form.

    With ``sample_weight`` w, training point i gets noise variance lambda_x / w_i (the
    weighted likelihood of eq. 11): computed as K_W = W^1/2 K W^1/2 + lambda_x I on the
    W^1/2-scaled targets, so w_i = 0 simply removes the point. GPR models the inputs only: its
    K is the input kernel K_X of :class:`TwinGP`, with the same names for its width and regulariser.

    Parameters
    ----------
    rho_x : float, default 0.3
        Input kernel width: k(a, b) = exp(-||a - b||^2 / (2 rho_x^2)).
    lambda_x : float, default 0.01
        Noise variance lambda_x (the regulariser added to the diagonal of K_X).
    normalize_y : bool, default False
        Subtract the training mean and divide by the standard deviation of each
        output before fitting (as scikit-learn's GaussianProcessRegressor).

    Attributes
    ----------
    X_train_ : ndarray of shape (n, d)
        The training inputs.
    dual_coef_ : ndarray of shape (n, p)
        K_W^-1 W^1/2 Y (standardised outputs with ``normalize_y``).
    cholesky_ : ndarray of shape (n, n)
        Lower Cholesky factor of K_W.
    sqrt_weight_ : ndarray of shape (n,)
        Square roots of the sample weights.
    y_mean_, y_std_ : ndarray of shape (p,)
        The outputs' standardisation (0 and 1 without ``normalize_y``).

    See Also
    --------
    TwinGP : Structured outputs: the Twin GPs KLTGP, IKLTGP and SMTGP (IW-SMTGP with weights).
    WKNN : Importance-weighted k nearest neighbours.
    tuned_gpr : A GPR whose width and noise maximise the marginal likelihood.

    References
    ----------
    S. V. Chapaneri and D. J. Jayaswal (2019). Covariate shift adaptation for structured
    regression with Frank-Wolfe algorithms. *IEEE Access* 7 (eqs. 6 and 11).

    Examples
    --------
    >>> from covshift import GPR, FCFWCS, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> w = FCFWCS(sigma=0.3).fit(shift.X_tr, shift.X_te).weights_
    >>> gpr = GPR(rho_x=2.0).fit(shift.X_tr, shift.Y_tr, sample_weight=w)
    >>> mean, std = gpr.predict(shift.X_te, return_std=True)
    >>> mean.shape, std.shape
    ((80, 1), (80, 1))
    """

    def __init__(self, rho_x=0.3, lambda_x=0.01, normalize_y=False):
        self.rho_x = rho_x
        self.lambda_x = lambda_x
        self.normalize_y = normalize_y

    _parameter_constraints = {"rho_x": [POSITIVE], "lambda_x": [POSITIVE], "normalize_y": ["boolean"]}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Fit the GP, with importance weights when given.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Training inputs.
        y : array-like of shape (n,) or (n, p)
            Training outputs.
        sample_weight : array-like of shape (n,) or None, default None
            Importance weights: point i gets noise variance lambda / w_i (None: all 1).

        Returns
        -------
        self : GPR
            The fitted model.
        """
        X, Y, self._y_1d = validate_xy(self, X, y)
        w = check_sample_weight(sample_weight, len(X))
        check_gpr_memory(len(X))
        self.y_mean_ = Y.mean(axis=0) if self.normalize_y else np.zeros(Y.shape[1])
        std = Y.std(axis=0) if self.normalize_y else np.ones(Y.shape[1])
        self.y_std_ = np.where(std > 0, std, 1.0)
        s = np.sqrt(w)
        K = gaussian_kernel(X, X, self.rho_x)
        K *= s[:, None]
        K *= s[None, :]
        K[np.diag_indices(len(X))] += self.lambda_x
        self.cholesky_ = spd_cholesky(K, "GPR kernel matrix", "lambda_x (noise variance)",
                                      stacklevel=4)  # fit, _fit_context's wrapper, the caller
        self.dual_coef_ = cho_solve((self.cholesky_, True), s[:, None] * (Y - self.y_mean_) / self.y_std_)
        self.X_train_, self.sqrt_weight_ = X, s
        return self

    def predict(self, X, return_std=False):
        """Predictive mean (and standard deviation of the latent f per output).

        Parameters
        ----------
        X : array-like of shape (m, d)
            Test inputs.
        return_std : bool, default False
            Also return the predictive standard deviation.

        Returns
        -------
        mean : ndarray of shape (m,) or (m, p)
            Predictive mean (1-D when fitted on 1-D ``y``).
        std : ndarray of shape (m,) or (m, p)
            Standard deviation of the latent f, only with ``return_std``.
        """
        X = validate_predict(self, X, "dual_coef_")
        check_gpr_memory(len(self.X_train_), len(X))
        k = gaussian_kernel(X, self.X_train_, self.rho_x) * self.sqrt_weight_
        mean = k @ self.dual_coef_ * self.y_std_ + self.y_mean_
        if self._y_1d:
            mean = mean[:, 0]
        if not return_std:
            return mean
        # k K_W^-1 k' = ||L^-1 k'||^2 with K_W = L L'
        half = solve_triangular(self.cholesky_, k.T, lower=True, check_finite=False)
        variance = np.maximum(1.0 - np.sum(half * half, axis=0), 0.0)
        std = np.sqrt(variance)[:, None] * self.y_std_
        return mean, (std[:, 0] if self._y_1d else std)


def tuned_gpr(X, Y, sample_weight=None, n_restarts=2, random_state=0):
    """A :class:`GPR` whose width rho_x and noise lambda_x maximise the marginal likelihood.

    The papers' GPR baseline uses the Twin-GP input width, which over-smooths (Toy 1:
    2 rho^2 = 5 on inputs in about [-0.3, 1.3]). This fits scikit-learn's
    GaussianProcessRegressor with the same model as :class:`GPR` with ``normalize_y=True``
    (unit-variance RBF kernel exp(-||a-b||^2 / (2 rho_x^2)) plus white noise lambda_x, outputs
    standardised) and returns GPR(rho_x, lambda_x, normalize_y=True), unfitted. The width is
    chosen on the unweighted data; ``sample_weight`` is then for the caller's fit.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Training inputs.
    Y : array-like of shape (n,) or (n, p)
        Training outputs.
    sample_weight : array-like or None, default None
        Ignored here (accepted so that callers can pass it uniformly).
    n_restarts : int, default 2
        Extra optimiser starts (scikit-learn's ``n_restarts_optimizer``).
    random_state : None, int, RandomState or Generator, default 0
        Seeds the optimiser's restarts (scikit-learn's convention).

    Returns
    -------
    GPR
        Unfitted, with the chosen ``rho_x`` and ``lambda_x`` and ``normalize_y=True``.

    Examples
    --------
    >>> from covshift import data
    >>> from covshift.regression import tuned_gpr
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> model = tuned_gpr(shift.X_tr, shift.Y_tr)
    >>> bool(model.rho_x > 0 and model.lambda_x > 0), model.normalize_y
    (True, True)
    """
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, WhiteKernel

    X, Y, _ = check_xy(X, Y)
    spread = float(np.median(np.std(X, axis=0))) or 1.0
    kernel = RBF(length_scale=spread, length_scale_bounds=(1e-3 * spread, 1e3 * spread)) \
        + WhiteKernel(noise_level=0.1, noise_level_bounds=(1e-8, 10.0))
    model = GaussianProcessRegressor(kernel, normalize_y=True, n_restarts_optimizer=check_int(n_restarts, "n_restarts", minimum=0),
                                     random_state=seed_of(random_state)).fit(X, Y)
    rbf, white = model.kernel_.k1, model.kernel_.k2
    return GPR(rho_x=float(rbf.length_scale), lambda_x=float(white.noise_level), normalize_y=True)
