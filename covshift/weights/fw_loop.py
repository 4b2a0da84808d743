"""The Frank-Wolfe loop of KLIEP shared by FWCS, AFWCS, PFWCS and FCFWCS (fw-covariate-shift-iw-smtgp, Algorithm 2).

One loop (:func:`run_frank_wolfe`) computes, at each iterate mu_t on the simplex, the gradient
g = A (1 / v) of F(mu) = sum_j log v_j (eq. 2 in atom coordinates, section III-A) and the
duality gap <g, d^FW> (an upper bound when the gradient is low-rank), stops at the relative gap
``tol``, and otherwise asks a step rule for the next iterate: the towards, away and pairwise
steps here (:class:`StepRules`, eqs. 22-31, each on an :class:`~.active_set.ActiveSet` with an
exact or Armijo line search) or the fully-corrective step of :mod:`.fully_corrective`. Each
iteration is a row of :class:`FrankWolfeHistory`.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from . import _compiled
from ._kliep_problem import duality_gap
from ._line_search import armijo_line_search, exact_line_search, log_objective
from .active_set import ATOM_TOL

#: A step within this relative distance of rho_max counts as reaching it (drop / swap).
HIT_TOL = 1e-9
#: A low-rank gradient is used while its error bound is at most this fraction of the stopping
#: threshold tol * |F| (so the certified gap exceeds the float64 one by at most 2%); else exact.
GRADIENT_SLACK = 0.01


@dataclass
class FrankWolfeHistory:
    """One row per iteration t, so a run can be plotted or replayed without recomputing.

    Row t holds the objective and duality gap at the iterate mu_t and the step that
    led to mu_{t+1}. The last row is the returned solution: its ``step_kind`` is
    "final" and its gap is the certificate of the result. With a low-rank gradient
    (problems from LOW_RANK_MIN_ENTRIES atom entries) a gap is the largest value the
    float64 gap can take given the gradient's error bound, an upper bound.

    The sparse iterates make replay free: :meth:`iterate` rebuilds mu_t in
    O(``|S_t|``) without solving again.

    Parameters
    ----------
    objective, gap : ndarray of float
        F(mu_t) and <g_t, d_t^FW>.
    step_kind : ndarray of str
        "good", "drop", "swap" (section III-B) or "final".
    direction : ndarray of str
        "towards", "away", "pairwise", "corrective" or "".
    step_size : ndarray of float
        rho_t (FCFWCS: the weight given to the new vertex).
    active_size : ndarray of int
        ``|S_{t+1}|``, atoms active after the step.
    towards_atom, away_atom : ndarray of int
        l_t^FW and l_t^AFW as centre indices (-1: none).
    atoms_dropped : ndarray of int
        Atoms that left the active set in the step.
    inner_iterations : ndarray of int
        Corrective Newton iterations (FCFWCS; else 0).
    elapsed : ndarray of float
        Seconds since the start, at the end of the row.
    iterate_start : ndarray of int, length len + 1
        Row t's sparse iterate mu_t is ``iterate_atom[s:e]``, ``iterate_mu[s:e]`` with
        s, e = iterate_start[t], iterate_start[t + 1].
    iterate_atom, iterate_mu : ndarray
        The sparse iterates, concatenated.
    beta : ndarray of shape (n_atoms,)
        alpha = beta * mu (eq. 4), to rebuild alpha_t.

    """

    objective: np.ndarray
    gap: np.ndarray
    step_kind: np.ndarray
    direction: np.ndarray
    step_size: np.ndarray
    active_size: np.ndarray
    towards_atom: np.ndarray
    away_atom: np.ndarray
    atoms_dropped: np.ndarray
    inner_iterations: np.ndarray
    elapsed: np.ndarray
    iterate_start: np.ndarray
    iterate_atom: np.ndarray
    iterate_mu: np.ndarray
    beta: np.ndarray

    def __len__(self):
        return len(self.objective)

    def _row(self, t):
        t = int(t)
        if not -len(self) <= t < len(self):
            raise ValueError(f"iteration t must lie in 0..{len(self) - 1}; got {t}.")
        return t % len(self)

    def iterate(self, t):
        """The sparse iterate mu_t of row t, in O(``|S_t|``).

        Parameters
        ----------
        t : int
            The row (negative counts from the end).

        Returns
        -------
        atoms : ndarray of int
            Indices of the active atoms.
        mu : ndarray of float
            Their weights.
        """
        t = self._row(t)
        rows = slice(self.iterate_start[t], self.iterate_start[t + 1])
        return self.iterate_atom[rows], self.iterate_mu[rows]

    def mu_at(self, t):
        """mu_t as a dense vector over all atoms (the last row gives the fitted ``mu_``).

        Parameters
        ----------
        t : int
            The row (negative counts from the end).

        Returns
        -------
        ndarray of shape (n_atoms,)
            mu_t.
        """
        atoms, values = self.iterate(t)
        mu = np.zeros(len(self.beta))
        mu[atoms] = values
        return mu

    def alpha_at(self, t):
        """alpha_t = beta * mu_t, the mixing coefficients on the centres at row t.

        Parameters
        ----------
        t : int
            The row (negative counts from the end).

        Returns
        -------
        ndarray of shape (n_atoms,)
            alpha_t.
        """
        return self.beta * self.mu_at(t)


@dataclass
class Step:
    """What one iteration did: a row of :class:`FrankWolfeHistory` less the iterate's numbers."""

    direction: str
    kind: str
    size: float
    towards: int
    away: int = -1
    inner_iterations: int = 0


@dataclass
class Recorder:
    """Collects the rows and sparse iterates of a run; :meth:`history` makes the FrankWolfeHistory."""

    rows: list = field(default_factory=list)
    atoms: list = field(default_factory=list)
    mus: list = field(default_factory=list)

    def add_iterate(self, active, mu):
        """Record mu_t (its active atoms and their weights) for the row about to be added."""
        self.atoms.append(active.copy())
        self.mus.append(mu[active])

    def add(self, objective, gap, step, active_size, dropped, elapsed):
        self.rows.append((objective, gap, step.kind, step.direction, step.size, active_size,
                          step.towards, step.away, dropped, step.inner_iterations, elapsed))

    def history(self, beta):
        columns = list(zip(*self.rows))
        dtypes = [float, float, "U5", "U10", float, int, int, int, int, int, float]
        start = np.concatenate([[0], np.cumsum([len(a) for a in self.atoms])])
        return FrankWolfeHistory(*[np.asarray(c, dtype=t) for c, t in zip(columns, dtypes)],
                                 iterate_start=start, iterate_atom=np.concatenate(self.atoms),
                                 iterate_mu=np.concatenate(self.mus), beta=np.asarray(beta).copy())


class StepRules:
    """The towards, away and pairwise steps of section III-B on an ActiveSet, with their line search.

    Parameters
    ----------
    line_search : {"exact", "armijo"}
        Safeguarded Newton on the concave phi(rho) (:func:`exact_line_search`) or Algorithm 3.
    armijo_c, armijo_shrink : float in (0, 1)
        tau and xi of Algorithm 3.
    """

    def __init__(self, line_search="exact", armijo_c=0.5, armijo_shrink=0.5):
        self.line_search = line_search
        self.armijo = (armijo_c, armijo_shrink)

    def search(self, v, d, rho_max, slope, objective):
        """Step size along test-space direction d (exact or Armijo), snapped to rho_max:
        (rho, whether rho_max was reached)."""
        if self.line_search == "exact":
            rho = exact_line_search(v, d, rho_max, slope)
        else:
            rho = armijo_line_search(v, d, rho_max, slope, objective, *self.armijo)
        hit = rho >= rho_max * (1.0 - HIT_TOL)
        return (rho_max if hit else rho), hit

    def towards(self, active, l_fw, objective):
        """Towards step to vertex l_fw, rho in [0, 1] (eqs. 22-23)."""
        atom = active.atoms[l_fw]
        d = atom - active.v
        rho, _ = self.search(active.v, d, 1.0, float(d @ (1.0 / active.v)), objective)
        active.towards(l_fw, rho, atom)
        return Step("towards", "good", rho, l_fw)

    def away(self, active, l_fw, l_aw, objective):
        """Away step from vertex l_aw, rho in [0, mu/(1-mu)] (eqs. 25-27)."""
        mu_away = active.mu[l_aw]
        d = active.v - active.atoms[l_aw]
        rho, hit = self.search(active.v, d, mu_away / (1.0 - mu_away), float(d @ (1.0 / active.v)),
                               objective)
        active.away(l_aw, rho, d, drop=hit)
        return Step("away", "drop" if hit else "good", rho, l_fw, l_aw)

    def pairwise(self, active, l_fw, l_aw, objective):
        """Pairwise step moving weight from l_aw to l_fw, rho in [0, mu_aw] (eqs. 29-31)."""
        rho_max = active.mu[l_aw]
        was_active = active.mu[l_fw] > 0
        d = active.atoms[l_fw] - active.atoms[l_aw]
        rho, hit = self.search(active.v, d, rho_max, float(d @ (1.0 / active.v)), objective)
        active.pairwise(l_fw, l_aw, rho, d, drop=hit)
        kind = "good"
        if hit and rho_max < 1.0:
            kind = "drop" if was_active else "swap"
        return Step("pairwise", kind, rho, l_fw, l_aw)


def gradient_and_gap(problem, active_set, active, threshold):
    """The gradient at the iterate and its duality gap (an upper bound when the gradient is low-rank).

    A low-rank gradient serves while its error bound is within GRADIENT_SLACK * threshold,
    or while even the smallest gap it allows exceeds the threshold (the step is then an
    ascent step and the run is certainly not converged); otherwise it is recomputed exactly.
    """
    u = 1.0 / active_set.v
    mu = active_set.mu
    grad, error = problem.gradient(u, max_error=np.inf)
    gap = duality_gap(grad, error, mu, active)
    if np.ndim(error) and error.max() > GRADIENT_SLACK * threshold and \
            gap - 2 * (error.max() + error[active] @ mu[active]) <= threshold:
        grad, error = problem.gradient(u, max_error=0.0)
        gap = duality_gap(grad, error, mu, active)
    return grad, gap


def run_frank_wolfe(problem, active_set, step, tol, max_iter, refresh_every=50):
    """Frank-Wolfe on ``problem`` from ``active_set`` until the relative duality gap is at most tol.

    Each iteration t: g = A (1 / v), l^FW = argmax_l g_l, the gap max_l g_l - <g, mu> (Algorithm 2,
    lines 5-8; certified with a low-rank gradient, see :func:`gradient_and_gap`); then
    ``step(active_set, grad, active, l_fw, gap, mu_grad, objective)`` moves the iterate and returns
    a :class:`Step`, tiny weights leave the active set, and v is recomputed every ``refresh_every``
    iterations. A step of size 0 that did nothing ends the run (no ascent at machine precision).

    Returns
    -------
    converged : bool, n_iter : int, recorder : Recorder (call ``history(beta)``)
    """
    recorder, start = Recorder(), time.perf_counter()
    converged = False
    for t in range(max_iter + 1):
        objective = log_objective(active_set.v)
        active = active_set.indices
        threshold = tol * abs(objective)
        grad, gap = gradient_and_gap(problem, active_set, active, threshold)
        recorder.add_iterate(active, active_set.mu)
        if gap <= threshold or t == max_iter:
            converged = gap <= threshold
            recorder.add(objective, gap, Step("", "final", 0.0, -1), active.size, 0,
                         time.perf_counter() - start)
            break
        l_fw = int(np.argmax(grad))
        mu_grad = float(grad[active] @ active_set.mu[active])
        taken = step(active_set, grad, active, l_fw, gap, mu_grad, objective)
        active_set.drop_zeros()
        if (t + 1) % refresh_every == 0:
            active_set.refresh()
        dropped = int(np.count_nonzero(active_set.mu[active] == 0))
        if taken.direction == "corrective" and dropped:
            taken.kind = "drop"
        recorder.add(objective, gap, taken, len(active_set), dropped, time.perf_counter() - start)
        if taken.size <= 0 and taken.inner_iterations == 0:
            break  # no ascent possible at machine precision
    return converged, t, recorder


#: The compiled loop's step rule for each step of StepRules (FWCS, AFWCS, PFWCS).
COMPILED_RULES = {"towards": _compiled.TOWARDS, "away_or_towards": _compiled.AWAY_OR_TOWARDS,
                  "pairwise": _compiled.PAIRWISE}
#: Iterations per call of the compiled loop; ``elapsed`` is measured after each call and spread
#: evenly over its rows (a call lasts well under a millisecond on the app's problems).
COMPILED_CHUNK = 64


@dataclass
class CompiledRun:
    """The rows and sparse iterates of a :func:`run_compiled` run; :meth:`history` as :class:`Recorder`'s."""

    rows: np.ndarray
    elapsed: np.ndarray
    iterate_atom: np.ndarray
    iterate_mu: np.ndarray

    def history(self, beta):
        rows = self.rows
        iterate_start = np.concatenate([[0], np.cumsum(rows[:, 9].astype(int))])
        return FrankWolfeHistory(
            objective=rows[:, 0].copy(), gap=rows[:, 1].copy(),
            step_kind=np.asarray(_compiled.KINDS, dtype="U5")[rows[:, 2].astype(int)],
            direction=np.asarray(_compiled.DIRECTIONS, dtype="U10")[rows[:, 3].astype(int)],
            step_size=rows[:, 4].copy(), active_size=rows[:, 5].astype(int), towards_atom=rows[:, 6].astype(int),
            away_atom=rows[:, 7].astype(int), atoms_dropped=rows[:, 8].astype(int),
            inner_iterations=np.zeros(len(rows), dtype=int), elapsed=self.elapsed,
            iterate_start=iterate_start, iterate_atom=self.iterate_atom, iterate_mu=self.iterate_mu,
            beta=np.asarray(beta).copy())


def run_compiled(active_set, rule, step_rules, tol, max_iter, refresh_every=50):
    """:func:`run_frank_wolfe` with the towards, away-or-towards or pairwise step (``rule``, a key of
    COMPILED_RULES) of ``step_rules`` on dense atoms, compiled (:func:`._compiled.run_dense`):
    the same iterates up to round-off, an iteration costing about its arithmetic.

    Returns
    -------
    converged : bool, n_iter : int, run : CompiledRun (call ``history(beta)``)
    """
    atoms = np.ascontiguousarray(active_set.atoms, dtype=np.float64)
    mu, v = active_set.mu, active_set.v
    rows = np.zeros((max_iter + 1, 10))
    elapsed = np.zeros(max_iter + 1)
    iterate_atom, iterate_mu = np.empty(16 * (max_iter + 1), np.int64), np.empty(16 * (max_iter + 1))
    n_entries = 0
    exact = step_rules.line_search == "exact"
    start, t_start, status = time.perf_counter(), 0, 0
    while status == 0:
        t_stop = min(t_start + COMPILED_CHUNK, max_iter + 1)
        status, t, iterate_atom, iterate_mu, n_entries = _compiled.run_dense(
            atoms, mu, v, COMPILED_RULES[rule], exact, *step_rules.armijo, tol, max_iter, refresh_every,
            HIT_TOL, ATOM_TOL, t_start, t_stop, rows, iterate_atom, iterate_mu, n_entries)
        last = t + 1 if status else t_stop
        before = elapsed[t_start - 1] if t_start else 0.0
        elapsed[t_start:last] = before + (time.perf_counter() - start - before) * \
            np.arange(1, last - t_start + 1) / (last - t_start)
        t_start = last
    active_set.v = v
    run = CompiledRun(rows[:t_start], elapsed[:t_start], iterate_atom[:n_entries].copy(),
                      iterate_mu[:n_entries].copy())
    return status == 1, t, run
