"""Several KLIEP problems that share one kernel matrix, solved together.

Likelihood cross-validation of the KLIEP width (:func:`covshift.model_selection.kliep_sigma`)
fits KLIEP on K folds at each width. The folds share the centres and the kernel values
k(c_l, x); they differ only in which test points enter the objective, which training
points normalise the weights, and which centres are available (a held-out test point is
not a centre of its fold). :class:`FoldProblems` holds the K problems as masks over the
shared kernels and :func:`solve_folds` runs the fully-corrective Frank-Wolfe method of
:class:`covshift.weights.FCFWCS` on all K at once, each step one batched numpy operation
instead of K Python-level solves.

Problem of fold k, in atom coordinates (eq. 2 of fw-covariate-shift-iw-smtgp):

    max_{mu in simplex}  F_k(mu) = sum_{j in fit_k} log v_kj,   v_kj = sum_l mu_l beta_kl k(c_l, x_j),

with beta_kl = 1 / mean_{i in fit_tr_k} k(c_l, x_tr_i), so that mu on the simplex is the
normalisation constraint (1/n_tr) sum_i w(x_tr_i) = 1.
"""

import numpy as np

from ._kliep_problem import MIN_DENSITY, MIN_MEAN_KERNEL

#: Trial step sizes of the Frank-Wolfe step towards the new atom (0 = stay).
FW_STEPS = np.array([0.0, 1.0, 0.5, 0.25, 0.1, 0.03, 0.01, 0.003, 0.001])
#: Trial fractions of the Newton step on the face (0 = stay; the step to the face's
#: boundary, which drops an atom, is tried too).
NEWTON_STEPS = np.array([0.0, 1.0, 0.5, 0.25, 0.1])
#: Trial fractions of the Newton step projected onto the non-negative orthant.
PROJECTED_STEPS = np.array([1.0, 0.5])
_TINY = 1e-300


class FoldProblems:
    """The KLIEP problems of K folds at one width, over shared centres.

    Parameters
    ----------
    k_te : ndarray (b, n_te)
        Kernel between the b centres and all test points.
    k_tr : ndarray (b, n_tr)
        Kernel between the centres and all training points.
    fit_te, fit_tr : ndarray of bool (K, n_te), (K, n_tr)
        The points each fold fits on.
    available : ndarray of bool (K, b)
        The centres each fold may use (those among its fitting test points).

    Attributes
    ----------
    usable : (K, b) bool     available centres with kernel mass on the fold's training points
    beta : (K, b)            1 / mean kernel over the fold's training points (0 if unusable)
    weight : (K, n_te)       1.0 on the fitting test points some usable centre covers, else 0
    """

    def __init__(self, k_te, k_tr, fit_te, fit_tr, available):
        self.k_te, self.k_tr = k_te, k_tr
        self.fit_te, self.fit_tr = fit_te, fit_tr
        mean_kernel = (fit_tr @ k_tr.T) / np.maximum(fit_tr.sum(axis=1, keepdims=True), 1)
        self.usable = available & (mean_kernel > MIN_MEAN_KERNEL)
        self.beta = np.where(self.usable, 1.0 / np.where(self.usable, mean_kernel, 1.0), 0.0)
        # a fitting test point no usable atom reaches would put log 0 in the objective: it is
        # left out, as build_kliep_problem does for a single problem
        self.weight = (fit_te & self._covered_points()).astype(float)
        self.n_fit = self.weight.sum(axis=1)
        self.solvable = self.usable.any(axis=1) & (self.n_fit > 0)

    def _covered_points(self):
        """(K, n_te): some usable atom beta_kl k(c_l, x_j) exceeds MIN_DENSITY. The sum over the
        b atoms decides most points (sum <= MIN_DENSITY: none does; sum > b MIN_DENSITY: the
        largest does); the maximum is taken only over the columns in between."""
        total = self.beta @ self.k_te
        covered = total > len(self.k_te) * MIN_DENSITY
        unclear = np.argwhere(~covered & (total > MIN_DENSITY))
        if unclear.size:
            folds, points = unclear[:, 0], unclear[:, 1]
            largest = np.max(self.beta[folds] * self.k_te[:, points].T, axis=1)
            covered[folds, points] = largest > MIN_DENSITY
        return covered

    def density(self, mu):
        """v_k = sum_l mu_kl beta_kl k(c_l, .) at every test point, (K, n_te)."""
        return (mu * self.beta) @ self.k_te

    def objective(self, density):
        """F_k = sum_{j in fit_k} log v_kj; ``density`` is (K, n_te) or (K, trials, n_te)."""
        weight = self.weight if density.ndim == 2 else self.weight[:, None, :]
        return np.sum(weight * np.log(np.maximum(density, _TINY)), axis=-1)

    def gradient(self, density):
        """dF_k / dmu_l = beta_kl sum_j k(c_l, x_j) / v_kj, (K, b)."""
        return self.beta * ((self.weight / np.maximum(density, _TINY)) @ self.k_te.T)

    def held_out_scores(self, mu):
        """mean_{held-out test} log w - log mean_{held-out train} w per fold (-inf where w vanishes).

        The held-out likelihood score of :func:`covshift.model_selection.kliep_sigma`.
        """
        alpha = mu * self.beta
        w_te, w_tr = alpha @ self.k_te, alpha @ self.k_tr
        held_te, held_tr = ~self.fit_te, ~self.fit_tr
        log_w = np.log(np.maximum(w_te, _TINY))
        mean_log_te = np.sum(held_te * log_w, axis=1) / held_te.sum(axis=1)
        mean_tr = np.sum(held_tr * w_tr, axis=1) / held_tr.sum(axis=1)
        valid = self.solvable & ~np.any(held_te & (w_te <= 0), axis=1) & (mean_tr > 0)
        with np.errstate(divide="ignore"):
            return np.where(valid, mean_log_te - np.log(np.where(valid, mean_tr, 1.0)), -np.inf)

    def start(self, previous=None, log_k_te=None):
        """Warm start: ``previous`` (the solution at a neighbouring width) on the usable centres,
        half of it moved to atoms covering the fitting points it leaves at zero density.
        Without one, the single atom of largest objective, sum_j log(beta_l k(c_l, x_j)),
        computed from ``log_k_te`` = log k(c_l, x_j) (a vertex of the simplex)."""
        if previous is None:
            single = self.n_fit[:, None] * np.log(np.where(self.usable, self.beta, 1.0)) + self.weight @ log_k_te.T
            mu = np.zeros_like(self.beta)
            mu[np.arange(len(mu)), np.argmax(np.where(self.usable, single, -np.inf), axis=1)] = 1.0
            return mu * self.solvable[:, None]
        mu = np.where(self.usable, previous, 0.0)
        lost = self.solvable & (mu.sum(axis=1) <= 0)
        mu[lost] = self.usable[lost]
        mu /= np.maximum(mu.sum(axis=1, keepdims=True), _TINY)
        uncovered = (self.weight > 0) & (self.density(mu) <= MIN_DENSITY)
        for k in np.flatnonzero(uncovered.any(axis=1)):
            mu[k] = self._cover(k, mu[k], np.flatnonzero(uncovered[k]))
        return mu

    def _cover(self, k, mu, points):
        atoms = np.where(self.usable[k][:, None], self.beta[k][:, None] * self.k_te[:, points], -1.0)
        cover = np.unique(np.argmax(atoms, axis=0))
        mu = 0.5 * mu
        mu[cover] += 0.5 / len(cover)
        return mu


def solve_folds(problems, mu, tol, max_iter=200):
    """Fully-corrective Frank-Wolfe on K KLIEP problems at once, to relative duality gap ``tol``.

    Each iteration, for every fold not yet at its tolerance: (1) the Frank-Wolfe atom
    l = argmax_l dF/dmu_l enters, with a step chosen by trying the steps FW_STEPS on the
    fold's objective (one batched evaluation, the density being linear in mu); (2) a Newton
    step on the face spanned by the active atoms and l maximises
    F(mu) - n_fit sum(mu) (whose maximisers lie on the simplex, since mu . grad F = n_fit),
    projected back to the simplex, with the step to the face's boundary (dropping an atom)
    when a full step leaves it, and the best of NEWTON_STEPS. As in FCFWCS, atoms the Newton
    system would push below zero from zero leave the face before the solve.

    Parameters
    ----------
    problems : FoldProblems
    mu : ndarray (K, b)
        Start, on the simplex of each fold's usable centres (see FoldProblems.start).
    tol : float
        Relative duality gap: stop fold k when max_l grad_kl - mu_k . grad_k <= tol |F_k|.
    max_iter : int

    Returns
    -------
    mu : ndarray (K, b)
    n_iter : int
    converged : ndarray of bool (K,)
    """
    active_folds = problems.solvable.copy()
    density = problems.density(mu)
    for n_iter in range(max_iter + 1):
        grad = problems.gradient(density)
        objective = problems.objective(density)
        entering, gap = _frank_wolfe_atoms(problems, mu, grad)
        todo = active_folds & (gap > tol * np.abs(objective))
        if not todo.any() or n_iter == max_iter:
            break
        mu, density = _frank_wolfe_step(problems, mu, density, entering, todo)
        mu, density = _newton_step_on_face(problems, mu, density, entering, todo)
    return mu, n_iter, ~todo


def _frank_wolfe_atoms(problems, mu, grad):
    """The Frank-Wolfe atom of each fold and the duality gap max_l grad_l - mu . grad."""
    usable_grad = np.where(problems.usable, grad, -np.inf)
    entering = np.argmax(usable_grad, axis=1)
    best = usable_grad[np.arange(len(mu)), entering]
    gap = np.where(problems.solvable, best - np.sum(mu * grad, axis=1), 0.0)
    return entering, gap


def _frank_wolfe_step(problems, mu, density, entering, todo):
    folds = np.arange(len(mu))
    atom = problems.beta[folds, entering][:, None] * problems.k_te[entering]
    trials = (1 - FW_STEPS)[None, :, None] * density[:, None, :] + FW_STEPS[None, :, None] * atom[:, None, :]
    step = FW_STEPS[np.argmax(problems.objective(trials), axis=1)] * todo
    mu = (1 - step)[:, None] * mu
    mu[folds, entering] += step
    return mu, (1 - step)[:, None] * density + step[:, None] * atom


def _newton_step_on_face(problems, mu, density, entering, todo):
    folds = np.arange(len(mu))
    on_face = mu > 0
    on_face[folds, entering] |= todo
    size = int(on_face.sum(axis=1).max())
    index = np.argsort(~on_face, axis=1, kind="stable")[:, :size]  # face atoms first, padded
    free = np.take_along_axis(on_face, index, axis=1) & todo[:, None]
    atoms = np.take_along_axis(problems.beta, index, axis=1)[:, :, None] * problems.k_te[index]  # (K, s, n)
    curvature = problems.weight / np.maximum(density, _TINY) ** 2
    hessian = (atoms * curvature[:, None, :]) @ atoms.transpose(0, 2, 1)  # minus the Hessian of F
    slope = np.take_along_axis(problems.gradient(density), index, axis=1) - problems.n_fit[:, None]
    mu_face = np.take_along_axis(mu, index, axis=1)
    direction = _solve_on(hessian, slope, free)
    leaving = free & (mu_face <= 0) & (direction < 0)
    if leaving.any():
        free &= ~leaving
        direction = _solve_on(hessian, slope, free)
    with np.errstate(divide="ignore", invalid="ignore"):
        to_boundary = np.min(np.where((direction < 0) & (mu_face > 0), -mu_face / direction, np.inf), axis=1)
    steps = np.minimum(NEWTON_STEPS[None, :], to_boundary[:, None])
    steps = np.concatenate([steps, np.where(to_boundary < 1, to_boundary, 0.0)[:, None]], axis=1)
    trials = mu_face[:, None, :] + steps[:, :, None] * direction[:, None, :]
    # the projections of full and half steps can drop several atoms at once
    projected = mu_face[:, None, :] + PROJECTED_STEPS[None, :, None] * direction[:, None, :]
    trials = np.maximum(np.concatenate([trials, projected], axis=1), 0.0)
    trials /= np.maximum(trials.sum(axis=2, keepdims=True), _TINY)
    values = problems.objective(trials @ atoms)
    mu_face = trials[folds, np.argmax(values, axis=1)]
    mu_face[mu_face < 1e-12 * mu_face.max(axis=1, keepdims=True)] = 0.0
    mu = np.zeros_like(mu)
    np.put_along_axis(mu, index, np.where(np.take_along_axis(on_face, index, axis=1), mu_face, 0.0), axis=1)
    mu /= np.maximum(mu.sum(axis=1, keepdims=True), _TINY)
    return mu, problems.density(mu)


def _solve_on(hessian, slope, free):
    """Newton direction on the free coordinates (the others fixed at zero change)."""
    both = free[:, :, None] & free[:, None, :]
    system = np.where(both, hessian, 0.0) + np.eye(hessian.shape[1]) * (~free)[:, :, None]
    scale = np.trace(system, axis1=1, axis2=2) / hessian.shape[1]
    system += 1e-12 * scale[:, None, None] * np.eye(hessian.shape[1])
    return np.where(free, np.linalg.solve(system, np.where(free, slope, 0.0)[:, :, None])[:, :, 0], 0.0)

