"""The active set of a Frank-Wolfe run on the simplex: atoms, their weights mu and the iterate v = A' mu.

Every Frank-Wolfe solver of KLIEP (fw-covariate-shift-iw-smtgp, Algorithms 2, 4, 5 and the
fully-corrective FCFWCS) works in atom coordinates, alpha = beta * mu with mu on the unit
simplex (section III-A), and keeps, as FrankWolfe.jl's ``ActiveSet`` does, three things
together: the atoms, the weights of the active ones and the iterate they make. Here the iterate
is the test density v = A' mu (eq. 2: F(mu) = sum_j log v_j), kept up to date incrementally by
every update. :class:`ActiveSet` is one problem; :class:`FoldActiveSet` is K problems over
shared atoms (the folds of the likelihood cross-validation), with the same updates, batched.
"""

import numpy as np

#: An atom whose weight mu_l falls below this leaves the active set (unless it
#: alone carries the density of some test point).
ATOM_TOL = 1e-14
_TINY = 1e-300


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
