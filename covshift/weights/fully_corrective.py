"""The fully-corrective Frank-Wolfe solver of KLIEP, one for FCFWCS, the reference solve and the batched CV folds.

Problem: eq. 2 of fw-covariate-shift-iw-smtgp in atom coordinates (section III-A),
max F(mu) = sum_j w_j log v_j, v = A' mu, over the unit simplex (w_j = 1, or 0 for the test
points a cross-validation fold holds out). Each outer iteration adds the Frank-Wolfe vertex
l^FW = argmax_l dF/dmu_l with a step towards it, then re-optimises F over the active face by
equality-constrained Newton steps (:func:`newton_direction`; Hessian A_S' diag(w / v^2) A_S), a
ratio test keeping mu >= 0 and dropping the atoms that reach zero. The step sizes come from one
concave line phi(rho) = sum_j w_j log(v_j + rho d_j): for one problem (:func:`corrective_newton`,
the corrective phase of the one Frank-Wolfe loop for FCFWCS and :func:`solve_fully_corrective`) by
the loop's line search; for K problems
solved together (:func:`solve_folds`) by the largest of a few trial steps at which phi' >= 0, one
batched evaluation for all K (an exact search per problem would be K Python-level loops).
"""

from functools import partial

import numpy as np
from numba import njit

from ._kliep_problem import covering_start
from ._line_search import log_objective
from .active_set import ATOM_TOL, FoldActiveSet
from .fw_loop import HIT_TOL, run_frank_wolfe

#: Memory of one block of the face's scaled atoms in the corrective Newton step.
FACE_BLOCK_BYTES = 2**22
#: Trial step sizes of the batched step towards the entering atom.
FW_STEPS = np.array([1.0, 0.5, 0.25, 0.1, 0.03, 0.01, 3e-3, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8])
#: Trial fractions of the batched Newton step on the face (capped at the face's boundary,
#: where an atom leaves, which is tried too).
NEWTON_STEPS = np.array([1.0, 0.5, 0.1, 0.01])
_TINY = 1e-300


def newton_direction(hessian, grad, free=None, multiplier=None):
    """Newton direction on a face for the simplex constraint 1' mu = 1, for one problem or a stack of K.

    With P = -Hessian of F on the face (regularised by 1e-12 of its mean diagonal) and the
    Lagrangian F - lambda (1' mu - 1), the direction is dm = P^-1 (g - lambda 1) = x - lambda y,
    P x = g, P y = 1. ``multiplier=None`` picks lambda = 1'x / 1'y so that 1' dm = 0 (the
    equality-constrained step: mu stays on the simplex; FCFWCS). A number, or one per problem,
    fixes lambda: for KLIEP the optimal multiplier is known, lambda* = mu* . g = n_fit (F is
    log-homogeneous: F(c mu) = F(mu) + n_fit log c), and the step then maximises
    L(mu) = F(mu) - n_fit 1' mu, whose maximisers lie on the simplex; the caller rescales mu onto
    it after the step (L <= F(mu / 1'mu), equality on the simplex), as the batched fold solver
    does. Coordinates outside ``free`` do not move. Where the solve fails or does not ascend
    ((g - lambda 1) . dm <= 0), the projected gradient g - mean(g) over the free coordinates
    replaces it.

    Parameters
    ----------
    hessian : ndarray (s, s) or (K, s, s)
    grad : ndarray (s,) or (K, s)
    free : ndarray of bool like grad, or None (all free)
    multiplier : None, float or ndarray (K,)

    Returns
    -------
    ndarray like grad, zero outside ``free``.
    """
    single = grad.ndim == 1
    if single:
        hessian, grad = hessian[None], grad[None]
    free = np.ones(grad.shape, bool) if free is None else np.reshape(free, grad.shape)
    size = grad.shape[1]
    system = np.where(free[:, :, None] & free[:, None, :], hessian, 0.0) + np.eye(size) * (~free)[:, :, None]
    scale = np.trace(system, axis1=1, axis2=2) / size
    system += 1e-12 * scale[:, None, None] * np.eye(size)
    if multiplier is None:  # two right-hand sides: g and 1
        rhs = np.stack([np.where(free, grad, 0.0), free.astype(float)], axis=2)
    else:  # one: g - lambda 1
        lam = np.full(len(grad), multiplier, dtype=float)  # one per problem (np.broadcast_to: ~10x the time)
        rhs = np.where(free, grad - lam[:, None], 0.0)[:, :, None]
    try:
        solution = np.linalg.solve(system, rhs)
    except np.linalg.LinAlgError:
        solution = np.full(rhs.shape, np.nan)
    if multiplier is None:
        x, y = solution[:, :, 0], solution[:, :, 1]
        with np.errstate(all="ignore"):
            lam = x.sum(axis=1) / y.sum(axis=1)
            direction = x - lam[:, None] * y
    else:
        direction = solution[:, :, 0]
    ascent = np.isfinite(direction).all(axis=1) & (np.einsum("ks,ks->k", direction, grad - lam[:, None]) > 0)
    if not ascent.all():
        mean = np.sum(np.where(free, grad, 0.0), axis=1) / np.maximum(free.sum(axis=1), 1)
        direction[~ascent] = (grad - mean[:, None])[~ascent]
    direction = np.where(free, direction, 0.0)
    return direction[0] if single else direction


def face_gradient_and_hessian(A_face, u, block_bytes=FACE_BLOCK_BYTES):
    """g_S = A_S u and P = B B' with B = A_S diag(u) (= -Hessian of F on the face), summed over
    blocks of test points so that B is never stored whole (bounded memory at 10^6 points)."""
    n_face, n_te = A_face.shape
    block = max(1, block_bytes // (8 * max(n_face, 1)))
    grad, hessian = np.zeros(n_face), np.zeros((n_face, n_face))
    for start in range(0, n_te, block):
        scaled = A_face[:, start:start + block] * u[start:start + block]
        grad += scaled.sum(axis=1)
        hessian += scaled @ scaled.T
    return grad, hessian


def corrective_newton(atoms, mu, v, face_tol, search, max_inner=50):
    """The corrective phase of FCFWCS: maximise F over the active face of mu (after the loop's towards step).

    Newton steps (:func:`newton_direction`), a ratio test that keeps the weights >= 0 and drops
    atoms that reach zero, the loop's line search ``search(v, d, rho_max, slope, objective) ->
    (rho, hit)``. Stops when the face gap max_S g - <g, m> <= face_tol, or after ``max_inner``
    Newton steps. Called by the compiled loop (:func:`._compiled.run_loop`, rule CORRECTIVE).

    Parameters
    ----------
    atoms : ndarray (n_atoms, n_te) or KernelAtoms
    mu, v : ndarray
        The iterate and A' mu, updated in place.
    face_tol : float
    search : callable
    max_inner : int

    Returns
    -------
    int
        The number of Newton steps taken.
    """
    face = np.flatnonzero(mu)
    A_face = atoms[face]  # rows of the face, kept until an atom drops
    objective = log_objective(v)
    iterations = 0
    for iterations in range(1, max_inner + 1):
        u = 1.0 / v
        grad, hessian = face_gradient_and_hessian(A_face, u)
        m = mu[face]
        if grad.max() - grad @ m <= face_tol:
            iterations -= 1
            break
        dm = newton_direction(hessian, grad)
        shrinking = dm < 0
        if not shrinking.any():
            break
        ratios = -m[shrinking] / dm[shrinking]
        rho_max = float(ratios.min())
        d = dm @ A_face
        rho, hit = search(v, d, rho_max, float(d @ u), objective)
        if rho <= 0:
            break
        m = m + rho * dm
        if hit:
            m[np.flatnonzero(shrinking)[ratios <= rho_max * (1 + HIT_TOL)]] = 0.0
        mu[face] = m
        v += rho * d
        kept = m > ATOM_TOL
        if not kept.all():
            face, A_face = face[kept], A_face[kept]
        objective = log_objective(v)
    return iterations


def solve_fully_corrective(problem, mu=None, tol=1e-4, max_iter=1000, max_inner=50, max_face=150):
    """Fully-corrective Frank-Wolfe (as :class:`covshift.weights.FCFWCS`: the one loop, rule "corrective")
    on a KliepProblem from ``mu`` (default: the paper's start, ``covering_start``) until the
    relative duality gap is at most ``tol``.

    Returns
    -------
    mu : ndarray (n_atoms,), converged : bool, n_iter : int
    """
    start = covering_start(problem) if mu is None else mu
    mu, converged, n_iter, _ = run_frank_wolfe(problem, start, "corrective", tol, max_iter, max_face=max_face,
                                               corrective=partial(corrective_newton, max_inner=max_inner))
    return mu, converged, n_iter


def solve_folds(problems, mu, tol, max_iter=200):
    """Fully-corrective Frank-Wolfe on K KLIEP problems at once, to a duality gap of ``tol``
    per fitting test point.

    Each iteration, for every problem not yet at its tolerance: (1) the Frank-Wolfe atom
    l = argmax_l dF/dmu_l enters with a step towards it; (2) one Newton step
    (:func:`newton_direction`, as in FCFWCS, with the known optimal multiplier n_fit, i.e. on
    L(mu) = F(mu) - n_fit 1'mu; mu is then rescaled onto the simplex) on the face spanned by the
    active atoms and l. As in
    FCFWCS, atoms the Newton system would push below zero from zero leave the face before the
    solve, and a step that would make a weight negative stops at the face's boundary, where
    that atom leaves. Both steps are along a line on which F is concave; the step taken is the
    largest trial step (FW_STEPS, NEWTON_STEPS) at which the directional derivative is still
    >= 0, so each step raises F, judged by derivatives (one batched evaluation over all trial
    steps and problems) rather than by differences of objective values, which round-off blurs
    near the optimum.

    Parameters
    ----------
    problems : :class:`~._kliep_folds.FoldProblems`
    mu : ndarray (K, b)
        Start, on the simplex of each problem's usable centres (see FoldProblems.start).
    tol : float
        Stop problem k when its Frank-Wolfe gap max_l grad_kl - mu_k . grad_k <= tol n_fit_k.
        The gap bounds F_k* - F_k, so the fitted mean log-density of the fold's test points is
        then within ``tol`` (nats) of its optimum: the unit of the held-out score. (A gap
        relative to |F_k| would demand ever more precision where the two densities nearly
        agree and F_k is close to 0.)
    max_iter : int

    Returns
    -------
    mu : ndarray (K, b), n_iter : int, converged : ndarray of bool (K,)
    """
    active_sets = FoldActiveSet(mu, problems.density)
    for n_iter in range(max_iter + 1):
        grad = problems.gradient(active_sets.v)
        entering, gap = _frank_wolfe_atoms(problems, active_sets.mu, grad)
        todo = problems.solvable & (gap > tol * problems.n_fit)
        if not todo.any() or n_iter == max_iter:
            break
        _batched_towards_step(problems, active_sets, entering, todo)
        _batched_newton_step(problems, active_sets, entering, todo)
    return active_sets.mu, n_iter, ~todo


def _frank_wolfe_atoms(problems, mu, grad):
    """The Frank-Wolfe atom of each problem and the duality gap max_l grad_l - mu . grad."""
    usable_grad = np.where(problems.usable, grad, -np.inf)
    entering = np.argmax(usable_grad, axis=1)
    best = usable_grad[np.arange(len(mu)), entering]
    gap = np.where(problems.solvable, best - np.sum(mu * grad, axis=1), 0.0)
    return entering, gap


def _batched_towards_step(problems, active_sets, entering, todo):
    atom = problems.beta[np.arange(len(entering)), entering][:, None] * problems.k_te[entering]
    step = largest_ascent_step(problems.weight, active_sets.v, atom - active_sets.v, FW_STEPS[None, :])
    active_sets.towards(entering, step * todo, atom)


def _batched_newton_step(problems, active_sets, entering, todo):
    index, on_face = active_sets.face(entering, todo)
    free = on_face & todo[:, None]
    folds = np.arange(len(index))[:, None]
    density = np.maximum(active_sets.v, _TINY)
    atoms = problems.beta[folds, index][:, :, None] * problems.k_te[index]  # (K, s, n)
    scaled = atoms * (np.sqrt(problems.weight) / density)[:, None, :]
    hessian = scaled @ scaled.transpose(0, 2, 1)  # minus the Hessian of F on the face
    grad = np.einsum("ksn,kn->ks", atoms, problems.weight / density)
    mu_face = active_sets.mu[folds, index]
    direction = newton_direction(hessian, grad, free, problems.n_fit)
    leaving = free & (mu_face <= 0) & (direction < 0)
    if leaving.any():
        free &= ~leaving
        direction = newton_direction(hessian, grad, free, problems.n_fit)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where((direction < 0) & (mu_face > 0), -mu_face / direction, np.inf)
    to_boundary = ratios.min(axis=1)
    steps = np.minimum(NEWTON_STEPS[None, :], to_boundary[:, None])
    change = np.sum(atoms * direction[:, :, None], axis=1)
    step = largest_ascent_step(problems.weight, active_sets.v, change, steps,
                               problems.n_fit * direction.sum(axis=1)) * todo
    mu_face = np.maximum(mu_face + step[:, None] * direction, 0.0)
    mu_face[(step >= to_boundary)[:, None] & (ratios <= to_boundary[:, None])] = 0.0  # the atom leaves
    active_sets.set_face(index, mu_face, on_face)


def largest_ascent_step(weight, density, change, steps, cost=0.0):
    """Per problem, the largest of ``steps`` (K or 1, T) at which the concave
    phi(t) = sum_j w_j log(v_j + t c_j) - cost t still has phi'(t) >= 0 (0 if none): then
    phi(t) >= phi(0). (``cost`` = n_fit 1'dm: the term of L along a Newton direction.)

    A step that drives a density to (or below) 0 has slope -inf (log barrier): the quotients and their sums may
    overflow to +-inf or give nan, and neither counts as an ascent (the designed limit, not numerical trouble).
    Compiled (:func:`_largest_ascent_steps`), each number as numpy's passes computed it: the slopes
    sum_j w_j c_j / max(v_j + t c_j, 1e-300) summed as ``np.sum`` sums them (:func:`_pairwise_sum`)."""
    weight, density, change = (np.ascontiguousarray(a, dtype=np.float64) for a in (weight, density, change))
    steps = np.ascontiguousarray(steps, dtype=np.float64)
    cost = np.ascontiguousarray(np.broadcast_to(np.asarray(cost, dtype=np.float64), (len(weight),)))
    return _largest_ascent_steps(weight, density, change, steps, cost, np.empty(len(weight)))


@njit(cache=True, nogil=True)
def _largest_ascent_steps(weight, density, change, steps, cost, out):
    """out[k] = the largest steps[k or 0, t] whose slope sum_j weight[k, j] change[k, j] / max(moved, 1e-300),
    moved = density[k, j] + steps[k or 0, t] change[k, j], is >= cost[k] (a nan slope is not), else 0.0."""
    K, n = weight.shape
    numerators, quotients = np.empty(n), np.empty(n)
    for k in range(K):
        row = steps[k if steps.shape[0] > 1 else 0]
        for j in range(n):
            numerators[j] = weight[k, j] * change[k, j]
        best = 0.0
        for t in range(row.shape[0]):
            step = row[t]
            for j in range(n):
                moved = density[k, j] + step * change[k, j]
                quotients[j] = numerators[j] / (moved if moved >= _TINY or moved != moved else _TINY)
            if 0.0 + _pairwise_sum(quotients, 0, n) >= cost[k] and step > best:
                best = step
        out[k] = best
    return out


@njit(cache=True, nogil=True)
def _pairwise_sum(values, start, n):
    """numpy's pairwise sum of values[start:start + n] (``np.add.reduce`` of a contiguous row, numpy's
    ``pairwise_sum``): blocks of at most 128 terms (:func:`_block_sum`); a longer run is the sum of its two halves,
    split at a multiple of 8, left + right. ``np.sum`` is 0.0 plus this. The halving is walked with explicit stacks
    (numba does not cache a recursive function)."""
    if n <= 128:
        return _block_sum(values, start, n)
    starts, sizes, joins = np.empty(256, np.int64), np.empty(256, np.int64), np.empty(256, np.bool_)
    sums = np.empty(128)
    starts[0], sizes[0], joins[0] = start, n, False
    nodes, done = 1, 0
    while nodes:
        nodes -= 1
        first, size = starts[nodes], sizes[nodes]
        if joins[nodes]:  # both halves summed: left + right
            done -= 1
            sums[done - 1] = sums[done - 1] + sums[done]
        elif size <= 128:
            sums[done] = _block_sum(values, first, size)
            done += 1
        else:  # the join, then the right half, then the left one (taken first)
            half = size // 2
            half -= half % 8
            starts[nodes], sizes[nodes], joins[nodes] = first, size, True
            starts[nodes + 1], sizes[nodes + 1], joins[nodes + 1] = first + half, size - half, False
            starts[nodes + 2], sizes[nodes + 2], joins[nodes + 2] = first, half, False
            nodes += 3
    return sums[0]


@njit(cache=True, nogil=True)
def _block_sum(values, start, n):
    """numpy's pairwise sum of at most 128 terms: below 8 in order; else 8 running sums, combined as
    ((0+1)+(2+3))+((4+5)+(6+7)), then the rest in order."""
    if n < 8:
        total = -0.0
        for i in range(start, start + n):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = 8
    while i < n - n % 8:
        j = start + i
        r0 += values[j]
        r1 += values[j + 1]
        r2 += values[j + 2]
        r3 += values[j + 3]
        r4 += values[j + 4]
        r5 += values[j + 5]
        r6 += values[j + 6]
        r7 += values[j + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        total += values[start + i]
        i += 1
    return total
