"""1-slack margin-rescaled structural SVMs by cutting planes, and the domain-transfer delta.

Implements domain-transfer-structured-output (Wang): the target score
f_T(x, y) = f_S(x, y) + w' Psi(x, y) (eq. 1), with w the solution of the 1-slack,
margin-rescaled structural SVM (eq. 2)

    min_{w, xi >= 0}  1/2 ||w||^2 + C xi
    s.t. for every y-bar in Y^l:
         (1/l) sum_i [f_T(x_i, y_i) - f_T(x_i, y-bar_i)] >= (1/l) sum_i L(y_i, y-bar_i) - xi,

solved by Algorithm 1: a QP over a working set of constraints (eq. 5, through its dual,
eqs. 3-4) alternating with loss-augmented inference for the most violated output of every
labelled example (eq. 6), until that constraint is violated by at most epsilon.

A plain structural SVM (Tsochantaridis et al. 2004; Joachims et al. 2009, "1-slack") is the
same algorithm with f_S = 0; :class:`StructuredSVM` and :class:`DomainTransferSSVM` share
one engine, :func:`cutting_plane` (in ``covshift/transfer/_working_set.py``).

Three slips of the paper's text are corrected here (they would make the algorithm wrong):
eq. (6) must maximise L(y_i, y) **+** f_T(x_i, y) (the most violated constraint has a high
loss *and* a high score; with the printed minus sign the argmax picks well-separated outputs);
the dual (3) has f_S(x_i, y_i) **-** f_S(x_i, y-bar_i) and the average (1/l) sum_i of the loss;
and the working-set update is a union, W <- W ∪ {y-bar}. Eq. (6) runs over the l labelled
examples (the unlabelled x_{l+1..n} have no y_i).

The paper leaves C to the user. ``DomainTransferSSVM(C="auto")``, the default, chooses it from
the labelled target examples (``cv_folds``, ``cross_validate_C``, ``choose_C``)
over ``AUTO_C_GRID``, which includes C = 0, the source model unchanged.
"""

import numpy as np
from sklearn.base import BaseEstimator, _fit_context
from sklearn.utils._param_validation import HasMethods, StrOptions

from .._constraints import NON_NEGATIVE, POSITIVE, RANDOM_STATE, count
from .._validation import as_generator, validate_input, validate_predict
from ..limits import check_structured_memory
from ._working_set import cutting_plane
from .problems import StructuredProblem, fitted_problem

#: The grid of ``C="auto"`` (:class:`DomainTransferSSVM`), ascending. C = 0 is the source model
#: itself (w = 0 exactly); one point a decade up to the C = 10 at which the bench's delta fits
#: the strong shift best.
AUTO_C_GRID = (0.0, 0.01, 0.1, 1.0, 10.0)
#: ``C="auto"`` cross-validates over min(l, AUTO_FOLDS) folds: leave-one-out while l <= 5.
AUTO_FOLDS = 5
#: The cross-validation fits stop at max(epsilon, AUTO_EPSILON): they only have to rank the C
#: (measured on digits: the same held-out accuracy as with 1e-3, in half the time).
AUTO_EPSILON = 1e-2


def _check_outputs(X, Y, problem):
    """The outputs Y, valid for ``problem`` and one per row of X."""
    Y = problem.check_outputs(Y)
    if len(Y) != len(X):
        raise ValueError(f"X has {len(X)} examples but y has {len(Y)} outputs; they must match.")
    return Y


def cv_folds(Y, rng):
    """Fold index of every labelled example for ``C="auto"``: min(l, ``AUTO_FOLDS``) folds
    stratified by the output (one example per fold, leave-one-out, while l <= AUTO_FOLDS).

    Stratified: the examples, shuffled by ``rng`` and then sorted by output value (the class,
    or the whole 0/1 label vector), are dealt to the folds in turn, so every output value is
    spread as evenly as it can be and the fold sizes differ by at most one.
    """
    l = len(Y)
    n_folds = min(l, AUTO_FOLDS)
    key = np.unique(np.asarray(Y).reshape(l, -1), axis=0, return_inverse=True)[1].ravel()
    order = rng.permutation(l)
    order = order[np.argsort(key[order], kind="stable")]
    folds = np.empty(l, dtype=int)
    folds[order] = np.arange(l) % n_folds
    return folds


def cross_validate_C(problem, Z, Y, offset, grid, epsilon, max_iter, rng):
    """Held-out task loss of domain transfer at every C of ``grid`` (ascending), per example.

    Every example is held out once (folds of ``cv_folds``); its loss L(y_i, y-hat_i) is that
    of the model fitted on the other folds, to epsilon = max(epsilon, :data:`AUTO_EPSILON`).
    C = 0 is the source model: its held-out losses come from the source scores ``offset`` with
    no fit. On each fold the positive C are fitted in ascending order, each warm-started from
    the working set of the previous one (the constraints of eq. (2) do not depend on C), so a
    fold costs about one fit at the largest C.
    Returns (losses, folds): losses has shape (len(grid), l); NaN when l = 1 (nothing is left
    to fit on).
    """
    l = len(Y)
    folds = cv_folds(Y, rng)
    if l < 2:
        return np.full((len(grid), l), np.nan), folds
    losses = np.zeros((len(grid), l))
    for k in np.unique(folds):
        held, kept = folds == k, folds != k
        w, working_set = np.zeros(problem.n_joint_features(Z.shape[1])), None
        for j, C in enumerate(grid):
            if C > 0:
                result = cutting_plane(problem, Z[kept], Y[kept], offset[kept], C, max(epsilon, AUTO_EPSILON),
                                       max_iter, rng, warm_start=working_set)
                w, working_set = result.coef, result.working_set
            predicted = problem.predict(offset[held] + problem.potentials(Z[held], w))
            losses[j, held] = problem.loss(Y[held], predicted)
    return losses, folds


def choose_C(losses):
    """Index of the C that ``C="auto"`` keeps, from the held-out losses of ``cross_validate_C``
    (rows: the grid, ascending, row 0 the source model C = 0; columns: the l examples).

    The C of the lowest mean held-out loss, the smallest one on a tie; it replaces the source
    model only if it beats it by more than one standard error of the paired differences,
    mean_i(d_i) > sd(d) / sqrt(l) with d_i = L_i(C = 0) - L_i(C). So one held-out example more
    right is never enough (its mean gain 1/l equals its standard error): a delta must be
    supported by the labels, else the source model is kept. l = 1 (no held-out losses) keeps 0.
    """
    losses = np.asarray(losses, dtype=float)
    if losses.shape[1] < 2 or np.isnan(losses).any():
        return 0
    mean = losses.mean(axis=1)
    best = int(np.flatnonzero(mean <= mean.min() + 1e-12)[0])
    gain = losses[0] - losses[best]
    standard_error = gain.std(ddof=1) / np.sqrt(len(gain))
    return best if gain.mean() > standard_error + 1e-12 else 0


class _CuttingPlaneModel(BaseEstimator):
    """Fitted attributes and prediction shared by the two structural SVMs."""

    _allow_auto_C = False

    def _fit_cutting_plane(self, X, y, problem, offset_for):
        """Algorithm 1 on (X, y) with the constant scores ``offset_for(X, zero_table)`` in the
        constraints (zero for a plain structural SVM, f_S(x, y) for domain transfer); returns self.
        With C = "auto", C is first chosen by ``cross_validate_C`` over ``AUTO_C_GRID``."""
        y = _check_outputs(X, y, problem)
        C, epsilon, max_iter = self.C if self.C == "auto" else float(self.C), float(self.epsilon), int(self.max_iter)
        Z = problem.embed(X)
        check_structured_memory(type(self).__name__, len(Z), problem.n_joint_features(Z.shape[1]))
        zeros = problem.potentials(Z, np.zeros(problem.n_joint_features(Z.shape[1])))
        offset = offset_for(X, zeros)
        if self._allow_auto_C:
            if C == "auto":
                grid = np.array(AUTO_C_GRID)
                losses, folds = cross_validate_C(problem, Z, y, offset, grid, epsilon, max_iter,
                                                 as_generator(self.random_state))
                C = float(grid[choose_C(losses)])
                self.C_grid_, self.cv_losses_, self.n_folds_ = grid, losses, int(folds.max()) + 1
            else:
                self.C_grid_, self.cv_losses_, self.n_folds_ = np.array([C]), np.full((1, len(y)), np.nan), 0
            self.cv_scores_ = 1.0 - self.cv_losses_.mean(axis=1)
            self.C_ = C
        self.problem_ = problem
        self._store(cutting_plane(problem, Z, y, offset, C, epsilon, max_iter,
                                  as_generator(self.random_state)))
        return self

    def _store(self, result):
        self.coef_ = result.coef
        self.dual_coef_ = result.dual_coef
        self.slack_ = result.slack
        self.objective_ = result.objective
        self.violation_ = result.violation
        self.n_iter_ = result.n_iter
        self.working_set_size_ = len(result.dual_coef)
        self.converged_ = result.converged
        self.history_ = result.history

    def _own_potentials(self, X):
        return self.problem_.potentials(self.problem_.embed(X), self.coef_)

    def predict(self, X):
        """argmax_y f(x, y) for every row of X.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.

        Returns
        -------
        ndarray
            The predicted outputs.
        """
        potentials = self.potentials(X)
        return self.problem_.predict(potentials)

    def joint_score(self, X, y):
        """f(x_i, y_i) for every example (the model's score of the given outputs).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.
        y : array-like
            Their outputs.

        Returns
        -------
        ndarray of shape (n,)
            The scores.
        """
        potentials = self.potentials(X)
        return self.problem_.scores(potentials, self.problem_.check_outputs(y))

    def score(self, X, y):
        """1 - mean structured loss: accuracy (0/1 loss) or 1 - Hamming loss.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.
        y : array-like
            Their true outputs.

        Returns
        -------
        float
            1 - mean loss.
        """
        predicted = self.predict(X)
        Y = self.problem_.check_outputs(y)
        return 1.0 - float(np.mean(self.problem_.loss(Y, predicted)))


class StructuredSVM(_CuttingPlaneModel):
    """1-slack margin-rescaled structural SVM solved by cutting planes.

    f(x, y) = w' Psi(x, y), with w from eq. (2) of domain-transfer-structured-output with
    f_S = 0 (Tsochantaridis et al. 2004; the 1-slack form of Joachims et al. 2009), by
    Algorithm 1 with the working-set QP solved by cvxopt.

    Parameters
    ----------
    problem : StructuredProblem
        The output structure, e.g. ``MulticlassProblem(10)`` or ``MultilabelProblem(4)``.
    C : float, default 1.0
        Trade-off between ||w||^2 and the average structured hinge loss (C = 0 gives w = 0).
    epsilon : float, default 1e-3
        Stop when the most violated constraint is violated by at most epsilon.
    max_iter : int, default 1000
        Budget of cutting-plane iterations (a ConvergenceWarning when it runs out).
    random_state : None, int, RandomState or Generator, default 0
        Seed of the random initial y-bar.

    Attributes
    ----------
    coef_ : ndarray
        w.
    problem_ : StructuredProblem
        The fitted problem (its embedding).
    n_iter_ : int
        Cutting-plane iterations.
    working_set_size_ : int
        Constraints in the last QP.
    objective_ : float
        1/2 ``||w||^2`` + C xi of the last working-set QP, a lower bound on the optimum of eq. 2;
        the optimum is at most ``objective_ + C violation_``.
    slack_ : float
        xi.
    violation_ : float
        Of the final most violated constraint.
    converged_ : bool
        Whether the violation fell below ``epsilon``.
    history_ : CuttingPlaneHistory
        One row per iteration.
    dual_coef_ : ndarray
        alpha, the working set's dual coefficients.

    See Also
    --------
    DomainTransferSSVM : Adapts a fitted StructuredSVM to a target domain from a few labels.
    covshift.transfer.MulticlassProblem : The 0/1-loss output structure.
    covshift.transfer.MultilabelProblem : The Hamming-loss output structure.

    References
    ----------
    I. Tsochantaridis, T. Hofmann, T. Joachims and Y. Altun (2004). Support vector machine learning
    for interdependent and structured output spaces. *ICML*. T. Joachims, T. Finley and C.-N. Yu
    (2009). Cutting-plane training of structural SVMs. *Machine Learning* 77. J. J.-Y. Wang (2014),
    Domain transfer structured output learning: eq. (2) with f_S = 0, Algorithm 1.

    Examples
    --------
    >>> from covshift import StructuredSVM
    >>> from covshift.transfer import MulticlassProblem
    >>> from covshift.transfer.data import digits_transfer
    >>> d = digits_transfer(random_state=0)
    >>> svm = StructuredSVM(MulticlassProblem(10), C=10).fit(d.X_source[:300], d.y_source[:300])
    >>> bool(svm.converged_), bool(svm.score(d.X_source[300:600], d.y_source[300:600]) > 0.8)
    (True, True)
    """

    _parameter_constraints = {
        "problem": [StructuredProblem],
        "C": [NON_NEGATIVE],
        "epsilon": [POSITIVE],
        "max_iter": [count(1)],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, problem, C=1.0, epsilon=1e-3, max_iter=1000, random_state=0):
        self.problem = problem
        self.C = C
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.random_state = random_state

    # the problem (and the source model) are the user's estimators: their own checks run too
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Learn w from the examples (X, y).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.
        y : array-like
            Their outputs, valid for ``problem``.

        Returns
        -------
        self : StructuredSVM
            The fitted model.
        """
        X = validate_input(self, X, reset=True)
        problem = fitted_problem(self.problem, X)
        return self._fit_cutting_plane(X, y, problem, lambda X, zeros: zeros)

    def potentials(self, X):
        """The score table of f(x, y) = w' Psi(x, y) (see ``covshift.transfer.problems``).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.

        Returns
        -------
        ndarray
            The potentials, one row per input.
        """
        X = validate_predict(self, X, "coef_")
        return self._own_potentials(X)


class DomainTransferSSVM(_CuttingPlaneModel):
    """Domain transfer structured output learning: f_T = f_S + w' Psi, w by Algorithm 1.

    Implements eqs. (1)-(6) and Algorithm 1 of domain-transfer-structured-output (Wang): the
    source scores f_S(x_i, y) enter every constraint and the loss-augmented argmax; only the
    delta w is learned, from the l labelled target examples.

    The paper fixes C by hand. With a few labels a bad C can make the transfer model worse than
    the source model alone (a large C on a mild shift pulls the scores of the labelled classes
    up for every input), so by default C is chosen from the labels (``C="auto"``): the
    cross-validated mean task loss (0/1 or Hamming) on the l labelled target examples is
    compared over ``AUTO_C_GRID``, which starts at C = 0, the source model itself (w = 0).
    The best C wins, ties going to the smaller C, the closer to the source model; and it
    replaces the source model only if it beats it by more than one standard error of the paired
    per-example differences (``choose_C``). Then w is refitted on all l examples at that C
    (the same fit as with that number given as C).

    Parameters
    ----------
    source_model : fitted structured predictor
        Anything with ``potentials(X)`` returning its score table in the format of
        ``problem`` (for example a :class:`StructuredSVM` fitted on the source domain).
        It is used as is, never refitted. (``sklearn.base.clone`` would clone it unfitted; for
        cross-validation tools wrap it in ``sklearn.frozen.FrozenEstimator``.)
    problem : StructuredProblem
        Output structure and the joint feature map Psi of the delta function.
    C : "auto" or float >= 0, default "auto"
        Trade-off of eq. (2); C = 0 keeps the source model unchanged (w = 0), a large C follows
        the target labels. ``"auto"`` chooses C from ``AUTO_C_GRID`` by stratified
        ``AUTO_FOLDS``-fold cross-validation, which is leave-one-out while l <= 5
        (``cv_folds``). The source scores of the l examples are computed once, and on each
        fold the grid is walked upwards with warm-started working sets and a looser stopping
        threshold (``cross_validate_C``), so the search costs a few fits (measured: 3-7 times
        one fit at C = 10 on the digits, l = 10..50), not one per grid point and fold. With
        l = 1 nothing is left to validate on, and C = 0 is kept.
    epsilon : float, default 1e-3
        epsilon_cp of Algorithm 1 (also for the cross-validation fits).
    max_iter : int, default 1000
        Budget of cutting-plane iterations (per fit).
    random_state : None, int, RandomState or Generator, default 0
        Seed of the random initial y-bar and of the shuffling of the folds.

    Attributes
    ----------
    C_ : float
        The C of the fitted delta: the given number, or the one ``"auto"`` chose.
    C_grid_ : ndarray
        The C compared (for a given number C, just ``[C]``).
    cv_losses_ : ndarray of shape (n_C, l)
        Held-out loss of every labelled example at each of the n_C values of ``C_grid_`` (NaN when
        C was given or l = 1).
    cv_scores_ : ndarray
        Their cross-validated 1 - mean loss (accuracy for the 0/1 loss, 1 - Hamming loss).
    n_folds_ : int
        Number of cross-validation folds (l for leave-one-out; 0 when C was given).
    coef_ : ndarray
        The delta w; the other fitted attributes are those of :class:`StructuredSVM`.

    See Also
    --------
    StructuredSVM : The source model, and the structural SVM this one adapts.
    covshift.transfer.ResidualDeltaRegressor : A regression analogue of the delta idea.

    References
    ----------
    J. J.-Y. Wang (2014). Domain transfer structured output learning
    (domain-transfer-structured-output): eqs. (1)-(6) and Algorithm 1. The choice of C by
    cross-validation is this library's.

    Examples
    --------
    >>> from covshift import DomainTransferSSVM, StructuredSVM
    >>> from covshift.transfer import MulticlassProblem
    >>> from covshift.transfer.data import digits_transfer
    >>> d = digits_transfer(shift="thicken+rotate", random_state=0)
    >>> source = StructuredSVM(MulticlassProblem(10), C=10).fit(d.X_source, d.y_source)
    >>> target = DomainTransferSSVM(source, MulticlassProblem(10)).fit(d.X_pool[:20], d.y_pool[:20])
    >>> float(target.C_) in (0.0, 0.01, 0.1, 1.0, 10.0), target.cv_losses_.shape
    (True, (5, 20))
    """

    _allow_auto_C = True
    _parameter_constraints = {
        **StructuredSVM._parameter_constraints,
        "source_model": [HasMethods(["potentials"])],
        "C": [NON_NEGATIVE, StrOptions({"auto"})],
    }

    def __init__(self, source_model, problem, C="auto", epsilon=1e-3, max_iter=1000, random_state=0):
        self.source_model = source_model
        self.problem = problem
        self.C = C
        self.epsilon = epsilon
        self.max_iter = max_iter
        self.random_state = random_state

    def _source_potentials(self, X, expected_shape):
        table = np.asarray(self.source_model.potentials(X), dtype=float)
        if table.shape != expected_shape:
            raise ValueError(f"source_model scores have shape {table.shape}, but the problem expects "
                             f"{expected_shape}: the source model must solve the same output structure.")
        if not np.all(np.isfinite(table)):
            raise ValueError("source_model returned NaN or infinite scores on the target inputs.")
        return table

    # the problem (and the source model) are the user's estimators: their own checks run too
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Learn the delta w from the l labelled target examples (X, y).

        Parameters
        ----------
        X : array-like of shape (l, d)
            Labelled target inputs.
        y : array-like
            Their outputs.

        Returns
        -------
        self : DomainTransferSSVM
            The fitted model.
        """
        if np.shape(X)[:1] == (0,):
            raise ValueError("DomainTransferSSVM needs at least one labelled target example (l >= 1); "
                             "got l = 0. Without target labels use the source model itself.")
        X = validate_input(self, X, reset=True, name="X (labelled target inputs)")
        problem = fitted_problem(self.problem, X)
        return self._fit_cutting_plane(X, y, problem, lambda X, zeros: self._source_potentials(X, zeros.shape))

    def potentials(self, X):
        """Score table of f_T(x, y) = f_S(x, y) + w' Psi(x, y) (eq. 1).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Target inputs.

        Returns
        -------
        ndarray
            The potentials, one row per input.
        """
        X = validate_predict(self, X, "coef_")
        own = self._own_potentials(X)
        return self._source_potentials(X, own.shape) + own
