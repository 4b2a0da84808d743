"""Line searches for phi(rho) = sum_j log(v_j + rho d_j), the KLIEP objective along a direction.

Both work on the test-space vectors v = A' mu and d = A' d_mu the solvers already
hold, so every trial step costs O(n_te); both run compiled (:mod:`._compiled`: a trial step is
one pass over the vectors, not a dozen numpy calls).
"""

import numpy as np

from . import _compiled
from ._compiled import MIN_PROGRESS  # noqa: F401  (an Armijo step below MIN_PROGRESS * rho_max: no progress)


def log_objective(v):
    """sum(log v), or -inf if any entry is <= 0 (outside the domain)."""
    if np.all(v > 0):
        return float(np.sum(np.log(v)))
    return -np.inf


def exact_line_search(v, d, rho_max, slope0):
    """Maximise the concave phi(rho) on [0, rho_max] by safeguarded Newton / bisection.

    Newton on phi'(rho) = 0 inside a bracket [lo, hi] with phi'(lo) > 0 > phi'(hi);
    a bisection replaces any Newton step that would leave the bracket or does not
    halve the step (the "rtsafe" safeguard), so the search also converges fast when
    the maximiser is many orders of magnitude below rho_max.

    Parameters
    ----------
    v : ndarray, all > 0
        Current density values v = A' mu at the test points.
    d : ndarray
        Direction in test space.
    rho_max : float
        Largest feasible step (1 for towards steps, eqs. 25 / 29 otherwise).
    slope0 : float
        phi'(0) = sum d / v (> 0 for an ascent direction).

    Returns
    -------
    rho : float in [0, rho_max]; exactly rho_max when the maximiser is at the bound.
    """
    return _compiled.exact_line_search(_vector(v), _vector(d), float(rho_max), float(slope0))


def _vector(x):
    """x as a contiguous float64 vector (the one signature of the compiled searches)."""
    return np.ascontiguousarray(x, dtype=np.float64)


def armijo_line_search(v, d, rho_max, slope0, objective, c=0.5, shrink=0.5, max_backtracks=60):
    """Backtracking (Armijo) line search, Algorithm 3 of fw-covariate-shift-iw-smtgp.

    Shrinks rho by ``shrink`` (xi) until phi(rho) >= phi(0) + c * rho * phi'(0)
    (``c`` is the paper's tau). Two changes keep it working at small sigma:

    - Algorithm 3 starts at rho_max; here the first trial is min(rho_max, rho_newton),
      with rho_newton = phi'(0) / -phi''(0) the Newton step of phi at 0, a start that
      follows the scale of the problem.
    - When some density v_j is tiny (small sigma, a start that barely covers a test
      point), phi'(0) is huge and the sufficient-increase test only passes for steps
      that change nothing (below MIN_PROGRESS * rho_max, or none within
      ``max_backtracks`` halvings). Backtracking then cannot make progress, and the
      exact search (:func:`exact_line_search`) decides the step.

    Returns rho in [0, rho_max] (0 only when no ascent is possible).
    """
    if not np.isfinite(rho_max):
        raise ValueError("Armijo line search needs a finite maximum step.")
    return _compiled.armijo_line_search(_vector(v), _vector(d), float(rho_max), float(slope0), float(objective),
                                        float(c), float(shrink), int(max_backtracks))
