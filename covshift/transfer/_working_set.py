"""The cutting-plane engine of the 1-slack, margin-rescaled structural SVM (domain-transfer-structured-output,
Algorithm 1): a QP over a working set of constraints (eq. 5, through its dual, eqs. 3-4) alternating with
loss-augmented inference for the most violated output of every labelled example (eq. 6). :class:`StructuredSVM`
and :class:`DomainTransferSSVM` (``covshift.transfer.ssvm``, which explains the paper's three corrected slips)
share this one engine, :func:`cutting_plane`."""

import time
import warnings
from dataclasses import dataclass

import numpy as np

from ..exceptions import ConvergenceWarning, NumericalWarning, SolverError

#: cvxopt settings of the working-set QP, passed per call (never cvxopt.solvers.options).
QP_OPTIONS = {"show_progress": False, "abstol": 1e-10, "reltol": 1e-9, "feastol": 1e-10, "maxiters": 200}


@dataclass
class CuttingPlaneHistory:
    """One row per cutting-plane iteration (Algorithm 1), for plots and replay.

    Parameters
    ----------
    violation : ndarray
        The most violated constraint's violation after the QP of this iteration.
    working_set_size : ndarray
        Number of constraints in the QP of this iteration.
    objective : ndarray
        1/2 ``||w||^2`` + C xi of that QP (a lower bound on the optimum).
    seconds : ndarray
        Wall time since the start of fit.
    """

    violation: np.ndarray
    working_set_size: np.ndarray
    objective: np.ndarray
    seconds: np.ndarray


@dataclass
class CuttingPlaneResult:
    """The solution of :func:`cutting_plane`."""

    coef: np.ndarray
    slack: float
    objective: float
    violation: float
    dual_coef: np.ndarray
    n_iter: int
    converged: bool
    history: CuttingPlaneHistory
    #: The final working set (G, b): rows g_k and right-hand sides b_k of its constraints
    #: w'g_k >= b_k - xi. They do not depend on C, so they warm-start a fit at another C.
    working_set: tuple = None


def _constraint(problem, Z, Y, Psi_true, offset, offset_true, Y_bar):
    """(g, b) of the 1-slack constraint of y-bar: w'g >= b - xi (eqs. 2 and 5).

    g = (1/l) sum_i [Psi(x_i, y_i) - Psi(x_i, y-bar_i)],
    b = (1/l) sum_i [L(y_i, y-bar_i) - (f_S(x_i, y_i) - f_S(x_i, y-bar_i))].
    """
    g = np.mean(Psi_true - problem.joint_features(Z, Y_bar), axis=0)
    margin_source = offset_true - problem.scores(offset, Y_bar)
    b = float(np.mean(problem.loss(Y, Y_bar) - margin_source))
    return g, b


def solve_working_set(G, b, C, options=None, gram=None):
    """The dual of the working-set QP (eq. 3 restricted to W) by cvxopt.

    max_alpha -1/2 alpha' (G G') alpha + alpha' b  s.t.  alpha >= 0, sum(alpha) <= C,
    then w = G' alpha (eq. 4). ``gram`` is G G' if the caller keeps it up to date.
    Returns (w, alpha).
    """
    from cvxopt import matrix, solvers

    k = len(b)
    if C == 0:
        return np.zeros(G.shape[1]), np.zeros(k)
    P = G @ G.T if gram is None else gram
    inequalities = np.vstack([-np.eye(k), np.ones((1, k))])
    bounds = np.concatenate([np.zeros(k), [C]])
    args = [matrix(-np.asarray(b, dtype=float)), matrix(inequalities), matrix(bounds)]
    options = {**QP_OPTIONS, **(options or {})}
    try:
        solution = solvers.qp(matrix(P), *args, options=options)
    except (ArithmeticError, ValueError):
        jitter = 1e-10 * max(1.0, float(np.max(np.diag(P))))
        warnings.warn(f"The working-set QP was singular; solved it with {jitter:.1e} added to the "
                      "diagonal.", NumericalWarning, stacklevel=3)
        try:
            solution = solvers.qp(matrix(P + jitter * np.eye(k)), *args, options=options)
        except (ArithmeticError, ValueError) as exc:
            raise SolverError(f"cvxopt could not solve the working-set QP ({exc}); try a smaller C "
                              "or a larger epsilon.") from None
    alpha = np.clip(np.array(solution["x"]).ravel(), 0.0, None)
    if alpha.sum() > C:
        alpha *= C / alpha.sum()
    return G.T @ alpha, alpha


def cutting_plane(problem, Z, Y, offset, C, epsilon, max_iter, rng, qp_options=None, warm_start=None):
    """Algorithm 1 of domain-transfer-structured-output on embedded inputs Z.

    Parameters
    ----------
    problem : StructuredProblem
        The fitted output structure.
    Z : ndarray of shape (l, d)
        Embedded labelled inputs phi(x_i).
    Y : array of outputs
        The true outputs y_i, already checked by ``problem.check_outputs``.
    offset : ndarray
        The score table of f_S on Z (zeros for a plain structural SVM).
    C : float
        Trade-off of eq. (2).
    epsilon : float
        The termination threshold epsilon_cp.
    max_iter : int
        Budget of cutting-plane iterations.
    rng : numpy.random.Generator
        Draws the random initial y-bar of Algorithm 1.
    qp_options : dict or None, default None
        cvxopt settings of the working-set QP (None: ``QP_OPTIONS``).
    warm_start : tuple of (G, b) or None, default None
        A working set to start from instead of one random y-bar: the ``working_set`` of an
        earlier result on the same (Z, Y, offset). Its constraints are constraints of eq. (2)
        whatever C is, so a fit at a larger C starts where the one at a smaller C stopped.

    Returns
    -------
    CuttingPlaneResult
        ``coef``, ``slack``, ``objective``, ``violation``, the working set, its dual
        coefficients and the :class:`CuttingPlaneHistory`.
    """
    start = time.perf_counter()
    Psi_true = problem.joint_features(Z, Y)
    offset_true = problem.scores(offset, Y)
    if warm_start is None:
        g, b = _constraint(problem, Z, Y, Psi_true, offset, offset_true, problem.random_outputs(len(Z), rng))
        G, bs = g[None, :], np.array([b])
    else:
        G, bs = (np.array(a, dtype=float) for a in warm_start)
    gram = G @ G.T  # kept up to date with one matrix-vector product per new constraint
    rows = []
    converged = False
    for _ in range(max_iter):
        w, alpha = solve_working_set(G, bs, C, qp_options, gram=gram)
        slack = max(0.0, float(np.max(bs - G @ w)))
        objective = 0.5 * float(w @ w) + C * slack
        potentials = offset + problem.potentials(Z, w)
        g, b = _constraint(problem, Z, Y, Psi_true, offset, offset_true,
                           problem.loss_augmented_argmax(potentials, Y))
        violation = b - float(w @ g) - slack
        rows.append((violation, len(G), objective, time.perf_counter() - start))
        if violation <= epsilon:
            converged = True
            break
        cross = G @ g
        gram = np.block([[gram, cross[:, None]], [cross[None, :], np.array([[g @ g]])]])
        G, bs = np.vstack([G, g]), np.append(bs, b)
    if not converged:
        warnings.warn(f"The cutting-plane algorithm stopped after max_iter={max_iter} iterations with "
                      f"violation {violation:.3g} > epsilon={epsilon:g}; raise max_iter or epsilon.",
                      ConvergenceWarning, stacklevel=3)
    history = CuttingPlaneHistory(*(np.array(col) for col in zip(*rows)))
    return CuttingPlaneResult(w, slack, objective, violation, alpha, len(rows), converged, history, (G, bs))
