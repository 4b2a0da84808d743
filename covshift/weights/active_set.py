"""The active sets of K KLIEP problems over shared atoms, solved together (the folds of the likelihood cross-validation).

The fully-corrective solver of the folds (:func:`.fully_corrective.solve_folds`) works in atom
coordinates, alpha = beta * mu with mu on the unit simplex (fw-covariate-shift-iw-smtgp,
section III-A), and keeps, as FrankWolfe.jl's ``ActiveSet`` does, three things together for each
problem: the atoms, the weights of the active ones and the iterate they make, the test density
v = A' mu (eq. 2: F(mu) = sum_j log v_j). :class:`FoldActiveSet` holds K of them as arrays and
updates them batched. (A single problem's active set lives in the state of the one compiled
Frank-Wolfe loop, :class:`._compiled.LoopState`.)
"""

import numpy as np

#: An atom whose weight mu_l falls below this leaves the active set (unless it
#: alone carries the density of some test point).
ATOM_TOL = 1e-14
_TINY = 1e-300


class FoldActiveSet:
    """The active sets of K problems over the same b atoms, as (K, b) weights and (K, n) iterates.

    Parameters
    ----------
    mu : ndarray (K, b)
        One start per problem, each on its simplex (rows of unsolvable problems may be 0).
    density : callable
        density(mu) -> (K, n), the iterates v_k = A_k' mu_k of the weights (``FoldProblems.density``).
    """

    def __init__(self, mu, density):
        self.mu = mu
        self._density = density
        self.refresh()

    def refresh(self):
        """Recompute every v_k from its weights."""
        self.v = self._density(self.mu)

    def towards(self, entering, rho, atom):
        """mu_k <- (1 - rho_k) mu_k + rho_k e_(entering_k); ``atom`` (K, n) holds A_k[entering_k]."""
        self.mu = (1 - rho)[:, None] * self.mu
        self.mu[np.arange(len(self.mu)), entering] += rho
        self.v = (1 - rho)[:, None] * self.v + rho[:, None] * atom

    def face(self, entering, todo):
        """The active atoms of each problem plus its entering atom (where ``todo``), as a padded
        (K, s) index (face atoms first) and the (K, s) mask of the real entries."""
        on_face = self.mu > 0
        on_face[np.arange(len(self.mu)), entering] |= todo
        size = int(on_face.sum(axis=1).max())
        index = np.argsort(~on_face, axis=1, kind="stable")[:, :size]
        return index, on_face[np.arange(len(index))[:, None], index]

    def set_face(self, index, mu_face, on_face):
        """New weights ``mu_face`` (K, s) on the faces (zero off them), renormalised; v recomputed."""
        mu = np.zeros_like(self.mu)
        mu[np.arange(len(index))[:, None], index] = np.where(on_face, mu_face, 0.0)
        self.mu = mu / np.maximum(mu.sum(axis=1, keepdims=True), _TINY)
        self.refresh()
