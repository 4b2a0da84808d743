"""The memory guard: every estimator checks the bytes of its dense arrays before allocating them.

Every core estimator calls :func:`check_memory` with the bytes its dense arrays need
before allocating them. Above :data:`MEMORY_LIMIT_BYTES` it raises a ValueError that
names the size, the limit and the way out (``n_centers`` for the KLIEP family and
RuLSIF, ``knn`` for Twin GPs, VFKMM for KMM, ...). The limit applies to direct use of
the library as well, where sizes are not otherwise bounded.

Where blocks keep the memory bounded but not the time (the KLIEP family's atoms recomputed every
iteration), a size guard does the same for the work: :func:`check_kliep_size`.
"""

import numpy as np

#: Largest amount of memory (bytes) an estimator may allocate for its dense arrays: 2 GiB.
MEMORY_LIMIT_BYTES = 2 * 1024**3


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


#: Most entries (Gaussian centres x test points) of the KLIEP family's atom matrix. Above what fits densely,
#: the atoms are recomputed in blocks every iteration: memory stays bounded, time does not (FWCS with every
#: one of 50 000 test points as a centre ran 176 s). The size guard keeps the work bounded as the memory guard
#: keeps the memory: 2.5e8 entries is 15 800 centres x 15 800 test points, or 200 centres x 10^6 points.
MAX_ATOM_ENTRIES = 2.5e8


def check_kliep_size(method, n_centers, n_te):
    """KLIEP family: refuse (ValueError naming n_centers) more than :data:`MAX_ATOM_ENTRIES` atom entries,
    before any kernel is computed."""
    n_c = n_te if n_centers is None else min(n_centers, n_te)
    if n_c * n_te > MAX_ATOM_ENTRIES:
        raise ValueError(
            f"{method} with {n_c} Gaussian centres x {n_te} test points has {n_c * n_te:.3g} kernel atoms to "
            f"recompute at every iteration, above the size limit of {MAX_ATOM_ENTRIES:.3g} "
            f"(covshift.limits.MAX_ATOM_ENTRIES). Set n_centers (a random subset of test points as centres), e.g. "
            f"n_centers={max(1, min(1000, int(MAX_ATOM_ENTRIES // max(n_te, 1))))}.")
    return n_c * n_te


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
