"""One place for input checks. Every failure is a ValueError a student can read.

The estimators validate their data with scikit-learn (:func:`validate_input`,
:func:`validate_training`: ``sklearn.utils.validation.validate_data`` sets ``n_features_in_`` and
``feature_names_in_`` and checks them at predict time); its messages are kept and prefixed with
the argument's name where they do not already say it.
"""

from contextlib import contextmanager
from numbers import Real

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (check_array, check_consistent_length, check_is_fitted, column_or_1d,
                                      validate_data)

#: Largest magnitude accepted in data. Squared distances sum d squares, so values near
#: sqrt(float64 max) = 1.3e154 overflow; 1e100 leaves room for sums, products with kernel
#: widths and every unit a real data set uses.
MAX_ABS_VALUE = 1e100


@contextmanager
def named_errors(name, error=None):
    """scikit-learn's validation errors, prefixed with the argument's ``name`` (same words; same
    type, or ``error`` if given)."""
    try:
        yield
    except (TypeError, ValueError) as exc:
        raise (error or type(exc))(f"{name}: {exc}") from None


def _refuse_none(X, name):
    if X is None:
        raise ValueError(f"{name} is None; pass an array of numbers.")


def as_2d_float(X, name="X", min_samples=1):
    """Return ``X`` as a finite 2-D float64 array (``sklearn.utils.check_array``), or raise.

    For the library's functions (kernels, metrics, data sets): a 1-D array is read as one
    feature per sample (shape ``(n, 1)``); the estimators refuse 1-D X (:func:`validate_input`).
    Booleans count as 0/1. Complex numbers, text, sparse matrices, None, NaN, infinities and
    values beyond :data:`MAX_ABS_VALUE` are refused in scikit-learn's words, prefixed with ``name``
    (and the data scale).

    An array that is already what this returns (a non-empty 1-D or 2-D float64 ndarray of finite values
    within the scale) is passed through after one pass over its values, without ``check_array`` (~0.1 ms a
    call, most of it looking for data-frame types; the library calls this on its own arrays, issue 40): the
    same array and the same answers; anything else, including every refusal, goes through ``check_array``.
    """
    _refuse_none(X, name)
    if (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim in (1, 2) and X.size
            and X.shape[0] >= min_samples):
        largest = float(np.max(np.abs(X)))
        if largest <= MAX_ABS_VALUE:  # False for NaN and infinities: check_array names them
            return X[:, None] if X.ndim == 1 else X
    with named_errors(name, ValueError):  # also a scalar or a sparse matrix: a ValueError naming the argument
        X = check_array(X, dtype=np.float64, ensure_2d=False, ensure_min_samples=min_samples,
                        input_name=name.split()[0])
        if X.ndim == 1:
            X = X[:, None]
        if X.ndim != 2:
            raise ValueError(f"must be a 2-D array of shape (n_samples, n_features); got {X.ndim} dimensions.")
        if X.shape[1] == 0:
            raise ValueError("has no features (0 columns).")
    check_scale(X, name)
    return X


def validate_input(estimator, X, *, reset, name="X", min_samples=1, allow_dask=False):
    """``X`` of an estimator's fit (``reset=True``) or predict (``reset=False``) by scikit-learn's
    ``validate_data``: a finite 2-D float64 array (1-D X, sparse matrices, complex numbers and
    text are refused in scikit-learn's words, prefixed with ``name``); sets or checks
    ``n_features_in_`` and ``feature_names_in_`` (a DataFrame with other or swapped columns at
    predict time is a ValueError). With ``allow_dask`` a dask array stays lazy (checked
    chunk-wise; no feature names)."""
    _refuse_none(X, name)
    if allow_dask and is_dask_array(X):
        X = _as_2d_float_dask(X, name)
        if reset:
            estimator.n_features_in_ = X.shape[1]
            if hasattr(estimator, "feature_names_in_"):
                del estimator.feature_names_in_
        elif X.shape[1] != estimator.n_features_in_:
            raise ValueError(f"{name}: X has {X.shape[1]} features, but {type(estimator).__name__} is "
                             f"expecting {estimator.n_features_in_} features as input.")
        return X
    if _validated_already(estimator, X, reset, min_samples):
        return X
    with named_errors(name):
        X = validate_data(estimator, X, reset=reset, dtype=np.float64, ensure_min_samples=min_samples)
    check_scale(X, name)
    return X


def _validated_already(estimator, X, reset, min_samples):
    """Whether ``X`` is a non-empty 2-D float64 ndarray of finite values within the scale, for which
    ``validate_data`` would return it unchanged and only set (``reset``) or find matching ``n_features_in_``,
    with no feature names before or now; then sets what it would set. ~0.2 ms a call saved, most of it
    looking for data-frame types (a lesson's estimators validate ~20 arrays, issue 40). Anything else, every
    refusal and every warning included, goes through ``validate_data``."""
    if not (type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2 and X.shape[1] >= 1
            and X.shape[0] >= max(min_samples, 1) and not hasattr(estimator, "feature_names_in_")):
        return False
    if not reset and getattr(estimator, "n_features_in_", X.shape[1]) != X.shape[1]:
        return False
    if not float(np.max(np.abs(X))) <= MAX_ABS_VALUE:  # NaN and infinities too: validate_data names them
        return False
    if reset:
        estimator.n_features_in_ = X.shape[1]
    return True


def validate_predict(estimator, X, attributes=None, name="X"):
    """``check_is_fitted(estimator, attributes)`` (NotFittedError before fit), then
    :func:`validate_input` with ``reset=False``."""
    check_is_fitted(estimator, attributes)
    return validate_input(estimator, X, reset=False, name=name)


def validate_training(estimator, X, y, *, name="X", y_name="y", classification=False):
    """(X, y) of a supervised fit: X by :func:`validate_input` (``reset=True``); y required (the
    message of scikit-learn's ``validate_data``), as long as X, finite; float64 for regression
    (1-D or 2-D, several outputs), labels for classification (``check_classification_targets``:
    a continuous y is refused)."""
    _refuse_none(X, name)
    if y is None:
        raise ValueError(f"This {type(estimator).__name__} estimator requires y to be passed, but the "
                         f"target {y_name} is None.")
    X = validate_input(estimator, X, reset=True, name=name)
    with named_errors(y_name):
        if classification:
            y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
            if y.ndim != 1 and not (y.ndim == 2 and y.shape[1] == 1):
                raise ValueError(f"must be a 1-D array of class labels; got shape {y.shape}.")
            y = column_or_1d(y, warn=True)  # a column: scikit-learn's DataConversionWarning
            check_classification_targets(y)
        else:
            y = check_array(y, ensure_2d=False, dtype=np.float64, input_name="y")
            if y.ndim not in (1, 2):
                raise ValueError(f"must be a 1-D or 2-D array of outputs; got {y.ndim} dimensions.")
    if not classification:
        check_scale(y, y_name)
    with named_errors(y_name):
        check_consistent_length(X, y)
    return X, y


def check_scale(X, name):
    """ValueError if the magnitude of ``X`` exceeds :data:`MAX_ABS_VALUE` (squared distances
    would overflow); the message gives the data scale and the way out (rescale)."""
    largest = float(np.max(np.abs(X))) if X.size else 0.0
    if largest > MAX_ABS_VALUE:
        raise ValueError(
            f"{name} has values up to {largest:.3g}, too large to compute with (data scale above "
            f"{MAX_ABS_VALUE:.0e}: squared distances overflow). Rescale the data, e.g. divide by "
            f"{10.0 ** np.floor(np.log10(largest)):.0e}.")
    return largest


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


def validate_train_test(estimator, X_tr, X_te, allow_dask=False):
    """The inputs of a weight estimator's ``fit(X_tr, X_te)``: both by :func:`validate_input`;
    ``n_features_in_`` and ``feature_names_in_`` come from ``X_tr``, and ``X_te`` must have the
    same features (a DataFrame of other or swapped columns is a ValueError)."""
    X_tr = validate_input(estimator, X_tr, reset=True, name="X_tr (training inputs)", allow_dask=allow_dask)
    return X_tr, validate_test_inputs(estimator, X_te, allow_dask=allow_dask)


def validate_test_inputs(estimator, X_te, allow_dask=False):
    """Unlabelled test inputs given at fit time, against the training inputs' features
    (``n_features_in_``, ``feature_names_in_``), by :func:`validate_input`."""
    try:
        return validate_input(estimator, X_te, reset=False, name="X_te (test inputs)", allow_dask=allow_dask)
    except ValueError as exc:
        if "features, but" not in str(exc):
            raise
        raise ValueError(f"Training and test inputs must have the same number of features; got "
                         f"{estimator.n_features_in_} and {np.shape(X_te)[1]}.") from None


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


def _describe(value):
    return f"{value!r} ({type(value).__name__})" if isinstance(value, (str, bool, complex)) or value is None \
        else repr(value)


def check_positive(value, name, allow_zero=False):
    """Check that a scalar hyper-parameter is a finite positive number (not bool, text, complex)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {_describe(value)}.")
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{name} must be {bound}; got {value!r}.")
    return float(value)


def check_open_interval(value, name, low, high):
    """Check that a scalar lies strictly between ``low`` and ``high``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a number strictly between {low} and {high}; "
                         f"got {_describe(value)}.")
    if not low < value < high:
        raise ValueError(f"{name} must lie strictly between {low} and {high}; got {value!r}.")
    return float(value)


def check_int(value, name, minimum=1):
    """Check that a count parameter is an integer >= ``minimum``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {_describe(value)}.")
    return int(value)


def check_choice(value, name, choices):
    """Check that an option (a string, or a flag) is one of ``choices``."""
    try:
        known = value in choices
    except TypeError:  # unhashable (a list, an array)
        known = False
    if not known:
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {_describe(value)}.")
    return value


#: Seeds drawn from a RandomState or Generator lie in [0, MAX_SEED] (scikit-learn's MAX_INT).
MAX_SEED = np.iinfo(np.int32).max


def check_random_state(value, name="random_state"):
    """What scikit-learn's ``check_random_state`` accepts, plus numpy's Generator: None, an
    integer >= 0 (a seed), a ``np.random.RandomState`` or a ``np.random.Generator``. Returns it
    (an integer as a Python int); anything else is a ValueError naming the parameter."""
    if value is None or isinstance(value, (np.random.RandomState, np.random.Generator)):
        return value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name} must be None, an integer >= 0 (a seed), a numpy RandomState or a "
                         f"numpy Generator; got {_describe(value)}.")
    return int(value)


def seed_of(value, name="random_state"):
    """An integer seed (or None) for ``value``: a RandomState or Generator gives one integer
    drawn from it (scikit-learn's convention for instances: each call advances the instance,
    so two fits with one instance differ, two fits with two equal fresh instances agree); an
    integer or None is returned as it is."""
    value = check_random_state(value, name)
    if isinstance(value, np.random.RandomState):
        return int(value.randint(MAX_SEED))
    if isinstance(value, np.random.Generator):
        return int(value.integers(MAX_SEED))
    return value


def as_generator(value, name="random_state"):
    """A numpy Generator for ``value``: ``default_rng(seed)`` for None or an integer (the same
    numbers as before RandomState was accepted), the Generator itself, or a Generator seeded by
    :func:`seed_of` for a RandomState."""
    value = check_random_state(value, name)
    if isinstance(value, np.random.Generator):
        return value
    return np.random.default_rng(seed_of(value, name))


#: The one spelling, in every estimator, of "choose this kernel width from the data" (each estimator
#: documents its rule: likelihood cross-validation, least-squares cross-validation or the median heuristic;
#: the constraint of a width is ``covshift._constraints.KERNEL_WIDTH``: a positive number or this word).
AUTO = "auto"


#: Widths whose scikit-learn gamma = 1 / (2 sigma^2) is a finite positive float64 (the ``bounds`` of
#: :func:`check_width` for scikit-learn's RBF feature maps).
FINITE_GAMMA_WIDTHS = (1e-100, 1e100)


def check_width(sigma, name, bounds):
    """gamma = 1 / (2 sigma^2) for a library that takes gamma (scikit-learn), with sigma in
    ``bounds`` so that gamma is a finite positive float; ValueError naming ``name`` otherwise."""
    sigma = check_positive(sigma, name)
    if not bounds[0] <= sigma <= bounds[1]:
        raise ValueError(f"{name}={sigma:.3g} is outside [{bounds[0]:.0e}, {bounds[1]:.0e}]: its "
                         "kernel gamma = 1 / (2 sigma^2) is not representable. Choose a width near "
                         "the spacing of the data, or rescale the data (change its units) if its "
                         "scale is that extreme.")
    return 0.5 / sigma / sigma


def check_finite(value, name):
    """Check that a scalar parameter (a mean, a shift) is a finite real number."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, Real) or not np.isfinite(value):
        raise ValueError(f"{name} must be a finite number; got {_describe(value)}.")
    if abs(value) > MAX_ABS_VALUE:
        check_scale(np.array([value]), name)
    return float(value)


def check_sample_weight(sample_weight, n_samples, name="sample_weight"):
    """Importance weights of ``n_samples`` training points as a 1-D float64 array.

    None is all ones; a real scalar is that weight for every point (scikit-learn's convention).
    Otherwise one finite, non-negative real number per point, not all zero (booleans count as
    0/1). Complex numbers, text, None entries, NaN, infinities, negative weights, the wrong
    length and values beyond :data:`MAX_ABS_VALUE` are each a ValueError naming ``name``.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    try:
        if not isinstance(sample_weight, (str, bytes, Real)):
            sample_weight = np.asarray(sample_weight)  # array-likes (scikit-learn's _NotAnArray too)
    except ValueError:  # ragged nested lists
        raise ValueError(f"{name} must be a 1-D array with one weight per training point.") from None
    if np.ndim(sample_weight) == 0 and not isinstance(sample_weight, (str, bytes)):
        if isinstance(sample_weight, (bool, np.bool_)):
            raise ValueError(f"{name} must be an array of weights or a number; got {_describe(sample_weight)}.")
        sample_weight = np.full(n_samples, check_positive(sample_weight, name))
    if np.ndim(sample_weight) > 1 and np.shape(sample_weight)[1:] != (1,) * (np.ndim(sample_weight) - 1):
        raise ValueError(f"{name} must be a 1-D array with one weight per training point; got shape "
                         f"{np.shape(sample_weight)}.")
    weights = as_2d_float(np.ravel(sample_weight) if not np.iscomplexobj(sample_weight) else sample_weight,
                          name)[:, 0] if np.size(sample_weight) else np.zeros(0)
    if len(weights) != n_samples:
        raise ValueError(f"{name} needs one weight per training point ({n_samples}); got {len(weights)}.")
    if np.any(weights < 0):
        raise ValueError(f"{name} must be non-negative (importance weights are >= 0); got a minimum of "
                         f"{weights.min():.3g}.")
    if not np.any(weights > 0):
        raise ValueError(f"{name} is zero everywhere: no training point would be used.")
    return weights


def check_grid(value, name):
    """A positive number or a list of positive numbers (a grid of widths or ridges) as a 1-D
    float64 array; ValueError naming ``name`` for text (also numbers written as text), complex
    numbers, booleans (True is not a width), None entries, nested or ragged lists, NaN,
    infinities, values <= 0 and an empty list."""
    entries = None
    if not isinstance(value, (str, bytes)):
        try:
            entries = np.atleast_1d(np.asarray(value, dtype=object)).ravel()
        except (TypeError, ValueError):
            entries = None
    if entries is None or entries.size == 0 or not all(
            isinstance(v, Real) and not isinstance(v, (bool, np.bool_)) for v in entries):
        raise ValueError(f"{name} must be a positive number or a list of positive numbers; got "
                         f"{_describe(value)}.")
    grid = entries.astype(np.float64)
    if np.any(~np.isfinite(grid)) or np.any(grid <= 0):
        raise ValueError(f"{name} must be a positive number or a list of positive numbers; got "
                         f"{_describe(value)}.")
    return grid
