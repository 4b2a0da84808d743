"""Bounded work, one policy: the time budget, the sizes it allows, and the memory limit.

The budget
----------
On the reference machine (2 cores) no computation the app can start -- one estimator
fit with the app's settings, or one regression fit and prediction -- may take more than
:data:`BUDGET_SECONDS`. ``bench/limits.py`` times every method on a ladder of sizes
(n_tr = n_te = n, the paper's 1-D sinc data, the app's default settings) and
:data:`METHOD_MAX_POINTS` holds, per method, the largest ladder size whose time stayed
within the budget (measured in CPU seconds of the process, which is at least the wall
time an idle 2-core machine would need and is far less disturbed by other users of a
shared machine than wall time). The data sets' slider ranges and the CSV subsample size
follow from that table (:func:`dataset_size_max`, :func:`max_points_for`); nothing else
in the code base decides a size.

The memory limit
----------------
Every core estimator calls :func:`check_memory` with the bytes its dense arrays need
before allocating them. Above :data:`MEMORY_LIMIT_BYTES` it raises a ValueError that
names the size, the limit and the way out (``n_centers`` for the KLIEP family and
RuLSIF, ``knn`` for Twin GPs, VFKMM for KMM, ...). The limit applies to direct use of
the library as well, where sizes are not otherwise bounded.
"""

import numpy as np

#: Seconds any single computation started by the app may take on the reference machine.
BUDGET_SECONDS = 5.0

#: Largest amount of memory (bytes) an estimator may allocate for its dense arrays: 2 GiB.
MEMORY_LIMIT_BYTES = 2 * 1024**3

#: Sizes the ladder of ``bench/limits.py`` tries (n_tr = n_te = n).
SIZE_LADDER = (100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 6000, 8000, 10000)

#: Largest ladder size n (training and test points each) that every method handles within
#: :data:`BUDGET_SECONDS`, measured by ``bench/limits.py`` (results in bench/results/limits.md);
#: 10000 (the top of the ladder) means "at least". 0: not within the budget at any size.
#: Keys are the names of :mod:`covshift.catalog` (weight estimators and regression models).
METHOD_MAX_POINTS = {
    # weight estimators, sigma "auto" (the KLIEP family: model_selection.kliep_sigma, then one solve)
    "FCFWCS": 6000, "PFWCS": 5000, "AFWCS": 6000, "FWCS": 6000, "KLIEP": 10000,
    "KMM": 1500, "ENSKMM": 1000, "ENSTRKMM": 6000, "VFKMM": 4000, "EVFKMM": 1500,
    "LogisticRatio": 10000, "RuLSIF": 10000,
    # the app's one shared width for the KLIEP family (catalog.shared_kliep_sigma, LCV)
    "kliep_sigma": 10000,
    # regression models (one fit and one prediction of the test set)
    "GPR": 3000, "WKNN": 10000, "KLTGP": 1500, "IKLTGP": 1500, "SMTGP": 1000,
}

#: Name of the shared choice of the KLIEP width in :data:`METHOD_MAX_POINTS` (the app runs it
#: once, then fits the KLIEP family with that fixed width).
SHARED_SIGMA = "kliep_sigma"

#: The KLIEP family with a fixed sigma (the app's "manual" mode, and how the app fits the
#: family after the shared choice of the width), measured at sigma = 0.3, the app's default
#: manual width, by ``bench/limits.py``. The solve time depends on the width: a small sigma
#: gives a dense optimum and slower iterations, so the plain Frank-Wolfe solvers are limited
#: more tightly here than with the (larger) width "auto" picks.
METHOD_MAX_POINTS_FIXED_SIGMA = {"FCFWCS": 6000, "PFWCS": 2000, "AFWCS": 2000, "FWCS": 2000, "KLIEP": 10000}

#: Smallest sizes the data generators accept (training, test).
MIN_POINTS = (20, 10)

#: Largest training-set size of the digits data (it has 1797 images; the rest are test).
DIGITS_MAX_TRAIN = 800


def _base_name(name):
    """'IW-SMTGP' has the cost of 'SMTGP': the weights only scale the kernel system."""
    return name[3:] if name.startswith("IW-") else name


def max_points(name, sigma=None):
    """Largest n_tr (and n_te) that method ``name`` handles within the budget.

    ``sigma``: None for the app's "auto" choice of the kernel width, a number for a fixed
    width (the KLIEP family then skips its cross-validation: :data:`METHOD_MAX_POINTS_FIXED_SIGMA`).
    """
    base = _base_name(name)
    if base not in METHOD_MAX_POINTS:
        raise ValueError(f"Unknown method {name!r}; known: {sorted(METHOD_MAX_POINTS)}.")
    if sigma is not None and base in METHOD_MAX_POINTS_FIXED_SIGMA:
        return METHOD_MAX_POINTS_FIXED_SIGMA[base]
    return METHOD_MAX_POINTS[base]


def max_points_for(names, sigma=None):
    """Largest size every method in ``names`` handles within the budget (the slowest decides).

    With no names, the largest size any method handles.
    """
    names = list(names)
    if not names:
        return max(METHOD_MAX_POINTS.values())
    return min(max_points(name, sigma) for name in names)


#: Models solving kernel systems on the training points for every test point: their cost grows
#: as n_tr^3 + n_tr^2 n_te, so a size measured with n_tr = n_te = n applies to the effective
#: size max(n_tr, (n_tr^2 n_te)^(1/3)) (the digits data: 485 training, 1312 test images -> 676).
_KERNEL_SYSTEM_MODELS = {"GPR", "KLTGP", "IKLTGP", "SMTGP"}


def effective_size(name, n_tr, n_te):
    """The equal-size n at which method ``name`` costs as much as at (n_tr, n_te)."""
    if _base_name(name) in _KERNEL_SYSTEM_MODELS:
        return max(n_tr, round((float(n_tr) ** 2 * n_te) ** (1.0 / 3.0)))
    return max(n_tr, n_te)


def check_size(name, n_tr, n_te, sigma=None):
    """ValueError if method ``name`` would exceed the time budget at this size."""
    limit = max_points(name, sigma)
    if limit < MIN_POINTS[0]:
        raise ValueError(
            f"{name} with sigma 'auto' takes more than {BUDGET_SECONDS:g} s at any size (its "
            "cross-validation runs many slow fits); choose a fixed sigma (then up to "
            f"{max_points(name, sigma=1.0)} points) or FCFWCS.")
    if effective_size(name, n_tr, n_te) > limit:
        raise ValueError(
            f"{name} with {n_tr} training and {n_te} test points would take more than "
            f"{BUDGET_SECONDS:g} s; it is limited to {limit} points each. Use fewer points or a "
            f"faster method ({', '.join(_faster_than(limit))}).")


def _faster_than(limit):
    return [n for n, m in sorted(METHOD_MAX_POINTS.items(), key=lambda item: -item[1]) if m > limit][:3]


def dataset_size_max(name):
    """Slider maximum of n_tr and n_te for a built-in data set: the largest size any method
    handles within the budget (methods with a smaller limit are refused at larger sizes,
    :func:`check_size`); the digits data have at most :data:`DIGITS_MAX_TRAIN` training images."""
    largest = max_points_for([])
    return min(largest, DIGITS_MAX_TRAIN) if name == "digits" else largest


def max_csv_rows(names, sigma=None):
    """Rows of an uploaded CSV to keep for the selected methods: the slowest one decides.

    The rows are split into training and test parts, each at most as large as the whole.
    """
    return max_points_for(names, sigma)


# ----------------------------------------------------------------------------- memory
def dense_bytes(*shapes, copies=1):
    """Bytes of float64 arrays of the given shapes, times ``copies`` (temporaries)."""
    return int(copies * sum(8 * int(np.prod(shape, dtype=np.float64)) for shape in shapes))


def format_bytes(n_bytes):
    """'18.6 GiB', '512 MiB'."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n_bytes >= size:
            return f"{n_bytes / size:.3g} {unit}"
    return f"{n_bytes} bytes"


def check_memory(n_bytes, what, way_out):
    """Raise ValueError before allocating more than :data:`MEMORY_LIMIT_BYTES`.

    Parameters
    ----------
    n_bytes : int
        Memory the dense arrays will need (:func:`dense_bytes`).
    what : str
        What needs it, with its size: "FCFWCS kernel atoms (50000 centres x 50000 test points)".
    way_out : str
        What the user can change: "set n_centers=...".
    """
    if n_bytes > MEMORY_LIMIT_BYTES:
        raise ValueError(
            f"The {what} would need {format_bytes(n_bytes)} of memory, above the limit of "
            f"{format_bytes(MEMORY_LIMIT_BYTES)} (covshift.limits.MEMORY_LIMIT_BYTES). {way_out}")
    return n_bytes


def largest_fitting(bytes_per_unit, fixed_bytes=0):
    """How many units of ``bytes_per_unit`` fit in the memory limit (for suggestions)."""
    return max(1, int((MEMORY_LIMIT_BYTES - fixed_bytes) // max(bytes_per_unit, 1)))


# ------------------------------------------------- the dense arrays of each estimator
def check_kliep_memory(method, n_centers, n_te, dense_atoms_bytes, row_cache_bytes):
    """KLIEP family: the atoms A (n_centers x n_te). Up to ``dense_atoms_bytes`` they are one
    dense array (plus a copy when test points are dropped); above, they are computed over
    blocks of test points with ``row_cache_bytes`` of cached rows (weights._kliep_problem),
    plus O(n_centers + n_te) vectors, so the memory stays bounded at any size."""
    n_c = n_te if n_centers is None else min(n_centers, n_te)
    atoms = dense_bytes((n_c, n_te))
    needed = (2 * atoms if atoms <= dense_atoms_bytes else row_cache_bytes + dense_bytes((8, n_c + n_te)))
    check_memory(needed, f"{method} kernel atoms ({n_c} Gaussian centres x {n_te} test points)",
                 f"Set n_centers (a random subset of test points as centres), e.g. "
                 f"n_centers={min(1000, largest_fitting(16 * n_te))}.")
    return needed


def check_kmm_memory(method, n_tr, n_te, way_out):
    """KMM quadratic program on n_tr points: K and the constraint matrix G (2 n_tr x n_tr),
    their cvxopt copies and its KKT system, about 8 dense n_tr x n_tr arrays, plus the
    n_tr x n_te kernel of kappa."""
    check_memory(dense_bytes((n_tr, n_tr), copies=8) + dense_bytes((n_tr, n_te)),
                 f"{method} quadratic program ({n_tr} training x {n_te} test points)", way_out)


def check_gpr_memory(n_train, n_test=0):
    """GPR: about 6 dense n x n arrays at fit (K, the weighted copy, the inverse, the Cholesky
    factor and temporaries); 3 of m x n at predict."""
    way_out = ("GPR solves a dense system over all training points: use a random subset of "
               "the training points, or WKNN / TwinGP(knn=...).")
    if n_test:
        check_memory(dense_bytes((n_test, n_train), copies=3),
                     f"GPR prediction kernel ({n_test} test x {n_train} training points)",
                     "Predict fewer test points at a time.")
    else:
        check_memory(dense_bytes((n_train, n_train), copies=6),
                     f"GPR kernel system ({n_train} x {n_train} training points)", way_out)


def check_twin_gp_memory(n_train, knn=None, n_test=0):
    """Twin GPs: about 12 dense N x N arrays for the shared system (K_X, K_Y, their weighted
    and regularised forms, three inverses); with knn, one K x K system per test point
    (8 arrays) and no N x N array at all; 10 arrays of M x N at predict."""
    local = knn is not None and knn < n_train
    way_out = (f"Set knn (each test point uses only its knn nearest training points), e.g. "
               f"knn=100." if not local else "Use a smaller knn or predict fewer test points at a time.")
    if local:
        check_memory(dense_bytes((max(n_test, 1), knn, knn), copies=8),
                     f"Twin GP local systems ({n_test} test points x {knn} x {knn} neighbours)", way_out)
    elif n_test:
        check_memory(dense_bytes((n_test, n_train), copies=10),
                     f"Twin GP prediction ({n_test} test x {n_train} training points)", way_out)
    else:
        check_memory(dense_bytes((n_train, n_train), copies=12),
                     f"Twin GP kernel systems ({n_train} x {n_train} training points)", way_out)


def check_feature_memory(method, n_points, n_features, copies, parameter):
    """Estimators with an n x n_features design (RuLSIF centres, LogisticRatio Nystroem)."""
    check_memory(dense_bytes((n_points, n_features), copies=copies),
                 f"{method} feature matrices ({n_points} points x {n_features} {parameter})",
                 f"Lower {parameter}, e.g. {parameter}="
                 f"{min(n_features, largest_fitting(8 * copies * n_points))}.")


def check_kernel_classifier_memory(method, n_basis, n_selector_basis=0):
    """Kernel logistic classifiers (covshift.classification, rbf kernel): per basis of B points
    the kernel K_BB, its eigendecomposition (eigenvectors, workspace, projection) and the
    B x B design, about 5 dense B x B arrays; the integrated model adds the selector's basis
    (training + test points) and Newton's Hessian over both parameter vectors."""
    n_parameters = n_basis + n_selector_basis + 2
    needed = (dense_bytes((n_basis, n_basis), copies=5) + dense_bytes((n_selector_basis, n_selector_basis), copies=5)
              + dense_bytes((n_parameters, n_parameters), copies=2))
    check_memory(needed, f"{method} kernel features ({n_basis} training"
                 + (f" and {n_selector_basis} selector" if n_selector_basis else "") + " basis points)",
                 "Use kernel='linear', or fit on a random subset of the points.")


def check_structured_memory(method, n_examples, n_joint_features):
    """Structural SVMs (covshift.transfer): the joint features Psi(x_i, y_i) of every labelled
    example, those of the loss-augmented outputs and their difference, 3 dense arrays of
    n_examples x n_joint_features per cutting-plane iteration."""
    check_memory(dense_bytes((n_examples, n_joint_features), copies=3),
                 f"{method} joint features ({n_examples} examples x {n_joint_features} features)",
                 "Use fewer labelled examples, or a smaller n_components in the problem's embedding.")
