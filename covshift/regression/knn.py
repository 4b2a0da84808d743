"""Weighted k-nearest-neighbour regression, the papers' baseline."""

import numpy as np
from sklearn.base import BaseEstimator, MultiOutputMixin, RegressorMixin, _fit_context
from sklearn.neighbors import NearestNeighbors

from .._constraints import count
from .._validation import check_sample_weight, validate_predict
from ._common import validate_xy


class WKNN(MultiOutputMixin, RegressorMixin, BaseEstimator):
    """k-nearest-neighbour regression weighted by inverse distance and importance.

    The prediction at x is sum_j v_j y_j / sum_j v_j over the k nearest training inputs,
    with v_j = w_j / (||x - x_j|| + eps): closer neighbours and neighbours of larger
    importance weight w_j count more. A query whose neighbours all have zero weight falls
    back to their plain mean.

    Sample weights are not repetition-equivalent: a training point of weight k is one
    neighbour whose vote counts k times, whereas k copies of it would fill k of the
    ``n_neighbors`` slots and push other points out of the neighbourhood (scikit-learn's
    check_sample_weight_equivalence fails by design). Weight 0 keeps the point among the
    neighbours with no vote.

    Parameters
    ----------
    n_neighbors : int, default 5
        k, the number of neighbours that vote.

    Attributes
    ----------
    weight_ : ndarray of shape (n,)
        The importance weights of the training points (all 1 without ``sample_weight``).
    Y_train_ : ndarray of shape (n, p)
        The training outputs.
    neighbors_ : sklearn.neighbors.NearestNeighbors
        The index of the training inputs.

    See Also
    --------
    GPR : Importance-weighted Gaussian process regression.
    HSICKNN : Structured outputs from the nearest neighbours' kernel dependence.

    References
    ----------
    S. V. Chapaneri and D. J. Jayaswal (2019). Covariate shift adaptation for structured
    regression with Frank-Wolfe algorithms. *IEEE Access* 7 (the W-KNN baseline).

    Examples
    --------
    >>> from covshift import WKNN, data
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> WKNN(n_neighbors=5).fit(shift.X_tr, shift.Y_tr.ravel()).predict(shift.X_te).shape
    (80,)
    """

    def __init__(self, n_neighbors=5):
        self.n_neighbors = n_neighbors

    _parameter_constraints = {"n_neighbors": [count(1)]}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y, sample_weight=None):
        """Store the training data and weights and index the inputs.

        Parameters
        ----------
        X : array-like of shape (n, d)
            Training inputs.
        y : array-like of shape (n,) or (n, p)
            Training outputs.
        sample_weight : array-like of shape (n,) or None, default None
            Importance weights of the votes (None: all 1).

        Returns
        -------
        self : WKNN
            The fitted model.
        """
        X, Y, self._y_1d = validate_xy(self, X, y)
        self.weight_ = check_sample_weight(sample_weight, len(X))
        self.Y_train_ = Y
        self.neighbors_ = NearestNeighbors(n_neighbors=min(self.n_neighbors, len(X))).fit(X)
        return self

    def predict(self, X):
        """Weighted mean of the k nearest training outputs at every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (m, d)
            Test inputs.

        Returns
        -------
        ndarray of shape (m,) or (m, p)
            The predictions (1-D when fitted on 1-D ``y``).
        """
        X = validate_predict(self, X, "neighbors_")
        distance, idx = self.neighbors_.kneighbors(X)
        v = self.weight_[idx] / (distance + 1e-12)
        total = v.sum(axis=1, keepdims=True)
        v = np.where(total > 0, v / np.where(total > 0, total, 1.0), 1.0 / idx.shape[1])
        pred = np.einsum("mk,mkd->md", v, self.Y_train_[idx])
        return pred[:, 0] if self._y_1d else pred
