"""A regression analogue of the delta-function idea: kernel ridge on a source model's residuals.

This is *not* the objective of domain-transfer-structured-output (eqs. 2-6, Algorithm 1; see
:class:`covshift.transfer.DomainTransferSSVM` for that). It keeps the paper's eq. (1),
f_T = f_S + delta, for real-valued outputs, with a basis Psi that depends on x only and the
squared loss in place of the structural hinge, so the delta has a closed form.
"""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin, _fit_context, clone
from sklearn.utils._param_validation import HasMethods
from sklearn.utils.validation import check_is_fitted

from .._constraints import KERNEL_WIDTH, POSITIVE
from .._validation import AUTO, check_features
from ..kernels import gaussian_kernel, median_heuristic
from ..regression._common import check_xy


class ResidualDeltaRegressor(RegressorMixin, BaseEstimator):
    """f_T(x) = f_S(x) + W' Psi(x): adapt a source regressor with l labelled target points.

    A regression *analogue* of eq. (1) of domain-transfer-structured-output, not the paper's
    structured objective: Psi are Gaussian basis functions of x alone, centred on the labelled
    target inputs, and W minimises a ridge version of objective (2) with the squared loss,
    1/2 ||W||^2 + C (1/l) sum_i ||y_i - f_S(x_i) - W' Psi(x_i)||^2,
    i.e. a ridge fit of the source model's residuals: (Psi'Psi + l / (2C) I) W = Psi' R.

    Parameters
    ----------
    base_model : regressor
        Trained on the source data by :meth:`fit` (a clone; ``sample_weight`` is passed on).
    C : float, default 10.0
        Trade-off of the ridge objective: larger C follows the target labels more.
    rho : float or "auto", default "auto"
        Width of the basis functions; "auto" is the median heuristic of the target inputs.

    Attributes
    ----------
    base_model_ : regressor
        The source model, fitted on the source data.
    rho_ : float
        The width used.
    centers_ : ndarray of shape (l, d)
        The labelled target inputs (centres of Psi).
    coef_ : ndarray of shape (l, p)
        W.

    See Also
    --------
    covshift.DomainTransferSSVM : The paper's structured method.

    Examples
    --------
    >>> from covshift import GPR, data
    >>> from covshift.transfer import ResidualDeltaRegressor
    >>> shift = data.sinc_shift(n_tr=100, n_te=80, random_state=0)
    >>> delta = ResidualDeltaRegressor(GPR(rho_x=2.0)).fit(shift.X_tr, shift.Y_tr, shift.X_te[:10], shift.Y_te[:10])
    >>> delta.predict(shift.X_te).shape, delta.coef_.shape
    ((80, 1), (10, 1))
    """

    _parameter_constraints = {"base_model": [HasMethods(["fit", "predict"])], "C": [POSITIVE], "rho": KERNEL_WIDTH}

    def __init__(self, base_model, C=10.0, rho="auto"):
        self.base_model = base_model
        self.C = C
        self.rho = rho

    @_fit_context(prefer_skip_nested_validation=False)  # the base model is the user's: its own checks run
    def fit(self, X_source, Y_source, X_target, Y_target, sample_weight=None):
        """Fit the base model on the source, then the delta function on the target labels.

        Parameters
        ----------
        X_source : array-like of shape (n, d)
            Source inputs.
        Y_source : array-like of shape (n,) or (n, p)
            Source outputs.
        X_target : array-like of shape (l, d)
            The labelled target inputs.
        Y_target : array-like of shape (l,) or (l, p)
            Their outputs.
        sample_weight : array-like of shape (n,) or None, default None
            Passed on to the base model's fit on the source.

        Returns
        -------
        self : ResidualDeltaRegressor
            The fitted model.
        """
        X_source, Y_source, self._y_1d = check_xy(X_source, Y_source)
        X_target, Y_target, _ = check_xy(X_target, Y_target)
        if X_target.shape[1] != X_source.shape[1] or Y_target.shape[1] != Y_source.shape[1]:
            raise ValueError("Source and target data need the same input and output dimensions.")
        model = clone(self.base_model)
        target = Y_source[:, 0] if self._y_1d else Y_source
        if sample_weight is None:
            model.fit(X_source, target)
        else:
            model.fit(X_source, target, sample_weight=sample_weight)
        self.base_model_ = model
        self.rho_ = median_heuristic(X_target) if self.rho == AUTO else float(self.rho)
        self.centers_ = X_target
        residual = Y_target - self._base(X_target)
        Psi = gaussian_kernel(X_target, X_target, self.rho_)
        l = len(X_target)
        self.coef_ = np.linalg.solve(Psi.T @ Psi + l / (2 * self.C) * np.eye(l), Psi.T @ residual)
        self.n_features_in_ = X_source.shape[1]
        return self

    def _base(self, X):
        return np.asarray(self.base_model_.predict(X), dtype=float).reshape(len(X), -1)

    def predict(self, X):
        """f_T(x) = f_S(x) + W' Psi(x) at every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (m, d)
            Inputs.

        Returns
        -------
        ndarray of shape (m,) or (m, p)
            The adapted predictions.
        """
        check_is_fitted(self, "coef_")
        X = check_features(X, self.n_features_in_)
        pred = self._base(X) + gaussian_kernel(X, self.centers_, self.rho_) @ self.coef_
        return pred[:, 0] if self._y_1d else pred
