"""Large problems: the KLIEP atoms recomputed over blocks give the same solutions as the dense matrix."""

import numpy as np
import pytest

from covshift.kernels import gaussian_kernel, kernel_column_max, kernel_matvec
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS
from covshift.weights import _kliep_problem
from covshift.weights._kliep_problem import KernelAtoms, build_kliep_problem


def test_blocked_kernel_products_equal_the_dense_ones():
    rng = np.random.default_rng(0)
    A, B, u, c = rng.normal(size=(7, 2)), rng.normal(size=(53, 2)), rng.normal(size=53), rng.uniform(1, 2, 7)
    K = gaussian_kernel(A, B, 0.7, row_scale=c)
    for block_bytes in [1, 8 * 7 * 5, 2**20]:  # one column, 5 columns, everything in one block
        np.testing.assert_allclose(kernel_matvec(A, B, 0.7, u, c, block_bytes), K @ u, rtol=1e-12)
        np.testing.assert_allclose(kernel_column_max(A, B, 0.7, c, block_bytes), K.max(axis=0), rtol=1e-13)


def test_kernel_atoms_behave_as_the_dense_matrix(paper_data, monkeypatch):
    centers = np.arange(0, 300, 7)
    dense = build_kliep_problem(paper_data.X_tr, paper_data.X_te, centers, 0.3)
    monkeypatch.setattr(_kliep_problem, "DENSE_ATOMS_BYTES", 0)
    monkeypatch.setattr(_kliep_problem, "BLOCK_BYTES", 8 * len(centers) * 16)
    monkeypatch.setattr(_kliep_problem, "ROW_CACHE_BYTES", 8 * 300 * 3)  # three rows: eviction runs
    blocked = build_kliep_problem(paper_data.X_tr, paper_data.X_te, centers, 0.3)
    A, atoms = dense.atoms, blocked.atoms
    assert isinstance(atoms, KernelAtoms) and atoms.shape == A.shape
    u, w = np.random.default_rng(1).uniform(size=(2, 300))
    np.testing.assert_allclose(atoms @ u, A @ u, rtol=1e-12)
    np.testing.assert_allclose(w[:43] @ atoms, w[:43] @ A, rtol=1e-12)
    np.testing.assert_allclose(atoms[5], A[5], rtol=1e-13)
    for rows in [[3, 1, 4], [1, 5, 9, 2, 6], np.array([True] * 3 + [False] * 40)]:
        np.testing.assert_allclose(atoms[rows], A[rows], rtol=1e-13)
    np.testing.assert_allclose(atoms[:, [0, 7, 299]], A[:, [0, 7, 299]], rtol=1e-13)
    mu = np.zeros(A.shape[0])
    mu[[2, 10]] = 0.5
    assert blocked.certificate(mu) == pytest.approx(dense.certificate(mu), rel=1e-12)


@pytest.mark.parametrize("cls", [FWCS, AFWCS, PFWCS, FCFWCS, KLIEP])
def test_solvers_on_blocked_atoms_match_the_dense_solution(cls, paper_data, monkeypatch):
    tol = 2e-4 if cls in (FWCS, AFWCS, PFWCS) else 1e-6
    params = dict(sigma=0.3, n_centers=60) | ({} if cls is KLIEP else dict(tol=tol, max_iter=20000))
    dense = cls(**params).fit(paper_data.X_tr, paper_data.X_te)
    monkeypatch.setattr(_kliep_problem, "DENSE_ATOMS_BYTES", 0)
    monkeypatch.setattr(_kliep_problem, "BLOCK_BYTES", 8 * 60 * 32)
    blocked = cls(**params).fit(paper_data.X_tr, paper_data.X_te)
    if cls in (FCFWCS, KLIEP):  # few steps: the same path up to round-off
        assert blocked.objective_ == pytest.approx(dense.objective_, rel=1e-9)
        np.testing.assert_allclose(blocked.weights_, dense.weights_, rtol=1e-6, atol=1e-9)
    else:  # thousands of steps: round-off changes the path, the certificates bound the difference
        assert blocked.converged_ and dense.converged_
        assert abs(blocked.objective_ - dense.objective_) <= blocked.duality_gap_ + dense.duality_gap_

