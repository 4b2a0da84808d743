"""The KLIEP problems of the K folds of a likelihood cross-validation, as masks over one shared kernel matrix.

Likelihood cross-validation of the KLIEP width (:func:`covshift.weights.sigma.kliep_sigma`)
fits KLIEP on K folds at each width. The folds share the centres and the kernel values
k(c_l, x); they differ only in which test points enter the objective, which training
points normalise the weights, and which centres are available (a held-out test point is
not a centre of its fold). :class:`FoldProblems` holds the K problems as masks over the
shared kernels; :func:`covshift.weights.fully_corrective.solve_folds` runs the fully-corrective
Frank-Wolfe solver of :class:`covshift.weights.FCFWCS` on all K at once, each step one batched
numpy operation instead of K Python-level solves.

Problem of fold k, in atom coordinates (eq. 2 of fw-covariate-shift-iw-smtgp):

    max_{mu in simplex}  F_k(mu) = sum_{j in fit_k} log v_kj,   v_kj = sum_l mu_l beta_kl k(c_l, x_j),

with beta_kl = 1 / mean_{i in fit_tr_k} k(c_l, x_tr_i), so that mu on the simplex is the
normalisation constraint (1/n_tr) sum_i w(x_tr_i) = 1.
"""

import numpy as np

from ._kliep_problem import MIN_DENSITY, MIN_MEAN_KERNEL

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

        The held-out likelihood score of :func:`covshift.weights.sigma.kliep_sigma`.
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
