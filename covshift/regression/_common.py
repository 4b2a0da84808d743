"""Checks and linear algebra shared by the regression models."""

import warnings

import numpy as np
from numba import njit
from scipy.linalg import LinAlgError, lapack

from .._validation import as_2d_float, validate_training
from ..exceptions import NumericalWarning


def validate_xy(estimator, X, y):
    """(X, y) of a regressor's fit by scikit-learn (:func:`covshift._validation.validate_training`:
    sets ``n_features_in_`` and ``feature_names_in_``); 1-D y is one output.
    Returns (X, Y2d, was_1d)."""
    X, y = validate_training(estimator, X, y)
    return X, (y[:, None] if y.ndim == 1 else y), y.ndim == 1


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


#: Condition numbers above this leave fewer than about 4 of float64's 16 significant digits in
#: the solution of the kernel system: predictions can be dominated by round-off.
MAX_CONDITION = 1e12


def condition_number(A, lower_factor):
    """Estimated 1-norm condition number of SPD ``A`` from its lower Cholesky factor.

    One matrix: LAPACK's dpocon estimate (Higham's method, O(n^2) after the factorisation).
    A stack (..., n, n): (max_i L_ii / min_i L_ii)^2, a lower bound of the 2-norm condition
    number of each matrix; the largest over the stack is returned.
    """
    if A.ndim == 2:
        rcond, info = lapack.dpocon(lower_factor, float(np.max(np.sum(np.abs(A), axis=0))), uplo="L")
        return np.inf if info != 0 or rcond <= 0 else 1.0 / rcond
    diagonal = np.diagonal(lower_factor, axis1=-2, axis2=-1)
    return float(np.max((diagonal.max(axis=-1) / diagonal.min(axis=-1)) ** 2))


def spd_cholesky(A, name="kernel matrix", parameter="lambda", stacklevel=3):
    """Lower Cholesky factor L (A = L L') of a symmetric positive definite matrix.

    The solves of GPR need only the factor (two triangular solves), not the inverse that
    :func:`spd_inverse` forms (n^3 more flops); the safeguards
    are the same: an increasing jitter on the diagonal if the factorisation fails, and a
    NumericalWarning naming ``parameter`` when the matrix is singular or ill-conditioned.
    The upper triangle of the returned array is not zeroed (cho_solve and
    solve_triangular(lower=True) ignore it). ``stacklevel`` points the warnings at the caller's line.
    """
    if not np.all(np.isfinite(A)):
        raise ValueError("array must not contain infs or NaNs")  # scipy's cho_factor's words
    scale = np.mean(np.diagonal(A))
    for jitter in [0.0, 1e-10, 1e-8, 1e-6, 1e-4]:
        shifted = A + jitter * scale * np.eye(len(A)) if jitter else A
        # LAPACK's dpotrf, as scipy's cho_factor(lower=True) calls it, without its per-call checks (~0.4 ms)
        factor, info = lapack.dpotrf(shifted, lower=1, clean=0)
        if info != 0:  # not positive definite (cho_factor's LinAlgError)
            continue
        if not np.all(np.isfinite(np.diagonal(factor))):
            continue
        if jitter:
            warnings.warn(f"The {name} is numerically singular (duplicate inputs or a tiny {parameter}); "
                          f"added {jitter:g} x its mean diagonal to make it invertible.",
                          NumericalWarning, stacklevel=stacklevel)
        elif (condition := condition_number(shifted, factor)) > MAX_CONDITION:
            warnings.warn(f"The {name} is ill-conditioned (condition number about {condition:.1e} > "
                          f"{MAX_CONDITION:.0e}): the solution can be dominated by round-off. Increase "
                          f"{parameter} or the kernel width.", NumericalWarning, stacklevel=stacklevel)
        return factor
    raise ValueError(f"The {name} could not be factorised even with jitter; increase {parameter}.")


@njit(cache=True, nogil=True)
def _symmetric_from_lower(lower):
    """The symmetric matrix of ``lower``'s lower triangle, C ordered, each value + 0.0 (a -0.0 becomes 0.0, as when
    the triangle was mirrored by adding its transpose to zeros)."""
    n = lower.shape[0]
    out = np.empty((n, n))
    for j in range(n):
        for i in range(j, n):
            value = lower[i, j] + 0.0
            out[i, j] = value
            out[j, i] = value
    return out


def spd_inverse(A, name="kernel matrix", parameter="lambda"):
    """Inverse of a symmetric positive definite matrix (or a stack of them) by Cholesky.

    If the factorisation fails (duplicate inputs with a tiny regulariser) an increasing
    jitter is added to the diagonal, with a NumericalWarning. If it succeeds but the
    matrix is ill-conditioned (estimated condition number above :data:`MAX_CONDITION`,
    :func:`condition_number`), a NumericalWarning names the condition number and the
    regulariser ``parameter`` to increase.
    """
    n = A.shape[-1]
    if A.ndim == 2:
        # LAPACK's dpotri from the factor: a third of the flops of solving L L' X = I (cho_solve), and
        # exactly symmetric; it writes the lower triangle, mirrored here
        lower, info = lapack.dpotri(spd_cholesky(A, name, parameter), lower=1)
        if info != 0:  # a zero on the factor's diagonal, which spd_cholesky does not return
            raise ValueError(f"The {name} could not be inverted; increase {parameter}.")
        return _symmetric_from_lower(lower)
    scale = np.mean(np.diagonal(A, axis1=-2, axis2=-1))
    for jitter in [0.0, 1e-10, 1e-8, 1e-6, 1e-4]:
        try:
            shifted = A + jitter * scale * np.eye(n)
            L = np.linalg.cholesky(shifted)
            L_inv = np.linalg.inv(L)
            inverse = np.swapaxes(L_inv, -1, -2) @ L_inv
        except (LinAlgError, np.linalg.LinAlgError):
            continue
        if not np.all(np.isfinite(inverse)):
            continue
        if jitter:
            warnings.warn(
                f"The {name} is numerically singular (duplicate inputs or a tiny {parameter}); added "
                f"{jitter:g} x its mean diagonal to make it invertible.",
                NumericalWarning,
                stacklevel=3,
            )
        else:
            condition = condition_number(shifted, L)
            if condition > MAX_CONDITION:
                warnings.warn(
                    f"The {name} is ill-conditioned (condition number about {condition:.1e} > "
                    f"{MAX_CONDITION:.0e}): the solution can be dominated by round-off. Increase "
                    f"{parameter} or the kernel width.",
                    NumericalWarning,
                    stacklevel=3,
                )
        return inverse
    raise ValueError(f"The {name} could not be inverted even with jitter; increase {parameter}.")
