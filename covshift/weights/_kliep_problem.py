"""The KLIEP problem in atom coordinates, shared by KLIEP and its Frank-Wolfe solvers.

KLIEP (eq. 2 of fw-covariate-shift-iw-smtgp) maximises
F(alpha) = sum_j log(sum_l alpha_l k_l(x_te_j)) subject to
sum_i w(x_tr_i) = n_tr and alpha >= 0. With the upper bound
beta_l = n_tr / sum_i k_l(x_tr_i) (eq. 4) and alpha_l = beta_l mu_l the
constraint becomes mu on the unit simplex, and

    F(mu) = sum_j log v_j,   v = A' mu,   A[l, j] = beta_l k_l(x_te_j).

Row l of ``atoms`` is atom l evaluated at the test points, so the gradient
with respect to mu, g * beta in the paper's notation (eq. 3), is ``atoms @ (1 / v)``.

Small problems keep ``atoms`` as a dense array. Above ``DENSE_ATOMS_BYTES`` it is a
:class:`KernelAtoms`: the same rows and products, computed over blocks of test points
(memory O(n_atoms * block + cached rows)) so that 10^6 points fit in bounded memory.
For the Frank-Wolfe solvers on larger problems whose kernel matrix is numerically of
low rank (smooth kernel: few dimensions or a wide sigma), it is a
:class:`LowRankKernelAtoms`: exact rows, and a gradient through a pivoted-Cholesky
factor with a bound on its error, so the n_atoms x n_te matrix is never built.
"""

import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import NumericalWarning
from .._validation import is_dask_array
from ..kernels import (gaussian_kernel, kernel_column_max, kernel_column_means, kernel_matvec,
                       kernel_rows, kernel_vecmat, pivoted_cholesky)
from ._line_search import log_objective

#: A centre whose mean kernel value over the training points is below this has
#: (numerically) no training mass: its bound beta_l = 1 / mean would exceed 1e10.
MIN_MEAN_KERNEL = 1e-10
#: A test point at which every usable atom is below this gets log-density -inf
#: whatever alpha is; it is left out of the objective.
MIN_DENSITY = 1e-200
#: Atom matrices larger than this (float64 bytes) are not stored but recomputed in blocks.
DENSE_ATOMS_BYTES = 2**28
#: Memory for the kernel block of one blocked product, and for the cached atom rows.
BLOCK_BYTES = 2**21
ROW_CACHE_BYTES = 2**27
#: Frank-Wolfe problems with at least this many atom entries (n_atoms * n_te) try a low-rank
#: gradient: a pivoted-Cholesky factor of the test kernel matrix with every entry within
#: LOW_RANK_TOL, of rank at most LOW_RANK_MAX_RANK, a quarter of the atoms, and LOW_RANK_BYTES.
LOW_RANK_MIN_ENTRIES = 10**6
LOW_RANK_TOL = 1e-12
LOW_RANK_MAX_RANK = 100
LOW_RANK_BYTES = 2**28


class KernelAtoms:
    """The atom matrix A[l, j] = beta_l k(c_l, x_te_j) without storing it.

    Supports what the solvers use of a dense ``atoms`` array: ``A[l]`` and ``A[rows]``
    (rows, cached up to ``ROW_CACHE_BYTES``: the active face is reused every
    iteration), ``A[:, columns]``, ``A @ u`` (the gradient) and ``w @ A`` (the density),
    both over blocks of test points, and ``shape``. Every number is float64 and the same as the dense matrix's.
    """

    __array_ufunc__ = None  # numpy defers ``w @ A`` to __rmatmul__

    def __init__(self, centers, X_te, sigma, beta):
        self.centers, self.X_te, self.sigma = centers, X_te, sigma
        self.beta = np.asarray(beta, dtype=float)
        self.shape = (len(centers), len(X_te))
        self._cache = {}
        self._cache_rows = max(1, ROW_CACHE_BYTES // (8 * max(len(X_te), 1)))

    def _rows(self, index):
        out = np.empty((len(index), self.shape[1]))
        missing = [k for k, l in enumerate(index) if l not in self._cache]
        for k, l in enumerate(index):
            if l in self._cache:
                out[k] = self._cache[l]
        if missing:
            atoms = [index[k] for k in missing]
            out[missing] = kernel_rows(self.centers[atoms], self.X_te, self.sigma, row_scale=self.beta[atoms])
            for k, l in zip(missing, atoms):
                if len(self._cache) >= self._cache_rows:
                    self._cache.pop(next(iter(self._cache)))  # the oldest row
                self._cache[l] = out[k].copy()
        return out

    def __getitem__(self, index):
        if isinstance(index, tuple):
            rows, columns = index
            if rows != slice(None):
                raise IndexError("KernelAtoms supports A[:, columns] only")
            return gaussian_kernel(self.centers, np.asarray(self.X_te[columns]), self.sigma, row_scale=self.beta)
        if np.ndim(index) == 0:
            return self._rows([int(index)])[0]
        index = np.asarray(index)
        if index.dtype == bool:
            index = np.flatnonzero(index)
        return self._rows([int(l) for l in index])

    def __matmul__(self, u):
        return kernel_matvec(self.centers, self.X_te, self.sigma, u, row_scale=self.beta,
                             block_bytes=BLOCK_BYTES)

    def __rmatmul__(self, weights):
        """weights @ A = sum_l weights_l A[l], from the non-zero weights' rows only."""
        weights = np.asarray(weights, dtype=float)
        used = np.flatnonzero(weights)
        if used.size <= self._cache_rows:
            return weights[used] @ self[used]
        return kernel_vecmat(weights[used], self.centers[used], self.X_te, self.sigma,
                             row_scale=self.beta[used], block_bytes=BLOCK_BYTES)

    def column_max(self):
        return kernel_column_max(self.centers, self.X_te, self.sigma, row_scale=self.beta,
                                 block_bytes=BLOCK_BYTES)

    def keep_columns(self, covered):
        kept = self.X_te[np.flatnonzero(covered)] if is_dask_array(self.X_te) else self.X_te[covered]
        return KernelAtoms(self.centers, kept, self.sigma, self.beta)


class LowRankKernelAtoms(KernelAtoms):
    """Kernel atoms whose gradient A u comes from a low-rank factor, with an error bound.

    With the pivoted-Cholesky factor K(X_te, X_te) ~ L' L, every entry within
    ``residual`` (:func:`covshift.kernels.pivoted_cholesky`), the centres being test
    points, A u = beta * (L_c' (L u)) costs O(rank * (n_atoms + n_te)) instead of
    O(n_atoms * n_te), and |(A u)_l - beta_l (L_c' L u)_l| <= beta_l * residual * ||u||_1.
    Rows, ``A @ u`` and ``w @ A`` stay exact float64 (:class:`KernelAtoms`); only
    :meth:`gradient` uses the factor.
    """

    def __init__(self, centers, X_te, sigma, beta, factor, center_columns, residual):
        super().__init__(centers, X_te, sigma, beta)
        self.factor, self.center_columns = factor, center_columns  # L (rank, n_te), L_c (rank, n_atoms)
        self.residual = residual
        # the factor takes its memory from the row cache, down to half of it
        cache_bytes = max(ROW_CACHE_BYTES // 2, ROW_CACHE_BYTES - factor.nbytes)
        self._cache_rows = max(1, cache_bytes // (8 * max(len(X_te), 1)))
        # the factor's own round-off adds a few rank * epsilon per entry; the round-off of the
        # sums over test points is that of the dense float64 product A @ u, as in every path
        self.entry_error = residual + 4 * (len(factor) + 1) * np.finfo(float).eps

    def gradient(self, u):
        """(approximate A u, bound on the error of each entry)."""
        u = np.asarray(u, dtype=float)
        approximate = self.beta * (self.center_columns.T @ (self.factor @ u))
        return approximate, self.beta * (self.entry_error * np.abs(u).sum())

    def keep_columns(self, covered):
        kept = super().keep_columns(covered)
        return LowRankKernelAtoms(kept.centers, kept.X_te, self.sigma, self.beta, self.factor[:, covered],
                                  self.center_columns, self.residual)


@dataclass
class KliepProblem:
    """Atoms of the KLIEP problem after excluding degenerate centres and test points.

    Attributes
    ----------
    atoms : ndarray (n_atoms, n_covered) or KernelAtoms (large problems)
        A[l, j] = beta_l k(c_l, x_te_j) for the usable centres and covered test points.
    beta : ndarray (n_atoms,)
        Upper bounds of alpha (eq. 4).
    center_index : ndarray (n_atoms,)
        Index of each usable centre in X_te.
    n_excluded_centers, n_uncovered_test : int
    """

    atoms: np.ndarray
    beta: np.ndarray
    center_index: np.ndarray
    n_excluded_centers: int
    n_uncovered_test: int

    @property
    def n_atoms(self):
        return self.atoms.shape[0]

    def density(self, mu):
        """v = A' mu, the (unnormalised) test density at the test points, from the active atoms."""
        active = np.flatnonzero(mu)
        return mu[active] @ self.atoms[active]

    def gradient(self, u, max_error=0.0):
        """The gradient g = A u with a bound on the error of each entry (0.0: exact).

        Low-rank atoms give an approximation when its bound is at most ``max_error``;
        otherwise (and for dense or blocked atoms) g is exact float64.
        """
        if isinstance(self.atoms, LowRankKernelAtoms):
            approximate, error = self.atoms.gradient(u)
            if error.max(initial=0.0) <= max_error:
                return approximate, error
        return self.atoms @ u, 0.0

    def certificate(self, mu, max_error=None):
        """Objective F(mu) and Frank-Wolfe duality gap max_l g_l - <g, mu> at mu.

        With a low-rank gradient the gap is an upper bound (:func:`duality_gap`), larger
        than the float64 one by at most 2 max_error; max_error defaults to 1e-9 |F|.
        """
        v = self.density(mu)
        objective = log_objective(v)
        max_error = 1e-9 * abs(objective) if max_error is None else max_error
        grad, error = self.gradient(1.0 / v, max_error)
        return objective, duality_gap(grad, error, mu, np.flatnonzero(mu))


def duality_gap(grad, error, mu, active):
    """The Frank-Wolfe gap max_l g_l - <g, mu>, or, when every entry of the gradient is only
    known within ``error`` (|grad - g| <= error), the largest value it can take: an upper bound."""
    if np.ndim(error) == 0 and error == 0:
        return float(grad.max() - grad[active] @ mu[active])
    return float((grad + error).max() - (grad[active] - error[active]) @ mu[active])


def choose_centers(n_te, n_centers, random_state):
    """Sorted indices of the Gaussian centres among the test points (all if n_centers is None)."""
    if n_centers is None or n_centers >= n_te:
        return np.arange(n_te)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n_te, size=n_centers, replace=False))


def build_kliep_problem(X_tr, X_te, center_index, sigma, low_rank=False):
    """Kernel atoms of the KLIEP problem, with degenerate centres and test points removed.

    Warns (NumericalWarning) with the counts when centres have ~0 kernel mass on the
    training points (beta would explode: test point outside the training support), or
    when test points are covered by no atom (kernel underflow, sigma too small).
    ``low_rank=True`` (the Frank-Wolfe solvers) allows :class:`LowRankKernelAtoms` on
    problems of at least ``LOW_RANK_MIN_ENTRIES`` atom entries when the factor is small.
    """
    # the training side enters only through these column sums (eq. 4): never stored
    centers = np.asarray(X_te[center_index])  # computes the centres of a dask X_te
    factor = _low_rank_factor(X_te, len(center_index), sigma) if low_rank else None
    if is_dask_array(X_tr) or factor is not None:  # over cache-sized blocks of training points
        mean_kernel = kernel_matvec(centers, X_tr, sigma, np.ones(len(X_tr))) / len(X_tr)
    else:
        mean_kernel = kernel_column_means(X_tr, centers, sigma)
    usable = mean_kernel > MIN_MEAN_KERNEL
    n_excluded = int(np.sum(~usable))
    if n_excluded:
        warnings.warn(
            f"{n_excluded} of {len(center_index)} Gaussian centres have (almost) no kernel mass on "
            f"the training points (test points outside the training support, or sigma={sigma:.3g} "
            "too small); they were excluded.",
            NumericalWarning,
            stacklevel=3,
        )
    center_index, centers = center_index[usable], centers[usable]
    beta = 1.0 / mean_kernel[usable]
    if not usable.any():
        return KliepProblem(np.zeros((0, len(X_te))), beta, center_index, n_excluded, 0)
    if factor is not None:
        L, residual = factor
        atoms = LowRankKernelAtoms(centers, X_te, sigma, beta, L, L[:, center_index], residual)
    elif 8 * len(center_index) * len(X_te) <= DENSE_ATOMS_BYTES and not is_dask_array(X_te):
        atoms = gaussian_kernel(centers, X_te, sigma, row_scale=beta)
    else:
        atoms = KernelAtoms(centers, X_te, sigma, beta)
    if len(center_index) == len(X_te):
        # every test point is a centre (center_index = 0..n-1): its own atom covers it, A[j, j] = beta_j
        covered = beta > MIN_DENSITY
    elif isinstance(atoms, KernelAtoms):
        covered = atoms.column_max() > MIN_DENSITY
    else:
        covered = atoms.max(axis=0, initial=0.0) > MIN_DENSITY
    n_uncovered = int(np.sum(~covered))
    if n_uncovered:
        warnings.warn(
            f"{n_uncovered} of {len(X_te)} test points have zero kernel density under every centre "
            f"(sigma={sigma:.3g} is too small for the data); they were left out of the objective.",
            NumericalWarning,
            stacklevel=3,
        )
        atoms = atoms.keep_columns(covered) if isinstance(atoms, KernelAtoms) else \
            np.ascontiguousarray(atoms[:, covered])
    return KliepProblem(atoms, beta, center_index, n_excluded, n_uncovered)


def _low_rank_factor(X_te, n_centers, sigma):
    """Pivoted-Cholesky factor (L, residual) of the test kernel matrix, or None when the
    problem is small, X_te is a dask array, or the kernel matrix is not of low rank."""
    n_te = len(X_te)
    if n_centers * n_te < LOW_RANK_MIN_ENTRIES or is_dask_array(X_te):
        return None
    max_rank = min(LOW_RANK_MAX_RANK, n_centers // 4, LOW_RANK_BYTES // (8 * n_te))
    return pivoted_cholesky(X_te, sigma, LOW_RANK_TOL, max_rank) if max_rank > 0 else None


def covering_start(problem, warn=True):
    """A feasible starting mu with finite objective.

    The paper starts at the vertex of the smallest beta (Algorithm 2, line 3). When
    that vertex gives zero density at some test points (F = -inf, e.g. a small sigma),
    the atoms that best cover those points are added with equal weight, and (``warn``)
    a NumericalWarning says so.
    """
    mu = np.zeros(problem.n_atoms)
    start = int(np.argmin(problem.beta))
    v = problem.atoms[start]
    uncovered = np.flatnonzero(v <= MIN_DENSITY)
    if uncovered.size == 0:
        mu[start] = 1.0
        return mu
    cover = np.unique(np.argmax(problem.atoms[:, uncovered], axis=0))
    chosen = np.union1d(cover, [start])
    mu[chosen] = 1.0 / len(chosen)
    if not warn:
        return mu
    warnings.warn(
        f"The paper's starting vertex gives zero density at {uncovered.size} test points "
        f"(log-likelihood -inf); started from {len(chosen)} atoms that cover them instead.",
        NumericalWarning,
        stacklevel=3,
    )
    return mu
