"""Shared base of all importance-weight estimators."""

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._validation import check_features, check_random_state, check_train_test


class WeightEstimator(BaseEstimator):
    """Base class: ``fit(X_tr, X_te)`` learns w(x) = p_te(x) / p_tr(x).

    Subclasses implement ``_fit(X_tr, X_te)`` (set fitted attributes, return the
    raw weights on the training points) and ``_predict_raw(X)``. The base class
    validates input and scales everything so that ``weights_`` has mean 1; the
    same scale is applied by :meth:`predict_weights`.
    """

    #: Subclasses whose computations run over row blocks accept lazy dask arrays.
    _accepts_dask = False

    def fit(self, X_tr, X_te):
        """Learn the importance weights.

        Parameters
        ----------
        X_tr : array-like of shape (n_tr, d)
            Training inputs, drawn from p_tr.
        X_te : array-like of shape (n_te, d)
            Test inputs, drawn from p_te.

        Returns
        -------
        self
        """
        check_random_state(getattr(self, "random_state", None))
        X_tr, X_te = check_train_test(X_tr, X_te, allow_dask=self._accepts_dask)
        self.n_features_in_ = X_tr.shape[1]
        raw = np.asarray(self._fit(X_tr, X_te), dtype=float)
        mean = raw.mean()
        self.weight_scale_ = 1.0 / mean if mean > 0 and np.isfinite(mean) else 1.0
        self.weights_ = raw * self.weight_scale_ if mean > 0 else np.ones_like(raw)
        return self

    def predict_weights(self, X):
        """Importance weight w(x) at any inputs ``X`` (same scale as ``weights_``)."""
        check_is_fitted(self, "weights_")
        X = check_features(X, self.n_features_in_)
        return self._predict_raw(X) * self.weight_scale_

    def _fit(self, X_tr, X_te):  # pragma: no cover - abstract
        raise NotImplementedError

    def _predict_raw(self, X):  # pragma: no cover - abstract
        raise NotImplementedError
