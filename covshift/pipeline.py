"""Importance weights inside scikit-learn workflows, on skada's convention.

Under covariate shift the weights w(x) = p_te(x) / p_tr(x) come from the *data* (training and
test inputs), so in a cross-validation they must be re-estimated in every fold from that fold's
rows, not once outside it. The convention is skada's (``fit(X, y, sample_domain=...)``): the
training (source) rows and the test (target) rows are stacked into one ``X``; ``sample_domain``
is >= 0 on source rows and < 0 on target rows, whose labels are not used (masked). Without
``sample_domain`` the target rows are read from the masked labels, as skada does: NaN for
regression outputs, -1 for class labels. So a scikit-learn splitter cuts every fold into source
and target rows alike, and the weights of a fold are those of its own rows.

* :class:`ImportanceReweighter` (``make_reweighting_pipeline``): a meta-estimator
  ``weight_estimator + estimator``. ``fit`` estimates the weights on the source and target rows
  it is given, then fits ``estimator`` on the source rows with ``sample_weight`` = the weights.
  ``score`` is importance-weighted cross-validation (IWCV, Sugiyama et al., JMLR 2007): the
  estimator's score on the held-out source rows, weighted by the fitted weight estimator's
  w(x) there, or by a ``sample_weight`` routed to it (``set_score_request(sample_weight=True)``).
* :class:`ReweightAdapter`: the weight estimator as a step of skada's ``make_da_pipeline``
  (skada's adapter protocol; this module does not import skada).

A fit that sees no target row raises a ValueError (a split that sliced them all away is never
silent); ``n_source_`` and ``n_target_`` record how many rows of each the weights were fitted on.
"""

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, _fit_context, clone
from sklearn.metrics import check_scoring
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_array, check_consistent_length, check_is_fitted, column_or_1d

from ._validation import named_errors, validate_input, validate_predict

#: skada's masked label of a target row: -1 for class labels, NaN for regression outputs.
MASKED_CLASS_LABEL = -1


def source_rows(y, sample_domain, n_samples):
    """Boolean mask of the source (training) rows.

    Parameters
    ----------
    y : array-like or None
        Labels, the target rows' masked (NaN, or -1 for class labels).
    sample_domain : array-like of shape (n_samples,) or None
        >= 0 on source rows, < 0 on target rows; when given it decides.
    n_samples : int
        Number of rows.

    Returns
    -------
    ndarray of bool, shape (n_samples,)
        ``sample_domain >= 0``; without ``sample_domain``, the rows whose label is not masked.
    """
    if sample_domain is not None:
        with named_errors("sample_domain"):
            domain = column_or_1d(sample_domain)
            check_consistent_length(domain, np.empty(n_samples))
        if domain.dtype.kind not in "iuf" or not np.all(np.isfinite(domain)):
            raise ValueError("sample_domain must hold one number per row: >= 0 for source (training) rows, "
                             "< 0 for target (test) rows.")
        return domain >= 0
    if y is None:
        raise ValueError("Pass sample_domain (>= 0 for source rows, < 0 for target rows) or y with the "
                         "target rows' labels masked (NaN, or -1 for class labels).")
    y = np.asarray(y)
    with named_errors("y"):
        check_consistent_length(y, np.empty(n_samples))
    if y.dtype.kind == "f":
        return ~np.isnan(y.reshape(n_samples, -1)).any(axis=1)
    return y.reshape(n_samples, -1)[:, 0] != MASKED_CLASS_LABEL


def _split(X, y, sample_domain):
    """(source mask, n_source, n_target); ValueError when either domain has no row."""
    source = source_rows(y, sample_domain, len(X))
    n_source, n_target = int(source.sum()), int((~source).sum())
    if n_target == 0:
        raise ValueError(
            "No target (test) rows in the data given to fit: the weights need test inputs. Stack the "
            "test inputs under the training inputs with sample_domain < 0 (or masked labels); in a "
            "cross-validation, use a splitter that keeps target rows in every training fold.")
    if n_source == 0:
        raise ValueError("No source (training) rows in the data given to fit: sample_domain >= 0 "
                         "(or an unmasked label) marks the labelled training rows.")
    return source, n_source, n_target


def _estimator_has(attribute):
    return lambda self: hasattr(self.estimator_ if hasattr(self, "estimator_") else self.estimator, attribute)


class ImportanceReweighter(MetaEstimatorMixin, BaseEstimator):
    """Estimate importance weights, then fit a model with them, in one estimator.

    Parameters
    ----------
    weight_estimator : covshift weight estimator
        ``fit(X_tr, X_te)`` with ``weights_`` (e.g. ``FCFWCS(sigma="auto")``); cloned per fit.
    estimator : estimator with ``fit(X, y, sample_weight=...)``
        The model (e.g. ``GPR()``), fitted on the source rows with the weights; cloned per fit.

    Attributes
    ----------
    weight_estimator_ : WeightEstimator
        The fitted clone of ``weight_estimator``.
    estimator_ : estimator
        The fitted clone of ``estimator``.
    weights_ : ndarray of shape (n_source,)
        The weights of the source rows (mean 1).
    n_source_, n_target_ : int
        Rows of each domain the weights were fitted on.

    See Also
    --------
    make_reweighting_pipeline : Preprocessing steps, then this.
    importance_weighted_scorer : IWCV as a scorer of a grid search.
    ReweightAdapter : The weights as a step of skada's pipelines.

    References
    ----------
    M. Sugiyama, M. Krauledat and K.-R. Mueller (2007). Covariate shift adaptation by importance
    weighted cross validation. *JMLR* 8, 985-1005 (IWCV, the score).

    Examples
    --------
    >>> import numpy as np
    >>> from covshift import FCFWCS, GPR, data
    >>> from covshift.pipeline import ImportanceReweighter
    >>> shift = data.sinc_shift(n_tr=60, n_te=40, random_state=0)
    >>> X = np.vstack([shift.X_tr, shift.X_te])
    >>> y = np.r_[shift.Y_tr.ravel(), np.full(len(shift.X_te), np.nan)]  # target labels masked
    >>> model = ImportanceReweighter(FCFWCS(sigma=0.3), GPR(rho_x=1.0)).fit(X, y)
    >>> model.n_source_, model.n_target_, model.predict(shift.X_te).shape
    (60, 40, (40,))
    """

    __metadata_request__fit = {"sample_domain": True}
    __metadata_request__score = {"sample_domain": True}

    _parameter_constraints = {"weight_estimator": [HasMethods(["fit"])], "estimator": [HasMethods(["fit"])]}

    def __init__(self, weight_estimator, estimator):
        self.weight_estimator = weight_estimator
        self.estimator = estimator

    @_fit_context(prefer_skip_nested_validation=False)  # the wrapped estimators are the user's: their checks run
    def fit(self, X, y, sample_domain=None, **fit_params):
        """Weights from the source and target rows, then ``estimator`` on the source rows with them.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Source and target rows stacked.
        y : array-like of shape (n,) or (n, p)
            Labels; the target rows' are not used (masked: NaN, or -1 for classes).
        sample_domain : array-like of shape (n,) or None, default None
            >= 0 on source rows, < 0 on target rows (None: the masked labels tell).
        **fit_params : dict
            Passed to ``estimator.fit``, sliced to the source rows.

        Returns
        -------
        self : ImportanceReweighter
            The fitted meta-estimator.
        """
        if y is None:
            raise ValueError(f"This {type(self).__name__} estimator requires y to be passed, but the target y "
                             "is None.")
        X = validate_input(self, X, reset=True)
        with named_errors("y"):  # masked target labels (NaN) allowed
            y = check_array(y, ensure_2d=False, dtype=None, ensure_all_finite="allow-nan", input_name="y")
            check_consistent_length(X, y)
        source, self.n_source_, self.n_target_ = _split(X, y, sample_domain)
        self.weight_estimator_ = clone(self.weight_estimator).fit(X[source], X[~source])
        self.weights_ = self.weight_estimator_.weights_
        params = {k: (np.asarray(v)[source] if np.shape(v)[:1] == (len(X),) else v) for k, v in fit_params.items()}
        self.estimator_ = clone(self.estimator).fit(X[source], np.asarray(y)[source], sample_weight=self.weights_,
                                                    **params)
        if hasattr(self.estimator_, "classes_"):
            self.classes_ = self.estimator_.classes_
        return self

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """The fitted estimator's prediction (at any rows, source or target).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.

        Returns
        -------
        ndarray
            ``estimator_.predict(X)``.
        """
        return self.estimator_.predict(validate_predict(self, X, "estimator_"))

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """The fitted estimator's class probabilities.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.

        Returns
        -------
        ndarray of shape (n, n_classes)
            ``estimator_.predict_proba(X)``.
        """
        return self.estimator_.predict_proba(validate_predict(self, X, "estimator_"))

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """The fitted estimator's decision function.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.

        Returns
        -------
        ndarray
            ``estimator_.decision_function(X)``.
        """
        return self.estimator_.decision_function(validate_predict(self, X, "estimator_"))

    def held_out_weights(self, X):
        """w(x) of the fitted weight estimator at new rows (IWCV's weights of held-out rows).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Held-out rows.

        Returns
        -------
        ndarray of shape (n,)
            Their weights.
        """
        check_is_fitted(self, "weight_estimator_")
        try:
            return self.weight_estimator_.predict_weights(X)
        except NotImplementedError:
            raise ValueError(f"{type(self.weight_estimator_).__name__} gives weights on its training rows "
                             "only, not at held-out rows: pass sample_weight to score (metadata routing: "
                             "set_score_request(sample_weight=True)) or use a KLIEP-family estimator, "
                             "LogisticRatio or (R)uLSIF.") from None

    def score(self, X, y, sample_weight=None, sample_domain=None):
        """Importance-weighted score (IWCV) on the source rows of (X, y).

        The estimator's own ``score`` with ``sample_weight`` = the given weights (of those rows)
        or, by default, :meth:`held_out_weights`. Target rows (masked labels) are left out.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.
        y : array-like of shape (n,) or (n, p)
            Labels, the target rows' masked.
        sample_weight : array-like of shape (n,) or None, default None
            Weights to score with instead of the fitted w(x).
        sample_domain : array-like of shape (n,) or None, default None
            >= 0 on source rows, < 0 on target rows.

        Returns
        -------
        float
            The weighted score.
        """
        X = validate_predict(self, X, "estimator_")
        source = source_rows(y, sample_domain, len(X))
        if not source.any():
            raise ValueError("No source (labelled) rows to score on.")
        weights = self.held_out_weights(X[source]) if sample_weight is None else np.asarray(sample_weight)[source]
        return self.estimator_.score(X[source], np.asarray(y)[source], sample_weight=weights)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = self.estimator.__sklearn_tags__()
        tags.estimator_type = inner.estimator_type  # a regressor or classifier as its estimator is
        tags.regressor_tags, tags.classifier_tags = inner.regressor_tags, inner.classifier_tags
        tags.target_tags.multi_output = inner.target_tags.multi_output
        return tags


def make_reweighting_pipeline(weight_estimator, estimator, *steps):
    """Preprocessing steps, then the weights and the model, as one pipeline.

    ``make_pipeline(*steps, ImportanceReweighter(weight_estimator, estimator))``: the ``steps``
    are fitted on source and target rows together. Pass ``sample_domain`` as
    ``importancereweighter__sample_domain`` (or mask the target labels).

    Parameters
    ----------
    weight_estimator : WeightEstimator
        E.g. ``FCFWCS(sigma="auto")``.
    estimator : estimator
        The model, fitted with ``sample_weight``.
    *steps : transformers
        Preprocessing before the weights.

    Returns
    -------
    sklearn.pipeline.Pipeline
        The unfitted pipeline.
    """
    from sklearn.pipeline import make_pipeline

    return make_pipeline(*steps, ImportanceReweighter(weight_estimator, estimator))


def importance_weighted_scorer(scoring=None):
    """A scorer of importance-weighted cross-validation for ``GridSearchCV(ImportanceReweighter(...))``.

    It evaluates ``scoring`` on the held-out source rows with the fold's importance weights
    (IWCV). Target rows are found from masked labels.

    Parameters
    ----------
    scoring : str, callable or None, default None
        Any scikit-learn scoring name or scorer; None: the estimator's score.

    Returns
    -------
    callable
        ``scorer(estimator, X, y)``.
    """

    def scorer(estimator, X, y):
        X = validate_predict(estimator, X, "estimator_")
        source = source_rows(y, None, len(X))
        weights = estimator.held_out_weights(X[source])
        inner = check_scoring(estimator.estimator_, scoring)
        return inner(estimator.estimator_, X[source], np.asarray(y)[source], sample_weight=weights)

    return scorer


class ReweightAdapter(BaseEstimator):
    """A covshift weight estimator as a step of skada's ``make_da_pipeline``.

    skada's adapter protocol: ``fit_transform(X, y, sample_domain=...)`` fits the weight
    estimator on the source and target rows and returns ``(X, {"sample_weight": w})`` with w the
    weights on source rows and 0 on target rows; skada routes them to the final estimator
    (``estimator.set_fit_request(sample_weight=True)``). ``transform`` passes X through.

    Parameters
    ----------
    weight_estimator : WeightEstimator
        Fitted (a clone) on the source and target rows.

    Attributes
    ----------
    weight_estimator_ : WeightEstimator
        The fitted clone.
    weights_ : ndarray of shape (n,)
        Weights of the source rows, 0 on target rows.
    n_source_, n_target_ : int
        Rows of each domain.
    """

    __metadata_request__fit = {"sample_domain": True}
    __metadata_request__transform = {"sample_domain": True, "allow_source": True}

    _parameter_constraints = {"weight_estimator": [HasMethods(["fit"])]}

    def __init__(self, weight_estimator):
        self.weight_estimator = weight_estimator

    @_fit_context(prefer_skip_nested_validation=False)  # the weight estimator is the user's: its checks run
    def fit(self, X, y=None, *, sample_domain=None):
        """Fit the weight estimator on the source and target rows.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Source and target rows.
        y : array-like or None, default None
            Labels, the target rows' masked.
        sample_domain : array-like of shape (n,) or None, default None
            >= 0 on source rows, < 0 on target rows.

        Returns
        -------
        self : ReweightAdapter
            The fitted adapter.
        """
        X = validate_input(self, X, reset=True)
        source, self.n_source_, self.n_target_ = _split(X, y, sample_domain)
        self.weight_estimator_ = clone(self.weight_estimator).fit(X[source], X[~source])
        self.weights_ = np.zeros(len(X))
        self.weights_[source] = self.weight_estimator_.weights_
        return self

    def fit_transform(self, X, y=None, *, sample_domain=None, **params):
        """Fit, then hand X and the weights to the next step (skada's adapter protocol).

        Parameters
        ----------
        X : array-like of shape (n, d)
            Source and target rows.
        y : array-like or None, default None
            Labels, the target rows' masked.
        sample_domain : array-like of shape (n,) or None, default None
            >= 0 on source rows, < 0 on target rows.
        **params : dict
            Ignored.

        Returns
        -------
        tuple
            ``(X, {"sample_weight": weights_})``.
        """
        self.fit(X, y, sample_domain=sample_domain)
        return X, {"sample_weight": self.weights_}

    def transform(self, X, y=None, *, sample_domain=None, allow_source=False, **params):
        """Pass X through unchanged.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Rows.
        y : array-like or None, default None
            Ignored.
        sample_domain : array-like or None, default None
            Ignored.
        allow_source : bool, default False
            Ignored (skada's protocol).
        **params : dict
            Ignored.

        Returns
        -------
        array-like
            X.
        """
        check_is_fitted(self, "weight_estimator_")
        return X
