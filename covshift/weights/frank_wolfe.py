"""The Frank-Wolfe KLIEP estimators FWCS, AFWCS, PFWCS (fw-covariate-shift-iw-smtgp, Algorithms 2, 4, 5) and FCFWCS.

All four run the one compiled loop (:func:`.fw_loop.run_frank_wolfe`, :func:`._compiled.run_loop`)
in atom coordinates, alpha = beta * mu with mu on the unit simplex (section III-A),
F(mu) = sum_j log v_j with v = A' mu (eq. 2, see ``_kliep_problem``); they differ only in the
step rule each iteration takes (``_rule``): towards (FWCS), towards or away (AFWCS), pairwise
(PFWCS) or fully corrective (FCFWCS, the corrective phase of :mod:`.fully_corrective`). The loop
keeps v up to date incrementally (O(n_te) per step) and recomputes it every ``refresh_every``
iterations against drift; the only O(n_atoms * n_te) work per iteration is the gradient
A (1 / v), or O(rank * (n_atoms + n_te)) with a low-rank factor of the atoms
(``_kliep_problem.LowRankKernelAtoms``): the gap is then an upper bound that accounts for the
factor's error bound, so the stopping test and ``converged_`` stay certified.
"""

import warnings
from functools import partial

from sklearn.utils._param_validation import StrOptions

from .._constraints import POSITIVE, UNIT_OPEN, count
from ..exceptions import ConvergenceWarning
from ._kliep_base import KliepFamily
from ._kliep_problem import covering_start
from .fully_corrective import corrective_newton
from .fw_loop import FrankWolfeHistory, run_frank_wolfe

__all__ = ["FWCS", "AFWCS", "PFWCS", "FCFWCS", "FrankWolfeHistory"]

class _FrankWolfeKliep(KliepFamily):
    """Shared parameters and main loop of the Frank-Wolfe KLIEP solvers."""

    _low_rank_gradient = True
    #: The step rule of the loop (a key of fw_loop.RULES).
    _rule = None

    def __init__(self, sigma="auto", n_centers=None, line_search="exact", tol=1e-4,
                 max_iter=10000, refresh_every=50, armijo_c=0.5, armijo_shrink=0.5,
                 sigma_grid=None, cv=5, random_state=0, keep_history=True):
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
        self.keep_history = keep_history

    _parameter_constraints = {
        **KliepFamily._parameter_constraints,
        "line_search": [StrOptions({"exact", "armijo"})],
        "tol": [POSITIVE],
        "max_iter": [count(0)],
        "refresh_every": [count(1)],
        "armijo_c": [UNIT_OPEN],
        "armijo_shrink": [UNIT_OPEN],
        "keep_history": ["boolean"],
    }

    def _solve(self, problem):
        mu, self.converged_, t, self.history_ = run_frank_wolfe(
            problem, covering_start(problem), self._rule, self.tol, self.max_iter, self.line_search,
            self.armijo_c, self.armijo_shrink, self.refresh_every, **self._rule_settings())
        self.n_iter_ = t
        if not self.converged_:
            warnings.warn(
                f"{type(self).__name__} stopped after {t} iterations with relative duality gap "
                f"{self.history_.gap[-1] / abs(self.history_.objective[-1]):.2e} > tol={self.tol:g}; "
                "increase max_iter or tol (FCFWCS converges in far fewer iterations).",
                ConvergenceWarning,
                stacklevel=5,
            )
        if not self.keep_history:
            self.history_ = None  # a fitted estimator of a few KB instead of the iterates of every step
        return mu

    def _rule_settings(self):
        """Settings of the step rule beyond the shared ones (FCFWCS: its corrective phase)."""
        return {}


class FWCS(_FrankWolfeKliep):
    """Frank-Wolfe Covariate Shift: KLIEP by standard Frank-Wolfe (Algorithm 2).

    Every iteration is a towards step to the vertex argmax_l (g * beta)_l, so every
    step is "good" and all active atoms shrink by (1 - rho) (eq. 21, appendix B-1 of Chapaneri
    and Jayaswal). The objective is KLIEP's F(mu) = sum_j log v_j, v = A' mu over the unit
    simplex (eq. 2 in the atom coordinates of section III-A).

%(parameters)s

%(attributes)s
    See Also
    --------
    AFWCS : Away steps and drop steps (Algorithm 4).
    PFWCS : Pairwise steps: drop and swap steps (Algorithm 5).
    FCFWCS : Fully-corrective Frank-Wolfe, the fast exact choice.
    KLIEP : The projected-gradient baseline of Sugiyama et al. (2008).

    References
    ----------
    S. V. Chapaneri and D. J. Jayaswal (2019). Covariate shift adaptation for structured
    regression with Frank-Wolfe algorithms. *IEEE Access* 7.

    Examples
    --------
    >>> import warnings
    >>> from covshift import FWCS, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # FWCS may stop at max_iter before its tolerance
    ...     fwcs = FWCS(sigma=0.3, max_iter=200).fit(shift.X_tr, shift.X_te)
    >>> fwcs.weights_.shape, fwcs.n_iter_ <= 200
    ((100,), True)
    >>> bool(fwcs.duality_gap_ >= 0)
    True
    """

    _rule = "towards"


class AFWCS(_FrankWolfeKliep):
    """Away-steps Frank-Wolfe Covariate Shift (Algorithm 4).

    The towards vertex is the argmax over *all* atoms (Algorithm 4, line 6 says
    S_t: a typo); the away vertex is the argmin over the active set. The towards
    step is taken when its gap is at least the away gap; an away step that reaches
    rho_max = mu/(1-mu) (eq. 25) is a drop step. Swap steps never occur.

%(parameters)s

%(attributes)s
    See Also
    --------
    FWCS : Towards steps only (Algorithm 2).
    PFWCS : Pairwise steps (Algorithm 5).
    FCFWCS : Fully-corrective Frank-Wolfe, the fast exact choice.

    References
    ----------
    S. V. Chapaneri and D. J. Jayaswal (2019). Covariate shift adaptation for structured
    regression with Frank-Wolfe algorithms. *IEEE Access* 7.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from covshift import AFWCS, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # AFWCS may stop at max_iter before its tolerance
    ...     afwcs = AFWCS(sigma=0.3, max_iter=300).fit(shift.X_tr, shift.X_te)
    >>> set(np.unique(afwcs.history_.step_kind)) <= {"good", "drop", "final"}
    True
    """

    _rule = "away_or_towards"


class PFWCS(_FrankWolfeKliep):
    """Pairwise Frank-Wolfe Covariate Shift (Algorithm 5).

    Moves weight rho in [0, mu(l^AFW)] (eq. 29) from the away to the towards atom,
    d = beta^(l_FW) - beta^(l_AFW) (eq. 5); only those two atoms change. A step that
    reaches rho_max < 1 is a drop step if l_FW was already active, else a swap step.

%(parameters)s

%(attributes)s
    See Also
    --------
    FWCS : Towards steps only (Algorithm 2).
    AFWCS : Away steps and drop steps (Algorithm 4).
    FCFWCS : Fully-corrective Frank-Wolfe, the fast exact choice.

    References
    ----------
    S. V. Chapaneri and D. J. Jayaswal (2019). Covariate shift adaptation for structured
    regression with Frank-Wolfe algorithms. *IEEE Access* 7.

    Examples
    --------
    >>> import warnings
    >>> from covshift import PFWCS, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # PFWCS may stop at max_iter before its tolerance
    ...     pfwcs = PFWCS(sigma=0.3, max_iter=300).fit(shift.X_tr, shift.X_te)
    >>> len(pfwcs.history_) == pfwcs.n_iter_ + 1
    True
    >>> str(pfwcs.history_.step_kind[-1])
    'final'
    """

    _rule = "pairwise"


class FCFWCS(_FrankWolfeKliep):
    """Fully-corrective Frank-Wolfe Covariate Shift.

    Standardise the inputs first (centre each column and divide it by its standard deviation over
    training and test inputs together): one kernel width serves every column (:class:`WeightEstimator`).

    Each outer iteration computes the full gradient and the duality-gap certificate,
    adds the Frank-Wolfe vertex, then re-optimises F exactly over the active face by
    equality-constrained Newton steps (Hessian A_S' diag(1/v^2) A_S, O(n_te ``|S|^2``)),
    with a ratio test that drops atoms reaching zero and the exact line search; a
    projected-gradient direction replaces Newton when the face Hessian is singular.
    The optimum of KLIEP is very sparse, so few outer iterations are needed. The objective
    is eq. 2 of Chapaneri and Jayaswal in their atom coordinates (section III-A); the
    fully-corrective variant is this library's addition to their three solvers.

%(parameters)s
    max_inner : int, default 50
        Newton iterations per face.
    max_face : int, default 150
        When the active set reaches this size (a dense optimum, e.g. a small sigma in high
        dimension) the corrective Newton solve, O(n_te ``|S|^2``), is replaced by a pairwise
        step (as PFWCS) for that iteration.
%(keep_history)s

%(attributes)s
        ``history_.inner_iterations`` and ``history_.atoms_dropped`` record the corrective
        phase, ``history_.step_size`` the weight the new vertex received.

    See Also
    --------
    FWCS : Towards steps only (Algorithm 2).
    AFWCS : Away steps and drop steps (Algorithm 4).
    PFWCS : Pairwise steps (Algorithm 5).
    KLIEP : The projected-gradient baseline on 100 centres.
    covshift.model_selection.kliep_sigma : The width that ``sigma="auto"`` chooses.

    References
    ----------
    S. V. Chapaneri and D. J. Jayaswal (2019). Covariate shift adaptation for structured
    regression with Frank-Wolfe algorithms. *IEEE Access* 7. M. Sugiyama et al. (2008).
    Direct importance estimation for covariate shift adaptation. *Annals of the Institute of
    Statistical Mathematics* 60(4).

    Examples
    --------
    >>> from covshift import FCFWCS, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> fcfwcs = FCFWCS(sigma=0.3).fit(shift.X_tr, shift.X_te)
    >>> bool(fcfwcs.converged_), fcfwcs.n_iter_ < 30
    (True, True)
    >>> bool(fcfwcs.duality_gap_ <= fcfwcs.tol * abs(fcfwcs.objective_))
    True
    >>> fcfwcs.predict_weights(shift.X_te[:3]).shape
    (3,)
    """

    def __init__(self, sigma="auto", n_centers=None, line_search="exact", tol=1e-4,
                 max_iter=10000, refresh_every=50, armijo_c=0.5, armijo_shrink=0.5,
                 sigma_grid=None, cv=5, random_state=0, max_inner=50, max_face=150, keep_history=True):
        super().__init__(sigma=sigma, n_centers=n_centers, line_search=line_search, tol=tol,
                         max_iter=max_iter, refresh_every=refresh_every, armijo_c=armijo_c,
                         armijo_shrink=armijo_shrink, sigma_grid=sigma_grid, cv=cv,
                         random_state=random_state, keep_history=keep_history)
        self.max_inner = max_inner
        self.max_face = max_face

    _parameter_constraints = {
        **_FrankWolfeKliep._parameter_constraints,
        "max_inner": [count(1)],
        "max_face": [count(2)],
    }

    _rule = "corrective"

    def _rule_settings(self):
        return {"max_face": self.max_face, "corrective": partial(corrective_newton, max_inner=self.max_inner)}


_PARAMETERS = """    Parameters
    ----------
    sigma : float or "auto", default "auto"
        Kernel width; "auto" picks it by likelihood cross-validation on held-out test
        folds (:func:`covshift.model_selection.kliep_sigma`, ``cv_results_``). For the median
        heuristic pass its number: ``sigma=covshift.kernels.median_heuristic(np.vstack([X_tr, X_te]))``.
    n_centers : int or None, default None
        Seeded subset of test points used as Gaussian centres; None uses all.
    line_search : {"exact", "armijo"}, default "exact"
        Safeguarded Newton on the concave phi(rho), or Algorithm 3 (backtracking).
    tol : float, default 1e-4
        Stop when the duality gap <g, d^FW> <= tol * ``|F|``. Since F is concave the gap
        bounds the suboptimality: F* - F <= gap.
    max_iter : int, default 10000
        Most iterations; a run that ends here warns (ConvergenceWarning).
    refresh_every : int, default 50
        Recompute v = K alpha from scratch every this many iterations.
    armijo_c : float in (0, 1), default 0.5
        tau of Algorithm 3.
    armijo_shrink : float in (0, 1), default 0.5
        xi of Algorithm 3.
    sigma_grid : sequence of float or None, default None
        Candidate widths for ``sigma="auto"`` (None: :func:`covshift.model_selection.default_sigma_grid`).
    cv : int, default 5
        Number of test folds for ``sigma="auto"``.
    random_state : None, int or RandomState, default 0
        Seeds the centre subset and the cross-validation folds."""

_KEEP_HISTORY = """    keep_history : bool, default True
        Keep ``history_`` (every iteration's row and iterate, for plots and the replay: most of
        a fitted estimator's size); False sets ``history_ = None``."""

_ATTRIBUTES = """    Attributes
    ----------
    weights_ : ndarray of shape (n_tr,)
        Importance weights of the training points, mean 1.
    alpha_ : ndarray of shape (n_centers,)
        Mixture coefficients of w(x) = sum_l alpha_l k(x, c_l).
    mu_ : ndarray of shape (n_centers,)
        The solution in atom coordinates, on the unit simplex (alpha = beta * mu, eq. 4).
    centers_ : ndarray of shape (n_centers, d)
        The Gaussian centres (test points).
    center_index_ : ndarray of shape (n_centers,)
        Their rows in ``X_te``.
    objective_ : float
        F at the solution, the test log-likelihood of the weights.
    duality_gap_ : float
        The certificate: F* - ``objective_`` <= ``duality_gap_``.
    n_iter_ : int
        Iterations run.
    converged_ : bool
        True when the relative gap fell below ``tol``.
    sigma_ : float
        The kernel width used.
    cv_results_ : dict
        The likelihood cross-validation of ``sigma="auto"`` (only then).
    history_ : FrankWolfeHistory or None
        One row per iteration (objective, gap, step kind, atoms in and out, ...)."""

for _solver in (FWCS, AFWCS, PFWCS, FCFWCS):  # one text for the parameters the four solvers share
    if _solver.__doc__:  # None under python -OO
        _shared = _PARAMETERS if _solver is FCFWCS else _PARAMETERS + "\n" + _KEEP_HISTORY
        _solver.__doc__ = (_solver.__doc__.replace("%(parameters)s", _shared)
                           .replace("%(keep_history)s", _KEEP_HISTORY).replace("%(attributes)s", _ATTRIBUTES))
