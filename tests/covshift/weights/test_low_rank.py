"""Frank-Wolfe KLIEP with a low-rank gradient (issue 12 item 5): the same solutions and a
certified gap, against the dense atom matrix."""

import numpy as np
import pytest

from covshift.data import sinc_shift
from covshift.kernels import gaussian_kernel
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS
from covshift.weights import _kliep_problem
from covshift.weights._kliep_problem import LowRankKernelAtoms, build_kliep_problem, duality_gap
from covshift.weights.replay import replay_iterates, replay_steps


@pytest.fixture
def low_rank_everywhere(monkeypatch):
    monkeypatch.setattr(_kliep_problem, "LOW_RANK_MIN_ENTRIES", 0)


def test_beta_by_blocks_equals_beta_from_the_full_matrix(paper_data, low_rank_everywhere):
    centers = np.arange(300)
    problem = build_kliep_problem(paper_data.X_tr, paper_data.X_te, centers, 0.3, low_rank=True)
    assert isinstance(problem.atoms, LowRankKernelAtoms)
    full = gaussian_kernel(paper_data.X_tr, paper_data.X_te, 0.3)  # n_tr x n_te, built only here
    np.testing.assert_allclose(problem.beta, 1.0 / full.mean(axis=0), rtol=1e-13)


@pytest.mark.parametrize("centers", [np.arange(300), np.arange(0, 300, 3)])
def test_low_rank_gradient_is_within_its_bound(paper_data, low_rank_everywhere, centers):
    dense = build_kliep_problem(paper_data.X_tr, paper_data.X_te, centers, 0.3)
    low = build_kliep_problem(paper_data.X_tr, paper_data.X_te, centers, 0.3, low_rank=True)
    atoms = low.atoms
    assert isinstance(atoms, LowRankKernelAtoms) and len(atoms.factor) < 40
    np.testing.assert_allclose(low.beta, dense.beta, rtol=1e-13)
    u = 1.0 / np.random.default_rng(0).uniform(0.05, 3.0, size=300)
    approximate, error = atoms.gradient(u)
    exact = dense.atoms @ u
    assert np.all(np.abs(approximate - exact) <= error)
    assert error.max() < 1e-8 * exact.max()
    # rows and products other than the gradient stay exact float64
    np.testing.assert_allclose(atoms[[4, 1]], dense.atoms[[4, 1]], rtol=1e-13)
    np.testing.assert_allclose(atoms @ u, exact, rtol=1e-12)
    # the problem falls back to the exact product when the bound exceeds the allowed error
    grad, err = low.gradient(u, max_error=0.0)
    assert err == 0.0
    np.testing.assert_allclose(grad, exact, rtol=1e-12)


def test_certified_gap_bounds_the_exact_gap(paper_data, low_rank_everywhere):
    dense = build_kliep_problem(paper_data.X_tr, paper_data.X_te, np.arange(300), 0.3)
    low = build_kliep_problem(paper_data.X_tr, paper_data.X_te, np.arange(300), 0.3, low_rank=True)
    mu = np.zeros(300)
    mu[[10, 50, 200]] = [0.2, 0.3, 0.5]
    objective, gap = dense.certificate(mu)
    low_objective, certified = low.certificate(mu)
    _, error = low.atoms.gradient(1.0 / dense.density(mu))
    assert low_objective == pytest.approx(objective, rel=1e-13)
    assert gap <= certified <= gap + 2 * error.max() + 1e-9 * gap
    # duality_gap with error 0 is the plain Frank-Wolfe gap
    g = np.array([1.0, 3.0, 2.0])
    assert duality_gap(g, 0.0, np.array([0.5, 0.0, 0.5]), np.array([0, 2])) == pytest.approx(1.5)
    assert duality_gap(g, np.full(3, 0.1), np.array([0.5, 0.0, 0.5]), np.array([0, 2])) == pytest.approx(1.7)


@pytest.mark.parametrize("cls", [FWCS, AFWCS, PFWCS, FCFWCS])
def test_solvers_with_the_low_rank_gradient_match_the_dense_solution(cls, paper_data, monkeypatch):
    tol = 2e-4 if cls in (FWCS, AFWCS, PFWCS) else 1e-6
    params = dict(sigma=0.3, tol=tol, max_iter=20000)
    dense = cls(**params).fit(paper_data.X_tr, paper_data.X_te)
    monkeypatch.setattr(_kliep_problem, "LOW_RANK_MIN_ENTRIES", 0)
    low = cls(**params).fit(paper_data.X_tr, paper_data.X_te)
    assert low.converged_ and dense.converged_
    # the reported gap of the low-rank run certifies its solution on the exact (dense) problem
    exact_problem = build_kliep_problem(paper_data.X_tr, paper_data.X_te, low.center_index_, 0.3)
    objective, exact_gap = exact_problem.certificate(low.mu_)
    assert low.objective_ == pytest.approx(objective, rel=1e-12)
    assert exact_gap <= low.duality_gap_ <= exact_gap + 0.02 * tol * abs(objective) + 1e-12
    assert low.duality_gap_ <= tol * abs(low.objective_)
    if cls is FCFWCS:  # few steps: the same path
        assert low.n_iter_ == dense.n_iter_
        np.testing.assert_allclose(low.weights_, dense.weights_, rtol=1e-6, atol=1e-9)
    else:  # many steps: near-ties may be broken differently, the certificates bound the difference
        assert abs(low.objective_ - dense.objective_) <= low.duality_gap_ + dense.duality_gap_


def test_kliep_keeps_the_dense_atoms(paper_data, low_rank_everywhere):
    # projected gradient needs mu @ A with a dense mu every iteration: no low-rank atoms
    est = KLIEP(sigma=0.3, n_centers=60).fit(paper_data.X_tr, paper_data.X_te)
    assert est.converged_ and not KLIEP._low_rank_gradient and FCFWCS._low_rank_gradient


def test_default_threshold_uses_the_factor_at_2000_points_and_replay_works():
    data = sinc_shift(n_tr=2000, n_te=2000, random_state=0)
    problem = build_kliep_problem(data.X_tr, data.X_te, np.arange(2000), 0.3, low_rank=True)
    assert isinstance(problem.atoms, LowRankKernelAtoms)
    est = FCFWCS(sigma=0.3, tol=1e-6).fit(data.X_tr, data.X_te)
    assert est.converged_ and est.duality_gap_ <= 1e-6 * abs(est.objective_)
    iterates = list(replay_iterates(replay_steps(est), len(est.history_.beta)))
    np.testing.assert_allclose(est.history_.alpha_at(-1), est.alpha_, rtol=1e-12)
    assert len(iterates) == len(est.history_)
    np.testing.assert_array_equal(np.flatnonzero(iterates[-1]), np.flatnonzero(est.alpha_))


def test_face_hessian_over_blocks_equals_the_whole_product():
    from covshift.weights.fully_corrective import face_gradient_and_hessian

    rng = np.random.default_rng(2)
    A_face, u = rng.uniform(size=(5, 103)), rng.uniform(0.5, 2.0, size=103)
    scaled = A_face * u
    for block_bytes in [1, 8 * 5 * 10, 2**22]:  # one column, 10 columns, one block
        grad, hessian = face_gradient_and_hessian(A_face, u, block_bytes)
        np.testing.assert_allclose(grad, scaled.sum(axis=1), rtol=1e-13)
        np.testing.assert_allclose(hessian, scaled @ scaled.T, rtol=1e-13)


def test_a_loose_bound_serves_only_while_the_gap_is_certainly_above_tol(paper_data, low_rank_everywhere,
                                                                        monkeypatch):
    from covshift.weights import fw_loop

    dense = FCFWCS(sigma=0.3, tol=1e-6).fit(paper_data.X_tr, paper_data.X_te)
    monkeypatch.setattr(fw_loop, "GRADIENT_SLACK", 0.0)  # no error is small enough to stop on
    requests = []
    gradient = _kliep_problem.KliepProblem.gradient

    def recording(problem, u, max_error=0.0):
        grad, error = gradient(problem, u, max_error)
        requests.append(np.ndim(error) == 0)  # True: exact
        return grad, error

    monkeypatch.setattr(_kliep_problem.KliepProblem, "gradient", recording)
    est = FCFWCS(sigma=0.3, tol=1e-6).fit(paper_data.X_tr, paper_data.X_te)
    # approximate gradients far from the optimum, then an exact one for the stopping test
    assert not requests[0] and requests[-2] and est.converged_
    assert est.duality_gap_ <= 1e-6 * abs(est.objective_)
    assert est.objective_ == pytest.approx(dense.objective_, rel=1e-12)


def test_uncovered_test_points_are_dropped_from_the_factor_too(low_rank_everywhere):
    rng = np.random.default_rng(5)
    X_tr = rng.normal(0.5, 0.5, size=(400, 1))
    X_te = np.vstack([rng.normal(0.0, 0.3, size=(300, 1)), [[60.0]]])  # an outlier no centre covers
    centers = np.arange(0, 300, 3)
    with pytest.warns(Warning, match="zero kernel density"):
        dense = build_kliep_problem(X_tr, X_te, centers, 0.3)
    with pytest.warns(Warning, match="zero kernel density"):
        low = build_kliep_problem(X_tr, X_te, centers, 0.3, low_rank=True)
    assert isinstance(low.atoms, LowRankKernelAtoms) and low.n_uncovered_test == 1
    assert low.atoms.factor.shape[1] == low.atoms.shape[1] == dense.atoms.shape[1] == 300
    u = 1.0 / rng.uniform(0.1, 2.0, size=300)
    approximate, error = low.atoms.gradient(u)
    assert np.all(np.abs(approximate - dense.atoms @ u) <= error)
