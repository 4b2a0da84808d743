"""The KLIEP problem in atom coordinates, shared by KLIEP and its Frank-Wolfe solvers.

KLIEP (eq. 2 of fw-covariate-shift-iw-smtgp) maximises
F(alpha) = sum_j log(sum_l alpha_l k_l(x_te_j)) subject to
sum_i w(x_tr_i) = n_tr and alpha >= 0. With the upper bound
beta_l = n_tr / sum_i k_l(x_tr_i) (eq. 4) and alpha_l = beta_l mu_l the
constraint becomes mu on the unit simplex, and

    F(mu) = sum_j log v_j,   v = A' mu,   A[l, j] = beta_l k_l(x_te_j).

Row l of ``atoms`` is atom l evaluated at the test points, so the gradient
with respect to mu, g * beta in the paper's notation (eq. 3), is ``atoms @ (1 / v)``.
"""

import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import NumericalWarning
from ..kernels import gaussian_kernel, kernel_column_means
from ._line_search import log_objective

#: A centre whose mean kernel value over the training points is below this has
#: (numerically) no training mass: its bound beta_l = 1 / mean would exceed 1e10.
MIN_MEAN_KERNEL = 1e-10
#: A test point at which every usable atom is below this gets log-density -inf
#: whatever alpha is; it is left out of the objective.
MIN_DENSITY = 1e-200


@dataclass
class KliepProblem:
    """Atoms of the KLIEP problem after excluding degenerate centres and test points.

    Attributes
    ----------
    atoms : ndarray (n_atoms, n_covered)
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

    def certificate(self, mu):
        """Objective F(mu) and Frank-Wolfe duality gap max_l g_l - <g, mu> at mu."""
        v = self.density(mu)
        grad = self.atoms @ (1.0 / v)
        return log_objective(v), float(grad.max() - grad @ mu)


def choose_centers(n_te, n_centers, random_state):
    """Sorted indices of the Gaussian centres among the test points (all if n_centers is None)."""
    if n_centers is None or n_centers >= n_te:
        return np.arange(n_te)
    rng = np.random.default_rng(random_state)
    return np.sort(rng.choice(n_te, size=n_centers, replace=False))


def build_kliep_problem(X_tr, X_te, center_index, sigma):
    """Kernel atoms of the KLIEP problem, with degenerate centres and test points removed.

    Warns (NumericalWarning) with the counts when centres have ~0 kernel mass on the
    training points (beta would explode: test point outside the training support), or
    when test points are covered by no atom (kernel underflow, sigma too small).
    """
    mean_kernel = kernel_column_means(X_tr, X_te[center_index], sigma)
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
    center_index = center_index[usable]
    beta = 1.0 / mean_kernel[usable]
    if not usable.any():
        return KliepProblem(np.zeros((0, len(X_te))), beta, center_index, n_excluded, 0)
    atoms = gaussian_kernel(X_te[center_index], X_te, sigma, row_scale=beta)
    if len(center_index) == len(X_te):
        # every test point is a centre (center_index = 0..n-1): its own atom covers it, A[j, j] = beta_j
        covered = np.diagonal(atoms) > MIN_DENSITY
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
        atoms = np.ascontiguousarray(atoms[:, covered])
    return KliepProblem(atoms, beta, center_index, n_excluded, n_uncovered)


def covering_start(problem):
    """A feasible starting mu with finite objective.

    The paper starts at the vertex of the smallest beta (Algorithm 2, line 3). When
    that vertex gives zero density at some test points (F = -inf, e.g. a small sigma),
    the atoms that best cover those points are added with equal weight, and a
    NumericalWarning says so.
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
    warnings.warn(
        f"The paper's starting vertex gives zero density at {uncovered.size} test points "
        f"(log-likelihood -inf); started from {len(chosen)} atoms that cover them instead.",
        NumericalWarning,
        stacklevel=3,
    )
    return mu
