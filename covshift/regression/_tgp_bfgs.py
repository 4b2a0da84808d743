"""Batched BFGS with Armijo backtracking over the test points of a Twin GP prediction (sharma-mittal-tgp, section 3: BFGS per test point, 50 iterations)."""

import numpy as np
from numba import njit

#: Relative round-off of the costs: eta = k(x,x) - k' K^-1 k cancels, and K^-1 has norm
#: up to 1 / lambda, so decreases smaller than this cannot be resolved by a line search.
COST_NOISE = 1e-10


def minimise(cost, Y0, local, divergence, max_iter, step_tol, max_step):
    """Batched BFGS with backtracking (Armijo) line search, one system per test point.

    ``cost(Y, local)`` gives the costs (M,) and gradients (M, dy) of the points of ``local`` at
    outputs Y; ``local.take(rows, divergence)`` the quantities of some of them. A point stops when
    its step is at most ``step_tol``, when the predicted decrease is below the cost's round-off
    (COST_NOISE), or after ``max_iter`` iterations; a step never moves a coordinate by more than
    ``max_step`` (rho_y). Every point's iterates depend on that point alone.

    Returns
    -------
    Y (M, dy), converged (M,) bool, n_iter (M,) int
    """
    M, dy = Y0.shape
    Y = Y0.copy()
    f, g = cost(Y, local)
    H = np.broadcast_to(np.eye(dy), (M, dy, dy)).copy()
    converged = np.zeros(M, dtype=bool)
    n_iter = np.zeros(M, dtype=int)
    for _ in range(max_iter):
        act = np.flatnonzero(~converged)
        if act.size == 0:
            break
        n_iter[act] += 1
        g_act = g[act]
        p, slope, flat = _directions(H, g, f, act, max_step, COST_NOISE)
        if np.any(flat):
            converged[act[flat]] = True
            act, p, slope, g_act = act[~flat], p[~flat], slope[~flat], g_act[~flat]
        if act.size == 0:
            break
        step, f_new, g_new, accepted = backtrack(cost, Y[act], p, f[act], g_act, slope,
                                                  local.take(act, divergence), divergence, step_tol)
        s = step[:, None] * p
        Y[act] += s
        yv = g_new - g_act
        f[act], g[act] = f_new, g_new
        bfgs_update(H, act, s, yv, first=n_iter[act] == 1)
        small = np.max(np.abs(s), axis=1) <= step_tol
        converged[act[small | ~accepted]] = True
    return Y, converged, n_iter

def backtrack(cost, Y, p, f, g, slope, local, divergence, step_tol, c=1e-4, shrink=0.5, max_trials=40):
    """Armijo backtracking for every point at once; a point whose trial step has shrunk
    below step_tol, or whose predicted decrease is below the cost's round-off, without a
    decrease stops (it sits at a minimum to the precision the cost allows)."""
    m = len(Y)
    step = np.ones(m)
    f_new, g_new = f.copy(), g.copy()
    done = np.zeros(m, dtype=bool)
    length = np.max(np.abs(p), axis=1)
    resolvable = COST_NOISE * (1.0 + np.abs(f))
    for _ in range(max_trials):
        todo, trial = _trial_points(Y, p, step, length, slope, resolvable, done, step_tol)
        if todo.size == 0:
            break
        ft, gt = cost(trial, local.take(todo, divergence))
        _armijo(todo, ft, gt, f, slope, c, shrink, step, f_new, g_new, done)
    step[~done] = 0.0  # no decrease possible at machine precision: the point is converged
    return step, f_new, g_new, done


def bfgs_update(H, act, s, yv, first):
    """BFGS update of the inverse Hessians H[act] (in place); before the first update H0 is scaled to
    (s'y / y'y) I (Nocedal and Wright, eq. 6.20) so later steps are well sized. A point whose curvature
    s'y is not positive (to 1e-12 of |s| |y|) keeps its H."""
    _bfgs_update(H, act, s, yv, first)


# The per-point bookkeeping of the iterations, compiled (issue 40: ~30 numpy calls per iteration were a sixth of a
# prediction). Each point's numbers are computed as numpy's einsum and reductions computed them, operation by
# operation and in the same order, without fused multiply-adds, each sum over a point's outputs from its first term
# on: bitwise the same with up to 7 outputs (numpy sums 8 and more pairwise: 16 outputs, digits, round-off only).


@njit(cache=True, nogil=True)
def _dot(a, b):
    total = 0.0
    for j in range(a.shape[0]):
        total += a[j] * b[j]
    return total


@njit(cache=True, nogil=True)
def _directions(H, g, f, act, max_step, noise):
    """For the points ``act``: the quasi-Newton direction p = -H g (steepest descent, H reset to I, where it does
    not descend), capped at ``max_step`` per coordinate; its slope p'g; and whether the predicted decrease is
    below the cost's round-off (``noise`` relative, COST_NOISE)."""
    n, dy = act.shape[0], g.shape[1]
    p, slope, flat = np.empty((n, dy)), np.empty(n), np.empty(n, np.bool_)
    for r in range(n):
        m = act[r]
        for i in range(dy):
            p[r, i] = -_dot(H[m, i], g[m])
        if _dot(p[r], g[m]) >= 0:  # not a descent direction: restart from steepest descent
            for i in range(dy):
                p[r, i] = -g[m, i]
                for j in range(dy):
                    H[m, i, j] = 1.0 if i == j else 0.0
        length = abs(p[r, 0])  # the Newton-like step may be far too long at the start: cap it at max_step (rho_y)
        for i in range(1, dy):
            if abs(p[r, i]) > length or np.isnan(p[r, i]):  # a nan stays (as np.max)
                length = abs(p[r, i])
        cap = max_step / (length if (length > 1e-300 or np.isnan(length)) else 1e-300)
        cap = cap if (cap < 1.0 or np.isnan(cap)) else 1.0  # np.minimum(1, cap), nan kept
        for i in range(dy):
            p[r, i] *= cap
        slope[r] = _dot(p[r], g[m])
        flat[r] = -slope[r] <= noise * (1.0 + abs(f[m]))  # a predicted decrease below the cost's round-off
    return p, slope, flat


@njit(cache=True, nogil=True)
def _trial_points(Y, p, step, length, slope, resolvable, done, step_tol):
    """The points still searching (not done, a step still above ``step_tol`` and a predicted decrease above the
    cost's round-off) and their trial outputs Y + step p."""
    todo = np.flatnonzero(~done & (step * length > step_tol) & (-slope * step > resolvable))
    trial = np.empty((todo.shape[0], Y.shape[1]))
    for r in range(todo.shape[0]):
        m = todo[r]
        for j in range(Y.shape[1]):
            trial[r, j] = Y[m, j] + step[m] * p[m, j]
    return todo, trial


@njit(cache=True, nogil=True)
def _armijo(todo, ft, gt, f, slope, c, shrink, step, f_new, g_new, done):
    """Armijo's test at the trial points ``todo`` (costs ``ft``, gradients ``gt``): a point whose cost fell enough
    keeps them and is done, the others shrink their step."""
    for r in range(todo.shape[0]):
        m = todo[r]
        if ft[r] <= f[m] + c * step[m] * slope[m]:
            f_new[m] = ft[r]
            g_new[m] = gt[r]
            done[m] = True
        else:
            step[m] *= shrink


@njit(cache=True, nogil=True)
def _bfgs_update(H, act, s, yv, first):
    dy = s.shape[1]
    Hy = np.empty(dy)
    for r in range(act.shape[0]):
        sy = s[r, 0] * yv[r, 0]
        ss, yy = s[r, 0] * s[r, 0], yv[r, 0] * yv[r, 0]
        for j in range(1, dy):
            sy += s[r, j] * yv[r, j]
            ss += s[r, j] * s[r, j]
            yy += yv[r, j] * yv[r, j]
        if not sy > 1e-12 * np.sqrt(ss) * np.sqrt(yy):
            continue
        m, rho = act[r], 1.0 / sy
        if first[r]:
            gamma = sy / yy
            for i in range(dy):
                for j in range(dy):
                    H[m, i, j] = gamma if i == j else 0.0
        for i in range(dy):
            Hy[i] = _dot(H[m, i], yv[r])
        a = rho * rho * _dot(yv[r], Hy) + rho
        # H + a s s' - rho (H y s' + s y' H): [s Hy] @ [a s - rho Hy; -rho s], a (d x 2) @ (2 x d) product
        for i in range(dy):
            for j in range(dy):
                H[m, i, j] += 0.0 + s[r, i] * (a * s[r, j] - rho * Hy[j]) + Hy[i] * (-rho * s[r, j])
