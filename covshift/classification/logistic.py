"""Kernel logistic regression with sample weights: the iid baseline of discriminative-covariate-shift."""

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, _fit_context

from .._constraints import POSITIVE, count
from .._validation import check_sample_weight, validate_predict
from ..limits import check_kernel_classifier_memory
from ._features import (KERNEL_PARAMETERS, check_classification_input, make_feature_map, penalty_matrix,
                        resolve_sigma)
from ._newton import newton_ascent
from ._objectives import weighted_logistic_objective


class LinearScoreClassifier(ClassifierMixin, BaseEstimator):
    """Prediction for models with score f(x) = z(x) . coef_ + intercept_ (sets nothing itself)."""

    def decision_function(self, X):
        """Score f(x); positive means ``classes_[1]``.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.

        Returns
        -------
        ndarray of shape (n,)
            f(x) for each row of ``X``.
        """
        X = validate_predict(self, X, "coef_")
        return self.feature_map_.transform(X) @ self.coef_ + self.intercept_

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_`` (eq. 13 / eq. 22).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.

        Returns
        -------
        ndarray of shape (n, 2)
            p(classes_[0] | x) and p(classes_[1] | x).
        """
        p = expit(self.decision_function(X))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """The class with the larger probability (``classes_[1]`` where the score is positive).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Inputs.

        Returns
        -------
        ndarray of shape (n,)
            The predicted classes.
        """
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(int)]

    def __sklearn_tags__(self):
        """Binary classifiers (the papers' models): more than two classes are refused."""
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class KernelLogisticRegression(LinearScoreClassifier):
    """Penalised (kernel) logistic regression with sample weights, solved exactly by Newton's method.

    Maximises sum_i s_i log p(y_i | x_i; w) - w'w / (2 C) (eqs. 13 and 15 of
    discriminative-covariate-shift with prior variance s_w^2 = C; scikit-learn's
    LogisticRegression(C) has the same optimum). The intercept is not penalised.

    Not a wrapper: it runs its own damped Newton ascent to max ``|gradient| <= tol``, so the iid
    baseline, the second stage of the two-stage methods and the start of the integrated model
    solve the identical problem. ``kernel="rbf"`` is the exact dual form over all training
    points (no Nystroem subsampling): features k(x, X_tr) U L^{-1/2} from the eigendecomposition
    K = U L U' of the training Gram matrix, so ``dual_coef_`` is alpha in f(x) = sum_j alpha_j
    k(x, x_j) + b.

    Parameters
    ----------
    kernel : {"rbf", "linear"}, default "rbf"
        The dual form over the training points, or the primal linear model.
    sigma : float or "auto", default "auto"
        Width of k(a, b) = exp(-||a - b||^2 / (2 sigma^2)); "auto": the median heuristic on X_tr.
    C : float, default 1.0
        Prior variance of the weights (larger: weaker regularisation).
    tol : float, default 1e-8
        Newton's method stops when max ``|gradient|`` <= tol * sum(sample_weight).
    max_iter : int, default 100
        Most Newton steps.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two class labels.
    n_features_in_ : int
        Number of input columns.
    sigma_ : float or None
        The kernel width used (None for ``kernel="linear"``).
    feature_map_ : object
        The map z(x) of the inputs to the model's features.
    coef_ : ndarray
        Weights of the features.
    intercept_ : float
        The unpenalised intercept.
    dual_coef_ : ndarray or None
        alpha in f(x) = sum_j alpha_j k(x, x_j) + b (rbf only).
    objective_ : float
        The penalised log-likelihood at the solution.
    n_iter_ : int
        Newton steps taken.
    converged_ : bool
        Whether the gradient tolerance was reached.
    history_ : NewtonHistory
        One row per Newton step.

    See Also
    --------
    TwoStageShiftClassifier : Importance weights first, then this classifier with them.
    IntegratedShiftClassifier : Classifier and selector learned together.

    References
    ----------
    S. Bickel, M. Brueckner and T. Scheffer (2007). Discriminative learning for differing training
    and test distributions. *ICML* (eqs. 13 and 15).

    Examples
    --------
    >>> from covshift import KernelLogisticRegression, data
    >>> toy = data.shift_classification_2d(random_state=0)
    >>> clf = KernelLogisticRegression(kernel="linear").fit(toy.X_tr, toy.Y_tr[:, 0])
    >>> clf.predict_proba(toy.X_te).shape[1], bool(clf.converged_)
    (2, True)
    """

    def __init__(self, kernel="rbf", sigma="auto", C=1.0, tol=1e-8, max_iter=100):
        self.kernel = kernel
        self.sigma = sigma
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    _parameter_constraints = {**KERNEL_PARAMETERS, "C": [POSITIVE], "tol": [POSITIVE], "max_iter": [count(1)]}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, X_te=None, *, sample_weight=None):
        """Fit on labelled training data; ``X_te`` is accepted for a common signature and ignored.

        Parameters
        ----------
        X : array-like of shape (m, d)
            The labelled training inputs (the paper's X_tr).
        y : array-like of shape (m,)
            Their labels (y_tr), two classes.
        X_te : array-like or None, default None
            Ignored (validated if given).
        sample_weight : array-like of shape (m,) or None, default None
            Non-negative weights of the training points (None: all ones).

        Returns
        -------
        self : KernelLogisticRegression
            The fitted classifier.
        """
        X_tr, _, self.classes_, y01 = check_classification_input(self, X, y, X_te, need_test=False)
        C = float(self.C)
        weights = check_sample_weight(sample_weight, len(X_tr))
        if self.kernel == "rbf":
            check_kernel_classifier_memory("Kernel logistic regression", len(X_tr))
        self.sigma_ = resolve_sigma(self.kernel, self.sigma, X_tr)
        self.feature_map_ = make_feature_map(self.kernel, self.sigma_, X_tr)
        F = self.feature_map_.design(X_tr)
        result = fit_weighted_logistic(F, y01, weights, C, self.tol, self.max_iter,
                                       name="Kernel logistic regression")
        self._store(result)
        return self

    def _store(self, result):
        self.coef_, self.intercept_ = result.theta[:-1], float(result.theta[-1])
        self.dual_coef_ = self.feature_map_.dual_coef(self.coef_)
        self.objective_ = result.objective
        self.n_iter_, self.converged_, self.history_ = result.n_iter, result.converged, result.history


def fit_weighted_logistic(F, y01, sample_weight, C, tol=1e-8, max_iter=100, theta0=None,
                          name="Logistic regression"):
    """Newton's method on :func:`weighted_logistic_objective` with the prior of variance C."""
    penalty = penalty_matrix(F.shape[1] - 1, C)
    theta0 = np.zeros(F.shape[1]) if theta0 is None else theta0
    return newton_ascent(lambda theta, order: weighted_logistic_objective(theta, F, y01, sample_weight,
                                                                          penalty, order),
                         theta0, tol=tol, max_iter=max_iter, scale=float(np.sum(sample_weight)), name=name)
