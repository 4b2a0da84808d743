"""One place for input checks. Every failure is a ValueError a student can read."""

from numbers import Real

import numpy as np


def as_2d_float(X, name="X", min_samples=1):
    """Return ``X`` as a finite 2-D float64 array, or raise ValueError.

    A 1-D array is read as one feature per sample (shape ``(n, 1)``).
    """
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must contain numbers only ({exc}).") from None
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n_samples, n_features); got {X.ndim} dimensions."
        )
    if X.shape[0] < min_samples:
        raise ValueError(
            f"{name} needs at least {min_samples} sample(s); it has {X.shape[0]}."
        )
    if X.shape[1] == 0:
        raise ValueError(f"{name} has no features (0 columns).")
    if not np.all(np.isfinite(X)):
        bad = int(np.sum(~np.isfinite(X)))
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s); remove or impute them first."
        )
    return X


def is_dask_array(X):
    """Whether ``X`` is a dask array (checked without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask"


def _as_2d_float_dask(X, name):
    """A dask array as a 2-D float64 dask array, one chunk across the features, checked chunk-wise."""
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array (n_samples, n_features); got shape {X.shape}.")
    X = X.astype(np.float64).rechunk({1: -1})
    bad = int((~np.isfinite(X)).sum().compute())
    if bad:
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); remove or impute them first.")
    return X


def check_train_test(X_tr, X_te, allow_dask=False):
    """Validate a training/test input pair: finite, 2-D, non-empty, same features.

    With ``allow_dask``, dask arrays stay lazy (checked chunk-wise) for estimators whose
    computations run over row blocks (the KLIEP family).
    """
    X_tr = _as_2d_float_dask(X_tr, "X_tr (training inputs)") if allow_dask and is_dask_array(X_tr) \
        else as_2d_float(X_tr, "X_tr (training inputs)")
    X_te = _as_2d_float_dask(X_te, "X_te (test inputs)") if allow_dask and is_dask_array(X_te) \
        else as_2d_float(X_te, "X_te (test inputs)")
    if X_tr.shape[1] != X_te.shape[1]:
        raise ValueError(
            f"Training and test inputs must have the same number of features; "
            f"got {X_tr.shape[1]} and {X_te.shape[1]}."
        )
    return X_tr, X_te


def check_features(X, n_features, name="X"):
    """Validate ``X`` and check it has the ``n_features`` seen during fit."""
    X = as_2d_float(X, name)
    if X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features, but the estimator was fitted with {n_features}."
        )
    return X


def check_positive(value, name, allow_zero=False):
    """Check that a scalar hyper-parameter is a finite positive number."""
    if isinstance(value, bool) or not isinstance(value, Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}; got {value!r}.")
    return float(value)


def check_int(value, name, minimum=1):
    """Check that a count parameter is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}.")
    return int(value)


def check_choice(value, name, choices):
    """Check that a string option is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {value!r}.")
    return value
