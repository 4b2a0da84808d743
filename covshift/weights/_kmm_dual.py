"""The KMM quadratic program (eq. 1 of sampling-based-kmm) with a ridge, solved through a low-rank factor of
the kernel by a semismooth Newton method on its dual, which has r + 1 unknowns instead of n.

With K = L'L (L of shape (r, n), :func:`covshift.weights.kmm.low_rank_factor`) and d = ridge + jitter > 0, the QP

    min_b 1/2 b'(L'L + d I) b - kappa'b   s.t.  0 <= b <= B,  lo <= 1'b <= hi

is, with z = L b and multipliers u (of z = L b) and nu (of the sum), the maximum of the concave dual

    g(u, nu) = sum_i phi(kappa_i - (L'u)_i - nu) - |u|^2 / 2 - nu t,   phi(c) = min_{0 <= b <= B} d b^2 / 2 - c b,

whose maximiser gives the unique b_i = clip((kappa_i - (L'u)_i - nu) / d, 0, B). g is piecewise quadratic with a
Lipschitz gradient (L b - u, 1'b - t); its generalised Hessian on the points strictly inside their box F is
-(I + L_F L_F' / d) (and the nu row), so a Newton step is an (r + 1)-square Cholesky solve, O(r^2 |F|), and the
step is exact once F is right: a handful of steps, each ~0.1 ms at n = 500, r = 20, against ~20 interior-point
iterations of cvxopt. The two-sided sum constraint: first nu = 0 (the sum left free); if 1'b then falls outside
[lo, hi], the optimum lies on the violated side (the objective is strictly convex), solved with 1'b = t there.

The factor L of a Gaussian kernel can be built from its pivot columns alone (:func:`gaussian_factor`), without the
n x n kernel.

With a tiny d (the papers' ridge = 0, d = 1e-8) the dual is ill-conditioned: :func:`solve_kmm_dual` is then
not used (:data:`MIN_DUAL_DIAGONAL`), and cvxopt's interior point solves the QP.
"""

import numpy as np
from scipy.linalg.lapack import dposv

from ..kernels import scaled_exponent
from ._kmm_kkt import KMM_JITTER

#: Smallest d = ridge + jitter solved through the dual: below it b = (kappa - L'u - nu) / d amplifies the
#: dual's rounding errors by 1 / d.
MIN_DUAL_DIAGONAL = 1e-3
#: Newton steps at most; a solve that does not converge within them returns None (the caller's interior point
#: decides).
MAX_NEWTON_STEPS = 60
#: Convergence: the dual gradient (L b - u, 1'b - t) within this times the scale of kappa (and of n).
DUAL_TOL = 1e-12


def gaussian_factor(X, sigma, tol, max_rank):
    """L (r, n) with |K - L'L| <= ``tol`` entrywise for the Gaussian kernel K of the rows of ``X`` (pivoted Cholesky,
    the same pivots and stopping rule as LAPACK's dpstrf, :func:`covshift.weights.kmm.low_rank_factor`), building only
    the r pivot columns of K (O(n r) kernel values instead of n^2); None when r would exceed ``max_rank``. Every
    residual diagonal entry is at most ``tol`` at the end, and the residual is positive semi-definite, so every entry
    is too."""
    X = np.asarray(X, dtype=float)
    n = len(X)
    norms = np.einsum("ij,ij->i", X, X)
    residual = np.ones(n)  # K's diagonal minus L'L's: the Gaussian kernel's is 1
    factor = np.empty((max_rank, n))
    for rank in range(max_rank + 1):
        pivot = int(np.argmax(residual))
        if residual[pivot] <= tol:
            return factor[:rank]
        if rank == max_rank:
            return None
        column = np.maximum(norms + norms[pivot] - 2.0 * (X @ X[pivot]), 0.0)  # squared distances to the pivot
        column[pivot] = 0.0
        column = np.exp(scaled_exponent(column, sigma))
        column -= factor[:rank, pivot] @ factor[:rank]
        column /= np.sqrt(residual[pivot])
        factor[rank] = column
        residual -= column * column
        residual[pivot] = 0.0
    return None


def kmm_bounds(n, B, eps):
    """(B, eps) on n points: eps None is (sqrt(n) - 1) / sqrt(n); B above n (1 + eps) is inactive (sum b <= n (1 +
    eps)): capped there, the same problem without numbers like 1e100 that break cvxopt's scaling."""
    eps = (np.sqrt(n) - 1) / np.sqrt(n) if eps is None else eps
    return min(B, n * (1.0 + eps)), eps


def dual_applies(ridge):
    """Whether a QP with this ridge is solved through its dual: ridge + jitter at least MIN_DUAL_DIAGONAL."""
    return ridge + KMM_JITTER >= MIN_DUAL_DIAGONAL


def dual_solve(factor, kappa, B, eps, ridge):
    """The KMM QP's weights (B, eps, ridge as :func:`covshift.weights.kmm.solve_kmm_qp`) by :func:`solve_kmm_dual`
    through ``factor``, or None where that does not apply (no factor, :func:`dual_applies` false) or does not
    converge."""
    if factor is None or not dual_applies(ridge):
        return None
    n = len(kappa)
    B, eps = kmm_bounds(n, B, eps)
    return solve_kmm_dual(factor, kappa, B, n * (1 - eps), n * (1 + eps), ridge + KMM_JITTER)


def solve_kmm_dual(L, kappa, B, lo, hi, diagonal):
    """b of the QP above (module docstring), or None when the Newton method does not converge.

    Parameters
    ----------
    L : ndarray of shape (r, n)
        A factor of the kernel: K = L'L to the accuracy wanted.
    kappa : ndarray of shape (n,)
    B : float
        Upper bound of every weight.
    lo, hi : float
        Bounds of the sum of the weights.
    diagonal : float
        d = ridge + jitter, at least :data:`MIN_DUAL_DIAGONAL`.

    Returns
    -------
    beta : ndarray of shape (n,) or None
    """
    kappa = np.asarray(kappa, dtype=float)
    u = L @ np.clip(kappa / diagonal, 0.0, B)  # the dual point of the primal guess without the coupling
    solution = _newton(L, kappa, B, diagonal, u, target=None)
    if solution is None:
        return None
    beta, u = solution
    total = beta.sum()
    if lo <= total <= hi:
        return beta
    solution = _newton(L, kappa, B, diagonal, u, target=hi if total > hi else lo)
    return None if solution is None else solution[0]


def _newton(L, kappa, B, diagonal, u, target):
    """(beta, u) maximising the dual over u (``target`` None: nu = 0) or over (u, nu) with 1'b = ``target``."""
    r = len(L)
    with_sum = target is not None
    x = np.concatenate([u, [0.0]]) if with_sum else u.copy()
    scale = max(1.0, float(np.abs(kappa).max()))
    tolerance = DUAL_TOL * scale * np.sqrt(len(kappa))

    def evaluate(x):
        c = kappa - L.T @ x[:r] - (x[r] if with_sum else 0.0)
        beta = np.clip(c / diagonal, 0.0, B)
        value = float(diagonal / 2 * beta @ beta - c @ beta - x[:r] @ x[:r] / 2)
        gradient = L @ beta - x[:r]
        if with_sum:
            value -= x[r] * target
            gradient = np.concatenate([gradient, [beta.sum() - target]])
        return value, gradient, beta, c

    value, gradient, beta, c = evaluate(x)
    for _ in range(MAX_NEWTON_STEPS):
        if np.abs(gradient).max() <= tolerance:
            return beta, x[:r]
        free = (c > 0.0) & (c < diagonal * B)
        inside = L[:, free]
        curvature = np.eye(len(x))
        curvature[:r, :r] += inside @ inside.T / diagonal
        if with_sum:
            border = inside.sum(axis=1) / diagonal
            curvature[:r, r] = curvature[r, :r] = border
            curvature[r, r] = max(free.sum(), 1) / diagonal  # at least one point's: no step to infinity
        _, step, info = dposv(curvature, gradient)  # LAPACK's Cholesky solve (scipy's cho_solve without its checks)
        if info != 0:
            return None
        length, trial = _line_search(evaluate, x, step, float(gradient @ step), value)
        if trial is None:
            return None
        x = x + length * step
        value, gradient, beta, c = trial
    return None


def _line_search(evaluate, x, step, slope, value):
    """(length, evaluate(x + length step)): the full Newton step when g rose enough (Armijo: by 1e-4 of
    ``slope``, g's slope along ``step`` at x, against ``value``, g at x) or its slope there is still at least 0
    (g rose all the way, as g is concave); else a length where the slope is between 0 and a tenth of ``slope``,
    by a safeguarded secant on the piecewise linear slope (the slope, not g's values, whose increase near the
    optimum is below their rounding); (None, None) when no such length is found."""
    low, low_slope, high, high_slope = 0.0, slope, 1.0, None
    length, last_kept = 1.0, None
    for _ in range(40):
        trial = evaluate(x + length * step)
        trial_slope = float(trial[1] @ step)
        if length == 1.0 and (trial_slope >= 0.0 or trial[0] >= value + 1e-4 * slope):
            return length, trial
        if trial_slope >= 0.0 and trial_slope <= 0.1 * slope:
            return length, trial
        kept = "high" if trial_slope >= 0.0 else "low"  # the end that stays (Illinois: halve its slope
        if trial_slope >= 0.0:                         # when it stays twice, so the secant cannot stall)
            low, low_slope = length, trial_slope
        else:
            high, high_slope = length, trial_slope
        if kept == last_kept:
            if kept == "high":
                high_slope /= 2
            else:
                low_slope /= 2
        last_kept = kept
        if high - low <= 1e-12 * high:
            break
        secant = low + (high - low) * low_slope / (low_slope - high_slope)
        length = min(max(secant, low + 0.01 * (high - low)), high - 0.01 * (high - low))
    return (low, evaluate(x + low * step)) if low > 0.0 else (None, None)
