"""Frank-Wolfe solvers of KLIEP: FWCS, AFWCS, PFWCS (fw-covariate-shift-iw-smtgp,
Algorithms 2, 4, 5) and the fully-corrective FCFWCS, over one engine.

All work in atom coordinates: alpha = beta * mu with mu on the unit simplex
(section III-A), F(mu) = sum_j log v_j with v = A' mu (see ``_kliep_problem``).
The engine keeps v up to date incrementally (O(n_te) per step, two atoms for a
pairwise step) and recomputes it from the active atoms every ``refresh_every``
iterations against drift; the only O(n_atoms * n_te) work per iteration is the
gradient A (1 / v), or O(rank * (n_atoms + n_te)) when the atoms have a low-rank factor
(``_kliep_problem.LowRankKernelAtoms``): the gap is then an upper bound that accounts for
the factor's error bound, so the stopping test and ``converged_`` stay certified.
"""

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from .._validation import check_choice, check_int, check_positive
from ..exceptions import ConvergenceWarning
from ._kliep_base import KliepFamily
from ._kliep_problem import covering_start, duality_gap
from ._line_search import armijo_line_search, exact_line_search, log_objective

#: An atom whose weight mu_l falls below this leaves the active set (unless it
#: alone carries the density of some test point).
ATOM_TOL = 1e-14
#: A step within this relative distance of rho_max counts as reaching it (drop / swap).
HIT_TOL = 1e-9
#: A low-rank gradient is used while its error bound is at most this fraction of the stopping
#: threshold tol * |F| (so the certified gap exceeds the float64 one by at most 2%); else exact.
GRADIENT_SLACK = 0.01
#: Memory of one block of the face's scaled atoms in the corrective Newton step.
FACE_BLOCK_BYTES = 2**22


@dataclass
class FrankWolfeHistory:
    """One row per iteration t, so a run can be plotted or replayed without recomputing.

    Row t holds the objective and duality gap at the iterate mu_t and the step that
    led to mu_{t+1}. The last row is the returned solution: its ``step_kind`` is
    "final" and its gap is the certificate of the result. With a low-rank gradient
    (problems from LOW_RANK_MIN_ENTRIES atom entries) a gap is the largest value the
    float64 gap can take given the gradient's error bound, an upper bound.

    Attributes
    ----------
    objective, gap : float arrays          F(mu_t) and <g_t, d_t^FW>
    step_kind : str array                  "good", "drop", "swap" (section III-B) or "final"
    direction : str array                  "towards", "away", "pairwise", "corrective" or ""
    step_size : float array                rho_t (FCFWCS: weight given to the new vertex)
    active_size : int array                |S_{t+1}|, atoms active after the step
    towards_atom, away_atom : int arrays   l_t^FW, l_t^AFW as centre indices (-1: none)
    atoms_dropped : int array              atoms that left the active set in the step
    inner_iterations : int array           corrective Newton iterations (FCFWCS; else 0)
    elapsed : float array                  seconds since the start, at the end of the row
    iterate_start : int array (len + 1)    row t's sparse iterate mu_t is
    iterate_atom, iterate_mu : arrays      ``iterate_atom[s:e]``, ``iterate_mu[s:e]`` with
                                           s, e = iterate_start[t], iterate_start[t + 1]
    beta : float array (n_atoms,)          alpha = beta * mu (eq. 4), to rebuild alpha_t

    The sparse iterates make replay free: :meth:`iterate` rebuilds mu_t in
    O(|S_t|) without solving again.
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
        """The sparse iterate mu_t of row t: (atom indices, their mu), in O(|S_t|)."""
        t = self._row(t)
        rows = slice(self.iterate_start[t], self.iterate_start[t + 1])
        return self.iterate_atom[rows], self.iterate_mu[rows]

    def mu_at(self, t):
        """mu_t as a dense vector over all atoms (the last row gives the fitted ``mu_``)."""
        atoms, values = self.iterate(t)
        mu = np.zeros(len(self.beta))
        mu[atoms] = values
        return mu

    def alpha_at(self, t):
        """alpha_t = beta * mu_t, the mixing coefficients on the centres at row t."""
        return self.beta * self.mu_at(t)


@dataclass
class _Step:
    direction: str
    kind: str
    size: float
    towards: int
    away: int = -1
    inner_iterations: int = 0


@dataclass
class _Recorder:
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


class _Engine:
    """State and steps of a Frank-Wolfe run on the simplex in atom coordinates."""

    def __init__(self, atoms, mu, line_search, armijo_c, armijo_shrink):
        self.atoms = atoms
        self.mu = mu
        self.refresh()
        self.line_search = line_search
        self.armijo = (armijo_c, armijo_shrink)

    def refresh(self):
        """Recompute v = A' mu from the active atoms (against incremental drift)."""
        active = np.flatnonzero(self.mu)
        self.v = self.mu[active] @ self.atoms[active]

    def search(self, d, rho_max, slope, objective):
        """Step size along test-space direction d (exact or Armijo), snapped to rho_max."""
        if self.line_search == "exact":
            rho = exact_line_search(self.v, d, rho_max, slope)
        else:
            rho = armijo_line_search(self.v, d, rho_max, slope, objective, *self.armijo)
        hit = rho >= rho_max * (1.0 - HIT_TOL)
        return (rho_max if hit else rho), hit

    def towards(self, l_fw, objective):
        """Towards step to vertex l_fw, rho in [0, 1] (eqs. 22-23)."""
        d = self.atoms[l_fw] - self.v
        rho, hit = self.search(d, 1.0, float(d @ (1.0 / self.v)), objective)
        self.mu *= 1.0 - rho
        self.mu[l_fw] += rho
        self.v += rho * d
        return _Step("towards", "good", rho, l_fw)

    def away(self, l_fw, l_aw, objective):
        """Away step from vertex l_aw, rho in [0, mu/(1-mu)] (eqs. 25-27)."""
        mu_away = self.mu[l_aw]
        rho_max = mu_away / (1.0 - mu_away)
        d = self.v - self.atoms[l_aw]
        rho, hit = self.search(d, rho_max, float(d @ (1.0 / self.v)), objective)
        self.mu *= 1.0 + rho
        self.mu[l_aw] -= rho
        if hit:
            self.mu[l_aw] = 0.0
        self.v += rho * d
        return _Step("away", "drop" if hit else "good", rho, l_fw, l_aw)

    def pairwise(self, l_fw, l_aw, objective):
        """Pairwise step moving weight from l_aw to l_fw, rho in [0, mu_aw] (eqs. 29-31)."""
        rho_max = self.mu[l_aw]
        was_active = self.mu[l_fw] > 0
        d = self.atoms[l_fw] - self.atoms[l_aw]
        rho, hit = self.search(d, rho_max, float(d @ (1.0 / self.v)), objective)
        self.mu[l_fw] += rho
        self.mu[l_aw] = 0.0 if hit else self.mu[l_aw] - rho
        self.v += rho * d
        kind = "good"
        if hit and rho_max < 1.0:
            kind = "drop" if was_active else "swap"
        return _Step("pairwise", kind, rho, l_fw, l_aw)

    def prune(self):
        """Remove atoms with mu < ATOM_TOL and renormalise mu (and v) onto the simplex.

        v is recomputed after a removal (a subtraction could cancel to zero); a removal
        that would leave a test point with zero density is undone.
        """
        tiny = np.flatnonzero((self.mu > 0) & (self.mu < ATOM_TOL))
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


def _corrective_newton(engine, l_fw, objective, face_tol, max_inner):
    """Fully-corrective step: a towards step to vertex l_fw, then maximise F over the active face.

    Newton steps for max sum log(A_S' m) s.t. sum m = 1 (equality-constrained: with
    P = B B', B = A_S diag(1/v), the direction is dm = P^-1 (g - lambda 1) with
    1' dm = 0); a ratio test keeps m >= 0 and drops atoms that reach zero; the
    exact line search picks the step. A projected-gradient direction replaces
    Newton when P is singular. Stops when the face gap max_S g - <g, m> <= face_tol.
    """
    engine.towards(l_fw, objective)
    mu = engine.mu
    face = np.flatnonzero(mu)
    A_face = engine.atoms[face]  # rows of the face, kept until an atom drops
    objective = log_objective(engine.v)
    iterations = 0
    for iterations in range(1, max_inner + 1):
        u = 1.0 / engine.v
        grad, hessian = _face_gradient_and_hessian(A_face, u)
        m = mu[face]
        if grad.max() - grad @ m <= face_tol:
            iterations -= 1
            break
        dm = _newton_direction(hessian, grad)
        shrinking = dm < 0
        if not shrinking.any():
            break
        ratios = -m[shrinking] / dm[shrinking]
        rho_max = float(ratios.min())
        d = dm @ A_face
        rho, hit = engine.search(d, rho_max, float(d @ u), objective)
        if rho <= 0:
            break
        mu[face] = m + rho * dm
        engine.v += rho * d
        if hit:
            mu[face[shrinking][ratios <= rho_max * (1 + HIT_TOL)]] = 0.0
        kept = mu[face] > ATOM_TOL
        if not kept.all():
            face, A_face = face[kept], A_face[kept]
        objective = log_objective(engine.v)
    return iterations


def _face_gradient_and_hessian(A_face, u, block_bytes=FACE_BLOCK_BYTES):
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


def _newton_direction(hessian, grad):
    """Equality-constrained Newton direction on the face; projected gradient if singular."""
    jitter = 1e-12 * np.trace(hessian) / len(grad)
    try:
        factor = cho_factor(hessian + jitter * np.eye(len(grad)), lower=True)
        x = cho_solve(factor, grad)
        y = cho_solve(factor, np.ones_like(grad))
        direction = x - (x.sum() / y.sum()) * y
        if np.all(np.isfinite(direction)) and direction @ grad > 0:
            return direction
    except (LinAlgError, ValueError):
        pass
    return grad - grad.mean()


class _FrankWolfeKliep(KliepFamily):
    """Shared parameters and main loop of the Frank-Wolfe KLIEP solvers."""

    _variant = None
    _low_rank_gradient = True

    def __init__(self, sigma="auto", n_centers=None, line_search="exact", tol=1e-4,
                 max_iter=10000, refresh_every=50, armijo_c=0.5, armijo_shrink=0.5,
                 sigma_grid=None, cv=5, random_state=0):
        self.sigma = sigma
        self.n_centers = n_centers
        self.line_search = line_search
        self.tol = tol
        self.max_iter = max_iter
        self.refresh_every = refresh_every
        self.armijo_c = armijo_c
        self.armijo_shrink = armijo_shrink
        self.sigma_grid = sigma_grid
        self.cv = cv
        self.random_state = random_state

    def _check_params(self):
        check_choice(self.line_search, "line_search", {"exact", "armijo"})
        check_positive(self.tol, "tol")
        check_int(self.max_iter, "max_iter", minimum=0)
        check_int(self.refresh_every, "refresh_every")
        for value, name in [(self.armijo_c, "armijo_c"), (self.armijo_shrink, "armijo_shrink")]:
            if not 0 < check_positive(value, name) < 1:
                raise ValueError(f"{name} must lie in (0, 1); got {value!r}.")

    def _fit(self, X_tr, X_te):
        self._check_params()
        return super()._fit(X_tr, X_te)

    def _solve(self, problem):
        engine = _Engine(problem.atoms, covering_start(problem), self.line_search,
                         self.armijo_c, self.armijo_shrink)
        recorder, start = _Recorder(), time.perf_counter()
        self.converged_ = False
        for t in range(self.max_iter + 1):
            objective = log_objective(engine.v)
            active = np.flatnonzero(engine.mu)
            grad, gap = _gradient_and_gap(problem, engine, active, self.tol * abs(objective))
            recorder.add_iterate(active, engine.mu)
            l_fw = int(np.argmax(grad))
            mu_grad = float(grad[active] @ engine.mu[active])
            if gap <= self.tol * abs(objective) or t == self.max_iter:
                self.converged_ = gap <= self.tol * abs(objective)
                recorder.add(objective, gap, _Step("", "final", 0.0, -1), active.size, 0,
                             time.perf_counter() - start)
                break
            step = self._step(engine, grad, active, l_fw, gap, mu_grad, objective)
            engine.prune()
            if (t + 1) % self.refresh_every == 0:
                engine.refresh()
            n_active = np.count_nonzero(engine.mu)
            dropped = int(np.count_nonzero(engine.mu[active] == 0))
            if step.direction == "corrective" and dropped:
                step.kind = "drop"
            recorder.add(objective, gap, step, n_active, dropped, time.perf_counter() - start)
            if step.size <= 0 and step.inner_iterations == 0:
                break  # no ascent possible at machine precision
        self.n_iter_ = t
        self.history_ = recorder.history(problem.beta)
        if not self.converged_:
            warnings.warn(
                f"{type(self).__name__} stopped after {t} iterations with relative duality gap "
                f"{self.history_.gap[-1] / abs(self.history_.objective[-1]):.2e} > tol={self.tol:g}; "
                "increase max_iter or tol (FCFWCS converges in far fewer iterations).",
                ConvergenceWarning,
                stacklevel=5,
            )
        return engine.mu

    def _step(self, engine, grad, active, l_fw, gap, mu_grad, objective):  # pragma: no cover
        raise NotImplementedError


def _gradient_and_gap(problem, engine, active, threshold):
    """The gradient at the iterate and its duality gap (an upper bound when the gradient is low-rank).

    A low-rank gradient serves while its error bound is within GRADIENT_SLACK * threshold,
    or while even the smallest gap it allows exceeds the threshold (the step is then an
    ascent step and the run is certainly not converged); otherwise it is recomputed exactly.
    """
    u = 1.0 / engine.v
    grad, error = problem.gradient(u, max_error=np.inf)
    gap = duality_gap(grad, error, engine.mu, active)
    if np.ndim(error) and error.max() > GRADIENT_SLACK * threshold and \
            gap - 2 * (error.max() + error[active] @ engine.mu[active]) <= threshold:
        grad, error = problem.gradient(u, max_error=0.0)
        gap = duality_gap(grad, error, engine.mu, active)
    return grad, gap


def _away_atom(grad, active):
    """l^AFW: the active atom with the smallest gradient coordinate."""
    return int(active[np.argmin(grad[active])])


class FWCS(_FrankWolfeKliep):
    """Frank-Wolfe Covariate Shift: KLIEP by standard Frank-Wolfe (Algorithm 2).

    Every iteration is a towards step to the vertex argmax_l (g * beta)_l, so every
    step is "good" and all active atoms shrink by (1 - rho).

    Parameters
    ----------
    sigma : float, "median" or "auto" (default)
        Kernel width; "auto" picks it by likelihood cross-validation on held-out test
        folds (``cv_results_``), "median" uses the median heuristic.
    n_centers : int or None
        Seeded subset of test points used as Gaussian centres; None (default) uses all.
    line_search : {"exact", "armijo"}
        Safeguarded Newton on the concave phi(rho), or Algorithm 3 (backtracking).
    tol : float, default 1e-4
        Stop when the duality gap <g, d^FW> <= tol * |F|. Since F is concave the gap
        bounds the suboptimality: F* - F <= gap.
    max_iter : int, default 10000
    refresh_every : int
        Recompute v = K alpha from scratch every this many iterations.
    armijo_c, armijo_shrink : float in (0, 1)
        tau and xi of Algorithm 3.
    sigma_grid : sequence or None, cv : int
        Grid and number of test folds for sigma="auto".
    random_state : int
        Seeds the centre subset and the cross-validation folds.

    Attributes
    ----------
    weights_, alpha_, mu_, centers_, center_index_, objective_, duality_gap_,
    n_iter_, converged_, sigma_, history_ (:class:`FrankWolfeHistory`)
    """

    def _step(self, engine, grad, active, l_fw, gap, mu_grad, objective):
        return engine.towards(l_fw, objective)


class AFWCS(_FrankWolfeKliep):
    """Away-steps Frank-Wolfe Covariate Shift (Algorithm 4).

    The towards vertex is the argmax over *all* atoms (Algorithm 4, line 6 says
    S_t: a typo); the away vertex is the argmin over the active set. The towards
    step is taken when its gap is at least the away gap; an away step that reaches
    rho_max = mu/(1-mu) (eq. 25) is a drop step. Swap steps never occur.
    Parameters and attributes as :class:`FWCS`.
    """

    def _step(self, engine, grad, active, l_fw, gap, mu_grad, objective):
        l_aw = _away_atom(grad, active)
        if gap >= mu_grad - grad[l_aw]:
            return engine.towards(l_fw, objective)
        return engine.away(l_fw, l_aw, objective)


class PFWCS(_FrankWolfeKliep):
    """Pairwise Frank-Wolfe Covariate Shift (Algorithm 5).

    Moves weight rho in [0, mu(l^AFW)] (eq. 29) from the away to the towards atom,
    d = beta^(l_FW) - beta^(l_AFW) (eq. 5); only those two atoms change. A step that
    reaches rho_max < 1 is a drop step if l_FW was already active, else a swap step.
    Parameters and attributes as :class:`FWCS`.
    """

    def _step(self, engine, grad, active, l_fw, gap, mu_grad, objective):
        return engine.pairwise(l_fw, _away_atom(grad, active), objective)


class FCFWCS(_FrankWolfeKliep):
    """Fully-corrective Frank-Wolfe Covariate Shift.

    Each outer iteration computes the full gradient and the duality-gap certificate,
    adds the Frank-Wolfe vertex, then re-optimises F exactly over the active face by
    equality-constrained Newton steps (Hessian A_S' diag(1/v^2) A_S, O(n_te |S|^2)),
    with a ratio test that drops atoms reaching zero and the exact line search; a
    projected-gradient direction replaces Newton when the face Hessian is singular.
    The optimum of KLIEP is very sparse, so few outer iterations are needed.

    Extra parameters
    ----------------
    max_inner : int, default 50
        Newton iterations per face.
    max_face : int, default 150
        When the active set reaches this size (a dense optimum, e.g. a small sigma in high
        dimension) the corrective Newton solve, O(n_te |S|^2), is replaced by a pairwise
        step (as PFWCS) for that iteration.

    Other parameters and attributes as :class:`FWCS`; ``history_.inner_iterations``
    and ``history_.atoms_dropped`` record the corrective phase, ``history_.step_size``
    the weight the new vertex received.
    """

    def __init__(self, sigma="auto", n_centers=None, line_search="exact", tol=1e-4,
                 max_iter=10000, refresh_every=50, armijo_c=0.5, armijo_shrink=0.5,
                 sigma_grid=None, cv=5, random_state=0, max_inner=50, max_face=150):
        super().__init__(sigma=sigma, n_centers=n_centers, line_search=line_search, tol=tol,
                         max_iter=max_iter, refresh_every=refresh_every, armijo_c=armijo_c,
                         armijo_shrink=armijo_shrink, sigma_grid=sigma_grid, cv=cv,
                         random_state=random_state)
        self.max_inner = max_inner
        self.max_face = max_face

    def _check_params(self):
        super()._check_params()
        check_int(self.max_inner, "max_inner")
        check_int(self.max_face, "max_face", minimum=2)

    def _step(self, engine, grad, active, l_fw, gap, mu_grad, objective):
        if active.size >= self.max_face:
            # a dense optimum (small sigma): Newton on the face would cost O(n |S|^2) per
            # iteration, so take the cheap pairwise step instead
            return engine.pairwise(l_fw, _away_atom(grad, active), objective)
        face_tol = 0.1 * self.tol * abs(objective)
        inner = _corrective_newton(engine, l_fw, objective, face_tol, self.max_inner)
        return _Step("corrective", "good", float(engine.mu[l_fw]), l_fw, inner_iterations=inner)
