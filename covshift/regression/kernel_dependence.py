"""Structured prediction by kernel dependence: HSIC-KNN and KTA-KNN.

The baselines of Bo and Sminchisescu (2010, "Twin Gaussian processes for structured
prediction") that sharma-mittal-tgp reports in its Table 3: the output y of a test
input x is the one that makes the K nearest training points plus the test point
(x, y) look most *dependent*, measured between the input kernel matrix K_X and the
output kernel matrix K_Y of those K + 1 points:

- HSIC-KNN maximises the Hilbert-Schmidt independence criterion (Gretton et al. 2005),
  HSIC = tr(K_X H K_Y H) / (K + 1)^2, H = I - 1 1' / (K + 1);
- KTA-KNN maximises the kernel target alignment (Cristianini and Kandola 2001),
  A = <K_X, K_Y>_F / sqrt(<K_X, K_X>_F <K_Y, K_Y>_F).

Importance weights enter as a weighted empirical measure p over the K + 1 points,
p_i proportional to w_i for the neighbours and to 1 for the test point:
HSIC_p = sum_ij p_i p_j Kc_X,ij Kc_Y,ij with the p-centred kernels Kc = H_p K H_p',
H_p = I - 1 p' (the squared Hilbert-Schmidt norm of the p-weighted cross-covariance),
and <A, B>_p = sum_ij p_i p_j A_ij B_ij in the alignment. w = 1 gives the unweighted
criteria exactly; w_i = 0 removes neighbour i.

Sample weights are not repetition-equivalent: a training point of weight k is *one*
neighbour whose mass in p is k times larger, not k neighbours. Repeating it k times instead
fills k of the K neighbour slots, so the neighbourhoods (and the predictions) differ
(scikit-learn's check_sample_weight_equivalence fails by design; GPR and TwinGP without
``knn`` are repetition-equivalent).

With Gaussian kernels k(y, y) = 1, so both criteria depend on y only through the
vector k_y(y) of output-kernel values to the neighbours' outputs: HSIC is linear in it
and KTA is a ratio of a linear and a quadratic form. The costs therefore plug into the
batched BFGS engine of :class:`~covshift.regression.TwinGP` (same chain rule, eq. 16 of
sharma-mittal-tgp), and all test points are optimised together.
"""

import copy
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import _fit_context
from sklearn.neighbors import NearestNeighbors
from sklearn.utils._param_validation import StrOptions

from .._constraints import POSITIVE, count
from .._validation import check_sample_weight
from ..exceptions import NumericalWarning
from ..kernels import gaussian_from_squared_distances
from ._common import validate_xy
from .tgp import TwinGP


@dataclass
class _Neighbourhood:
    """Per-test-point constants of the criteria (rows = test points, K neighbours)."""

    idx: np.ndarray     # (M, K) neighbour indices
    Y: np.ndarray       # (M, K, dy) neighbour outputs
    linear: np.ndarray  # (M, K) coefficients a of k_y in the numerator (HSIC: the whole cost)
    const: np.ndarray   # (M,) the part of the numerator that does not depend on y
    quad: np.ndarray    # (M, K) KTA: coefficients q of k_y^2 in <K_Y, K_Y>_p (None for HSIC)
    quad_const: np.ndarray  # (M,) KTA: constant part of <K_Y, K_Y>_p
    norm_x: np.ndarray  # (M,) KTA: sqrt(<K_X, K_X>_p)

    def take(self, rows, divergence=None):
        """The constants of the test points ``rows`` (``divergence`` is unused: one criterion)."""
        def pick(a):
            return None if a is None else a[rows]
        return _Neighbourhood(*(pick(getattr(self, f)) for f in self.__dataclass_fields__))


def _batched_gaussian(A, B, rho):
    """exp(-||a - b||^2 / (2 rho^2)) for stacks A (M, n, d), B (M, m, d) -> (M, n, m), for any rho > 0
    (:func:`covshift.kernels.gaussian_from_squared_distances`: no overflow of rho^2, no 0/0)."""
    d2 = (np.sum(A**2, axis=2)[:, :, None] + np.sum(B**2, axis=2)[:, None, :]
          - 2 * np.einsum("mid,mjd->mij", A, B))
    return gaussian_from_squared_distances(np.maximum(d2, 0.0), rho)


def _warn_degenerate_input_kernel(estimator, Kx):
    """NumericalWarning naming rho_x when the input kernel of every neighbourhood is flat (all ones: rho_x far
    larger than the distances) or the identity (rho_x far smaller): the inputs then say nothing about which
    neighbour's output fits."""
    off = Kx[:, ~np.eye(Kx.shape[1], dtype=bool)]  # the kernel between different points of each neighbourhood
    if off.size == 0:
        return
    if off.min() >= 1 - 1e-12:
        what = "so large that every input kernel value is 1"
    elif off.max() <= 1e-300:
        what = "so small that the input kernel between any two different points is 0"
    else:
        return
    warnings.warn(f"{type(estimator).__name__}: rho_x={float(estimator.rho_x):.3g} is {what}: the inputs cannot tell "
                  "the neighbours apart (each counts the same, whatever its distance to the test point). Use a rho_x "
                  "near the distances between the inputs.", NumericalWarning, stacklevel=4)


def _joint_input_kernel(X_nbr, X, rho):
    """K_X of the K neighbours plus the test point (last row/column): (M, K + 1, K + 1)."""
    points = np.concatenate([X_nbr, X[:, None, :]], axis=1)
    return _batched_gaussian(points, points, rho)


def _measure(w_nbr):
    """The weighted empirical measure p over neighbours and test point (test point weight 1)."""
    p = np.concatenate([w_nbr, np.ones((len(w_nbr), 1))], axis=1)
    return p / p.sum(axis=1, keepdims=True)


def _centred(K, p):
    """H_p K H_p' with H_p = I - 1 p': K - 1 (p'K) - (K p) 1' + (p'K p) 1 1'."""
    m = np.einsum("mij,mj->mi", K, p)
    c = np.einsum("mi,mi->m", p, m)
    return K - m[:, None, :] - m[:, :, None] + c[:, None, None]


class _KernelDependenceKNN(TwinGP):
    """Shared fit / neighbourhood / prediction of HSIC-KNN and KTA-KNN (see module doc).

    Subclasses set ``divergence`` and implement ``_constants`` and ``_criterion``.
    Prediction is inherited from :class:`TwinGP` (batched BFGS on all test points).
    """

    divergence = None  # "hsic" or "kta", fixed per subclass

    def __init__(self, n_neighbors=50, rho_x=float(np.sqrt(2.5)), rho_y=float(np.sqrt(0.025)),
                 max_iter=50, tol=1e-8, init="best_neighbor"):
        self.n_neighbors = n_neighbors
        self.rho_x = rho_x
        self.rho_y = rho_y
        self.max_iter = max_iter
        self.tol = tol
        self.init = init

    def predict(self, X, return_certainty=False):
        """The outputs of maximal dependence at every row of X (TwinGP's batched BFGS).

        Changes nothing in the estimator (the BFGS diagnostics of the call are not kept), so
        predictions do not depend on earlier calls.

        Parameters
        ----------
        X : array-like of shape (M, dx)
            Test inputs.
        return_certainty : bool, default False
            Also return the criterion at the predictions.

        Returns
        -------
        Y_hat : ndarray of shape (M, dy)
            The predictions ((M,) if fitted on 1-D y).
        certainty : ndarray of shape (M,)
            The criterion (HSIC_p or the alignment A_p), only with ``return_certainty``.
        """
        return TwinGP.predict(copy.copy(self), X, return_certainty=return_certainty)

    @property
    def knn(self):
        """Neighbourhood size, under TwinGP's name (its memory check models K x K systems)."""
        return self.n_neighbors

    _parameter_constraints = {
        "n_neighbors": [count(1)],
        "rho_x": [POSITIVE],
        "rho_y": [POSITIVE],
        "max_iter": [count(0)],
        "tol": [POSITIVE],
        "init": [StrOptions({"best_neighbor", "mean"}), "array-like"],
    }

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Store the training data (and weights) and index the inputs for neighbour search.

        Parameters
        ----------
        X : array-like of shape (n, dx)
            Training inputs.
        y : array-like of shape (n,) or (n, dy)
            Training outputs.
        sample_weight : array-like of shape (n,) or None, default None
            Importance weights: the weighted empirical measure p of the criterion (None: all 1).

        Returns
        -------
        self
            The fitted model.
        """
        X, Y, self._y_1d = validate_xy(self, X, y)
        self.weight_ = check_sample_weight(sample_weight, len(X))
        self.X_train_, self.Y_train_ = X, Y
        self.n_outputs_ = Y.shape[1]
        self.neighbors_ = NearestNeighbors(n_neighbors=min(self.n_neighbors, len(X))).fit(X)
        return self

    def _local(self, X):
        idx = self.neighbors_.kneighbors(X, return_distance=False)
        Y_nbr = self.Y_train_[idx]
        p = _measure(self.weight_[idx])
        Kx = _joint_input_kernel(self.X_train_[idx], X, self.rho_x)
        _warn_degenerate_input_kernel(self, Kx)
        Ky_nbr = _batched_gaussian(Y_nbr, Y_nbr, self.rho_y)
        return _Neighbourhood(idx, Y_nbr, *self._constants(Kx, Ky_nbr, p))

    def _initial_outputs(self, X, local):
        """Start at the neighbour output with the best criterion ("best_neighbor"), the
        weighted neighbour mean ("mean"), or a user array."""
        if not isinstance(self.init, str):
            return super()._initial_outputs(X, local)
        if self.init == "mean":
            p = _measure(self.weight_[local.idx])[:, :-1]
            return np.einsum("mk,mkd->md", p / p.sum(axis=1, keepdims=True), local.Y)
        costs = np.stack([self._criterion(self._ky(local.Y[:, j], local), local)[0]
                          for j in range(local.Y.shape[1])], axis=1)
        best = np.argmin(costs, axis=1)
        return local.Y[np.arange(len(best)), best].copy()

    def _ky(self, Yh, local):
        """k_y(y) to each neighbour's output: (M, K)."""
        d2 = np.sum((Yh[:, None, :] - local.Y) ** 2, axis=2)
        return gaussian_from_squared_distances(d2, self.rho_y)

    def cost_and_gradient(self, Yh, local, divergence=None):
        """Minus the criterion at candidate outputs Yh (M, dy), and its gradient in y.

        Parameters
        ----------
        Yh : ndarray of shape (M, dy)
            Candidate outputs, one per test point.
        local : object
            The neighbourhoods of the test points (internal).
        divergence : None
            Unused (TwinGP's signature).

        Returns
        -------
        cost : ndarray of shape (M,)
            Minus the criterion.
        gradient : ndarray of shape (M, dy)
            Its gradient in y.
        """
        ky = self._ky(Yh, local)
        cost, dk = self._criterion(ky, local)
        return cost, self._chain(dk, ky, Yh, local)

    def certainty(self, Y_hat, local):
        """The criterion (HSIC_p or the alignment) at the prediction.

        Parameters
        ----------
        Y_hat : ndarray of shape (M, dy)
            The predictions.
        local : object
            The neighbourhoods of the test points (internal).

        Returns
        -------
        ndarray of shape (M,)
            The criterion at each prediction.
        """
        return -self._criterion(self._ky(Y_hat, local), local)[0]


class HSICKNN(_KernelDependenceKNN):
    """HSIC-KNN: the output that maximises HSIC between inputs and outputs of the K
    nearest training points plus the test point (Bo and Sminchisescu 2010; the criterion
    of Gretton et al. 2005, eq. (4) there, with a weighted empirical measure).

    HSIC_p = tr(P Kc_X P Kc_Y), Kc = H_p K H_p' (module doc). With B = H_p' P Kc_X P H_p,
    HSIC_p(y) = sum_{i,j <= K} B_ij K_Y,ij + B_tt + 2 sum_i B_it k_y,i(y): linear in k_y.

%(parameters)s

    See Also
    --------
    KTAKNN : The kernel target alignment instead of HSIC.
    TwinGP : The Twin GPs, which these share their BFGS search with.

    Notes
    -----
    ``predict`` sets no attribute, as :class:`TwinGP`'s (``_predict`` gives the BFGS diagnostics).
    ``predict(X, return_certainty=True)`` also returns HSIC_p at the prediction.

    References
    ----------
    L. Bo and C. Sminchisescu (2010). Twin Gaussian processes for structured prediction. *IJCV* 87.
    A. Gretton, O. Bousquet, A. Smola and B. Schoelkopf (2005). Measuring statistical dependence
    with Hilbert-Schmidt norms. *ALT* (eq. 4).

    Examples
    --------
    >>> from covshift import HSICKNN, data
    >>> toy = data.s_shape(n_tr=100, n_te=10, random_state=0)
    >>> HSICKNN(n_neighbors=20).fit(toy.X_tr, toy.Y_tr).predict(toy.X_te).shape
    (10, 1)
    """

    divergence = "hsic"

    def _constants(self, Kx, Ky_nbr, p):
        G = p[:, :, None] * _centred(Kx, p) * p[:, None, :]      # P Kc_X P
        col = G.sum(axis=1)                                      # 1' G (= G 1, symmetric)
        total = col.sum(axis=1)                                  # 1' G 1
        B_last = G[:, :, -1] - p * col[:, -1:] - col * p[:, -1:] + total[:, None] * p * p[:, -1:]
        B_block = (G - p[:, :, None] * col[:, None, :] - col[:, :, None] * p[:, None, :]
                   + total[:, None, None] * p[:, :, None] * p[:, None, :])
        const = np.einsum("mij,mij->m", B_block[:, :-1, :-1], Ky_nbr) + B_last[:, -1]
        return 2 * B_last[:, :-1], const, None, None, None

    def _criterion(self, ky, local):
        cost = -(local.const + np.sum(local.linear * ky, axis=1))
        return cost, -local.linear


class KTAKNN(_KernelDependenceKNN):
    """KTA-KNN: the output that maximises the kernel target alignment between the input and
    output kernel matrices of the K nearest training points plus the test point (Bo and
    Sminchisescu 2010; the alignment of Cristianini and Kandola 2001, definition 1, with a
    weighted empirical measure).

    A_p(y) = <K_X, K_Y>_p / sqrt(<K_X, K_X>_p <K_Y, K_Y>_p), <A, B>_p = sum_ij p_i p_j A_ij B_ij.
    With k = k_y(y): <K_X, K_Y>_p = c + a'k, a_i = 2 p_i p_t K_X,it, and
    <K_Y, K_Y>_p = d + q'(k * k), q_i = 2 p_i p_t.

    ``return_certainty`` gives A_p in (0, 1].

%(parameters)s

    See Also
    --------
    HSICKNN : HSIC instead of the alignment.

    References
    ----------
    L. Bo and C. Sminchisescu (2010). Twin Gaussian processes for structured prediction. *IJCV* 87.
    N. Cristianini and J. Kandola (2001). On kernel-target alignment. *NIPS 14* (definition 1).

    Examples
    --------
    >>> from covshift import KTAKNN, data
    >>> toy = data.s_shape(n_tr=100, n_te=10, random_state=0)
    >>> Y_hat, alignment = KTAKNN(n_neighbors=20).fit(toy.X_tr, toy.Y_tr).predict(toy.X_te, return_certainty=True)
    >>> Y_hat.shape, bool(((alignment > 0) & (alignment <= 1 + 1e-12)).all())
    ((10, 1), True)
    """

    divergence = "kta"

    def _constants(self, Kx, Ky_nbr, p):
        pp = p[:, :, None] * p[:, None, :]
        cross = 2 * p[:, :-1] * p[:, -1:]                        # 2 p_i p_t
        linear = cross * Kx[:, :-1, -1]
        const = np.einsum("mij,mij->m", pp[:, :-1, :-1] * Kx[:, :-1, :-1], Ky_nbr) + pp[:, -1, -1]
        quad_const = np.einsum("mij,mij->m", pp[:, :-1, :-1], Ky_nbr**2) + pp[:, -1, -1]
        norm_x = np.sqrt(np.einsum("mij,mij->m", pp, Kx**2))
        return linear, const, cross, quad_const, norm_x

    def _criterion(self, ky, local):
        numerator = local.const + np.sum(local.linear * ky, axis=1)
        norm_y2 = local.quad_const + np.sum(local.quad * ky**2, axis=1)
        scale = 1.0 / (local.norm_x * np.sqrt(norm_y2))
        alignment = numerator * scale
        d_alignment = (local.linear * scale[:, None]
                       - (alignment / norm_y2)[:, None] * local.quad * ky)
        return -alignment, -d_alignment


_PARAMETERS = """    Parameters
    ----------
    n_neighbors : int, default 50
        K, the neighbourhood of each test point in input space.
    rho_x : float, default sqrt(2.5)
        Input kernel width, exp(-||a - b||^2 / (2 rho^2)); the default as TwinGP (Toy 1 of
        sharma-mittal-tgp, Table 1).
    rho_y : float, default sqrt(0.025)
        Output kernel width; the default as TwinGP.
    max_iter : int, default 50
        BFGS iterations per test point.
    tol : float, default 1e-8
        A test point has converged when its step is below tol * rho_y.
    init : {"best_neighbor", "mean"} or array of shape (M, dy), default "best_neighbor"
        Start of the BFGS search: the neighbour output with the largest criterion (the
        criterion is multi-modal in y), the weighted neighbour mean, or user outputs.

    Attributes
    ----------
    weight_ : ndarray of shape (n,)
        The importance weights of the training points (all 1 without ``sample_weight``).
    X_train_, Y_train_ : ndarray
        The training inputs and outputs.
    n_outputs_ : int
        dy.
    neighbors_ : sklearn.neighbors.NearestNeighbors
        The index of the training inputs."""

for _estimator in (HSICKNN, KTAKNN):  # one text for the parameters the two share
    if _estimator.__doc__:  # None under python -OO
        _estimator.__doc__ = _estimator.__doc__.replace("%(parameters)s", _PARAMETERS)
