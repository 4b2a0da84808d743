"""Checks and linear algebra shared by the regression models."""

import warnings

import numpy as np
from scipy.linalg import LinAlgError, cho_factor, cho_solve

from .._validation import as_2d_float
from ..exceptions import NumericalWarning


def check_xy(X, Y):
    """Validate training inputs and outputs; 1-D Y is one output. Returns (X, Y2d, was_1d)."""
    X = as_2d_float(X, "X (training inputs)")
    was_1d = np.ndim(Y) == 1
    Y = as_2d_float(Y, "Y (training outputs)")
    if len(X) != len(Y):
        raise ValueError(
            f"X and Y must have the same number of samples; got {len(X)} inputs and {len(Y)} outputs."
        )
    return X, Y, was_1d


def check_sample_weight(sample_weight, n):
    """Importance weights: None -> ones; finite, >= 0, length n, not all zero."""
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=float).ravel()
    if len(w) != n:
        raise ValueError(f"sample_weight needs one weight per training point ({n}); got {len(w)}.")
    if not np.all(np.isfinite(w)):
        raise ValueError("sample_weight contains NaN or infinite values.")
    if np.any(w < 0):
        raise ValueError("sample_weight must be non-negative (importance weights are >= 0).")
    if not np.any(w > 0):
        raise ValueError("sample_weight is zero everywhere: no training point would be used.")
    return w


def spd_inverse(A, name="kernel matrix"):
    """Inverse of a symmetric positive definite matrix (or a stack of them) by Cholesky.

    If the factorisation fails (duplicate inputs with a tiny regulariser) an increasing
    jitter is added to the diagonal, with a NumericalWarning.
    """
    n = A.shape[-1]
    scale = np.mean(np.diagonal(A, axis1=-2, axis2=-1))
    for jitter in [0.0, 1e-10, 1e-8, 1e-6, 1e-4]:
        try:
            if A.ndim == 2:
                factor = cho_factor(A + jitter * scale * np.eye(n), lower=True)
                inverse = cho_solve(factor, np.eye(n))
            else:
                L = np.linalg.cholesky(A + jitter * scale * np.eye(n))
                L_inv = np.linalg.inv(L)
                inverse = np.swapaxes(L_inv, -1, -2) @ L_inv
        except (LinAlgError, np.linalg.LinAlgError):
            continue
        if jitter:
            warnings.warn(
                f"The {name} is numerically singular (duplicate inputs or a tiny lambda); added "
                f"{jitter:g} x its mean diagonal to make it invertible.",
                NumericalWarning,
                stacklevel=3,
            )
        return inverse
    raise ValueError(f"The {name} could not be inverted even with jitter; increase lambda.")
