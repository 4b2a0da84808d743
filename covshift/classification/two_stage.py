"""Two-stage covariate-shift classifier: weights first, then a weighted classifier."""

from sklearn.base import clone
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
    weights : covshift weight estimator, default LogisticRatio()
        Anything with ``fit(X_tr, X_te)`` and ``weights_`` (cloned before fitting).
    classifier : classifier with ``fit(X, y, sample_weight=...)``, default KernelLogisticRegression()

    Attributes
    ----------
    weights_estimator_, classifier_, weights_ (training weights, mean 1), classes_, n_features_in_,
    coef_, intercept_, feature_map_ (those of the fitted classifier)
    """

    def __init__(self, weights=None, classifier=None):
        self.weights = weights
        self.classifier = classifier

    def fit(self, X, y, X_te):
        """Stage 1 on the inputs (X = the paper's X_tr, and X_te), stage 2 on the weighted
        labelled data (X, y). Returns self."""
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
        X = validate_predict(self, X, "classifier_")
        return self.classifier_.decision_function(X)

    def predict_weights(self, X):
        """The first stage's weight at any inputs (where the estimator supports it)."""
        check_is_fitted(self, "weights_estimator_")
        return self.weights_estimator_.predict_weights(X)
