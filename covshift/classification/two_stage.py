"""Two-stage covariate-shift classifier: weights first, then a weighted classifier."""

from sklearn.base import _fit_context, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted

from .._validation import validate_predict
from ..weights import LogisticRatio
from ._features import check_classification_input
from .logistic import KernelLogisticRegression, LinearScoreClassifier


class TwoStageShiftClassifier(LinearScoreClassifier):
    """Estimate w(x) = p_te(x) / p_tr(x) on (X_tr, X_te), then fit the classifier with sample_weight=w.

    The reference methods of discriminative-covariate-shift (section 6): the first stage is any
    covshift weight estimator (LogisticRatio is eq. 7, "two-stage LR"; KMM; KLIEP/FCFWCS), the
    second a logistic regression on the weighted training data.

    Parameters
    ----------
    weights : covshift weight estimator or None, default None
        Anything with ``fit(X_tr, X_te)`` and ``weights_`` (cloned before fitting); None is
        ``LogisticRatio()``.
    classifier : classifier or None, default None
        Anything with ``fit(X, y, sample_weight=...)``; None is ``KernelLogisticRegression()``.

    Attributes
    ----------
    weights_estimator_ : WeightEstimator
        The fitted first stage.
    classifier_ : classifier
        The fitted second stage.
    weights_ : ndarray of shape (m,)
        Training weights, mean 1.
    classes_ : ndarray of shape (2,)
        The two class labels.
    coef_, intercept_, feature_map_ : object
        Those of the fitted classifier (when it has them).

    See Also
    --------
    IntegratedShiftClassifier : Classifier and selector learned together instead.
    KernelLogisticRegression : The default second stage.
    covshift.LogisticRatio : The default first stage (eq. 7).

    References
    ----------
    S. Bickel, M. Brueckner and T. Scheffer (2007). Discriminative learning for differing training
    and test distributions. *ICML* (section 6, the two-stage baselines).

    Examples
    --------
    >>> from covshift import KernelLogisticRegression, LogisticRatio, TwoStageShiftClassifier, data
    >>> toy = data.shift_classification_2d(random_state=0)
    >>> clf = TwoStageShiftClassifier(LogisticRatio(), KernelLogisticRegression(kernel="linear"))
    >>> clf = clf.fit(toy.X_tr, toy.Y_tr[:, 0], toy.X_te)
    >>> round(float(clf.weights_.mean()), 6), clf.predict(toy.X_te[:4]).shape
    (1.0, (4,))
    """

    def __init__(self, weights=None, classifier=None):
        self.weights = weights
        self.classifier = classifier

    _parameter_constraints = {"weights": [None, HasMethods(["fit"])],
                              "classifier": [None, HasMethods(["fit", "predict"])]}

    # not skipping nested validation: the two stages are the user's estimators, checked by their own fit
    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y, X_te):
        """Stage 1 on the inputs (X = the paper's X_tr, and X_te), stage 2 on the weighted labelled data.

        Parameters
        ----------
        X : array-like of shape (m, d)
            The labelled training inputs.
        y : array-like of shape (m,)
            Their labels, two classes.
        X_te : array-like of shape (n, d)
            The unlabelled test inputs (first stage only).

        Returns
        -------
        self : TwoStageShiftClassifier
            The fitted classifier.
        """
        X_tr, X_te, self.classes_, _ = check_classification_input(self, X, y, X_te)
        self.weights_estimator_ = clone(self.weights if self.weights is not None else LogisticRatio())
        self.weights_ = self.weights_estimator_.fit(X_tr, X_te).weights_
        self.classifier_ = clone(self.classifier if self.classifier is not None else KernelLogisticRegression())
        self.classifier_.fit(X_tr, y, sample_weight=self.weights_)
        for name in ("coef_", "intercept_", "feature_map_"):
            if hasattr(self.classifier_, name):
                setattr(self, name, getattr(self.classifier_, name))
        return self

    def decision_function(self, X):
        """The fitted classifier's score at every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (k, d)
            Inputs.

        Returns
        -------
        ndarray of shape (k,)
            Positive means ``classes_[1]``.
        """
        X = validate_predict(self, X, "classifier_")
        return self.classifier_.decision_function(X)

    def predict_weights(self, X):
        """The first stage's weight at any inputs (where the estimator supports it).

        Parameters
        ----------
        X : array-like of shape (k, d)
            Inputs.

        Returns
        -------
        ndarray of shape (k,)
            w(x) on the scale of ``weights_``.
        """
        check_is_fitted(self, "weights_estimator_")
        return self.weights_estimator_.predict_weights(X)
