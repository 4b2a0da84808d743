"""What KLIEP and its Frank-Wolfe solvers share: sigma choice, centres, prediction."""

import warnings

import numpy as np

from .._constraints import KERNEL_WIDTH, POSITIVE, RANDOM_STATE, count
from .._validation import AUTO, check_grid, is_dask_array
from ..exceptions import NumericalWarning
from ..kernels import kernel_vecmat
from ..limits import check_kliep_memory, check_kliep_size
from ._base import WeightEstimator, warn_flat_kernel
from .sigma import kliep_sigma
from ._kliep_problem import DENSE_ATOMS_BYTES, ROW_CACHE_BYTES, build_kliep_problem, choose_centers


class KliepFamily(WeightEstimator):
    """Base of the estimators that solve the KLIEP problem (eq. 2).

    Subclasses implement ``_solve(problem)``: return mu on the simplex (atom
    coordinates, alpha = beta * mu) and set ``history_``, ``n_iter_`` and
    ``converged_``. The base class turns mu into ``alpha_``, computes the final
    objective and duality-gap certificate, and predicts w(x) = sum_l alpha_l k(x, c_l)
    (eq. 1).

    Fitted attributes common to the family
    --------------------------------------
    sigma_ : float            kernel width used
    cv_results_ : dict        how sigma="auto" was chosen: the likelihood cross-validation
                              curve of :func:`covshift.weights.sigma.kliep_sigma`, the same
                              for every solver of the family given the same data
    center_index_ : ndarray   index of each centre in X_te
    centers_ : ndarray        the centres (n_centers, d)
    alpha_ : ndarray          mixing coefficients on ``centers_``
    mu_ : ndarray             the same in atom coordinates (on the simplex)
    objective_ : float        F(alpha) = sum_j log w(x_te_j) (scale of eq. 2)
    duality_gap_ : float      Frank-Wolfe gap at the returned solution (with a low-rank
                              gradient, an upper bound within 2e-9 |F| of the float64 gap)
    n_excluded_centers_, n_uncovered_test_ : int   degenerate centres / test points left out
    """

    #: X_tr and X_te may be dask arrays: kernel sums run chunk-wise (numeric sigma needed).
    _accepts_dask = True
    #: The solver may use a low-rank gradient with an error bound (_kliep_problem.LowRankKernelAtoms).
    _low_rank_gradient = False
    #: The parameters every solver of the family shares (each solver adds its own).
    _parameter_constraints = {
        "sigma": KERNEL_WIDTH,
        "n_centers": [None, count(1)],
        "sigma_grid": [None, POSITIVE, "array-like"],  # its entries: check_grid at fit
        "cv": [count(2)],
        "random_state": RANDOM_STATE,
    }

    def _fit(self, X_tr, X_te):
        if (is_dask_array(X_tr) or is_dask_array(X_te)) and isinstance(self.sigma, str):
            raise ValueError(
                f"sigma={self.sigma!r} needs in-memory arrays; with dask arrays pass a number (for example "
                "the sigma chosen by sigma='auto' on a subsample)."
            )
        if self.sigma_grid is not None:
            check_grid(self.sigma_grid, "sigma_grid")  # every entry a positive number (not True)
        n_centers = None if self.n_centers is None else int(self.n_centers)
        check_kliep_memory(type(self).__name__, n_centers, len(X_te), DENSE_ATOMS_BYTES, ROW_CACHE_BYTES)
        check_kliep_size(type(self).__name__, n_centers, len(X_te))
        self.sigma_ = self._resolve_sigma(X_tr, X_te)
        if not (is_dask_array(X_tr) or is_dask_array(X_te)):
            warn_flat_kernel(self, X_tr, X_te, self.sigma_, stacklevel=5)
        centers = choose_centers(len(X_te), n_centers, self.random_state)
        problem = build_kliep_problem(X_tr, X_te, centers, self.sigma_, low_rank=self._low_rank_gradient)
        self.center_index_ = problem.center_index
        self.centers_ = np.asarray(X_te[problem.center_index])
        self.n_excluded_centers_ = problem.n_excluded_centers
        self.n_uncovered_test_ = problem.n_uncovered_test
        if problem.n_atoms == 0 or problem.atoms.shape[1] == 0:
            return self._fit_uniform(len(X_tr))
        mu = self._solve(problem)
        self.mu_ = mu
        self.alpha_ = mu * problem.beta
        self.objective_, self.duality_gap_ = problem.certificate(mu)
        return self._predict_raw(X_tr)

    def _fit_uniform(self, n_tr):
        warnings.warn(
            f"sigma={self.sigma_:.3g} is too small for this data: no Gaussian centre has kernel "
            "mass on the training points, so KLIEP has nothing to fit. Returning uniform weights; "
            "try a larger sigma or sigma='auto'.",
            NumericalWarning,
            stacklevel=5,
        )
        self.mu_ = self.alpha_ = np.zeros(len(self.center_index_))
        self.objective_, self.duality_gap_ = 0.0, 0.0
        self.n_iter_, self.converged_, self.history_ = 0, False, None
        return np.ones(n_tr)

    def _predict_raw(self, X):
        active = np.flatnonzero(self.alpha_)
        if active.size == 0:
            return np.ones(len(X))
        # w(x) = sum_l alpha_l k(x, c_l) over blocks of X (X may be a dask array)
        return kernel_vecmat(self.alpha_[active], self.centers_[active], X, self.sigma_)

    def _resolve_sigma(self, X_tr, X_te):
        sigma = self.sigma
        if sigma == AUTO:
            self.cv_results_ = kliep_sigma(X_tr, X_te, sigma_grid=self.sigma_grid,
                                           n_folds=self.cv, random_state=self.random_state)
            return self.cv_results_["best_sigma"]
        return float(sigma)
