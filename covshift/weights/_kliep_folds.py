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

#: Trial step sizes of the Frank-Wolfe step towards the entering atom.
FW_STEPS = np.array([1.0, 0.5, 0.25, 0.1, 0.03, 0.01, 3e-3, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8])
#: Trial fractions of the Newton step on the face (capped at the face's boundary, where an
#: atom leaves, which is tried too).
NEWTON_STEPS = np.array([1.0, 0.5, 0.1, 0.01])
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
    """Fully-corrective Frank-Wolfe on K KLIEP problems at once, to a duality gap of ``tol``
    per fitting test point.

    Each iteration, for every fold not yet at its tolerance: (1) the Frank-Wolfe atom
    l = argmax_l dF/dmu_l enters with a step towards it; (2) a Newton step on the face
    spanned by the active atoms and l for L(mu) = F(mu) - n_fit sum(mu), then mu is scaled
    back to the simplex. L <= F(mu / sum mu) with equality on the simplex (log s <= s - 1),
    and the maximisers of L lie on the simplex (mu . grad F = n_fit), so raising L raises F.
    As in FCFWCS, atoms the Newton system would push below zero from zero leave the face
    before the solve, and a step that would make a weight negative stops at the face's
    boundary, where that atom leaves. Both steps are along a line on which the objective is
    concave; the step taken is the largest trial step (FW_STEPS, NEWTON_STEPS) at which the
    directional derivative is still >= 0, so each step raises the objective, judged by
    derivatives (one batched evaluation over all trial steps and folds) rather than by
    differences of objective values, which round-off blurs near the optimum.

    Parameters
    ----------
    problems : FoldProblems
    mu : ndarray (K, b)
        Start, on the simplex of each fold's usable centres (see FoldProblems.start).
    tol : float
        Stop fold k when its Frank-Wolfe gap max_l grad_kl - mu_k . grad_k <= tol n_fit_k. The
        gap bounds F_k* - F_k, so the fitted mean log-density of the fold's test points is
        then within ``tol`` (nats) of its optimum: the unit of the held-out score. (A gap
        relative to |F_k| would demand ever more precision where the two densities nearly
        agree and F_k is close to 0.)
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
        entering, gap = _frank_wolfe_atoms(problems, mu, grad)
        todo = active_folds & (gap > tol * problems.n_fit)
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
    step = _largest_ascent_step(problems.weight, density, atom - density, FW_STEPS[None, :], 0.0) * todo
    mu = (1 - step)[:, None] * mu
    mu[folds, entering] += step
    return mu, (1 - step)[:, None] * density + step[:, None] * atom


def _newton_step_on_face(problems, mu, density, entering, todo):
    folds = np.arange(len(mu))[:, None]
    on_face = mu > 0
    on_face[folds[:, 0], entering] |= todo
    size = int(on_face.sum(axis=1).max())
    index = np.argsort(~on_face, axis=1, kind="stable")[:, :size]  # face atoms first, padded
    free = on_face[folds, index] & todo[:, None]
    atoms = problems.beta[folds, index][:, :, None] * problems.k_te[index]  # (K, s, n)
    scaled = atoms * (np.sqrt(problems.weight) / np.maximum(density, _TINY))[:, None, :]
    hessian = scaled @ scaled.transpose(0, 2, 1)  # minus the Hessian of F on the face
    inverse = problems.weight / np.maximum(density, _TINY)
    slope = np.einsum("ksn,kn->ks", atoms, inverse) - problems.n_fit[:, None]  # gradient of L on the face
    mu_face = mu[folds, index]
    direction = _solve_on(hessian, slope, free)
    leaving = free & (mu_face <= 0) & (direction < 0)
    if leaving.any():
        free &= ~leaving
        direction = _solve_on(hessian, slope, free)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.where((direction < 0) & (mu_face > 0), -mu_face / direction, np.inf)
    to_boundary = ratios.min(axis=1)
    steps = np.minimum(NEWTON_STEPS[None, :], to_boundary[:, None])
    change = np.sum(atoms * direction[:, :, None], axis=1)
    step = _largest_ascent_step(problems.weight, density, change, steps,
                                problems.n_fit * direction.sum(axis=1)) * todo
    mu_face = np.maximum(mu_face + step[:, None] * direction, 0.0)
    mu_face[(step >= to_boundary)[:, None] & (ratios <= to_boundary[:, None])] = 0.0  # the atom leaves
    mu = np.zeros_like(mu)
    mu[folds, index] = np.where(on_face[folds, index], mu_face, 0.0)
    mu /= np.maximum(mu.sum(axis=1, keepdims=True), _TINY)
    return mu, problems.density(mu)


def _largest_ascent_step(weight, density, change, steps, cost):
    """Per fold, the largest of ``steps`` (K or 1, T) at which the concave
    phi(t) = sum_j w_j log(v_j + t c_j) - cost t still has phi'(t) >= 0 (0 if none): then
    phi(t) >= phi(0)."""
    moved = density[:, None, :] + steps[:, :, None] * change[:, None, :]
    slope = np.sum(weight[:, None, :] * change[:, None, :] / np.maximum(moved, _TINY), axis=2)
    ascent = slope >= np.reshape(cost, (-1, 1))
    return np.max(np.where(ascent, np.broadcast_to(steps, ascent.shape), 0.0), axis=1)


def _solve_on(hessian, slope, free):
    """Newton direction on the free coordinates (the others fixed at zero change)."""
    both = free[:, :, None] & free[:, None, :]
    system = np.where(both, hessian, 0.0) + np.eye(hessian.shape[1]) * (~free)[:, :, None]
    scale = np.trace(system, axis1=1, axis2=2) / hessian.shape[1]
    system += 1e-12 * scale[:, None, None] * np.eye(hessian.shape[1])
    return np.where(free, np.linalg.solve(system, np.where(free, slope, 0.0)[:, :, None])[:, :, 0], 0.0)

