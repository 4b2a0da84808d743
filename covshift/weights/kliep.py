"""The original KLIEP by projected gradient ascent (Sugiyama et al. 2008)."""

import time

import numpy as np

from .._validation import check_choice, check_int, check_positive
from ._kliep_base import KliepFamily
from ._line_search import log_objective


class KLIEP(KliepFamily):
    """Kullback-Leibler Importance Estimation Procedure, the paper's baseline.

    Maximises F(alpha) = sum_j log(sum_l alpha_l k(x_te_j, c_l)) subject to
    mean_i w(x_tr_i) = 1 and alpha >= 0 (eq. 2 of fw-covariate-shift-iw-smtgp)
    by the projected gradient ascent of Sugiyama et al. (2008): for each learning
    rate eps in ``learning_rates`` (largest first), repeat
    alpha <- alpha + eps * K' (1 / (K alpha)), then project (onto the constraint
    hyperplane, clip at 0, rescale), while the objective increases.

    Parameters
    ----------
    sigma : float, "median" or "auto" (default)
        Kernel width; "auto" is likelihood cross-validation on test folds.
    n_centers : int or None, default 100
        Seeded random subset of test points as Gaussian centres (None: all).
    learning_rates : sequence of float, default 10^3 ... 10^-3
        Sugiyama's schedule, applied relative to the scale max(alpha_0) / max(grad_0)
        of the problem, so that it does not depend on the units of the data
        (Sugiyama's absolute rates overshoot at every rate on the paper's data).
    max_iter : int, default 100
        Iterations per learning rate.
    tol : float, default 1e-9
        An iteration counts as an increase only if F grows by more than tol * |F|.
    projection : {"exact", "sugiyama"}
        "exact" is the Euclidean projection onto the constraint set (projected
        gradient proper, converges to the optimum); "sugiyama" is the heuristic of the
        original code (project onto the hyperplane, clip, rescale), which stalls early.
    sigma_grid, cv, random_state : as in :class:`covshift.weights.FWCS`.

    Attributes
    ----------
    weights_, alpha_, mu_, centers_, center_index_, objective_, duality_gap_, n_iter_,
    converged_ (True: ran out of learning rates, the method's own convergence),
    history_ (dict of per-iteration arrays ``objective``, ``learning_rate``, ``elapsed``).
    """

    def __init__(self, sigma="auto", n_centers=100, learning_rates=None, max_iter=100,
                 tol=1e-9, projection="exact", sigma_grid=None, cv=5, random_state=0):
        self.sigma = sigma
        self.projection = projection
        self.n_centers = n_centers
        self.learning_rates = learning_rates
        self.max_iter = max_iter
        self.tol = tol
        self.sigma_grid = sigma_grid
        self.cv = cv
        self.random_state = random_state

    def _fit(self, X_tr, X_te):
        check_int(self.max_iter, "max_iter")
        check_positive(self.tol, "tol")
        check_choice(self.projection, "projection", set(_PROJECTIONS))
        if self.learning_rates is not None:
            check_learning_rates(self.learning_rates)
        return super()._fit(X_tr, X_te)

    def _solve(self, problem):
        rates = 10.0 ** np.arange(3, -4, -1) if self.learning_rates is None else self.learning_rates
        rates = [check_positive(r, "learning rate") for r in np.ravel(rates)]
        mean_kernel = 1.0 / problem.beta  # b_l = mean_i k(x_tr_i, c_l): constraint b' alpha = 1
        atoms, start = problem.atoms, time.perf_counter()
        project = _PROJECTIONS[self.projection]
        alpha = project(np.ones(problem.n_atoms), mean_kernel)
        v = (alpha * mean_kernel) @ atoms  # K alpha at the test points
        objective = log_objective(v)
        scale = alpha.max() / (mean_kernel * (atoms @ (1.0 / v))).max()
        rows = []
        for rate in np.multiply(rates, scale):
            for _ in range(self.max_iter):
                gradient = mean_kernel * (atoms @ (1.0 / v))  # K' (1 / K alpha)
                candidate = project(alpha + rate * gradient, mean_kernel)
                v_new = (candidate * mean_kernel) @ atoms
                new_objective = log_objective(v_new)
                if not new_objective > objective + self.tol * abs(objective):
                    break
                alpha, v, objective = candidate, v_new, new_objective
                rows.append((objective, rate, time.perf_counter() - start))
        self.n_iter_ = len(rows)
        self.converged_ = True
        columns = list(zip(*rows)) if rows else [(), (), ()]
        self.history_ = {name: np.asarray(col, dtype=float)
                         for name, col in zip(["objective", "learning_rate", "elapsed"], columns)}
        return alpha * mean_kernel



#: Learning rates are relative to the problem's scale (1 moves alpha by about its own size);
#: far larger ones overflow the projection.
MAX_LEARNING_RATE = 1e12


def check_learning_rates(rates):
    """A non-empty list of positive learning rates up to MAX_LEARNING_RATE, or ValueError."""
    values = [check_positive(r, "learning_rates (each rate)") for r in np.ravel(np.asarray(rates, dtype=object))]
    if not values or max(values) > MAX_LEARNING_RATE:
        raise ValueError(f"learning_rates must be a non-empty list of positive numbers up to "
                         f"{MAX_LEARNING_RATE:.0e} (they are relative to the problem's scale); got {rates!r}.")
    return values


def sugiyama_projection(alpha, b):
    """Sugiyama's heuristic: onto b' alpha = 1, clip at 0, rescale to b' alpha = 1.

    Not a Euclidean projection: ascent can stall far from the optimum.
    """
    alpha = alpha + b * (1.0 - b @ alpha) / (b @ b)
    alpha = np.maximum(alpha, 0.0)
    return alpha / (b @ alpha)


def exact_projection(y, b):
    """Euclidean projection of y onto {alpha >= 0, b' alpha = 1} (b > 0), O(n log n).

    The solution is max(0, y - lam b); lam is found from the sorted breakpoints y_l / b_l.
    """
    breakpoints = y / b
    order = np.argsort(-breakpoints)
    lam = (np.cumsum((b * y)[order]) - 1.0) / np.cumsum(b[order] ** 2)
    k = np.flatnonzero(breakpoints[order] > lam)[-1]
    return np.maximum(0.0, y - lam[k] * b)


_PROJECTIONS = {"exact": exact_projection, "sugiyama": sugiyama_projection}
