"""The integrated classifier of discriminative-covariate-shift: classifier and selector learned jointly."""

import numpy as np
from scipy.special import expit
from sklearn.base import _fit_context

from .._constraints import POSITIVE, count
from .._validation import validate_predict
from ..limits import check_kernel_classifier_memory
from ._features import (KERNEL_PARAMETERS, check_classification_input, make_feature_map, penalty_matrix,
                        resolve_sigma)
from ._newton import newton_ascent
from ._objectives import implied_weights, joint_objective
from .logistic import LinearScoreClassifier, fit_weighted_logistic


class IntegratedShiftClassifier(LinearScoreClassifier):
    """Logistic regression for covariate shift: the MAP [w, v] of Optimization Problem 1.

    Implements eq. 12 with the logistic classifier and selector of eqs. 13-14 and the Gaussian
    priors of eq. 15 (variances s_w^2 = C_w, s_v^2 = C_v) of Bickel, Brueckner and Scheffer,
    "Discriminative learning for differing training and test distributions"
    (discriminative-covariate-shift); the log-posterior is eq. 24, see
    :func:`covshift.classification.joint_objective`. Training points are weighted
    by omega(x) = (m / n)(1 - q(x)) / q(x) (eq. 7), q(x) = p(sigma = 1 | x; v) the selector. The
    weights are not normalised and their mean is below 1 at the optimum (a property of eq. 24, see
    joint_objective): tune C_w for this model rather than reuse the iid classifier's C.

    Solver (Theorem 1, eqs. 16-21): Newton steps on the joint parameters, started from the iid
    solution (w: kernel logistic regression; v: the selector trained alone to tell training from
    test inputs), as section 5.3 advises since the problem is not concave (Theorem 2). Where the
    negative Hessian is not positive definite it is damped (lambda I) so the step is an ascent
    direction, and an Armijo backtracking line search accepts only increases. It stops when
    max ``|gradient|`` <= tol (2m + n) (relative to the m + (m + n) terms of the sums). Primal form for
    ``kernel="linear"``; for ``"rbf"`` the dual form
    (classifier over the training points, selector over training and test points) in the
    orthonormal eigen-coordinates of the Gram matrices. Intercepts of
    classifier and selector are free parameters (not penalised; the paper's inputs carry none).

    Parameters
    ----------
    kernel : {"rbf", "linear"}, default "rbf"
        Dual (RBF) or primal (linear) classifier and selector.
    sigma : float or "auto", default "auto"
        Kernel width of classifier and selector; "auto": the median heuristic on X_tr (as the iid model).
    C_w : float, default 1.0
        Prior variance of the classifier's weights.
    C_v : float, default 1.0
        Prior variance of the selector's weights.
    tol : float, default 1e-8
        Relative gradient-norm tolerance (times 2m + n, the number of likelihood terms).
    max_iter : int, default 100
        Most Newton steps.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels.
    sigma_ : float or None
        The kernel width used.
    coef_, intercept_ : ndarray, float
        The classifier w.
    selector_coef_, selector_intercept_ : ndarray, float
        The selector v.
    weights_ : ndarray of shape (m,)
        Implied weights of the training points, omega(x) of eq. 7.
    objective_ : float
        Log-posterior at the solution, up to a constant.
    objective_start_ : float
        The same at the iid start.
    iid_coef_, iid_intercept_ : ndarray, float
        The iid classifier it started from.
    n_iter_ : int
        Newton steps taken.
    converged_ : bool
        Whether the gradient tolerance was reached.
    history_ : NewtonHistory
        One row per Newton step.

    See Also
    --------
    TwoStageShiftClassifier : The two-stage baseline: weights first, then a weighted classifier.
    KernelLogisticRegression : The iid baseline and the start of the joint optimisation.

    References
    ----------
    S. Bickel, M. Brueckner and T. Scheffer (2007). Discriminative learning for differing training
    and test distributions. *ICML* (Optimization Problem 1, eqs. 12-24, Theorem 1).

    Examples
    --------
    >>> from covshift import IntegratedShiftClassifier, data
    >>> toy = data.shift_classification_2d(random_state=0)
    >>> clf = IntegratedShiftClassifier(kernel="linear").fit(toy.X_tr, toy.Y_tr[:, 0], toy.X_te)
    >>> p_test = clf.selector_proba(toy.X_te)
    >>> bool(((p_test > 0) & (p_test < 1)).all()), clf.weights_.shape == (len(toy.X_tr),)
    (True, True)
    >>> bool(clf.objective_ >= clf.objective_start_)
    True
    """

    def __init__(self, kernel="rbf", sigma="auto", C_w=1.0, C_v=1.0, tol=1e-8, max_iter=100):
        self.kernel = kernel
        self.sigma = sigma
        self.C_w = C_w
        self.C_v = C_v
        self.tol = tol
        self.max_iter = max_iter

    _parameter_constraints = {**KERNEL_PARAMETERS, "C_w": [POSITIVE], "C_v": [POSITIVE], "tol": [POSITIVE],
                              "max_iter": [count(1)]}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_te):
        """Maximise the joint log-posterior on labelled training data and unlabelled test inputs.

        Parameters
        ----------
        X : array-like of shape (m, d)
            The labelled training inputs (the paper's X_tr).
        y : array-like of shape (m,)
            Their labels (y_tr), two classes.
        X_te : array-like of shape (n, d)
            The unlabelled test inputs.

        Returns
        -------
        self : IntegratedShiftClassifier
            The fitted classifier.
        """
        X_tr, X_te, self.classes_, y01 = check_classification_input(self, X, y, X_te)
        C_w, C_v = float(self.C_w), float(self.C_v)
        self.n_train_, self.n_test_ = len(X_tr), len(X_te)
        if self.kernel == "rbf":
            check_kernel_classifier_memory("Integrated classifier", len(X_tr), len(X_tr) + len(X_te))
        self.sigma_ = resolve_sigma(self.kernel, self.sigma, X_tr)
        X_all = np.vstack([X_tr, X_te])
        self.feature_map_ = make_feature_map(self.kernel, self.sigma_, X_tr)
        self.selector_map_ = make_feature_map(self.kernel, self.sigma_, X_all)
        F, G = self.feature_map_.design(X_tr), self.selector_map_.design(X_all)
        start = self._iid_start(F, G, y01, C_w, C_v)
        penalty_w, penalty_v = penalty_matrix(F.shape[1] - 1, C_w), penalty_matrix(G.shape[1] - 1, C_v)
        result = newton_ascent(lambda theta, order: joint_objective(theta, F, G, y01, penalty_w, penalty_v, order),
                               start, tol=self.tol, max_iter=self.max_iter, scale=2 * len(X_tr) + len(X_te),
                               name="Integrated classifier")
        d_w = F.shape[1]
        self.coef_, self.intercept_ = result.theta[:d_w - 1], float(result.theta[d_w - 1])
        self.selector_coef_, self.selector_intercept_ = result.theta[d_w:-1], float(result.theta[-1])
        self.dual_coef_ = self.feature_map_.dual_coef(self.coef_)
        self.weights_ = implied_weights(G[:len(X_tr)] @ result.theta[d_w:], self.n_train_, self.n_test_)
        self.objective_, self.objective_start_ = result.objective, float(result.history.objective[0])
        self.n_iter_, self.converged_, self.history_ = result.n_iter, result.converged, result.history
        self.gradient_ = result.gradient
        return self

    def _iid_start(self, F, G, y01, C_w, C_v):
        """[w, v] of the iid classifier and of the selector trained alone (both concave)."""
        m = F.shape[0]
        classifier = fit_weighted_logistic(F, y01, np.ones(m), C_w, tol=1e-8, name="iid start")
        sigma = np.r_[np.ones(m), np.zeros(G.shape[0] - m)]
        selector = fit_weighted_logistic(G, sigma, np.ones(G.shape[0]), C_v, tol=1e-8, name="selector start")
        self.iid_coef_, self.iid_intercept_ = classifier.theta[:-1], float(classifier.theta[-1])
        return np.concatenate([classifier.theta, selector.theta])

    def selector_scores(self, X):
        """u(x) = log q(x) / (1 - q(x)), the selector's score (positive: looks like training).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Inputs.

        Returns
        -------
        ndarray of shape (k,)
            u(x) for each row.
        """
        X = validate_predict(self, X, "selector_coef_")
        return self.selector_map_.transform(X) @ self.selector_coef_ + self.selector_intercept_

    def selector_proba(self, X):
        """p(test | x) = 1 - p(sigma = 1 | x; v) (eq. 14), the selector's probability of 'test'.

        Parameters
        ----------
        X : array-like of shape (k, d)
            Inputs.

        Returns
        -------
        ndarray of shape (k,)
            p(test | x) for each row.
        """
        return expit(-self.selector_scores(X))

    def predict_weights(self, X):
        """Implied importance weight (m / n)(1 - q(x)) / q(x) at any inputs (eq. 7).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Inputs.

        Returns
        -------
        ndarray of shape (k,)
            The implied weight of each row.
        """
        return implied_weights(self.selector_scores(X), self.n_train_, self.n_test_)
