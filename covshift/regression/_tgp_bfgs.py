"""Batched BFGS with Armijo backtracking over the test points of a Twin GP prediction (sharma-mittal-tgp, section 3: BFGS per test point, 50 iterations)."""

import numpy as np

from ._tgp_local import rowdot

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
        p = -np.einsum("mij,mj->mi", H[act], g_act)
        slope = rowdot(p, g_act)
        bad = slope >= 0  # not a descent direction: restart from steepest descent
        if np.any(bad):
            p[bad] = -g_act[bad]
            H[act[bad]] = np.eye(dy)
        # the Newton-like step may be far too long at the start: cap it at rho_y
        length = np.max(np.abs(p), axis=1)
        p *= np.minimum(1.0, max_step / np.maximum(length, 1e-300))[:, None]
        slope = rowdot(p, g_act)
        # a predicted decrease below the round-off of the cost: nothing left to gain
        flat = -slope <= COST_NOISE * (1.0 + np.abs(f[act]))
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
        todo = np.flatnonzero(~done & (step * length > step_tol) & (-slope * step > resolvable))
        if todo.size == 0:
            break
        trial = Y[todo] + step[todo, None] * p[todo]
        ft, gt = cost(trial, local.take(todo, divergence))
        ok = ft <= f[todo] + c * step[todo] * slope[todo]
        f_new[todo[ok]], g_new[todo[ok]] = ft[ok], gt[ok]
        done[todo[ok]] = True
        step[todo[~ok]] *= shrink
    step[~done] = 0.0  # no decrease possible at machine precision: the point is converged
    return step, f_new, g_new, done

def bfgs_update(H, act, s, yv, first):
    """BFGS update of the inverse Hessians; before the first update H0 is scaled to
    (s'y / y'y) I (Nocedal and Wright, eq. 6.20) so later steps are well sized."""
    sy = np.sum(s * yv, axis=1)
    ok = sy > 1e-12 * np.linalg.norm(s, axis=1) * np.linalg.norm(yv, axis=1)
    if not np.any(ok):
        return
    rows = act[ok]
    s, yv, rho = s[ok], yv[ok], 1.0 / sy[ok]
    rescale = first[ok]
    if np.any(rescale):
        gamma = sy[ok][rescale] / np.sum(yv[rescale] ** 2, axis=1)
        H[rows[rescale]] = gamma[:, None, None] * np.eye(s.shape[1])
    Hk = H[rows]
    Hy = np.einsum("mij,mj->mi", Hk, yv)
    a = rho * rho * rowdot(yv, Hy) + rho
    # H + a s s' - rho (H y s' + s y' H) as one batched (d x 2) @ (2 x d) product (einsum: matmul
    # may take another kernel for a stack of one, and a point's update would depend on the batch)
    left = np.stack([s, Hy], axis=2)
    right = np.stack([a[:, None] * s - rho[:, None] * Hy, -rho[:, None] * s], axis=1)
    Hk += np.einsum("mik,mkj->mij", left, right)
    H[rows] = Hk
