"""The plain-Python Frank-Wolfe loop of KLIEP, a reference for the library's one compiled loop.

Until issue 38 the library ran this loop (on blocked and low-rank atoms and for FCFWCS) beside the
compiled one (``covshift.weights._compiled.run_loop``), which mirrors it step for step
(fw-covariate-shift-iw-smtgp, Algorithm 2 with the towards, away and pairwise steps of
eqs. 22-31, Algorithms 4-5, and the fully-corrective step of FCFWCS). It stays here, written as
numpy calls on an :class:`ActiveSet`, so that tests can compare the library's iterates with an
independent plain implementation: :func:`solve` runs a configured FWCS / AFWCS / PFWCS / FCFWCS
on a KLIEP problem as the estimators did.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from covshift.weights._kliep_problem import covering_start, duality_gap
from covshift.weights._line_search import armijo_line_search, exact_line_search, log_objective
from covshift.weights.active_set import ATOM_TOL
from covshift.weights.fully_corrective import face_gradient_and_hessian, newton_direction
from covshift.weights.fw_loop import GRADIENT_SLACK, HIT_TOL, FrankWolfeHistory


class ActiveSet:
    """Weights mu over the rows of ``atoms`` (A[l, j] = beta_l k(c_l, x_te_j)) and v = A' mu.

    The updates are the moves of section III-B, each O(n_te) on v:

    - :meth:`towards` (add): mu <- (1 - rho) mu + rho e_l (eqs. 22-23),
    - :meth:`away`: mu <- (1 + rho) mu - rho e_l (eqs. 25-27),
    - :meth:`pairwise` (move): mu <- mu + rho (e_to - e_from) (eqs. 29-31),
    - :meth:`set_face` (the corrective phase): new weights on a face, v moved along with them,
    - :meth:`drop_zeros` (remove tiny weights and renormalise), :meth:`refresh` (v from scratch).

    Parameters
    ----------
    atoms : ndarray (n_atoms, n_te) or KernelAtoms
    mu : ndarray (n_atoms,)
        Start on the simplex with a finite objective (see ``covering_start``); updated in place.

    Attributes
    ----------
    mu : ndarray (n_atoms,)   the weights, zero outside the active set
    v : ndarray (n_te,)       the iterate in test space, A' mu
    """

    def __init__(self, atoms, mu):
        self.atoms = atoms
        self.mu = mu
        self.refresh()

    @property
    def indices(self):
        """The active atoms (mu_l > 0), sorted."""
        return np.flatnonzero(self.mu)

    def __len__(self):
        return int(np.count_nonzero(self.mu))

    def refresh(self):
        """Recompute v = A' mu from the active atoms (against incremental drift)."""
        active = self.indices
        self.v = self.mu[active] @ self.atoms[active]

    def away_atom(self, grad):
        """l^AFW: the active atom with the smallest gradient coordinate."""
        active = self.indices
        return int(active[np.argmin(grad[active])])

    def towards(self, l, rho, atom):
        """mu <- (1 - rho) mu + rho e_l and v <- (1 - rho) v + rho A[l] (``atom`` = A[l]).

        The convex combination, not v + rho (A[l] - v): at rho ~ 1 that form cancels, and
        where A[l] is tiny beside v the density became exactly 0 (F = -inf).
        """
        self.mu *= 1.0 - rho
        self.mu[l] += rho
        self.v *= 1.0 - rho
        self.v += rho * atom

    def away(self, l, rho, d, drop):
        """mu <- (1 + rho) mu - rho e_l, with d = v - A[l]; ``drop`` zeroes mu_l (rho hit its maximum)."""
        self.mu *= 1.0 + rho
        self.mu[l] -= rho
        if drop:
            self.mu[l] = 0.0
        self.v += rho * d

    def pairwise(self, l_to, l_from, rho, d, drop):
        """mu_to += rho, mu_from -= rho, with d = A[l_to] - A[l_from]; ``drop`` zeroes mu_from."""
        self.mu[l_to] += rho
        self.mu[l_from] = 0.0 if drop else self.mu[l_from] - rho
        self.v += rho * d

    def set_face(self, face, mu_face, d_v):
        """New weights ``mu_face`` on the atoms ``face``, v moved by d_v (= A_face' change)."""
        self.mu[face] = mu_face
        self.v += d_v

    def drop_zeros(self, tol=ATOM_TOL):
        """Remove atoms with mu < tol and renormalise mu (and v) onto the simplex.

        v is recomputed after a removal (a subtraction could cancel to zero); a removal
        that would leave a test point with zero density is undone.
        """
        tiny = np.flatnonzero((self.mu > 0) & (self.mu < tol))
        if tiny.size:
            kept = self.mu[tiny].copy()
            self.mu[tiny] = 0.0
            v_before = self.v
            self.refresh()
            if not np.all(self.v > 0):
                self.mu[tiny], self.v = kept, v_before
        total = self.mu.sum()
        self.mu /= total
        self.v /= total



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


def corrective_newton(rules, active_set, l_fw, objective, face_tol, max_inner):
    """Fully-corrective step on one problem: a towards step to vertex l_fw, then maximise F
    over the active face.

    Newton steps (:func:`newton_direction`), a ratio test that keeps m >= 0 and drops atoms
    that reach zero, the line search of ``rules`` (a :class:`StepRules`). Stops when
    the face gap max_S g - <g, m> <= face_tol, or after ``max_inner`` Newton steps.

    Returns the number of Newton steps taken.
    """
    rules.towards(active_set, l_fw, objective)
    mu = active_set.mu
    face = active_set.indices
    A_face = active_set.atoms[face]  # rows of the face, kept until an atom drops
    objective = log_objective(active_set.v)
    iterations = 0
    for iterations in range(1, max_inner + 1):
        u = 1.0 / active_set.v
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
        rho, hit = rules.search(active_set.v, d, rho_max, float(d @ u), objective)
        if rho <= 0:
            break
        m = m + rho * dm
        if hit:
            m[np.flatnonzero(shrinking)[ratios <= rho_max * (1 + HIT_TOL)]] = 0.0
        active_set.set_face(face, m, rho * d)
        kept = m > ATOM_TOL
        if not kept.all():
            face, A_face = face[kept], A_face[kept]
        objective = log_objective(active_set.v)
    return iterations


def corrective_step(rules, tol, max_inner=50, max_face=150):
    """The step rule of FCFWCS for :func:`run_frank_wolfe`.

    :func:`corrective_newton` to the face gap 0.1 tol |F|; when the active set has reached
    ``max_face`` atoms (a dense optimum: Newton costs O(n_te |S|^2)), a pairwise step instead.
    """

    def step(active_set, grad, active, l_fw, gap, mu_grad, objective):
        if active.size >= max_face:
            return rules.pairwise(active_set, l_fw, active_set.away_atom(grad), objective)
        inner = corrective_newton(rules, active_set, l_fw, objective, 0.1 * tol * abs(objective), max_inner)
        return Step("corrective", "good", float(active_set.mu[l_fw]), l_fw, inner_iterations=inner)

    return step


def _step_rule(estimator, rules):
    """The step of ``estimator`` (a configured FWCS, AFWCS, PFWCS or FCFWCS) as a step rule of run_frank_wolfe."""
    rule = estimator._rule

    def step(active_set, grad, active, l_fw, gap, mu_grad, objective):
        if rule == "towards":
            return rules.towards(active_set, l_fw, objective)
        l_aw = active_set.away_atom(grad)
        if rule == "away_or_towards":
            if gap >= mu_grad - grad[l_aw]:
                return rules.towards(active_set, l_fw, objective)
            return rules.away(active_set, l_fw, l_aw, objective)
        if rule == "pairwise":
            return rules.pairwise(active_set, l_fw, l_aw, objective)
        corrective = corrective_step(rules, estimator.tol, estimator.max_inner, estimator.max_face)
        return corrective(active_set, grad, active, l_fw, gap, mu_grad, objective)

    return step


def solve(estimator, problem):
    """Run ``estimator``'s solver on ``problem`` with this loop, from the paper's start.

    Returns
    -------
    mu : ndarray (n_atoms,), converged : bool, n_iter : int, history : FrankWolfeHistory
    """
    active_set = ActiveSet(problem.atoms, covering_start(problem))
    rules = StepRules(estimator.line_search, estimator.armijo_c, estimator.armijo_shrink)
    converged, n_iter, recorder = run_frank_wolfe(problem, active_set, _step_rule(estimator, rules),
                                                  estimator.tol, estimator.max_iter, estimator.refresh_every)
    return active_set.mu, converged, n_iter, recorder.history(problem.beta)
