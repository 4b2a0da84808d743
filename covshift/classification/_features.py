"""Feature maps for the linear and the kernel (dual) form, and input checks shared by the classifiers."""

from dataclasses import dataclass
from typing import Optional

import numpy as np
from sklearn.utils.multiclass import type_of_target

from sklearn.utils._param_validation import StrOptions

from .._constraints import KERNEL_WIDTH
from .._validation import AUTO, validate_test_inputs, validate_training
from ..kernels import gaussian_kernel, median_heuristic

KERNELS = {"linear", "rbf"}


@dataclass
class FeatureMap:
    """x -> z(x), plus a constant column added by :meth:`design`.

    ``linear``: z(x) = x. ``rbf``: the dual form on the basis points B (the representer
    theorem): z(x) = k(x, B) U L^{-1/2} with K_BB = U L U' (eigenvalues below ``1e-10`` of
    the largest are dropped). Then z(B) z(B)' = K_BB, so a weight vector w on z is the dual
    vector alpha = U L^{-1/2} w with w'w = alpha' K alpha: the same model and prior as the
    dual form, in orthonormal coordinates where Newton's system is well conditioned.
    """

    kernel: str
    sigma: Optional[float] = None
    basis: Optional[np.ndarray] = None
    projection: Optional[np.ndarray] = None

    def transform(self, X):
        if self.kernel == "linear":
            return X
        return gaussian_kernel(X, self.basis, self.sigma) @ self.projection

    def design(self, X):
        """[z(X), 1]: the model's design matrix with an (unpenalised) intercept column."""
        Z = self.transform(X)
        return np.hstack([Z, np.ones((len(Z), 1))])

    def dual_coef(self, w):
        """alpha over the basis points such that the score is sum_j alpha_j k(x, b_j) (+ intercept)."""
        return None if self.kernel == "linear" else self.projection @ w


def make_feature_map(kernel, sigma, basis, rank_tol=1e-10):
    """Build the map; ``sigma`` must already be a number for ``rbf``."""
    if kernel == "linear":
        return FeatureMap("linear")
    K = gaussian_kernel(basis, basis, sigma)
    eigenvalues, eigenvectors = np.linalg.eigh(0.5 * (K + K.T))
    keep = eigenvalues > rank_tol * eigenvalues.max()
    projection = eigenvectors[:, keep] / np.sqrt(eigenvalues[keep])
    return FeatureMap("rbf", float(sigma), basis, projection)


def penalty_matrix(n_features, C):
    """P = diag(1/C, ..., 1/C, 0): Gaussian prior with variance C (eq. 15), free intercept."""
    diagonal = np.full(n_features + 1, 1.0 / C)
    diagonal[-1] = 0.0
    return np.diag(diagonal)


#: The constraints of the kernel and its width, shared by the classifiers (``_parameter_constraints``).
KERNEL_PARAMETERS = {"kernel": [StrOptions(KERNELS)], "sigma": KERNEL_WIDTH}


def resolve_sigma(kernel, sigma, X):
    """The kernel width in use: the given one, or for "auto" the median heuristic on X (None for linear)."""
    if kernel == "linear":
        return None
    return median_heuristic(X) if sigma == AUTO else float(sigma)


def check_labels(y, n_samples):
    """Return (classes, y in {0, 1}); ValueError unless y has exactly two classes and n_samples entries."""
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of class labels; got shape {y.shape}.")
    if len(y) != n_samples:
        raise ValueError(f"y has {len(y)} labels but X has {n_samples} rows; they must match.")
    if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
        raise ValueError("y contains NaN or infinite labels.")
    classes = np.unique(y)
    if len(classes) > 2:  # scikit-learn's words for a binary-only classifier
        raise ValueError(f"Only binary classification is supported. The type of the target is "
                         f"{type_of_target(y)}: y must contain exactly two classes; got {len(classes)}: "
                         f"{classes[:5].tolist()}.")
    if len(classes) < 2:
        raise ValueError(f"y must contain exactly two classes (binary classification); got one class "
                         f"{classes.tolist()}. A classifier needs examples of both.")
    return classes, (y == classes[1]).astype(float)


def check_classification_input(estimator, X, y, X_te=None, need_test=True):
    """Validate (X, y, X_te) of a classifier's fit by scikit-learn (``validate_data``: sets
    ``n_features_in_`` and ``feature_names_in_``; X_te must have X's features); returns arrays,
    classes and y in {0, 1} (exactly two classes: the classifiers are binary)."""
    if X_te is None and need_test:
        raise ValueError("X_te (unlabelled test inputs) is required: the method learns the shift from it.")
    X, y = validate_training(estimator, X, y, classification=True)
    if X_te is not None:
        X_te = validate_test_inputs(estimator, X_te)
    classes, y01 = check_labels(y, len(X))
    return X, X_te, classes, y01
