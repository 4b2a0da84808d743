"""The original KLIEP by projected gradient ascent (Sugiyama et al. 2008), run to convergence."""

import time
import warnings

import numpy as np

from sklearn.utils._param_validation import StrOptions

from .._constraints import POSITIVE, count
from ..exceptions import ConvergenceWarning
from ._kliep_base import KliepFamily
from ._line_search import log_objective

#: Backtracking gives up when the step has shrunk by this factor below its start
#: (no ascent possible at machine precision).
_MIN_STEP_RATIO = 1e-30


class KLIEP(KliepFamily):
    """Kullback-Leibler Importance Estimation Procedure, the paper's baseline.

    Standardise the inputs first (centre each column and divide it by its standard deviation over
    training and test inputs together): one kernel width serves every column (:class:`WeightEstimator`).

    Maximises F(alpha) = sum_j log(sum_l alpha_l k(x_te_j, c_l)) subject to
    mean_i w(x_tr_i) = 1 and alpha >= 0 (eq. 2 of fw-covariate-shift-iw-smtgp)
    by projected gradient ascent, the method of Sugiyama et al. (2008): step along
    the gradient K' (1 / K alpha), then project back onto the constraint set.

    The iteration runs in the atom coordinates mu = alpha / beta of the Frank-Wolfe
    solvers (section III-A), where the constraint set is the unit simplex. Sugiyama's
    fixed learning-rate schedule is replaced by a step size that adapts at every
    iteration: it is doubled, then halved until the projected step passes the
    sufficient-increase test F(mu+) >= F(mu) + g'(mu+ - mu) - ||mu+ - mu||^2 / (2 t)
    (backtracking for projected gradient, Beck and Teboulle 2009). With ``momentum``
    (default) the gradient is taken at an extrapolated point (Nesterov / FISTA) and the
    momentum is reset whenever F decreases (adaptive restart, O'Donoghue and Candes
    2015); without it the method is plain projected gradient, which needs 10-50 times
    more iterations on the paper's data.

    The run stops when the Frank-Wolfe duality gap of its centre problem,
    max_l g_l - <g, mu> (an upper bound on F* - F, F being concave), is at most
    ``tol * |F|``; only then is ``converged_`` True.

    Parameters
    ----------
    sigma : float or "auto", default "auto"
        Kernel width; "auto" is :func:`covshift.model_selection.kliep_sigma` (one width
        for the whole KLIEP family).
    n_centers : int or None, default 100
        Seeded random subset of test points as Gaussian centres (None: all).
    max_iter : int >= 1, default 20000
        Total number of projected-gradient iterations.
    tol : float, default 1e-4
        Stop when the duality gap is at most ``tol * |F|`` (as the Frank-Wolfe solvers).
    projection : {"exact", "sugiyama"}, default "exact"
        "exact" is the Euclidean projection onto the simplex (projected gradient
        proper, converges to the optimum); "sugiyama" is the heuristic of the original
        code (project onto the hyperplane, clip, rescale), which is not a projection and
        may stop short (then ``converged_`` is False).
    momentum : bool, default True
        Nesterov extrapolation with adaptive restart.
    sigma_grid : sequence of float or None, default None
        Candidate widths for ``sigma="auto"`` (None: :func:`covshift.model_selection.default_sigma_grid`).
    cv : int, default 5
        Number of folds of the likelihood cross-validation of ``sigma="auto"``.
    random_state : None, int or RandomState, default 0
        Seeds the centre subset and the cross-validation folds.

    Attributes
    ----------
    weights_ : ndarray of shape (n_tr,)
        Importance weights of the training points, mean 1.
    alpha_ : ndarray of shape (n_centers,)
        Mixture coefficients of w(x) = sum_l alpha_l k(x, c_l).
    mu_ : ndarray of shape (n_centers,)
        The same solution in atom coordinates, on the unit simplex (alpha = beta * mu).
    centers_ : ndarray of shape (n_centers, d)
        The Gaussian centres (test points).
    center_index_ : ndarray of shape (n_centers,)
        Their rows in ``X_te``.
    objective_ : float
        F at the solution, the test log-likelihood of the weights.
    n_iter_ : int
        Iterations run.
    sigma_ : float
        The kernel width used.
    duality_gap_ : float
        Frank-Wolfe gap of the returned solution on its centre problem (F* - F <= gap).
    converged_ : bool
        ``duality_gap_ <= tol * |objective_|``.
    history_ : dict of ndarray
        Per-iteration ``objective``, ``gap`` (at the iterate), ``step_size`` (t) and ``elapsed`` (s).

    See Also
    --------
    FCFWCS : The same objective on all test points as centres, solved exactly with a certificate.
    FWCS : KLIEP by standard Frank-Wolfe (Algorithm 2 of Chapaneri and Jayaswal).
    covshift.model_selection.kliep_sigma : The width that ``sigma="auto"`` chooses.

    References
    ----------
    M. Sugiyama, T. Suzuki, S. Nakajima, H. Kashima, P. von Buenau and M. Kawanabe (2008). Direct
    importance estimation for covariate shift adaptation. *Annals of the Institute of Statistical
    Mathematics* 60(4), 699-746. The objective as written in eq. 2 of S. V. Chapaneri and
    D. J. Jayaswal (2019), Covariate shift adaptation for structured regression with Frank-Wolfe
    algorithms, *IEEE Access* 7.

    Examples
    --------
    >>> from covshift import KLIEP, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> kliep = KLIEP(sigma=0.3).fit(shift.X_tr, shift.X_te)
    >>> kliep.weights_.shape, round(float(kliep.weights_.mean()), 6)
    ((100,), 1.0)
    >>> bool(kliep.converged_)
    True
    """

    def __init__(self, sigma="auto", n_centers=100, max_iter=20000, tol=1e-4,
                 projection="exact", momentum=True, sigma_grid=None, cv=5, random_state=0):
        self.sigma = sigma
        self.n_centers = n_centers
        self.max_iter = max_iter
        self.tol = tol
        self.projection = projection
        self.momentum = momentum
        self.sigma_grid = sigma_grid
        self.cv = cv
        self.random_state = random_state

    _parameter_constraints = {
        **KliepFamily._parameter_constraints,
        "max_iter": [count(1)],
        "tol": [POSITIVE],
        "projection": [StrOptions({"exact", "sugiyama"})],
        "momentum": ["boolean"],
    }

    def _solve(self, problem):
        atoms, project = problem.atoms, _PROJECTIONS[self.projection]
        ones = np.ones(problem.n_atoms)
        # Sugiyama's start alpha = 1, rescaled onto the constraint: mu proportional to 1 / beta
        mu = 1.0 / problem.beta
        mu /= mu.sum()
        point = _Point(mu, atoms)
        momentum = _Point(mu, atoms)  # extrapolated point y (= mu without momentum)
        theta, rows, start = 1.0, [], time.perf_counter()
        step = 1.0 / np.linalg.norm(point.gradient())
        self.converged_ = False
        for t in range(self.max_iter + 1):
            gap = point.gap()
            rows.append((point.objective, gap, step, time.perf_counter() - start))
            if gap <= self.tol * abs(point.objective):
                self.converged_ = True
                break
            if t == self.max_iter:
                break
            candidate, step = _backtracking_step(momentum, 2.0 * step, project, ones)
            if candidate is None:
                break  # no ascent possible at machine precision
            if self.momentum and candidate.objective < point.objective:
                theta, momentum = 1.0, point  # restart: the extrapolation overshot
                continue
            theta_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * theta ** 2)) if self.momentum else 1.0
            extrapolated = candidate.mu + ((theta - 1.0) / theta_next) * (candidate.mu - point.mu)
            point, theta = candidate, theta_next
            momentum = _Point(extrapolated, atoms)
            if not np.isfinite(momentum.objective):  # left the domain of log: no momentum
                theta, momentum = 1.0, point
        self.n_iter_ = t
        self.history_ = {name: np.asarray(column, dtype=float) for name, column
                         in zip(["objective", "gap", "step_size", "elapsed"], zip(*rows))}
        if not self.converged_:
            warnings.warn(
                f"KLIEP stopped after {t} iterations with relative duality gap "
                f"{gap / abs(point.objective):.2e} > tol={self.tol:g}; increase max_iter or tol"
                + (", or use projection='exact'" if self.projection == "sugiyama" else "") + ".",
                ConvergenceWarning,
                stacklevel=5,
            )
        return point.mu


class _Point:
    """A point mu with its test density v = A' mu and objective F(mu) = sum log v."""

    def __init__(self, mu, atoms):
        self.mu, self.atoms = mu, atoms
        self.v = mu @ atoms
        self.objective = log_objective(self.v)
        self._gradient = None

    def gradient(self):
        """g = A (1 / v), the gradient of F in atom coordinates (eq. 3)."""
        if self._gradient is None:
            self._gradient = self.atoms @ (1.0 / self.v)
        return self._gradient

    def gap(self):
        """Frank-Wolfe duality gap max_l g_l - <g, mu>."""
        g = self.gradient()
        return float(g.max() - g @ self.mu)


def _backtracking_step(point, step, project, ones):
    """Projected step from ``point`` with step size halved until sufficient increase.

    Returns (new point, step size used), or (None, step) when the step fell below
    _MIN_STEP_RATIO times its start without passing the test.
    """
    gradient, first = point.gradient(), step
    while step >= _MIN_STEP_RATIO * first:
        candidate = _Point(project(point.mu + step * gradient, ones), point.atoms)
        move = candidate.mu - point.mu
        bound = point.objective + gradient @ move - (move @ move) / (2.0 * step)
        if candidate.objective >= bound and np.isfinite(candidate.objective):
            return candidate, step
        step *= 0.5
    return None, step


def sugiyama_projection(alpha, b):
    """Sugiyama's heuristic: onto b' alpha = 1, clip at 0, rescale to b' alpha = 1.

    Not a Euclidean projection: ascent can stall far from the optimum.
    """
    alpha = alpha + b * (1.0 - b @ alpha) / (b @ b)
    alpha = np.maximum(alpha, 0.0)
    return alpha / (b @ alpha)


def exact_projection(y, b):
    """Euclidean projection of y onto {alpha >= 0, b' alpha = 1} (b > 0), O(n log n).

    The solution is max(0, y - lam b); lam is found from the sorted breakpoints y_l / b_l.
    """
    breakpoints = y / b
    order = np.argsort(-breakpoints)
    lam = (np.cumsum((b * y)[order]) - 1.0) / np.cumsum(b[order] ** 2)
    k = np.flatnonzero(breakpoints[order] > lam)[-1]
    return np.maximum(0.0, y - lam[k] * b)


_PROJECTIONS = {"exact": exact_projection, "sugiyama": sugiyama_projection}
