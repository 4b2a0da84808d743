"""The KMM quadratic program's pieces for cvxopt (eq. 1 of sampling-based-kmm): its constraint matrix and the
KKT solver through a low-rank factor of the kernel, which :func:`covshift.weights.kmm.solve_kmm_qp` passes to
``cvxopt.solvers.qp``."""

import numpy as np

#: Jitter (x the unit diagonal of the Gaussian kernel) that keeps the QP's matrix positive definite.
KMM_JITTER = 1e-8


def low_rank_kkt(L, n, ridge=0.0):
    """cvxopt's P (as an operator) and KKT solver for P = L'L + (ridge + KMM_JITTER) I and the constraints
    G = [1'; -1'; I; -I] of the KMM QP: each KKT system
    (P + G' W^-2 G) u_x = r is diag(D) + U U' with U = [L', sqrt(c) 1] (the box rows give D, the
    two sum rows c 1 1'), solved by the Woodbury identity through an (r + 2)-square Cholesky:
    O(n r^2) per iteration instead of O(n^3). cvxopt's vectors are read and written in place through
    numpy views (``entries``), and the capacitance solve calls LAPACK's potrs as scipy's
    ``cho_solve`` does (the same numbers, without its per-call wrapping: ~15 calls per iteration)."""
    from scipy.linalg import cho_factor
    from scipy.linalg.lapack import dpotrs

    diagonal = ridge + KMM_JITTER

    def P(u, v, alpha=1.0, beta=0.0):
        u, v = entries(u), entries(v)
        v[:] = alpha * (L.T @ (L @ u) + diagonal * u) + beta * v

    def kkt(W):
        di = entries(W["di"]).copy()  # cvxopt updates W in place between iterations
        w2 = di * di
        D = diagonal + w2[2:n + 2] + w2[n + 2:]
        U = np.column_stack([L.T, np.full(n, np.sqrt(w2[0] + w2[1]))])
        scaled = U / D[:, None]
        capacitance, lower = cho_factor(np.eye(U.shape[1]) + U.T @ scaled)

        def solve(x, y, z):
            x, z = entries(x), entries(z)
            bz = z.copy()
            t = w2 * bz
            rhs = x + (t[0] - t[1]) + t[2:n + 2] - t[n + 2:]
            small = finite(scaled.T @ rhs)
            coefficients, info = dpotrs(capacitance, small, lower=lower)
            if info != 0:
                raise ValueError(f"illegal value in {-info}th argument of internal potrs")
            ux = rhs / D - scaled @ coefficients
            total = ux.sum()
            x[:] = ux
            z[:] = di * (np.concatenate([[total, -total], ux, -ux]) - bz)

        return solve

    return P, kkt


def entries(column):
    """The entries of a cvxopt dense column vector as a 1-D numpy view (reads and writes go to cvxopt's memory)."""
    return np.asarray(column).reshape(-1)


def finite(values):
    """``values``, or the ValueError scipy's ``cho_solve`` raises on infinities or NaNs (the dense solve then decides)."""
    if not np.isfinite(values).all():
        raise ValueError("array must not contain infs or NaNs")
    return values


def kmm_constraints(n):
    """G of G b <= h as a cvxopt sparse matrix: rows 1'b, -1'b, I b, -I b."""
    from cvxopt import spmatrix

    columns = np.tile(np.arange(n), 4)
    rows = np.concatenate([np.zeros(n, int), np.ones(n, int), 2 + np.arange(n), 2 + n + np.arange(n)])
    values = np.concatenate([np.ones(n), -np.ones(n), np.ones(n), -np.ones(n)])
    return spmatrix(values.tolist(), rows.tolist(), columns.tolist(), (2 * n + 2, n))
