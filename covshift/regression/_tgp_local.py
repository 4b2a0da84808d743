"""The per-test-point quantities of a Twin GP prediction (sharma-mittal-tgp eqs. 5, 7, 16), the kernel blocks and batched products they are built from, and the compiled per-row KL and SM cost terms of shared systems."""

import threading
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from ..kernels import gaussian_from_squared_distances
from ._row_products import rows_times

#: Schur complements below this fraction of k(x, x) are clipped (they must be > 0).
ETA_FLOOR = 1e-12


class ClipCount:
    """Schur complements clipped at the floor during one prediction (threads may add to it)."""

    def __init__(self):
        self.count = 0
        self._lock = threading.Lock()

    def add(self, n):
        with self._lock:
            self.count += int(n)


@dataclass
class Local:
    """Per-test-point quantities that do not depend on y (rows = test points)."""

    idx: np.ndarray        # (M, K) training indices used by each test point (knn), or None
    s: np.ndarray          # sqrt weights of those points: (N,) shared or (M, K)
    Y: np.ndarray          # their outputs: (N, dy) shared or (M, K, dy)
    kx: np.ndarray         # S k_X(x): (M, N or K)
    ux: np.ndarray         # K_XW^-1 S k_X(x)
    eta_x: np.ndarray      # (M,)
    inv_y: np.ndarray      # K_YW^-1: (N, N) shared or (M, K, K)
    inv_xy: np.ndarray     # K_XYW^-1 (sm) or None
    quad_ikl: np.ndarray   # K_YW^-1 K_XW K_YW^-1 (ikl) or None
    ax_xy: np.ndarray      # K_XYW^-1 (1 - theta) S k_X (sm) or None
    ay_kx: np.ndarray      # K_YW^-1 S k_X (ikl) or None
    kx_ax: np.ndarray = None    # (M,) S k_X . ax_xy (sm) or None
    stacked: np.ndarray = None  # shared systems: [K_YW^-1 | K_XYW^-1 or quad_ikl] (N, 2N), or None
    y_norms: np.ndarray = None  # shared systems: the squared norms of the rows of Y (N,), or None
    clipped: ClipCount = field(default_factory=ClipCount)  # this prediction's clipped Schur complements
    weighted: bool = True  # False: every s is 1 (no sample weights), and S k is k itself

    #: The per-point vectors each cost reads (see TwinGP.cost_and_gradient).
    NEEDS = {"kl": ("ux",), "ikl": ("ay_kx",), "sm": ("ax_xy", "kx_ax")}
    PER_POINT = ("kx", "ux", "ax_xy", "ay_kx", "kx_ax")
    PER_POINT_KNN = ("idx", "s", "Y", "inv_y", "inv_xy", "quad_ikl")

    def take(self, rows, divergence=None):
        """The quantities of the test points ``rows`` (indices); with ``divergence``, only those its
        cost reads. All rows in order: self, without a copy. The clip count is shared."""
        n = len(self.eta_x)
        if rows.size == n and (n == 0 or (rows[0] == 0 and rows[-1] == n - 1)):
            return self
        keep = self.PER_POINT if divergence is None else self.NEEDS[divergence]
        fields = {name: getattr(self, name) for name in self.__dataclass_fields__}
        for name in self.PER_POINT:
            value = fields[name]
            fields[name] = value[rows] if value is not None and name in keep else None
        fields["eta_x"] = self.eta_x[rows]
        if self.idx is not None:
            for name in self.PER_POINT_KNN:
                fields[name] = None if fields[name] is None else fields[name][rows]
        return Local(**fields)


def kernel_block(full, Z, idx, rho):
    """Kernel among the points idx ((n,) or (M, K)): read from the stored N x N matrix, or
    (knn, full is None) computed from Z[idx] so that no N x N matrix is ever built."""
    if full is not None:
        return full[idx[..., :, None], idx[..., None, :]]
    P = Z[idx]
    sq = np.einsum("...kd,...kd->...k", P, P)
    d2 = sq[..., :, None] + sq[..., None, :] - 2.0 * np.einsum("...kd,...ld->...kl", P, P)
    return gaussian_from_squared_distances(np.maximum(d2, 0.0), rho)


@njit(cache=True, nogil=True)
def weighted_systems(Kx, Ky, s, lambda_x, lambda_y, theta, mixed):
    """The matrices of a Twin GP's shared systems in one pass: K_XW = S K_X S + lambda_x I, K_YW = S K_Y S +
    lambda_y I and (``mixed``, SMTGP) K_XYW = (1 - theta) S K_X S + theta S K_Y S + ((1 - theta) lambda_x +
    theta lambda_y) I (else a 0 x 0 array), each number as numpy's passes made it: (s_i s_j) K_ij, the regulariser
    times I's 1 or 0 added (an off-diagonal + 0.0), (1 - theta) a + theta b; no fused multiply-adds."""
    n = Kx.shape[0]
    x, y = np.empty((n, n)), np.empty((n, n))
    xy = np.empty((n, n) if mixed else (0, 0))
    t = 1 - theta
    on_diagonal = t * lambda_x + theta * lambda_y
    for i in range(n):
        for j in range(n):
            outer = s[i] * s[j]
            a, b = outer * Kx[i, j], outer * Ky[i, j]
            one = 1.0 if i == j else 0.0
            x[i, j] = a + lambda_x * one
            y[i, j] = b + lambda_y * one
            if mixed:
                xy[i, j] = (t * a + theta * b) + on_diagonal * one
    return x, y, xy


@njit(cache=True, nogil=True, fastmath={"contract"})
def _scaled_distances(A, B, a_norms, b_norms, scale, out):
    """out[m, n] = max(||a_m||^2 + ||b_n||^2 - 2 a_m.b_n, 0) * scale in one pass, each number as the passes of numpy
    and :func:`rows_times` made it: a_m.b_n summed as rows_times sums it (one fused chain over k), then -2 a.b
    (as -(x + x): exact, and no product for the compiler to fuse with the sums that follow), + ||a||^2, + ||b||^2,
    the clip at 0 (a NaN stays, as np.maximum keeps it) and the product by ``scale``, each rounded on its own."""
    M, K = A.shape
    N = B.shape[0]
    K4 = K - K % 4
    for m in range(M):
        for n in range(N):
            acc = 0.0
            for k in range(0, K4, 4):
                acc = acc + A[m, k] * B[n, k] + A[m, k + 1] * B[n, k + 1] + A[m, k + 2] * B[n, k + 2] \
                    + A[m, k + 3] * B[n, k + 3]
            for k in range(K4, K):
                acc = acc + A[m, k] * B[n, k]
            d2 = -(acc + acc) + a_norms[m] + b_norms[n]
            if d2 < 0.0:
                d2 = 0.0
            out[m, n] = d2 * scale
    return out


def squared_distances_by_rows(A, B, scale=1.0, b_norms=None):
    """||a_i - b_j||^2 as :func:`covshift.kernels.squared_distances`, its products summed as :func:`rows_times` sums
    them (each row's numbers independent of the other rows), times ``scale`` (the Gaussian kernel's exponent with
    :func:`covshift.kernels.exponent_scale`); ``b_norms``: the rows' squared norms of B if known."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    b_norms = np.einsum("ij,ij->i", B, B) if b_norms is None else b_norms
    return _scaled_distances(A, B, np.einsum("ij,ij->i", A, A), b_norms, float(scale),
                             np.empty((A.shape[0], B.shape[0])))


def rowdot(A, B):
    """Row-wise dot products sum_j A[m, j] B[m, j] (no temporary of A's size)."""
    return np.einsum("mj,mj->m", A, B)


def apply_rows(matrix, B):
    """Rows of B times a symmetric matrix: shared (N, N) or one (K, K) per row."""
    return rows_times(B, matrix) if matrix.ndim == 2 else np.einsum("mij,mj->mi", matrix, B)


# The per-row terms of the costs, compiled. Each row's sums run over n in order (numpy's einsum would sum pairwise);
# four rows at a time are interleaved, so that their twelve sums are independent chains the processor overlaps
# instead of three chains of dependent additions: each row's numbers are those of the same loop on that row alone.


@njit(cache=True, nogil=True, fastmath={"contract"})
def _chain_row(dk, ky, Y, Yh, m, rho_y, grad, weighted):
    """grad[m] = dL/dy from dL/d(S k_y) = dk (eq. 16): sum_i dk_i k_y,i (y_i - y) / rho_y^2, summed in order."""
    total = 0.0
    weighted[:] = 0.0
    for n in range(ky.shape[1]):
        c = dk[n] * ky[m, n]
        total += c
        for d in range(Y.shape[1]):
            weighted[d] += c * Y[n, d]
    for d in range(Y.shape[1]):
        grad[m, d] = (weighted[d] - total * Yh[m, d]) / rho_y / rho_y


@njit(cache=True, nogil=True, fastmath={"contract"})
def _chain_rows(dk, ky, Y, Yh, m, r, rho_y, grad, weighted):
    """:func:`_chain_row` for the ``r`` rows m, m + 1, ... (dk[i] is row m + i's), four of them interleaved."""
    if r < 4:
        for i in range(r):
            _chain_row(dk[i], ky, Y, Yh, m + i, rho_y, grad, weighted[:, 0])
        return
    t0, t1, t2, t3 = 0.0, 0.0, 0.0, 0.0
    weighted[:] = 0.0
    for n in range(ky.shape[1]):
        c0, c1, c2, c3 = dk[0, n] * ky[m, n], dk[1, n] * ky[m + 1, n], dk[2, n] * ky[m + 2, n], dk[3, n] * ky[m + 3, n]
        t0 += c0
        t1 += c1
        t2 += c2
        t3 += c3
        for d in range(Y.shape[1]):
            y = Y[n, d]
            weighted[d, 0] += c0 * y
            weighted[d, 1] += c1 * y
            weighted[d, 2] += c2 * y
            weighted[d, 3] += c3 * y
    for i, total in enumerate((t0, t1, t2, t3)):
        for d in range(Y.shape[1]):
            grad[m + i, d] = (weighted[d, i] - total * Yh[m + i, d]) / rho_y / rho_y


@njit(cache=True, nogil=True, fastmath={"contract"})
def _row_sums(ky, A, B, C, m, r, sums):
    """sums[i] = (ky.A, ky.B, ky.C) of row m + i for the ``r`` rows from m (C None: two sums), each in order."""
    N = ky.shape[1]
    if r < 4:
        for i in range(r):
            a, b, c = 0.0, 0.0, 0.0
            for n in range(N):
                k = ky[m + i, n]
                a += k * A[m + i, n]
                b += k * B[m + i, n]
                if C is not None:
                    c += k * C[m + i, n]
            sums[i, 0], sums[i, 1], sums[i, 2] = a, b, c
        return
    a0, a1, a2, a3, b0, b1, b2, b3 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
    c0, c1, c2, c3 = 0.0, 0.0, 0.0, 0.0
    for n in range(N):
        k0, k1, k2, k3 = ky[m, n], ky[m + 1, n], ky[m + 2, n], ky[m + 3, n]
        a0 += k0 * A[m, n]
        a1 += k1 * A[m + 1, n]
        a2 += k2 * A[m + 2, n]
        a3 += k3 * A[m + 3, n]
        b0 += k0 * B[m, n]
        b1 += k1 * B[m + 1, n]
        b2 += k2 * B[m + 2, n]
        b3 += k3 * B[m + 3, n]
        if C is not None:
            c0 += k0 * C[m, n]
            c1 += k1 * C[m + 1, n]
            c2 += k2 * C[m + 2, n]
            c3 += k3 * C[m + 3, n]
    sums[0, 0], sums[1, 0], sums[2, 0], sums[3, 0] = a0, a1, a2, a3
    sums[0, 1], sums[1, 1], sums[2, 1], sums[3, 1] = b0, b1, b2, b3
    sums[0, 2], sums[1, 2], sums[2, 2], sums[3, 2] = c0, c1, c2, c3


@njit(cache=True, nogil=True, fastmath={"contract"})
def kl_terms(ky, uy, ux, eta_x, Y, Yh, kyy, rho_y, floor, cost, grad):
    """KLTGP's cost (eq. 5) and gradient at each row from S k_Y(y) = ky and its solve uy = K_YW^-1 ky (shared
    systems), each row on its own; returns the number of eta_y clipped at ``floor``."""
    M, N = ky.shape
    dk, sums, weighted = np.empty((4, N)), np.empty((4, 3)), np.empty((Y.shape[1], 4))
    clipped = 0
    for m0 in range(0, M, 4):
        r = min(4, M - m0)
        _row_sums(ky, uy, ux, None, m0, r, sums)
        for i in range(r):
            m = m0 + i
            quad_y, cross = sums[i, 0], sums[i, 1]
            eta_y = kyy - quad_y
            if eta_y < floor:
                eta_y = floor
                clipped += 1
            cost[m] = kyy - 2 * cross - eta_x[m] * np.log(eta_y)
            scale = 2 * eta_x[m] / eta_y
            for n in range(N):
                dk[i, n] = uy[m, n] * scale - 2 * ux[m, n]
        _chain_rows(dk, ky, Y, Yh, m0, r, rho_y, grad, weighted)
    return clipped


@njit(cache=True, nogil=True, fastmath={"contract"})
def sm_terms(ky, uy, uxy, ax_xy, kx_ax, Y, Yh, theta, kxx, kyy, rho_y, floor, cost, grad):
    """SMTGP's cost J = log eta_xy - theta log eta_y (eq. 16) and gradient at each row from ky and its solves
    uy = K_YW^-1 ky, uxy = K_XYW^-1 ky (shared systems), each row on its own; returns the number of Schur
    complements clipped at ``floor``."""
    M, N = ky.shape
    t = theta
    dk, sums, weighted = np.empty((4, N)), np.empty((4, 3)), np.empty((Y.shape[1], 4))
    clipped = 0
    for m0 in range(0, M, 4):
        r = min(4, M - m0)
        _row_sums(ky, uy, ax_xy, uxy, m0, r, sums)
        for i in range(r):
            m = m0 + i
            quad_y, cross, quad_xy = sums[i, 0], sums[i, 1], sums[i, 2]
            eta_y = kyy - quad_y
            if eta_y < floor:
                eta_y = floor
                clipped += 1
            eta_xy = (1 - t) * kxx + t * kyy - (1 - t) * kx_ax[m] - 2 * t * cross - t * t * quad_xy
            if eta_xy < floor:
                eta_xy = floor
                clipped += 1
            cost[m] = np.log(eta_xy) - t * np.log(eta_y)
            a = -2 * t / eta_xy  # dJ/dk = a K_XYW^-1 k_XYW + (2 theta / eta_y) K_YW^-1 k_YW
            at, b = a * t, 2 * t / eta_y
            for n in range(N):
                dk[i, n] = uxy[m, n] * at + a * ax_xy[m, n] + b * uy[m, n]
        _chain_rows(dk, ky, Y, Yh, m0, r, rho_y, grad, weighted)
    return clipped
