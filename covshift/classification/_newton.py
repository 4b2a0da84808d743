"""A damped Newton ascent with a backtracking line search (used by every classifier here).

Both the convex problems (weighted kernel logistic regression, the selector alone) and the
non-convex joint problem of discriminative-covariate-shift (Optimization Problem 1, Theorem 2)
are maximised by the same loop: a Newton direction, made an ascent direction by adding
``lambda I`` to the negative Hessian whenever it is not positive definite (Levenberg-Marquardt
damping), then an Armijo backtracking line search, so every accepted step increases the
objective. It stops when the largest gradient entry is below ``tol * scale`` (``scale``: the
total weight of the data terms, so the test is relative to the size of the sums).
"""

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import linalg

from ..exceptions import ConvergenceWarning, NumericalWarning


@dataclass
class NewtonHistory:
    """One row per accepted iterate (row 0 is the start).

    Parameters
    ----------
    objective : ndarray
        Objective value at each iterate (non-decreasing by construction).
    gradient_norm : ndarray
        Largest absolute gradient entry at each iterate.
    step_size : ndarray
        Line-search step that led to the iterate (0 for the start).
    damping : ndarray
        lambda added to the negative Hessian for that step (0: a pure Newton step).
    """

    objective: np.ndarray
    gradient_norm: np.ndarray
    step_size: np.ndarray
    damping: np.ndarray

    def __len__(self):
        return len(self.objective)


@dataclass
class NewtonResult:
    theta: np.ndarray
    objective: float
    gradient: np.ndarray
    n_iter: int
    converged: bool
    history: NewtonHistory


def ascent_direction(gradient, hessian):
    """Solve (-H + lambda I) d = g with the smallest lambda in {0, 1e-10 s, 1e-9 s, ...} for which
    -H + lambda I is positive definite (s = mean |diag H|, at least 1); then g . d > 0."""
    negative = -0.5 * (hessian + hessian.T)
    scale = max(float(np.mean(np.abs(np.diag(negative)))), 1.0)
    damping = 0.0
    eye = np.eye(len(gradient))
    for _ in range(40):
        try:
            factor = linalg.cho_factor(negative + damping * eye, check_finite=False)
            direction = linalg.cho_solve(factor, gradient, check_finite=False)
            if np.all(np.isfinite(direction)):
                return direction, damping
        except linalg.LinAlgError:
            pass
        damping = 1e-10 * scale if damping == 0.0 else 10.0 * damping
    return gradient / scale, damping  # steepest ascent as a last resort


def newton_ascent(fun, theta0, tol=1e-6, max_iter=100, scale=1.0, armijo=1e-4, shrink=0.5,
                  max_backtracks=50, name="Newton ascent"):
    """Maximise ``fun`` from ``theta0``.

    Parameters
    ----------
    fun : callable
        ``fun(theta, order)``: order 0 returns the value; order 2 returns (value, gradient, Hessian).
    theta0 : ndarray
    tol : float
        Stop when max |gradient| <= tol * scale (``converged`` is then True).
    max_iter : int
    scale : float
        Size of the objective's data sums (e.g. the total sample weight), at least 1.
    armijo, shrink, max_backtracks : line-search constants: accept step t when
        f(theta + t d) >= f(theta) + armijo t g.d, else t <- shrink t.

    Returns
    -------
    NewtonResult
    """
    theta = np.array(theta0, dtype=float)
    tol = tol * max(float(scale), 1.0)
    value, gradient, hessian = fun(theta, 2)
    rows = [(value, np.max(np.abs(gradient)), 0.0, 0.0)]
    converged = rows[0][1] <= tol
    n_iter = 0
    while not converged and n_iter < max_iter:
        direction, damping = ascent_direction(gradient, hessian)
        slope = float(gradient @ direction)
        step, accepted = 1.0, False
        for _ in range(max_backtracks):
            candidate = theta + step * direction
            new_value = fun(candidate, 0)
            if np.isfinite(new_value) and new_value >= value + armijo * step * slope:
                accepted = True
                break
            step *= shrink
        if not accepted:
            warnings.warn(f"{name}: the line search found no increase at gradient norm "
                          f"{rows[-1][1]:.2e}; stopping at the best point (round-off level).",
                          NumericalWarning, stacklevel=3)
            break
        theta = candidate
        value, gradient, hessian = fun(theta, 2)
        n_iter += 1
        rows.append((value, np.max(np.abs(gradient)), step, damping))
        converged = rows[-1][1] <= tol
    if not converged and n_iter >= max_iter:
        warnings.warn(f"{name} stopped after max_iter={max_iter} iterations with gradient norm "
                      f"{rows[-1][1]:.2e} > {tol:.2e}; raise max_iter.", ConvergenceWarning, stacklevel=3)
    history = NewtonHistory(*(np.array(column) for column in zip(*rows)))
    return NewtonResult(theta, float(value), gradient, n_iter, bool(converged), history)
