"""Compiled (numba) line searches and Frank-Wolfe loop of KLIEP on a dense atom matrix (fw-covariate-shift-iw-smtgp, Algorithms 2-5).

A Frank-Wolfe iteration on the teaching app's problems (a few hundred atoms and test points)
does little arithmetic: a matrix-vector product for the gradient and a line search of a few
O(n_te) passes. Run as numpy calls, the overhead per call dominated (about 100 us per
iteration, 60 % of it in the line search's reductions); compiled, an iteration costs about
the arithmetic. The functions here mirror the Python ones step for step
(:func:`._line_search.exact_line_search`, :func:`._line_search.armijo_line_search`,
:func:`.fw_loop.run_frank_wolfe` with the :class:`.fw_loop.StepRules` and
:class:`.active_set.ActiveSet` updates), so a run gives the same iterates up to round-off;
the Python loop remains for the blocked and low-rank atoms of large problems and for the
fully-corrective step. Compiled once per machine and cached on disk (``cache=True``).
"""

import numpy as np
from numba import njit

#: Row codes of :func:`run_dense` (the strings of :class:`.fw_loop.FrankWolfeHistory`).
KINDS = ("good", "drop", "swap", "final")
DIRECTIONS = ("towards", "away", "pairwise", "")
#: Step rules of :func:`run_dense`.
TOWARDS, AWAY_OR_TOWARDS, PAIRWISE = 0, 1, 2

_MAX_NEWTON = 200
MIN_PROGRESS = 1e-10

_jit = njit(cache=True, error_model="numpy", nogil=True)


@_jit
def log_objective(v):
    """sum(log v), or -inf if any entry is <= 0."""
    total = 0.0
    for j in range(v.size):
        if not v[j] > 0:
            return -np.inf
        total += np.log(v[j])
    return total


@_jit
def _slope(v, d, rho):
    """phi'(rho) and phi''(rho) of phi(rho) = sum log(v + rho d); -inf outside phi's domain."""
    first = 0.0
    second = 0.0
    for j in range(v.size):
        density = v[j] + rho * d[j]
        if not density > 0:
            return -np.inf, -np.inf
        ratio = d[j] / density
        first += ratio
        second += ratio * ratio
    return first, -second


@_jit
def exact_line_search(v, d, rho_max, slope0):
    """Maximiser of the concave phi on [0, rho_max]: safeguarded Newton / bisection ("rtsafe")."""
    if slope0 <= 0:
        return 0.0
    rho_domain = np.inf
    sum_of_squares = 0.0
    for j in range(v.size):
        if d[j] < 0:
            rho_domain = min(rho_domain, -v[j] / d[j])
        ratio = d[j] / v[j]
        sum_of_squares += ratio * ratio
    if rho_max < rho_domain and _slope(v, d, rho_max)[0] >= 0:
        return rho_max
    lo, hi = 0.0, min(rho_max, rho_domain)
    rho = min(slope0 / sum_of_squares, 0.5 * hi)
    step = step_before = hi - lo
    slope, curvature = _slope(v, d, rho)
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
        slope, curvature = _slope(v, d, rho)
    return rho


@_jit
def armijo_line_search(v, d, rho_max, slope0, objective, c, shrink, max_backtracks):
    """Backtracking (Algorithm 3) from min(rho_max, Newton step); the exact search when it stalls."""
    if slope0 <= 0:
        return 0.0
    sum_of_squares = 0.0
    for j in range(v.size):
        ratio = d[j] / v[j]
        sum_of_squares += ratio * ratio
    rho = min(rho_max, slope0 / sum_of_squares)
    trial = np.empty_like(v)
    for _ in range(max_backtracks):
        if rho < MIN_PROGRESS * rho_max:
            break
        for j in range(v.size):
            trial[j] = v[j] + rho * d[j]
        if log_objective(trial) >= objective + c * rho * slope0:
            return rho
        rho *= shrink
    return exact_line_search(v, d, rho_max, slope0)


@_jit
def _search(v, d, rho_max, slope, objective, exact, armijo_c, armijo_shrink, hit_tol):
    """(rho snapped to rho_max, whether rho_max was reached), as StepRules.search."""
    if exact:
        rho = exact_line_search(v, d, rho_max, slope)
    else:
        if not np.isfinite(rho_max):
            raise ValueError("Armijo line search needs a finite maximum step.")
        rho = armijo_line_search(v, d, rho_max, slope, objective, armijo_c, armijo_shrink, 60)
    if rho >= rho_max * (1.0 - hit_tol):
        return rho_max, True
    return rho, False


@_jit
def _refresh(atoms, mu, v):
    """v = A' mu from the active atoms (the numbers of ActiveSet.refresh)."""
    active = np.flatnonzero(mu)
    v[:] = np.dot(mu[active], atoms[active])


@_jit
def _drop_zeros(atoms, mu, v, atom_tol):
    """ActiveSet.drop_zeros: remove weights below atom_tol (unless a test point loses its
    density), renormalise mu and v onto the simplex."""
    tiny = np.flatnonzero((mu > 0) & (mu < atom_tol))
    if tiny.size:
        kept = mu[tiny].copy()
        mu[tiny] = 0.0
        v_before = v.copy()
        _refresh(atoms, mu, v)
        if not np.all(v > 0):
            mu[tiny] = kept
            v[:] = v_before
    total = mu.sum()
    mu /= total
    v /= total


@_jit
def _set_row(rows, t, kind, direction, rho, active_size, towards, away, dropped):
    rows[t, 2] = kind
    rows[t, 3] = direction
    rows[t, 4] = rho
    rows[t, 5] = active_size
    rows[t, 6] = towards
    rows[t, 7] = away
    rows[t, 8] = dropped


@_jit
def run_dense(atoms, mu, v, rule, exact, armijo_c, armijo_shrink, tol, max_iter, refresh_every,
              hit_tol, atom_tol, t_start, t_stop, rows, iterate_atom, iterate_mu, n_entries):
    """Iterations t_start..t_stop - 1 of :func:`.fw_loop.run_frank_wolfe` with the towards
    (``rule`` TOWARDS, FWCS), towards-or-away (AWAY_OR_TOWARDS, AFWCS) or pairwise (PAIRWISE,
    PFWCS) step, on dense ``atoms`` (n_atoms, n_te); ``mu`` and ``v`` are updated in place.

    Row t of ``rows`` (float, (max_iter + 1, 10)) gets objective, gap, kind code, direction code,
    step size, active size, towards atom, away atom, atoms dropped, size of mu_t; the sparse iterate mu_t is
    appended to ``iterate_atom`` / ``iterate_mu`` (from entry ``n_entries``; reallocated when full).

    Returns
    -------
    status (0: go on from t_stop, 1: converged, 2: stopped, not converged), last row t,
    iterate_atom, iterate_mu, n_entries
    """
    t = t_start
    for t in range(t_start, t_stop):
        objective = log_objective(v)
        active = np.flatnonzero(mu)
        threshold = tol * abs(objective)
        u = 1.0 / v
        grad = np.dot(atoms, u)
        mu_active = mu[active]
        mu_grad = np.dot(grad[active], mu_active)
        gap = grad.max() - mu_grad
        if n_entries + active.size > iterate_atom.size:  # grow the iterate buffers
            size = max(2 * iterate_atom.size, n_entries + active.size)
            grown_atom = np.empty(size, np.int64)
            grown_mu = np.empty(size)
            grown_atom[:n_entries] = iterate_atom[:n_entries]
            grown_mu[:n_entries] = iterate_mu[:n_entries]
            iterate_atom, iterate_mu = grown_atom, grown_mu
        iterate_atom[n_entries:n_entries + active.size] = active
        iterate_mu[n_entries:n_entries + active.size] = mu_active
        n_entries += active.size
        rows[t, 0] = objective
        rows[t, 1] = gap
        rows[t, 9] = active.size
        if gap <= threshold or t == max_iter:
            _set_row(rows, t, 3, 3, 0.0, active.size, -1, -1, 0)
            return (1 if gap <= threshold else 2), t, iterate_atom, iterate_mu, n_entries
        l_fw = int(np.argmax(grad))
        l_aw = -1
        if rule != TOWARDS:
            l_aw = active[np.argmin(grad[active])]
        kind = 0
        if rule == TOWARDS or (rule == AWAY_OR_TOWARDS and gap >= mu_grad - grad[l_aw]):
            direction = 0
            l_aw = -1
            atom = atoms[l_fw]
            d = atom - v
            rho, hit = _search(v, d, 1.0, np.dot(d, u), objective, exact, armijo_c, armijo_shrink, hit_tol)
            mu *= 1.0 - rho
            mu[l_fw] += rho
            v[:] = (1.0 - rho) * v + rho * atom  # convex combination: no cancellation at rho ~ 1
        elif rule == AWAY_OR_TOWARDS:
            direction = 1
            mu_away = mu[l_aw]
            d = v - atoms[l_aw]
            rho, hit = _search(v, d, mu_away / (1.0 - mu_away), np.dot(d, u), objective, exact,
                               armijo_c, armijo_shrink, hit_tol)
            mu *= 1.0 + rho
            mu[l_aw] -= rho
            if hit:
                mu[l_aw] = 0.0
                kind = 1
            v += rho * d
        else:
            direction = 2
            rho_max = mu[l_aw]
            was_active = mu[l_fw] > 0
            d = atoms[l_fw] - atoms[l_aw]
            rho, hit = _search(v, d, rho_max, np.dot(d, u), objective, exact, armijo_c, armijo_shrink, hit_tol)
            mu[l_fw] += rho
            mu[l_aw] = 0.0 if hit else mu[l_aw] - rho
            v += rho * d
            if hit and rho_max < 1.0:
                kind = 1 if was_active else 2
        _drop_zeros(atoms, mu, v, atom_tol)
        if (t + 1) % refresh_every == 0:
            _refresh(atoms, mu, v)
        dropped = 0
        for l in active:
            if mu[l] == 0:
                dropped += 1
        _set_row(rows, t, kind, direction, rho, np.count_nonzero(mu), l_fw, l_aw, dropped)
        if rho <= 0:
            return 2, t, iterate_atom, iterate_mu, n_entries
    return 0, t, iterate_atom, iterate_mu, n_entries
