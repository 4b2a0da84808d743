"""The one Frank-Wolfe loop of KLIEP, compiled (numba), and its line searches (fw-covariate-shift-iw-smtgp, Algorithms 2-5).

Every Frank-Wolfe solver of the library runs :func:`run_loop`: FWCS (towards steps, Algorithm 2),
AFWCS (towards or away, Algorithm 4), PFWCS (pairwise, Algorithm 5) and FCFWCS (a towards step,
then the corrective Newton phase on the active face), for the estimators, the reference solve of
the cross-validation and the replay's histories alike. Each iteration t computes, at mu_t on the
simplex, the gradient g = A (1 / v) of F(mu) = sum_j log v_j (eq. 2 in atom coordinates,
section III-A) and the duality gap max_l g_l - <g, mu> (Algorithm 2, lines 5-8), stops at the
relative gap ``tol``, else takes the step of its rule with the exact line search or Algorithm 3,
drops the weights below ``atom_tol``, recomputes v every ``refresh_every`` iterations and writes
row t of the run's record.

The loop's settings are one :class:`LoopOptions` and everything it changes one
:class:`LoopState`. Dense atoms (the app's problems) are held by the loop itself: an iteration
costs about its arithmetic (15 us instead of ~110 us as numpy calls on the KLIEP lesson's problem).
What numba cannot hold, it asks Python for through :data:`PYTHON_PARTS` (numba's ``objmode``):
the gradient, rows and density of blocked, low-rank or dask atoms (built by
``covshift.kernels`` from arrays numba does not see) and the corrective Newton phase of FCFWCS
(the one Newton direction of :mod:`.fully_corrective`, shared with the cross-validation's folds).
Compiled once per machine and cached on disk (``cache=True``).
"""

from collections import namedtuple
from itertools import count

import numpy as np
from numba import njit, objmode

#: Row codes of :func:`run_loop` (the strings of :class:`.fw_loop.FrankWolfeHistory`).
KINDS = ("good", "drop", "swap", "final")
DIRECTIONS = ("towards", "away", "pairwise", "", "corrective")
#: Step rules of :func:`run_loop`: FWCS, AFWCS, PFWCS, FCFWCS.
TOWARDS, AWAY_OR_TOWARDS, PAIRWISE, CORRECTIVE = 0, 1, 2, 3
#: Columns of a row of the record (``LoopState.rows``).
ROW_COLUMNS = ("objective", "gap", "kind", "direction", "step_size", "active_size", "towards_atom",
               "away_atom", "atoms_dropped", "iterate_size", "inner_iterations")

_MAX_NEWTON = 200
MIN_PROGRESS = 1e-10

_jit = njit(cache=True, error_model="numpy", nogil=True)
#: For the functions that may ask Python (an ``objmode`` block takes the GIL; the loop calling them
#: still releases it while it computes).
_jit_asking_python = njit(cache=True, error_model="numpy")


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
def search(v, d, rho_max, slope, objective, exact, armijo_c, armijo_shrink, hit_tol):
    """Step size along test-space direction d by the exact search or Algorithm 3, snapped to rho_max.

    Returns
    -------
    rho : float
        The step, exactly rho_max when it came within the relative distance ``hit_tol`` of it.
    hit : bool
        Whether rho_max was reached (the away or pairwise atom leaves: a drop or swap step).
    """
    if exact:
        rho = exact_line_search(v, d, rho_max, slope)
    else:
        if not np.isfinite(rho_max):
            raise ValueError("Armijo line search needs a finite maximum step.")
        rho = armijo_line_search(v, d, rho_max, slope, objective, armijo_c, armijo_shrink, 60)
    if rho >= rho_max * (1.0 - hit_tol):
        return rho_max, True
    return rho, False


LoopOptions = namedtuple("LoopOptions", [
    "rule", "exact", "armijo_c", "armijo_shrink", "tol", "max_iter", "refresh_every", "hit_tol", "atom_tol",
    "max_face", "dense", "python_part"])
LoopOptions.__doc__ = """The settings of a run of :func:`run_loop` (numbers only, so numba compiles one loop for all).

Parameters
----------
rule : int
    TOWARDS (FWCS), AWAY_OR_TOWARDS (AFWCS), PAIRWISE (PFWCS) or CORRECTIVE (FCFWCS).
exact : bool
    The exact line search (safeguarded Newton on the concave phi), else Algorithm 3.
armijo_c, armijo_shrink : float
    tau and xi of Algorithm 3.
tol : float
    Stop at a duality gap of at most tol * ``|F|``.
max_iter, refresh_every : int
    Most iterations; v recomputed from the atoms every this many iterations.
hit_tol : float
    A step within this relative distance of rho_max reaches it (drop / swap).
atom_tol : float
    A weight below this leaves the active set (unless a test point loses its density).
max_face : int
    CORRECTIVE: from this active-set size on, a pairwise step replaces the corrective phase.
dense : bool
    The loop holds the atoms (``atoms`` of :func:`run_loop`); else Python gives their gradient,
    rows and density.
python_part : int
    Key of the run's entry in PYTHON_PARTS; -1: the loop asks Python for nothing.
"""

LoopState = namedtuple("LoopState", ["mu", "v", "rows", "iterate_atom", "iterate_mu", "counters"])
LoopState.__doc__ = """What :func:`run_loop` changes: the iterate and the record of the run.

Parameters
----------
mu : ndarray (n_atoms,)
    The weights on the simplex, zero outside the active set.
v : ndarray (n_te,)
    The iterate in test space, A' mu.
rows : ndarray (max_iter + 1, len(ROW_COLUMNS))
    Row t: the ROW_COLUMNS of iteration t (kind and direction as codes of KINDS and DIRECTIONS).
iterate_atom, iterate_mu : ndarray
    The sparse iterates mu_t, concatenated (grown by the loop when full).
counters : ndarray of int64 (2,)
    Rows written (the next iteration t) and entries of the sparse iterates written.
"""

#: The Python side of the runs in progress whose atoms the loop does not hold or whose rule has a
#: corrective phase, by LoopOptions.python_part: objects with ``gradient_and_gap(u, mu, active,
#: threshold)``, ``row(l)``, ``density(mu)`` and ``corrective(mu, v, face_tol)`` (see
#: :func:`.fw_loop.run_frank_wolfe`).
PYTHON_PARTS = {}
_KEYS = count()


def lend_python_part(part):
    """Make ``part`` reachable from the loop; returns its key (LoopOptions.python_part).
    Call :func:`return_python_part` with the key when the run ends."""
    key = next(_KEYS)
    PYTHON_PARTS[key] = part
    return key


def return_python_part(key):
    """Forget the Python part of a finished run."""
    PYTHON_PARTS.pop(key, None)


def _vector(x):
    return np.ascontiguousarray(x, dtype=np.float64)


def _ask_gradient_and_gap(key, u, mu, active, threshold):
    grad, gap = PYTHON_PARTS[key].gradient_and_gap(u, mu, active, threshold)
    return _vector(grad), float(gap)


def _ask_row(key, l):
    return _vector(PYTHON_PARTS[key].row(l))


def _ask_density(key, mu):
    return _vector(PYTHON_PARTS[key].density(mu))


def _ask_corrective(key, mu, v, face_tol):
    return int(PYTHON_PARTS[key].corrective(mu, v, face_tol))


@_jit_asking_python
def _gradient_and_gap(options, atoms, mu, active, u, threshold):
    """g = A u and the duality gap max_l g_l - <g, mu> (from Python: an upper bound with a low-rank g)."""
    if options.dense:
        grad = np.dot(atoms, u)
        return grad, grad.max() - np.dot(grad[active], mu[active])
    key = options.python_part
    with objmode(grad="float64[::1]", gap="float64"):
        grad, gap = _ask_gradient_and_gap(key, u, mu, active, threshold)
    return grad, gap


@_jit_asking_python
def _row(options, atoms, l):
    """Atom l, A[l] (n_te,)."""
    if options.dense:
        return atoms[l]
    key = options.python_part
    with objmode(row="float64[::1]"):
        row = _ask_row(key, l)
    return row


@_jit_asking_python
def _refresh(options, atoms, mu, v):
    """v = A' mu from the active atoms (against the drift of the incremental updates)."""
    if options.dense:
        active = np.flatnonzero(mu)
        v[:] = np.dot(mu[active], atoms[active])
        return
    key = options.python_part
    with objmode(density="float64[::1]"):
        density = _ask_density(key, mu)
    v[:] = density


@_jit_asking_python
def _corrective(options, mu, v, face_tol):
    """The corrective Newton phase of FCFWCS on the active face (in Python); its Newton steps."""
    key = options.python_part
    with objmode(inner="int64"):
        inner = _ask_corrective(key, mu, v, face_tol)
    return inner


@_jit
def _drop_zeros(options, atoms, mu, v):
    """Remove weights below atom_tol (unless a test point loses its density), renormalise mu and v
    onto the simplex."""
    tiny = np.flatnonzero((mu > 0) & (mu < options.atom_tol))
    if tiny.size:
        kept = mu[tiny].copy()
        mu[tiny] = 0.0
        v_before = v.copy()
        _refresh(options, atoms, mu, v)
        if not np.all(v > 0):
            mu[tiny] = kept
            v[:] = v_before
    total = mu.sum()
    mu /= total
    v /= total


@_jit
def _step(options, atoms, mu, v, u, grad, active, gap, mu_grad, objective):
    """The step of ``options.rule`` from mu_t (section III-B), mu and v updated in place.

    Towards: rho in [0, 1], mu <- (1 - rho) mu + rho e_fw (eqs. 22-23); away: rho in
    [0, mu_aw / (1 - mu_aw)], mu <- (1 + rho) mu - rho e_aw (eqs. 25-27), taken by AFWCS when its
    gap exceeds the towards gap; pairwise: rho in [0, mu_aw] from the away to the towards atom
    (eqs. 29-31); corrective: a towards step, then F maximised over the active face.

    Returns
    -------
    kind, direction, rho, towards atom, away atom, Newton steps of the corrective phase
    """
    rule = options.rule
    l_fw = int(np.argmax(grad))
    l_aw = -1
    if rule != TOWARDS:
        l_aw = active[np.argmin(grad[active])]
    if rule == PAIRWISE or (rule == CORRECTIVE and active.size >= options.max_face):
        rho_max = mu[l_aw]
        was_active = mu[l_fw] > 0
        d = _row(options, atoms, l_fw) - _row(options, atoms, l_aw)
        rho, hit = search(v, d, rho_max, np.dot(d, u), objective, options.exact, options.armijo_c,
                          options.armijo_shrink, options.hit_tol)
        mu[l_fw] += rho
        mu[l_aw] = 0.0 if hit else mu[l_aw] - rho
        v += rho * d
        kind = 0
        if hit and rho_max < 1.0:
            kind = 1 if was_active else 2
        return kind, 2, rho, l_fw, l_aw, 0
    if rule == AWAY_OR_TOWARDS and not gap >= mu_grad - grad[l_aw]:
        mu_away = mu[l_aw]
        d = v - _row(options, atoms, l_aw)
        rho, hit = search(v, d, mu_away / (1.0 - mu_away), np.dot(d, u), objective, options.exact,
                          options.armijo_c, options.armijo_shrink, options.hit_tol)
        mu *= 1.0 + rho
        mu[l_aw] -= rho
        if hit:
            mu[l_aw] = 0.0
        v += rho * d
        return (1 if hit else 0), 1, rho, l_fw, l_aw, 0
    atom = _row(options, atoms, l_fw)
    d = atom - v
    rho, _ = search(v, d, 1.0, np.dot(d, u), objective, options.exact, options.armijo_c,
                    options.armijo_shrink, options.hit_tol)
    mu *= 1.0 - rho
    mu[l_fw] += rho
    v[:] = (1.0 - rho) * v + rho * atom  # convex combination: no cancellation at rho ~ 1
    if rule != CORRECTIVE:
        return 0, 0, rho, l_fw, -1, 0
    inner = _corrective(options, mu, v, 0.1 * options.tol * abs(objective))
    return 0, 4, mu[l_fw], l_fw, -1, inner


@_jit
def _record_iterate(state, active, n_entries):
    """Append mu_t (its active atoms and their weights) to the sparse iterates, growing them when full."""
    iterate_atom, iterate_mu = state.iterate_atom, state.iterate_mu
    if n_entries + active.size > iterate_atom.size:
        size = max(2 * iterate_atom.size, n_entries + active.size)
        grown_atom = np.empty(size, np.int64)
        grown_mu = np.empty(size)
        grown_atom[:n_entries] = iterate_atom[:n_entries]
        grown_mu[:n_entries] = iterate_mu[:n_entries]
        iterate_atom, iterate_mu = grown_atom, grown_mu
    iterate_atom[n_entries:n_entries + active.size] = active
    iterate_mu[n_entries:n_entries + active.size] = state.mu[active]
    return LoopState(state.mu, state.v, state.rows, iterate_atom, iterate_mu, state.counters)


@_jit
def _set_row(rows, t, kind, direction, rho, active_size, towards, away, dropped, inner):
    rows[t, 2] = kind
    rows[t, 3] = direction
    rows[t, 4] = rho
    rows[t, 5] = active_size
    rows[t, 6] = towards
    rows[t, 7] = away
    rows[t, 8] = dropped
    rows[t, 10] = inner


@_jit
def run_loop(options, state, atoms, t_stop):
    """Frank-Wolfe iterations from ``state.counters[0]`` to at most ``t_stop - 1`` (Algorithm 2 with
    the step of ``options.rule``), until the relative duality gap is at most ``options.tol``.

    Each iteration t: the objective F(mu_t), g = A (1 / v), the gap max_l g_l - <g, mu_t>
    (Algorithm 2, lines 5-8); row t of the record; the stopping test; the step (:func:`_step`);
    the weights below atom_tol leave; every refresh_every iterations v is recomputed. A step of
    size 0 that did nothing ends the run (no ascent at machine precision).

    Parameters
    ----------
    options : LoopOptions
    state : LoopState
        Updated in place, but for the sparse iterates when they grow.
    atoms : ndarray (n_atoms, n_te), C-contiguous float64
        A[l, j] = beta_l k(c_l, x_te_j) when ``options.dense``; else unused (0 rows).
    t_stop : int
        Return after iteration t_stop - 1 at the latest.

    Returns
    -------
    status : int
        0: go on from ``state.counters[0]``; 1: converged; 2: stopped, not converged.
    state : LoopState
    """
    mu, v, rows = state.mu, state.v, state.rows
    n_entries = state.counters[1]
    status = 0
    t = state.counters[0]
    for t in range(state.counters[0], t_stop):
        objective = log_objective(v)
        active = np.flatnonzero(mu)
        threshold = options.tol * abs(objective)
        u = 1.0 / v
        grad, gap = _gradient_and_gap(options, atoms, mu, active, u, threshold)
        mu_grad = np.dot(grad[active], mu[active])
        state = _record_iterate(state, active, n_entries)
        n_entries += active.size
        rows[t, 0] = objective
        rows[t, 1] = gap
        rows[t, 9] = active.size
        if gap <= threshold or t == options.max_iter:
            _set_row(rows, t, 3, 3, 0.0, active.size, -1, -1, 0, 0)
            status = 1 if gap <= threshold else 2
            break
        kind, direction, rho, l_fw, l_aw, inner = _step(options, atoms, mu, v, u, grad, active, gap, mu_grad,
                                                        objective)
        _drop_zeros(options, atoms, mu, v)
        if (t + 1) % options.refresh_every == 0:
            _refresh(options, atoms, mu, v)
        dropped = 0
        for l in active:
            if mu[l] == 0:
                dropped += 1
        if direction == 4 and dropped:
            kind = 1
        _set_row(rows, t, kind, direction, rho, np.count_nonzero(mu), l_fw, l_aw, dropped, inner)
        if rho <= 0 and inner == 0:
            status = 2
            break
    state.counters[0] = t + 1 if status else t_stop
    state.counters[1] = n_entries
    return status, state
