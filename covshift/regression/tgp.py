"""Twin Gaussian processes (KLTGP, IKLTGP, SMTGP) and their importance-weighted forms.

Implements sharma-mittal-tgp eqs. (5), (7) and (16)-(17) and fw-covariate-shift-iw-smtgp
eqs. (10), (14)-(17). Every cost depends on the candidate output y only through the
output-kernel vector k_y(y), so one chain rule (eq. 16) serves all three, and the M
test points are optimised together: per iteration a few (M x N) @ (N x N) products
against inverses precomputed at fit time (BLAS-3), a batched BFGS update and a
batched backtracking line search; blocks of test points can run in threads (``n_jobs``).

Importance weights (eq. 11 as a weighted likelihood): with s = sqrt(w),
K_XW = S Ktilde_X S + lambda_x I, k_XW = S k_X, and likewise for Y and the
theta-mixture, where Ktilde is the *unregularised* kernel. w = 1 gives the
unweighted model exactly; w_i = 0 removes point i.
"""

import functools
import warnings
from typing import NamedTuple

import numpy as np
from joblib import Parallel, delayed, effective_n_jobs
from threadpoolctl import ThreadpoolController
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, _fit_context
from sklearn.neighbors import NearestNeighbors
from sklearn.utils._param_validation import StrOptions

from .._constraints import N_JOBS, POSITIVE, UNIT_OPEN, count
from .._validation import as_2d_float, check_positive, check_sample_weight, validate_predict
from ..exceptions import ConvergenceWarning, NumericalWarning
from ..kernels import gaussian_from_squared_distances, gaussian_kernel
from ..limits import check_twin_gp_memory
from ._common import validate_xy, spd_inverse
from ._tgp_cost import TwinGPCosts
from ._tgp_bfgs import COST_NOISE, minimise  # noqa: F401  (COST_NOISE: the costs' round-off, used by tests)
from ._tgp_local import (ETA_FLOOR, ClipCount, Local, apply_rows, kernel_block, rows_times, rowdot,
                          squared_distances_by_rows, weighted_systems)

_kernel_block = kernel_block  # the name tests/teaching/test_limits.py reads

#: Fewest test points per thread: below this, starting threads costs more than it saves.
MIN_POINTS_PER_THREAD = 256


@functools.cache
def _blas_pools():
    """The BLAS thread pools of this process, found once: ``threadpool_limits`` looks for them again at
    every call (it reads the loaded libraries, ~1 ms; a lesson view predicts eight Twin GPs)."""
    return ThreadpoolController().select(user_api="blas")


def rho_from_paper(two_rho_squared):
    """Kernel width rho from a TGP paper's "2 rho^2 = c": rho = sqrt(c / 2).

    Read literally with k(a, b) = exp(-||a - b||^2 / (2 rho^2)), Table 1 of
    sharma-mittal-tgp (Toy 1: 2 rho_x^2 = 5, 2 rho_y^2 = 0.05) reproduces the reported
    errors (bench/results/regression.md); the figure captions' "2 rho_y^2 = 5000" does not.

    Parameters
    ----------
    two_rho_squared : float
        The paper's c = 2 rho^2.

    Returns
    -------
    float
        rho = sqrt(c / 2).

    Examples
    --------
    >>> from covshift.regression import rho_from_paper
    >>> round(rho_from_paper(5.0), 6)  # Toy 1's input width, 2 rho_x^2 = 5
    1.581139
    """
    return float(np.sqrt(check_positive(two_rho_squared, "2 rho^2") / 2.0))


class Prediction(NamedTuple):
    """A Twin GP prediction with its diagnostics (rows = test points)."""

    Y: np.ndarray            # (M, dy) predicted outputs
    certainty: np.ndarray    # (M,) or None
    converged: np.ndarray    # (M,) bool: the BFGS stopped before max_iter
    n_iter: np.ndarray       # (M,) BFGS iterations
    n_clipped: int           # Schur complements clipped at ETA_FLOOR


class TwinGP(TwinGPCosts, MultiOutputMixin, RegressorMixin, BaseEstimator):
    """Twin Gaussian process for structured (multi-output) regression.

    The prediction at a test point x minimises a divergence between the Gaussian
    processes on inputs and outputs over the candidate output y. The KL, IKL and SM
    costs are not convex in y and are multimodal in general (at every test point of
    the S-shape toys); the prediction is the local minimum that BFGS reaches from the
    starting output (``init``), so the start is part of the method. On Toy 1, the
    global minimisers predict worse than the papers' starts (linear, then KLTGP for
    SMTGP).

    Parameters
    ----------
    divergence : {"kl", "ikl", "sm"}, default "sm"
        KLTGP (eq. 5 of sharma-mittal-tgp), "IKLTGP (SMTGP paper eq. 7)" or Sharma-Mittal
        TGP (eq. 10 / 16). "ikl" implements eq. 7 of the SMTGP paper as printed, which is
        not the exact inverse KL divergence of the two processes.
    theta : float in (0, 1), default 0.9
        Sharma-Mittal order (the SM paper's alpha; 0.9 is its Toy 1 value).
    gamma : float > 0, default 1.5
        Sharma-Mittal degree (the SM paper's beta). It only changes the power of the cost, not
        its minimiser; gamma = 1 is its Renyi limit.
    rho_x : float, default sqrt(2.5)
        Input kernel width in exp(-||a - b||^2 / (2 rho^2)) (eq. 8); for a paper's
        "2 rho^2 = c" use :func:`rho_from_paper`. The default is Toy 1's 2 rho_x^2 = 5
        (Table 1 of sharma-mittal-tgp).
    rho_y : float, default sqrt(0.025)
        Output kernel width; the default is Toy 1's 2 rho_y^2 = 0.05.
    lambda_x : float, default 1e-4
        Regulariser added to the input kernel's diagonal (eq. 8).
    lambda_y : float, default 1e-4
        Regulariser added to the output kernel's diagonal.
    max_iter : int, default 50
        BFGS iterations per test point (the papers use 50).
    tol : float, default 1e-8
        A test point has converged when its step is below tol * rho_y.
    init : {"auto", "linear", "ridge", "kl"} or array of shape (M, dy), default "auto"
        Starting outputs of the minimisation. "linear": affine least squares on the
        training data (weighted by ``sample_weight``), the start of the original
        ``TGPTest.m``; "ridge": kernel ridge regression k_XW' K_XW^-1 S Y; "kl": the KLTGP
        prediction reached from the linear start; or a user array. "auto" (default) is
        the papers' choice: "linear" for "kl" and "ikl", and the chain
        linear -> KLTGP -> SMTGP ("kl") for "sm", as the SMTGP paper starts SMTGP from
        the KLTGP prediction.
    knn : int or None, default None
        Use only the knn nearest training inputs of each test point (how the papers scale
        TGP to thousands of points), still batched. With ``knn`` sample weights are not
        repetition-equivalent (k copies of a point fill k neighbour slots; weight k gives one
        neighbour k times the weight); without it a weight k equals k repeated rows.
    n_jobs : int or None, default None
        Threads over the test points (joblib convention: None is 1, -1 all cores). The
        points are independent, so each thread minimises a block of them with one BLAS
        thread (no competition with BLAS's own threads). Used only with at least
        MIN_POINTS_PER_THREAD points per thread. Converged points agree with one thread up
        to the tolerance (products of other sizes round differently); points stopped by
        max_iter keep a last iterate that round-off can move, as any change of BLAS
        threads can.

    Attributes
    ----------
    X_train_, Y_train_ : ndarray
        The training inputs (n, dx) and outputs (n, dy).
    sqrt_weight_ : ndarray of shape (n,)
        Square roots of the sample weights: point i behaves as if its noise were lambda / w_i.
    n_outputs_ : int
        dy.
    Kx_, Ky_ : ndarray of shape (n, n) or None
        The unregularised input and output kernel matrices (None with ``knn``).

    See Also
    --------
    GPR : Independent GPs per output, the papers' baseline.
    HSICKNN : A structured regressor maximising HSIC over the nearest neighbours.
    covshift.FCFWCS : Importance weights for ``sample_weight`` (IW-SMTGP).

    Notes
    -----
    ``predict`` sets no attribute: points that did not converge within ``max_iter`` and
    Schur complements clipped at the floor are reported by warnings (``_predict`` gives the
    counts per point), and a point's prediction does not depend on the other points predicted
    with it. With ``sample_weight``, SMTGP becomes IW-SMTGP (Chapaneri and Jayaswal, 2019,
    eqs. 14-17): K_XW = W^1/2 K W^1/2 + lambda I with the unregularised K.

    References
    ----------
    L. Bo and C. Sminchisescu (2010). Twin Gaussian processes for structured prediction.
    *IJCV* 87, 28-52 (KLTGP). M. Elhoseiny and A. Elgammal (2015). Generalized twin Gaussian
    processes using Sharma-Mittal divergence. *Machine Learning* 100, 399-424 (SMTGP, eqs. 10,
    16, 17). S. V. Chapaneri and D. J. Jayaswal (2019). Covariate shift adaptation for
    structured regression with Frank-Wolfe algorithms. *IEEE Access* 7 (IW-SMTGP).

    Examples
    --------
    >>> import warnings
    >>> from covshift import FCFWCS, TwinGP, data
    >>> circle = data.circle_outputs(n_tr=60, n_te=20, random_state=0)
    >>> w = FCFWCS(sigma=0.3).fit(circle.X_tr, circle.X_te).weights_
    >>> model = TwinGP("sm", rho_x=2.0, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3, max_iter=200)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # a point on a flat cost may stop at max_iter
    ...     Y_hat, phi = model.fit(circle.X_tr, circle.Y_tr, sample_weight=w).predict(
    ...         circle.X_te, return_certainty=True)
    >>> Y_hat.shape, bool(((phi > 0) & (phi <= 1)).all())
    ((20, 2), True)
    """

    def __init__(self, divergence="sm", theta=0.9, gamma=1.5, rho_x=float(np.sqrt(2.5)),
                 rho_y=float(np.sqrt(0.025)), lambda_x=1e-4, lambda_y=1e-4, max_iter=50,
                 tol=1e-8, init="auto", knn=None, n_jobs=None):
        self.divergence = divergence
        self.theta = theta
        self.gamma = gamma
        self.rho_x = rho_x
        self.rho_y = rho_y
        self.lambda_x = lambda_x
        self.lambda_y = lambda_y
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.knn = knn
        self.n_jobs = n_jobs

    # ------------------------------------------------------------------ fit
    _parameter_constraints = {
        "divergence": [StrOptions({"kl", "ikl", "sm"})],
        "theta": [UNIT_OPEN],
        "gamma": [POSITIVE],
        "rho_x": [POSITIVE],
        "rho_y": [POSITIVE],
        "lambda_x": [POSITIVE],
        "lambda_y": [POSITIVE],
        "max_iter": [count(0)],
        "tol": [POSITIVE],
        "init": [StrOptions({"auto", "linear", "ridge", "kl"}), "array-like"],
        "knn": [None, count(1)],
        "n_jobs": N_JOBS,
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Store the training data and precompute the weighted kernel inverses.

        Parameters
        ----------
        X : array-like of shape (n, dx)
            Training inputs.
        y : array-like of shape (n,) or (n, dy)
            Training outputs.
        sample_weight : array-like of shape (n,) or None, default None
            Importance weights (None: all 1): IW-SMTGP with ``divergence="sm"``.

        Returns
        -------
        self : TwinGP
            The fitted model.
        """
        X, Y, self._y_1d = validate_xy(self, X, y)
        w = check_sample_weight(sample_weight, len(X))
        check_twin_gp_memory(len(X), self.knn)
        self.X_train_, self.Y_train_, self.sqrt_weight_ = X, Y, np.sqrt(w)
        self.n_outputs_ = Y.shape[1]
        self.Kx_ = self.Ky_ = None  # with knn the local kernels are computed per test point
        if self.knn is None or self.knn >= len(X):
            self.Kx_ = gaussian_kernel(X, X, self.rho_x)  # unregularised Ktilde_X
            self.Ky_ = gaussian_kernel(Y, Y, self.rho_y)
            self._shared = self._weighted_inverses(None)
        else:
            self._shared = None
            self._neighbors = NearestNeighbors(n_neighbors=self.knn).fit(X)
        return self

    def _weighted_inverses(self, idx):
        """K_XW^-1, K_YW^-1 and (sm) K_XYW^-1, (ikl) K_YW^-1 K_XW K_YW^-1 on points idx.

        idx is None for the shared system (every training point, the stored kernels) or (M, K) for one system
        per test point.
        """
        if idx is None:  # the stored kernels, the three matrices in one compiled pass
            x, y, mix = weighted_systems(self.Kx_, self.Ky_, self.sqrt_weight_, float(self.lambda_x),
                                         float(self.lambda_y), float(self.theta), self.divergence == "sm")
        else:
            s, eye = self.sqrt_weight_[idx], np.eye(idx.shape[-1])
            Kx = kernel_block(self.Kx_, self.X_train_, idx, self.rho_x)
            Ky = kernel_block(self.Ky_, self.Y_train_, idx, self.rho_y)
            outer = s[..., :, None] * s[..., None, :]
            Kx, Ky = outer * Kx, outer * Ky
            x, y = Kx + self.lambda_x * eye, Ky + self.lambda_y * eye
            t = self.theta
            if self.divergence == "sm":
                mix = (1 - t) * Kx + t * Ky + ((1 - t) * self.lambda_x + t * self.lambda_y) * eye
        inv_x = spd_inverse(x, "input kernel matrix K_X", "lambda_x")
        inv_y = spd_inverse(y, "output kernel matrix K_Y", "lambda_y")
        inv_xy = quad = None
        if self.divergence == "sm":
            inv_xy = spd_inverse(mix, "mixed kernel matrix K_XY", "lambda_x and lambda_y")
        if self.divergence == "ikl":
            quad = inv_y @ x @ inv_y
        # C order, as the row-wise products (_tgp_local.rows_times) read them, once rather than per call
        return tuple(None if a is None else np.ascontiguousarray(a) for a in (inv_x, inv_y, inv_xy, quad))

    # -------------------------------------------------------------- predict
    def predict(self, X, return_certainty=False):
        """Structured prediction for every row of X (eq. 10 / 14), batched.

        Parameters
        ----------
        X : array-like of shape (M, dx)
            Test inputs.
        return_certainty : bool, default False
            Also return each prediction's certainty.

        Returns
        -------
        Y_hat : ndarray of shape (M, dy)
            The predictions ((M,) if fitted on 1-D y).
        certainty : ndarray of shape (M,)
            Only with ``return_certainty``.
            "sm": phi = eta_x^(1-theta) eta_y^theta / eta_xy in (0, 1] (eq. 17);
            "kl"/"ikl": 2 sqrt(eta_x eta_y) / (eta_x + eta_y) in (0, 1], the agreement of
            the input and output predictive variances. This is this project's analogue
            of phi, not a quantity defined by either paper.
        """
        result = self._predict(X, return_certainty)
        if result.n_clipped:
            warnings.warn(
                f"{result.n_clipped} Schur complements (predictive variances) were <= 0 through "
                f"round-off and were clipped to {ETA_FLOOR:g}; consider a larger lambda.",
                NumericalWarning, stacklevel=2)
        if not np.all(result.converged):
            warnings.warn(
                f"{np.sum(~result.converged)} of {len(result.converged)} test points did not converge in "
                f"max_iter={self.max_iter} iterations.", ConvergenceWarning, stacklevel=2)
        out = result.Y[:, 0] if self._y_1d else result.Y
        return (out, result.certainty) if return_certainty else out

    def _predict(self, X, return_certainty=False):
        """:meth:`predict` without its warnings and with its diagnostics (a :class:`Prediction`); sets
        nothing on the estimator. One point is predicted as a batch of two copies of it (see
        :meth:`_batch_cost`), so that every point's prediction is the same in any batch."""
        X = validate_predict(self, X, "X_train_")
        check_twin_gp_memory(len(self.X_train_), self.knn, len(X))
        if not isinstance(self.init, str) and np.size(as_2d_float(self.init, "init")) != len(X) * self.n_outputs_:
            raise ValueError(f"init must be 'auto', 'ridge', 'kl' or an array of shape ({len(X)}, "
                             f"{self.n_outputs_}) (one start per test point); got {np.shape(self.init)}.")
        rows = np.zeros(2, dtype=int) if len(X) == 1 else np.arange(len(X))
        with _blas_pools().limit(limits=1):  # why: _minimise_in_threads
            local = self._local(X[rows])
            if isinstance(self.init, str):
                Y0 = self._initial_outputs(X[rows], local)
            else:
                Y0 = self._initial_outputs(X, None)[rows]
            Y_hat, converged, n_iter = self._minimise_in_threads(Y0, local, self.divergence)
            certainty = self.certainty(Y_hat, local)[:len(X)] if return_certainty else None
        clipped = getattr(local, "clipped", None)
        return Prediction(Y_hat[:len(X)], certainty, converged[:len(X)], n_iter[:len(X)],
                          clipped.count if clipped is not None else 0)

    def _local(self, X):
        if self._shared is not None:
            idx, (inv_x, inv_y, inv_xy, quad) = None, self._shared
            s, Y = self.sqrt_weight_, self.Y_train_
            kx = gaussian_from_squared_distances(squared_distances_by_rows(X, self.X_train_), self.rho_x) * s
        else:
            idx = self._neighbors.kneighbors(X, return_distance=False)
            inv_x, inv_y, inv_xy, quad = self._weighted_inverses(idx)
            s, Y = self.sqrt_weight_[idx], self.Y_train_[idx]
            d2 = np.sum((X[:, None, :] - self.X_train_[idx]) ** 2, axis=2)
            kx = gaussian_from_squared_distances(d2, self.rho_x) * s
        ux = apply_rows(inv_x, kx)
        clipped = ClipCount()
        eta_x = self._clip_eta(1.0 + self.lambda_x - np.sum(kx * ux, axis=1), clipped)
        ax_xy = apply_rows(inv_xy, (1 - self.theta) * kx) if inv_xy is not None else None
        ay_kx = apply_rows(inv_y, kx) if quad is not None else None
        kx_ax = rowdot(kx, ax_xy) if ax_xy is not None else None
        second = inv_xy if inv_xy is not None else quad
        stacked = np.hstack([inv_y, second]) if idx is None and second is not None else None
        y_norms = np.einsum("ij,ij->i", Y, Y) if idx is None else None
        return Local(idx, s, Y, kx, ux, eta_x, inv_y, inv_xy, quad, ax_xy, ay_kx, kx_ax, stacked, y_norms, clipped,
                     weighted=not np.all(s == 1.0))

    @staticmethod
    def _clip_eta(eta, clipped):
        """eta with entries below ETA_FLOOR raised to it, counted in ``clipped`` (a ClipCount)."""
        low = eta < ETA_FLOOR
        if np.any(low):
            clipped.add(np.sum(low))
            eta = np.where(low, ETA_FLOOR, eta)
        return eta

    def _initial_outputs(self, X, local):
        init = self.init
        if isinstance(init, str):
            if init == "auto":
                init = "kl" if self.divergence == "sm" else "linear"
            if init == "ridge":
                return self._ridge(local)
            linear = self._linear(X)
            if init == "linear":
                return linear
            return self._minimise_in_threads(linear, local, "kl")[0]
        Y0 = np.asarray(init, dtype=float).reshape(len(X), -1)
        if Y0.shape[1] != self.n_outputs_ or not np.all(np.isfinite(Y0)):
            raise ValueError(f"init must be a finite array of shape ({len(X)}, {self.n_outputs_}).")
        return Y0.copy()

    def _linear(self, X):
        """Affine least-squares start [X 1] B, B = argmin sum_i w_i ||y_i - [x_i 1] B||^2
        (TGPTest.m's linear regression; weighted by the importance weights if given)."""
        s = self.sqrt_weight_[:, None]
        design = np.hstack([self.X_train_, np.ones((len(self.X_train_), 1))])
        coef = np.linalg.lstsq(s * design, s * self.Y_train_, rcond=None)[0]
        return rows_times(np.hstack([X, np.ones((len(X), 1))]), coef)

    def _ridge(self, local):
        """Kernel ridge regression start: k_XW' K_XW^-1 S Y."""
        if local.idx is None:
            return rows_times(local.ux, local.s[:, None] * local.Y)
        return np.einsum("mk,mkd->md", local.ux, local.s[..., None] * local.Y)

    # --------------------------------------------------------- the optimiser
    def _minimise_in_threads(self, Y0, local, divergence):
        """:meth:`_minimise` on blocks of test points in ``n_jobs`` threads, or on all points
        at once. :meth:`predict` runs it with one BLAS thread: BLAS's own threads would
        compete with ours, spin against other processes on a loaded machine (3x slower on
        the shared 2-core machine), and round differently with their number, so the last
        iterates of points stopped by max_iter, and the starts the KLTGP stage hands to
        SMTGP, would depend on the machine."""
        n_threads = min(effective_n_jobs(getattr(self, "n_jobs", None)), len(Y0) // MIN_POINTS_PER_THREAD)
        if n_threads <= 1:
            return self._minimise(Y0, local, divergence)
        blocks = np.array_split(np.arange(len(Y0)), n_threads)
        parts = Parallel(n_jobs=n_threads, prefer="threads")(
            delayed(self._minimise)(Y0[rows], local.take(rows), divergence) for rows in blocks)
        return tuple(np.concatenate(part) for part in zip(*parts))

    def _minimise(self, Y0, local, divergence):
        """Batched BFGS (:func:`._tgp_bfgs.minimise`) on the costs of ``divergence``."""
        return minimise(lambda Y, rows: self._batch_cost(Y, rows, divergence), Y0, local, divergence,
                        self.max_iter, self.tol * self.rho_y, self.rho_y)

    def _batch_cost(self, Yh, local, divergence):
        """:meth:`cost_and_gradient`, a single point evaluated as a batch of two: BLAS multiplies one
        row by another kernel (gemv) than several (gemm), which rounds differently, and on the flat
        SMTGP costs that round-off moved the prediction by 1e-4; so a point's prediction does not
        depend on the other points of the batch."""
        if len(Yh) != 1:
            return self.cost_and_gradient(Yh, local, divergence)
        cost, grad = self.cost_and_gradient(np.repeat(Yh, 2, axis=0), local.take(np.zeros(2, int)), divergence)
        return cost[:1], grad[:1]
