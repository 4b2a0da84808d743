"""Line searches for phi(rho) = sum_j log(v_j + rho d_j), the KLIEP objective along a direction.

Both work on the test-space vectors v = A' mu and d = A' d_mu the solvers already
hold, so every trial step costs O(n_te).
"""

import numpy as np

_MAX_NEWTON = 200
#: An Armijo step below this fraction of rho_max counts as no progress (see armijo_line_search).
MIN_PROGRESS = 1e-10


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
    if slope0 <= 0:
        return 0.0
    decreasing = d < 0
    # phi -> -inf at the boundary of its domain, so the maximiser lies before it.
    with np.errstate(over="ignore", divide="ignore"):
        rho_domain = np.min(-v[decreasing] / d[decreasing]) if decreasing.any() else np.inf
    if rho_max < rho_domain and _slope(v, d, rho_max)[0] >= 0:
        return rho_max
    lo, hi = 0.0, min(rho_max, rho_domain)
    work = d / v
    rho = min(slope0 / _sum_of_squares(work), 0.5 * hi)  # Newton from 0, inside the bracket
    step = step_before = hi - lo
    slope, curvature = _slope(v, d, rho, work)
    for _ in range(_MAX_NEWTON):
        if slope > 0:
            lo = rho
        else:
            hi = rho
        newton = rho - slope / curvature if np.isfinite(slope) else np.nan
        if not lo < newton < hi or abs(2.0 * slope) > abs(step_before * curvature):
            step_before, step = step, 0.5 * (hi - lo)
            rho = lo + step
        else:
            step_before, step = step, rho - newton
            rho = newton
        if abs(step) <= 1e-13 * rho or hi - lo <= 1e-15 * hi:
            break
        slope, curvature = _slope(v, d, rho, work)
    return rho


def _slope(v, d, rho, out=None):
    """phi'(rho) and phi''(rho); -inf past the boundary of phi's domain (round-off there).

    ``out``, an array like v, is used as workspace (no allocation per trial step: at
    10^6 test points the allocations cost as much as the arithmetic).
    """
    density = np.multiply(d, rho, out=out)
    density += v
    if not density.min(initial=np.inf) > 0:
        return -np.inf, -np.inf
    ratio = np.divide(d, density, out=density)
    return float(np.sum(ratio)), -_sum_of_squares(ratio)


#: Longer vectors are summed by einsum: OpenBLAS splits a dot product over its threads above
#: about 10^4 entries, and on a loaded machine the threads wait for one another (10x slower
#: at 10^5 test points). Shorter ones keep np.dot, so small problems keep their exact numbers.
_BLAS_DOT_MAX = 8192


def _sum_of_squares(x):
    """x . x as a float."""
    return float(np.dot(x, x) if len(x) <= _BLAS_DOT_MAX else np.einsum("i,i->", x, x))


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
    if slope0 <= 0:
        return 0.0
    ratio = d / v
    rho = min(rho_max, slope0 / float(np.dot(ratio, ratio)))
    for _ in range(max_backtracks):
        if rho < MIN_PROGRESS * rho_max:
            break
        if log_objective(v + rho * d) >= objective + c * rho * slope0:
            return rho
        rho *= shrink
    return exact_line_search(v, d, rho_max, slope0)
