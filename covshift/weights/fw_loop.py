"""Runs the one Frank-Wolfe loop of KLIEP on a problem and records its history (fw-covariate-shift-iw-smtgp, Algorithm 2).

:func:`run_frank_wolfe` serves FWCS, AFWCS, PFWCS and FCFWCS (their step rules: towards,
towards or away, pairwise, corrective; eqs. 22-31) and the reference solve of the
cross-validation: it sets up the compiled loop (:func:`._compiled.run_loop`) with one
:class:`~._compiled.LoopOptions` and one :class:`~._compiled.LoopState`, lends it the Python part
it needs (:class:`ProblemPart`: the gradient, rows and density of atoms the loop does not hold,
with the certified gap of a low-rank gradient, and the corrective phase of FCFWCS), times it and
turns its record into a :class:`FrankWolfeHistory`, one row per iteration.
"""

import time
from dataclasses import dataclass

import numpy as np

from . import _compiled
from ._kliep_problem import duality_gap
from .active_set import ATOM_TOL

#: A step within this relative distance of rho_max counts as reaching it (drop / swap).
HIT_TOL = 1e-9
#: A low-rank gradient is used while its error bound is at most this fraction of the stopping
#: threshold tol * |F| (so the certified gap exceeds the float64 one by at most 2%); else exact.
GRADIENT_SLACK = 0.01
#: The step rules of the loop, by name (FWCS, AFWCS, PFWCS, FCFWCS).
RULES = {"towards": _compiled.TOWARDS, "away_or_towards": _compiled.AWAY_OR_TOWARDS,
         "pairwise": _compiled.PAIRWISE, "corrective": _compiled.CORRECTIVE}
#: Iterations per call of the loop when it asks Python for nothing; ``elapsed`` is measured after
#: each call and spread evenly over its rows (a call lasts well under a millisecond on the app's
#: problems). A loop that asks Python (large atoms, FCFWCS) is timed after every iteration.
CHUNK = 64


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


def gradient_and_gap(problem, u, mu, active, threshold):
    """The gradient g = A u at the iterate and its duality gap (an upper bound when g is low-rank).

    A low-rank gradient serves while its error bound is within GRADIENT_SLACK * threshold,
    or while even the smallest gap it allows exceeds the threshold (the step is then an
    ascent step and the run is certainly not converged); otherwise it is recomputed exactly.
    """
    grad, error = problem.gradient(u, max_error=np.inf)
    gap = duality_gap(grad, error, mu, active)
    if np.ndim(error) and error.max() > GRADIENT_SLACK * threshold and \
            gap - 2 * (error.max() + error[active] @ mu[active]) <= threshold:
        grad, error = problem.gradient(u, max_error=0.0)
        gap = duality_gap(grad, error, mu, active)
    return grad, gap


class ProblemPart:
    """What the compiled loop asks Python for on one problem (see ``_compiled.PYTHON_PARTS``).

    Parameters
    ----------
    problem : KliepProblem
        Its atoms: blocked or low-rank atoms are computed by ``covshift.kernels`` (also from dask
        arrays), which numba cannot run.
    corrective : callable or None
        ``corrective(atoms, mu, v, face_tol, search) -> Newton steps``, the corrective phase of FCFWCS
        (:func:`.fully_corrective.corrective_newton`), updating mu and v in place.
    search : callable
        ``search(v, d, rho_max, slope, objective) -> (rho, hit)``, the loop's line search.
    """

    def __init__(self, problem, corrective, search):
        self.problem, self.corrective_phase, self.search = problem, corrective, search

    def gradient_and_gap(self, u, mu, active, threshold):
        return gradient_and_gap(self.problem, u, mu, active, threshold)

    def row(self, l):
        return self.problem.atoms[l]

    def density(self, mu):
        return self.problem.density(mu)

    def corrective(self, mu, v, face_tol):
        return self.corrective_phase(self.problem.atoms, mu, v, face_tol, self.search)


def run_frank_wolfe(problem, mu, rule, tol, max_iter, line_search="exact", armijo_c=0.5, armijo_shrink=0.5,
                    refresh_every=50, max_face=150, corrective=None):
    """Frank-Wolfe on ``problem`` from ``mu`` with the step rule ``rule`` until the relative duality gap
    is at most ``tol`` (Algorithm 2; the steps of section III-B): the one loop, compiled.

    Parameters
    ----------
    problem : KliepProblem
    mu : ndarray (n_atoms,)
        Start on the simplex with a finite objective (``covering_start``); not changed.
    rule : {"towards", "away_or_towards", "pairwise", "corrective"}
        The step of FWCS, AFWCS, PFWCS or FCFWCS.
    tol : float
        Stop when the duality gap is at most tol * ``|F|``.
    max_iter : int
    line_search : {"exact", "armijo"}
        Safeguarded Newton on the concave phi(rho), or Algorithm 3 with ``armijo_c`` (tau) and
        ``armijo_shrink`` (xi).
    refresh_every : int
        Recompute v = A' mu from the atoms every this many iterations.
    max_face : int
        "corrective": from this active-set size on, a pairwise step replaces the corrective phase.
    corrective : callable or None
        "corrective": the corrective phase (see :class:`ProblemPart`).

    Returns
    -------
    mu : ndarray (n_atoms,), converged : bool, n_iter : int, history : FrankWolfeHistory
    """
    dense = isinstance(problem.atoms, np.ndarray)
    atoms = np.ascontiguousarray(problem.atoms if dense else np.zeros((0, 0)), dtype=np.float64)
    mu = np.array(mu, dtype=np.float64)
    exact, c, shrink = line_search == "exact", float(armijo_c), float(armijo_shrink)

    def search(v, d, rho_max, slope, objective):
        return _compiled.search(v, np.ascontiguousarray(d, dtype=np.float64), float(rho_max), float(slope),
                                float(objective), exact, c, shrink, HIT_TOL)

    asks_python = not dense or rule == "corrective"
    key = _compiled.lend_python_part(ProblemPart(problem, corrective, search)) if asks_python else -1
    try:
        options = _compiled.LoopOptions(RULES[rule], exact, c, shrink, float(tol), int(max_iter),
                                        int(refresh_every), HIT_TOL, ATOM_TOL, int(max_face), dense, key)
        state = _compiled.LoopState(
            mu, np.ascontiguousarray(problem.density(mu), dtype=np.float64),
            np.zeros((max_iter + 1, len(_compiled.ROW_COLUMNS))), np.empty(16 * (max_iter + 1), np.int64),
            np.empty(16 * (max_iter + 1)), np.zeros(2, np.int64))
        elapsed = np.zeros(max_iter + 1)
        chunk = 1 if asks_python else CHUNK
        start, status = time.perf_counter(), 0
        while status == 0:
            t_start = int(state.counters[0])
            status, state = _compiled.run_loop(options, state, atoms, min(t_start + chunk, max_iter + 1))
            t_end = int(state.counters[0])
            before = elapsed[t_start - 1] if t_start else 0.0
            elapsed[t_start:t_end] = before + (time.perf_counter() - start - before) * \
                np.arange(1, t_end - t_start + 1) / (t_end - t_start)
    finally:
        _compiled.return_python_part(key)
    history = _history(state, elapsed[:t_end], problem.beta)
    return state.mu, status == 1, t_end - 1, history


def _history(state, elapsed, beta):
    """The FrankWolfeHistory of the loop's record (``state``)."""
    rows = state.rows[:len(elapsed)]
    n_entries = int(state.counters[1])
    column = dict(zip(_compiled.ROW_COLUMNS, rows.T))
    return FrankWolfeHistory(
        objective=column["objective"].copy(), gap=column["gap"].copy(),
        step_kind=np.asarray(_compiled.KINDS, dtype="U5")[column["kind"].astype(int)],
        direction=np.asarray(_compiled.DIRECTIONS, dtype="U10")[column["direction"].astype(int)],
        step_size=column["step_size"].copy(), active_size=column["active_size"].astype(int),
        towards_atom=column["towards_atom"].astype(int), away_atom=column["away_atom"].astype(int),
        atoms_dropped=column["atoms_dropped"].astype(int),
        inner_iterations=column["inner_iterations"].astype(int), elapsed=elapsed,
        iterate_start=np.concatenate([[0], np.cumsum(column["iterate_size"].astype(int))]),
        iterate_atom=state.iterate_atom[:n_entries].copy(), iterate_mu=state.iterate_mu[:n_entries].copy(),
        beta=np.asarray(beta).copy())
