"""Choice of the KLIEP kernel width sigma for the whole KLIEP family, by likelihood or importance-weighted cross-validation.

- :func:`kliep_sigma`: one kernel width for every solver of eq. 2 of
  fw-covariate-shift-iw-smtgp, by likelihood cross-validation (Sugiyama et al. 2008,
  section 4.2) or by importance-weighted cross-validation of a downstream regressor (the
  paper's rule, section II), solved with the fully-corrective Frank-Wolfe solver
  (:mod:`.fully_corrective`).
- :func:`default_sigma_grid`: the candidate widths.

``covshift.model_selection`` re-exports both.
"""

import time
import warnings

import numpy as np
from sklearn.model_selection import KFold

from .._validation import as_2d_float, check_choice, check_grid, check_int, check_positive, check_train_test
from ..cross_validation import iwcv_score
from ..exceptions import ConvergenceWarning
from ..kernels import median_heuristic, scaled_exponent, squared_distances
from ._kliep_folds import FoldProblems
from ._kliep_problem import MIN_DENSITY, MIN_MEAN_KERNEL, KliepProblem, choose_centers, covering_start
from .fully_corrective import solve_folds, solve_fully_corrective


def default_sigma_grid(X_tr, X_te, n=9, random_state=0, max_centers=None):
    """Geometric grid of ``n`` widths from max(median / 8, nearest) to 2 x median.

    ``median`` is the median heuristic of all inputs (on a seeded subset of
    MEDIAN_SAMPLES points); ``nearest`` is the median distance from a test point to its nearest other test point,
    capped at median / 2, measured from ``max_centers`` test points (default LCV_CENTERS, the
    centres of the likelihood cross-validation, which computes the grid from its own distances). In high dimension every point is far from its neighbours, so
    widths far below the nearest-neighbour distance only fit single points (and make the
    optimum dense and slow).

    Parameters
    ----------
    X_tr : array-like of shape (n_tr, d)
        Training inputs.
    X_te : array-like of shape (n_te, d)
        Test inputs.
    n : int, default 9
        Number of widths.
    random_state : int, default 0
        Seeds the subsets.
    max_centers : int or None, default None
        Test points from which ``nearest`` is measured (None: LCV_CENTERS).

    Returns
    -------
    ndarray of shape (n,)
        Increasing widths.
    """
    X_tr, X_te = check_train_test(X_tr, X_te)
    max_centers = LCV_CENTERS if max_centers is None else check_int(max_centers, "max_centers")
    return SharedKernels(X_tr, X_te, max_centers, random_state).default_grid(n, random_state)


#: Duality gap per fitting test point (nats) of the ranking solves of rule "lcv" (relative
#: duality gap for "iwcv"): loose, only the order of the widths matters; the estimator then
#: solves once, tightly, at the chosen width.
RANKING_TOL = 1e-2
#: At most this many test points serve as Gaussian centres when rule="iwcv" weights all the data
#: (a seeded subset beyond), which bounds its memory at MAX_CV_CENTERS x (n_tr + n_te) floats.
MAX_CV_CENTERS = 1000
#: Gaussian centres of the likelihood cross-validation: b = min(100, n_te) test points, a seeded
#: subset, as in Sugiyama et al. (2008, section 4.2; "KLIEP" in fw-covariate-shift-iw-smtgp).
LCV_CENTERS = 100
#: Points of the seeded subset on which the default grid's median heuristic is computed.
MEDIAN_SAMPLES = 400


def kliep_sigma(X_tr, X_te, rule="lcv", sigma_grid=None, n_folds=5, y_tr=None, regressor=None,
                ranking_tol=RANKING_TOL, max_centers=None, random_state=0):
    """One kernel width for every KLIEP-family solver on a data set.

    Every solver of the family (KLIEP, FWCS, AFWCS, PFWCS, FCFWCS) solves the same problem
    (eq. 2 of fw-covariate-shift-iw-smtgp) once sigma is fixed, so sigma is chosen once,
    here, with the exact solver (fully-corrective Frank-Wolfe), whatever solver is compared.

    Two rules:

    - ``"lcv"`` (default): likelihood cross-validation (Sugiyama et al. 2008, section 4.2).
      Training and test points are each split into ``n_folds`` folds; for fold k, KLIEP
      is fitted on the other folds and scored on the held-out points only:

          score_k = mean_{held-out test} log w(x) - log mean_{held-out train} w(x),

      the held-out log-likelihood of p_te ~ w p_tr. As in Sugiyama et al., the model has
      b = min(100, n_te) Gaussian centres (LCV_CENTERS, a seeded subset of the test
      points; a fold uses those among its fitting points), whatever centres the estimator
      then uses at the chosen width. What we changed: (i) the normalisation of w is
      checked on held-out training points too (Sugiyama's variant holds out test points
      only; on the paper's data it then prefers ever smaller sigma, since spikes placed
      between training points cost nothing in the fitted constraint); (ii) the choice is
      the largest width whose mean score is within one standard error (over folds) of the
      best mean (the one-standard-error rule, not the plain argmax): neighbouring widths
      often tie within the fold noise, and the rule makes the choice insensitive to the
      loose ranking tolerance; (iii) each fold is solved by the exact solver
      (fully-corrective Frank-Wolfe, as FCFWCS) only to the duality gap
      ``ranking_tol`` (nats per point), see Speed.
    - ``"iwcv"``: the paper's rule (section II): for each sigma, KLIEP weights on all the data
      (all test points up to ``max_centers`` as centres), then the importance-weighted
      cross-validation error (:func:`iwcv_score`) of a downstream ``regressor`` trained
      with those weights on (X_tr, y_tr). Smallest error wins. The weights enter both the
      fit and the validation loss, so the comparison across widths is a heuristic, not an
      unbiased estimate.


    Speed (rule "lcv"): the squared distances from the centres to all points are computed
    once; the kernels of each width are written in place into two reusable buffers; the K
    folds of a width share them and are solved together, each step one batched numpy
    operation (``covshift.weights.fully_corrective.solve_folds``); the grid is walked from
    the largest width down, each fold warm-started from its own solution at the previous
    width; and the ranking solves stop at the loose duality gap ``ranking_tol`` per point.
    The estimator then solves once, tightly, with its own centres at the chosen width.
    With the default 9 widths and 5 folds, sigma="auto" costs about 8 single FCFWCS fits at
    500 x 300 points (0.03 s), 12 at 1000 x 1000 (0.06 s) and 6 at 2000 x 2000 (0.14 s) on an
    idle machine (bench/weights.py --sigma-only, bench/results/weights.md).

    Parameters
    ----------
    X_tr : array-like of shape (n_tr, d)
        Training inputs.
    X_te : array-like of shape (n_te, d)
        Test inputs.
    rule : {"lcv", "iwcv"}, default "lcv"
        Likelihood cross-validation or the paper's importance-weighted CV (above).
    sigma_grid : sequence of float or None, default None
        Candidate widths; default :func:`default_sigma_grid`.
    n_folds : int, default 5
        Folds of the cross-validation (capped at the smaller sample size).
    y_tr : array-like of shape (n_tr,) or (n_tr, p), default None
        Training outputs, required for rule="iwcv".
    regressor : scikit-learn regressor or None, default None
        Downstream model of rule="iwcv"; default :class:`covshift.regression.GPR` with the
        median-heuristic width of X_tr, lambda_x = 0.01 and normalised outputs.
    ranking_tol : float, default 1e-2
        Tolerance of the ranking solves: "lcv" stops each fold when its duality gap is at
        most ``ranking_tol`` per fitting test point (its fitted mean log-density is then
        within ``ranking_tol`` nats of the optimum, the unit of the held-out score); "iwcv"
        when its relative duality gap is at most ``ranking_tol``.
    max_centers : int or None, default None
        Gaussian centres (a seeded subset of the test points); default LCV_CENTERS (100)
        for "lcv" and MAX_CV_CENTERS (1000) for "iwcv".
    random_state : int, default 0
        Seeds the folds and the centre subset.

    Returns
    -------
    dict
        ``sigma`` (the grid), ``best_sigma`` (the choice), ``rule``, ``seconds`` and, for
        "lcv", ``mean_log_likelihood`` and ``std_log_likelihood`` (over folds) per grid point
        and ``best_mean_sigma`` (the plain argmax); for "iwcv", ``iwcv_error`` per grid point.

    See Also
    --------
    covshift.FCFWCS : Uses this width with ``sigma="auto"``, as every KLIEP-family estimator does.

    References
    ----------
    M. Sugiyama et al. (2008). Direct importance estimation for covariate shift adaptation.
    *Annals of the Institute of Statistical Mathematics* 60(4), section 4.2 (likelihood
    cross-validation). S. V. Chapaneri and D. J. Jayaswal (2019), *IEEE Access* 7, section II
    (the IWCV rule).

    Examples
    --------
    >>> from covshift import data
    >>> from covshift.model_selection import kliep_sigma
    >>> shift = data.sinc_shift(n_tr=200, n_te=150, random_state=0)
    >>> result = kliep_sigma(shift.X_tr, shift.X_te, random_state=0)
    >>> len(result["sigma"]), bool(result["best_sigma"] in result["sigma"])
    (9, True)
    """
    X_tr, X_te = check_train_test(X_tr, X_te)
    check_choice(rule, "rule", {"lcv", "iwcv"})
    check_positive(ranking_tol, "ranking_tol")
    if max_centers is None:
        max_centers = LCV_CENTERS if rule == "lcv" else MAX_CV_CENTERS
    max_centers = check_int(max_centers, "max_centers")
    start = time.perf_counter()
    kernels = SharedKernels(X_tr, X_te, max_centers, random_state)
    grid = checked_grid(kernels.default_grid(9, random_state) if sigma_grid is None else sigma_grid)
    if rule == "iwcv":
        Y = _checked_outputs(y_tr, len(X_tr))
    n_folds = min(check_int(n_folds, "cv (number of folds)", minimum=2), len(X_te), len(X_tr))
    if n_folds < 2:
        warnings.warn("Only one test or training point: cross-validation of sigma is "
                      "impossible; using the median heuristic.", UserWarning, stacklevel=2)
        best = median_heuristic(np.vstack([X_tr, X_te]))
        nan = np.full(grid.size, np.nan)
        return {"sigma": grid, "mean_log_likelihood": nan, "std_log_likelihood": nan,
                "iwcv_error": nan, "best_sigma": best, "rule": rule,
                "seconds": time.perf_counter() - start}
    if rule == "lcv":
        result = _likelihood_cv(kernels, grid, n_folds, ranking_tol, random_state)
    else:
        if regressor is None:
            from ..regression import GPR

            regressor = GPR(rho_x=median_heuristic(X_tr, random_state=random_state), lambda_x=0.01,
                            normalize_y=True)
        result = _importance_weighted_cv(kernels, grid, Y, regressor, n_folds, ranking_tol,
                                         random_state)
    result.update(sigma=grid, rule=rule, seconds=time.perf_counter() - start)
    return result


def checked_grid(sigma_grid):
    """``sigma_grid`` as a flat float array (:func:`covshift._validation.check_grid`: a ValueError
    naming it unless a non-empty list of finite positive real numbers)."""
    return check_grid(sigma_grid, "sigma_grid")


def _checked_outputs(y_tr, n_tr):
    if y_tr is None:
        raise ValueError("rule='iwcv' needs the training outputs y_tr (it scores a regressor).")
    Y = as_2d_float(y_tr, "y_tr")
    if len(Y) != n_tr:
        raise ValueError(f"y_tr needs one row per training point; got {len(Y)} for {n_tr}.")
    return Y


class SharedKernels:
    """Squared distances from the centres to all test and training points, computed once.

    :meth:`set_width` writes the kernels of one width in place into two reusable buffers;
    :meth:`problem` cuts the KLIEP problem of a fold out of them.
    """

    def __init__(self, X_tr, X_te, max_centers, random_state):
        self.centers = choose_centers(len(X_te), max_centers, random_state)
        self.d2_te = squared_distances(X_te[self.centers], X_te)
        self.d2_tr = squared_distances(X_te[self.centers], X_tr)
        self.k_te = np.empty_like(self.d2_te)
        self.k_tr = np.empty_like(self.d2_tr)
        self.X_tr, self.n_te, self.n_tr = X_tr, len(X_te), len(X_tr)
        self.X_all = np.vstack([X_tr, X_te])

    def default_grid(self, n, random_state):
        """The grid of :func:`default_sigma_grid` (the distances to the nearest test point
        come from the stored distances)."""
        median = median_heuristic(self.X_all, max_samples=MEDIAN_SAMPLES, random_state=random_state)
        lower = median / 8.0
        nearest = np.where(self.d2_te > 0, self.d2_te, np.inf).min(axis=1)
        nearest = nearest[np.isfinite(nearest)]
        if nearest.size:
            lower = max(lower, float(np.sqrt(np.median(nearest))))
        return np.geomspace(min(lower, median / 2.0), 2.0 * median, n)

    def set_width(self, sigma):
        for d2, k in [(self.d2_te, self.k_te), (self.d2_tr, self.k_tr)]:
            np.copyto(k, d2)
            np.exp(scaled_exponent(k, sigma), out=k)  # safe for any sigma

    def problem(self, fit_te, fit_tr):
        """KLIEP problem on the fitting points: centres among fit_te, degenerate parts dropped.

        Returns (problem, rows): ``rows`` are the usable centres' rows in the buffers.
        """
        rows = np.flatnonzero(np.isin(self.centers, fit_te))
        mean_kernel = self.k_tr[np.ix_(rows, fit_tr)].mean(axis=1)
        usable = mean_kernel > MIN_MEAN_KERNEL
        rows, beta = rows[usable], 1.0 / mean_kernel[usable]
        atoms = self.k_te[np.ix_(rows, fit_te)]
        atoms *= beta[:, None]
        covered = atoms.max(axis=0, initial=0.0) > MIN_DENSITY
        if not covered.all():
            atoms = np.ascontiguousarray(atoms[:, covered])
        problem = KliepProblem(atoms, beta, self.centers[rows], int(np.sum(~usable)),
                               int(np.sum(~covered)))
        return problem, rows

    def weights(self, rows, alpha, columns, side):
        """w(x) = sum_l alpha_l k(x, c_l) at the test (side="te") or training points ``columns``."""
        active = np.flatnonzero(alpha)
        kernel = self.k_te if side == "te" else self.k_tr
        return alpha[active] @ kernel[np.ix_(rows[active], columns)]


def _likelihood_cv(kernels, grid, n_folds, tol, random_state):
    fit_te, fit_tr = fold_masks(kernels.n_te, kernels.n_tr, n_folds, random_state)
    available = fit_te[:, kernels.centers]
    scores = np.full((grid.size, n_folds), -np.inf)
    unconverged = 0
    mu = None  # the folds' solutions at the previous width
    for i in np.argsort(-grid):  # largest width first: sparse solutions that cover everything
        kernels.set_width(grid[i])
        problems = FoldProblems(kernels.k_te, kernels.k_tr, fit_te, fit_tr, available)
        start = problems.start(mu, scaled_exponent(kernels.d2_te.copy(), grid[i]) if mu is None else None)
        mu, _, converged = solve_folds(problems, start, tol)
        unconverged += int(np.sum(problems.solvable & ~converged))
        scores[i] = problems.held_out_scores(mu)
    if unconverged:
        warnings.warn(f"{unconverged} of the {grid.size * n_folds} ranking solves of the likelihood "
                      f"cross-validation stopped above the duality gap {tol:g} per point; the choice of "
                      "sigma may be less reliable.", ConvergenceWarning, stacklevel=3)
    with np.errstate(invalid="ignore"):
        mean, std = scores.mean(axis=1), scores.std(axis=1, ddof=1)
    return {"mean_log_likelihood": mean, "std_log_likelihood": std,
            "best_sigma": _one_standard_error_choice(grid, mean, std / np.sqrt(n_folds)),
            "best_mean_sigma": _best(grid, mean, np.argmax)}


def fold_masks(n_te, n_tr, n_folds, random_state):
    """Boolean (n_folds, n) masks of the fitting points of each fold, test and training side
    (the same shuffled KFold splits as before: fold k holds out the k-th part of each)."""
    splitter = KFold(n_folds, shuffle=True, random_state=random_state)
    fit_te, fit_tr = np.zeros((n_folds, n_te), bool), np.zeros((n_folds, n_tr), bool)
    for k, ((fit_tr_k, _), (fit_te_k, _)) in enumerate(zip(splitter.split(np.empty(n_tr)),
                                                          splitter.split(np.empty(n_te)))):
        fit_te[k, fit_te_k], fit_tr[k, fit_tr_k] = True, True
    return fit_te, fit_tr


def _one_standard_error_choice(grid, mean, standard_error):
    """The largest width whose mean score is within one standard error of the best.

    Neighbouring widths often score within the fold-to-fold noise of each other (and within
    the accuracy of the loose ranking solves); the widest of them gives the smoothest weights.
    """
    finite = np.isfinite(mean)
    if not finite.any():
        return float(np.max(grid))
    best = np.flatnonzero(finite)[np.argmax(mean[finite])]
    margin = standard_error[best] if np.isfinite(standard_error[best]) else 0.0
    return float(np.max(grid[finite & (mean >= mean[best] - margin)]))


def _best(grid, values, arg):
    finite = np.isfinite(values)
    if not finite.any():
        return float(np.max(grid))
    return float(grid[np.flatnonzero(finite)[arg(values[finite])]])


def _importance_weighted_cv(kernels, grid, Y, regressor, n_folds, tol, random_state):
    X_tr = kernels.X_tr
    all_te, all_tr = np.arange(kernels.n_te), np.arange(kernels.n_tr)
    errors = np.full(grid.size, np.inf)
    previous = None
    for i in np.argsort(-grid):
        kernels.set_width(grid[i])
        problem, rows = kernels.problem(all_te, all_tr)
        if problem.n_atoms == 0 or problem.atoms.shape[1] == 0:
            continue
        mu, _, _ = solve_fully_corrective(problem, _warm_start(problem, rows, previous, kernels), tol)
        previous = (rows, mu)
        w = kernels.weights(rows, mu * problem.beta, all_tr, "tr")
        w /= w.mean()
        errors[i] = iwcv_score(regressor, X_tr, Y if Y.shape[1] > 1 else Y[:, 0], w,
                               n_folds=n_folds, random_state=random_state)
    return {"iwcv_error": errors, "best_sigma": _best(grid, errors, np.argmin)}


def _warm_start(problem, rows, previous, kernels):
    """The previous width's solution on this problem's atoms, plus atoms covering the test
    points it leaves at zero density; the paper's start (covering_start) when there is none."""
    mu = np.zeros(problem.n_atoms)
    if previous is not None:
        full = np.zeros(len(kernels.centers))
        full[previous[0]] = previous[1]
        mu = full[rows]
    if mu.sum() <= 0:
        return covering_start(problem, warn=False)  # a start of the width search, not the user's fit
    mu /= mu.sum()
    uncovered = np.flatnonzero(mu @ problem.atoms <= MIN_DENSITY)
    if uncovered.size:
        cover = np.unique(np.argmax(problem.atoms[:, uncovered], axis=0))
        mu *= 0.5
        mu[cover] += 0.5 / len(cover)
    return mu
