import warnings
from functools import partial

import numpy as np
import pytest
from sklearn.base import clone

from covshift.data import sinc_shift
from covshift.exceptions import ConvergenceWarning, NumericalWarning
from covshift.kernels import gaussian_kernel
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS, _compiled
from covshift.weights._kliep_problem import KliepProblem, build_kliep_problem, choose_centers
from covshift.weights.active_set import ATOM_TOL
from covshift.weights.fully_corrective import corrective_newton
from covshift.weights.fw_loop import HIT_TOL, RULES, ProblemPart
from tests.references.kliep_cvxopt import kliep_reference_optimum

FW_SOLVERS = [FWCS, AFWCS, PFWCS, FCFWCS]
SIGMA = 0.3  # a fixed width on the paper's data keeps these tests fast


def _fit(cls, data, **kwargs):
    params = dict(sigma=SIGMA, tol=1e-6, max_iter=20000)
    params.update(kwargs)
    return cls(**params).fit(data.X_tr, data.X_te)


@pytest.fixture(scope="module")
def paper_reference(paper_data):
    problem = build_kliep_problem(paper_data.X_tr, paper_data.X_te, np.arange(300), SIGMA)
    return kliep_reference_optimum(problem.atoms)


@pytest.mark.parametrize("cls", FW_SOLVERS)
@pytest.mark.parametrize("line_search", ["exact", "armijo"])
def test_certificate_constraints_and_optimum(cls, line_search, paper_data, paper_reference):
    tol = 2e-4 if cls is FWCS else 1e-5  # plain FW converges sublinearly (section III-B)
    est = _fit(cls, paper_data, line_search=line_search, tol=tol)
    F = est.objective_
    # the duality-gap certificate: a converged run has gap <= tol |F| ...
    assert est.converged_
    assert est.duality_gap_ <= tol * abs(F)
    assert est.history_.gap[-1] == pytest.approx(est.duality_gap_, rel=1e-6, abs=1e-9)
    # ... and the gap bounds the suboptimality (concavity): F* - F <= gap.
    mu_ref, F_ref = paper_reference
    assert F <= F_ref + 1e-8
    assert F_ref - F <= est.duality_gap_ + 1e-8
    # mu on the simplex, alpha >= 0, alpha = beta * mu, weights of mean 1
    assert np.all(est.mu_ >= 0) and est.mu_.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.all(est.alpha_ >= 0)
    assert est.weights_.mean() == pytest.approx(1.0, abs=1e-12)
    assert np.all(np.isfinite(est.weights_)) and np.all(est.weights_ >= 0)


def test_all_solvers_and_kliep_agree_with_independent_cvxopt_solve(small_2d):
    X_tr, X_te = small_2d
    problem = build_kliep_problem(X_tr, X_te, np.arange(len(X_te)), 1.0)
    _, F_ref = kliep_reference_optimum(problem.atoms)
    for cls in FW_SOLVERS:
        tol = 1e-5 if cls is FWCS else 1e-8
        est = cls(sigma=1.0, tol=tol, max_iter=50000).fit(X_tr, X_te)
        assert est.converged_
        assert F_ref - est.duality_gap_ - 1e-9 <= est.objective_ <= F_ref + 1e-9
        assert est.objective_ == pytest.approx(F_ref, rel=tol)
    kliep = KLIEP(sigma=1.0, n_centers=None, tol=1e-8).fit(X_tr, X_te)
    assert kliep.converged_
    assert kliep.objective_ == pytest.approx(F_ref, rel=1e-6)


def test_objective_is_log_likelihood_of_unnormalised_weights(paper_data):
    est = _fit(PFWCS, paper_data, tol=1e-4)
    w_test = gaussian_kernel(paper_data.X_te, est.centers_, SIGMA) @ est.alpha_
    assert est.objective_ == pytest.approx(np.sum(np.log(w_test)), rel=1e-10)
    # the constraint of eq. (2): sum_i w(x_tr_i) = n_tr
    w_train = gaussian_kernel(paper_data.X_tr, est.centers_, SIGMA) @ est.alpha_
    assert w_train.sum() == pytest.approx(len(paper_data.X_tr), rel=1e-10)
    np.testing.assert_allclose(est.predict_weights(paper_data.X_tr), est.weights_, rtol=1e-12)


def test_step_kind_rules_on_paper_problem(paper_data):
    kinds = {cls: set(_fit(cls, paper_data, tol=1e-6, max_iter=3000).history_.step_kind[:-1])
             for cls in [FWCS, AFWCS, PFWCS]}
    assert kinds[FWCS] == {"good"}
    assert "swap" not in kinds[AFWCS] and "drop" in kinds[AFWCS]
    assert {"drop", "swap"} <= kinds[PFWCS]


def test_history_is_consistent_for_replay(paper_data):
    hist = _fit(PFWCS, paper_data, tol=1e-4).history_
    n = len(hist)
    for column in ["gap", "step_kind", "direction", "step_size", "active_size", "towards_atom",
                   "away_atom", "elapsed", "atoms_dropped", "inner_iterations"]:
        assert len(getattr(hist, column)) == n
    assert hist.step_kind[-1] == "final"
    assert np.all(np.diff(hist.elapsed) >= 0)
    # exact line search: the objective never decreases
    assert np.all(np.diff(hist.objective) >= -1e-9)
    steps = slice(0, n - 1)
    assert set(hist.direction[steps]) == {"pairwise"}
    # a drop or swap step removes the away atom: it moved all its weight, rho = mu(l_AFW)
    assert np.all(hist.atoms_dropped[steps][np.isin(hist.step_kind[steps], ["drop", "swap"])] >= 1)
    # active-set sizes change exactly as section III-B says
    size_change = np.diff(np.concatenate([[1], hist.active_size[steps]]))
    assert np.all(size_change[hist.step_kind[steps] == "drop"] == -1)
    assert np.all(size_change[hist.step_kind[steps] == "swap"] == 0)


@pytest.mark.parametrize("rule", sorted(RULES))
def test_incremental_density_matches_recomputation(rule):
    # the loop updates v = A' mu incrementally at every step; never refreshed, it still equals A' mu
    rng = np.random.default_rng(5)
    atoms = rng.uniform(0.01, 1.0, (40, 200))
    mu = np.zeros(40)
    mu[:5] = 0.2
    problem = KliepProblem(atoms, np.ones(40), np.arange(40), 0, 0)

    def search(v, d, rho_max, slope, objective):  # the exact line search, as the loop's
        return _compiled.search(v, np.ascontiguousarray(d), float(rho_max), float(slope), float(objective),
                                True, 0.5, 0.5, HIT_TOL)

    part = ProblemPart(problem, partial(corrective_newton, max_inner=50), search)
    key = _compiled.lend_python_part(part)
    try:
        options = _compiled.LoopOptions(RULES[rule], True, 0.5, 0.5, 1e-300, 300, 10**9, HIT_TOL, ATOM_TOL, 150,
                                        True, key)
        state = _compiled.LoopState(mu, mu @ atoms, np.zeros((301, len(_compiled.ROW_COLUMNS))),
                                    np.empty(16, np.int64), np.empty(16), np.zeros(2, np.int64))
        _, state = _compiled.run_loop(options, state, atoms, 301)
    finally:
        _compiled.return_python_part(key)
    assert state.counters[0] > 10
    np.testing.assert_allclose(state.v, state.mu @ atoms, rtol=1e-10)
    assert state.mu.sum() == pytest.approx(1.0, abs=1e-12) and np.all(state.mu >= 0)


def test_away_and_pairwise_steps_give_sparser_alpha(paper_data):
    # FWCS cannot drop atoms, so it is the least sparse FW variant (section III-D, Fig. 2e);
    # the fully-corrective solver keeps only the optimum's support. A converged KLIEP is
    # sparse too: the Euclidean projection onto the simplex sets coordinates exactly to zero
    # (Fig. 2e's dense KLIEP was a projected gradient stopped early).
    nnz = {cls: np.count_nonzero(_fit(cls, paper_data, tol=3e-5, max_iter=50000).alpha_)
           for cls in FW_SOLVERS}
    kliep = np.count_nonzero(KLIEP(sigma=SIGMA).fit(paper_data.X_tr, paper_data.X_te).alpha_)
    assert nnz[FCFWCS] <= min(nnz[AFWCS], nnz[PFWCS])
    assert max(nnz[AFWCS], nnz[PFWCS]) < nnz[FWCS]
    assert kliep < nnz[FWCS]


def test_max_iter_gives_convergence_warning_and_valid_certificate(paper_data):
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est = _fit(FWCS, paper_data, tol=1e-9, max_iter=20)
    assert not est.converged_ and est.n_iter_ == 20
    assert len(est.history_) == 21 and est.duality_gap_ > 0


def test_n_centers_uses_a_seeded_subset(paper_data):
    a = _fit(FCFWCS, paper_data, n_centers=100, random_state=3)
    b = _fit(FCFWCS, paper_data, n_centers=100, random_state=3)
    c = _fit(FCFWCS, paper_data, n_centers=100, random_state=4)
    np.testing.assert_array_equal(a.center_index_, b.center_index_)
    assert len(a.center_index_) == 100 and not np.array_equal(a.center_index_, c.center_index_)
    np.testing.assert_array_equal(a.center_index_, choose_centers(300, 100, 3))


@pytest.mark.parametrize("cls", FW_SOLVERS + [KLIEP])
def test_sklearn_contract(cls, paper_data):
    est = cls(sigma=SIGMA)
    params = est.get_params()
    est.fit(paper_data.X_tr, paper_data.X_te)
    assert est.get_params() == params  # fit never overwrites a constructor parameter
    assert clone(est).get_params() == params
    assert not hasattr(clone(est), "weights_")


@pytest.mark.parametrize("cls", FW_SOLVERS)
def test_history_rebuilds_every_iterate_as_a_resolve_stopped_there(cls, paper_data):
    """Replay without recomputation: history_.mu_at(t) is the iterate a run stopped at t returns."""
    est = _fit(cls, paper_data, tol=1e-5, max_iter=60)
    hist = est.history_
    np.testing.assert_array_equal(hist.mu_at(len(hist) - 1), est.mu_)
    np.testing.assert_allclose(hist.alpha_at(-1), est.alpha_, rtol=1e-12)
    for t in sorted({0, 1, 2, len(hist) // 2, len(hist) - 2}):
        with warnings.catch_warnings():  # stopping early warns by design
            warnings.simplefilter("ignore", ConvergenceWarning)
            stopped = _fit(cls, paper_data, tol=1e-5, max_iter=t)  # same tol: FCFWCS's face tolerance
        np.testing.assert_array_equal(stopped.center_index_, est.center_index_)
        np.testing.assert_allclose(hist.mu_at(t), stopped.mu_, rtol=1e-12, atol=1e-15)
        atoms, mu = hist.iterate(t)
        assert len(atoms) == np.count_nonzero(stopped.mu_) and np.all(mu > 0)
        assert hist.objective[t] == pytest.approx(stopped.objective_, rel=1e-10)
    # row t records |S_{t+1}|: the size of the next iterate
    sizes = np.diff(hist.iterate_start)
    np.testing.assert_array_equal(hist.active_size[:-1], sizes[1:])
    with pytest.raises(ValueError, match="iteration t"):
        hist.iterate(len(hist))


@pytest.fixture(scope="module")
def small_sigma_problem():
    """sigma = 0.1 on the paper's data (seed 777): the starting vertex leaves test points at v ~ 1e-31."""
    data = sinc_shift(random_state=777)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumericalWarning)
        problem = build_kliep_problem(data.X_tr, data.X_te, np.arange(len(data.X_te)), 0.1)
    return data, kliep_reference_optimum(problem.atoms)[1]


@pytest.mark.parametrize("cls", FW_SOLVERS)
def test_armijo_line_search_survives_small_sigma(cls, small_sigma_problem):
    data, F_ref = small_sigma_problem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (NumericalWarning, ConvergenceWarning))
        est = cls(sigma=0.1, line_search="armijo", max_iter=1500).fit(data.X_tr, data.X_te)
    assert est.n_iter_ > 0 and np.count_nonzero(est.mu_) > 1
    assert est.objective_ <= F_ref + 1e-8
    assert F_ref - est.objective_ <= 0.01 * abs(F_ref)
