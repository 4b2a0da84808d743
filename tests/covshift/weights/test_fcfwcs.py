"""The fully-corrective solver reaches the same certified optimum as the paper's solvers."""

import numpy as np
import pytest

from covshift.weights import FCFWCS, PFWCS


def _problem(seed, d, n=150):
    rng = np.random.default_rng(seed)
    return rng.normal(0.4, 1.0, (n, d)), rng.normal(0.0, 0.6, (n, d))


@pytest.mark.parametrize("seed,d,sigma", [(0, 1, 0.3), (1, 2, 0.5), (2, 3, 0.8), (3, 3, 0.25),
                                          (4, 1, 0.05)])
def test_fcfwcs_matches_pfwcs_optimum(seed, d, sigma):
    X_tr, X_te = _problem(seed, d)
    tol = 1e-7
    fc = FCFWCS(sigma=sigma, tol=tol).fit(X_tr, X_te)
    pw = PFWCS(sigma=sigma, tol=1e-5, max_iter=100000).fit(X_tr, X_te)
    assert fc.converged_ and fc.duality_gap_ <= tol * abs(fc.objective_)
    # both gaps bound their suboptimality, so the objectives differ by at most the larger gap
    assert abs(fc.objective_ - pw.objective_) <= max(fc.duality_gap_, pw.duality_gap_) + 1e-9
    assert fc.objective_ >= pw.objective_ - 1e-9
    assert np.all(fc.mu_ >= 0) and fc.mu_.sum() == pytest.approx(1.0, abs=1e-12)
    np.testing.assert_allclose(fc.predict_weights(X_tr), fc.weights_, rtol=1e-10)


def test_fcfwcs_history_records_inner_iterations_and_drops(paper_data):
    est = FCFWCS(sigma=0.3, tol=1e-8).fit(paper_data.X_tr, paper_data.X_te)
    hist = est.history_
    steps = slice(0, len(hist) - 1)
    assert set(hist.direction[steps]) == {"corrective"}
    assert np.all(hist.inner_iterations[steps] >= 0) and hist.inner_iterations.sum() > 0
    assert hist.atoms_dropped.sum() > 0
    assert np.all(hist.step_kind[steps][hist.atoms_dropped[steps] > 0] == "drop")
    # dropped atoms are exactly zero, and the active set is what mu says
    assert hist.active_size[-1] == np.count_nonzero(est.mu_)
    assert np.all(est.mu_[est.mu_ < 1e-12] == 0.0)
    assert len(hist) < 40  # very sparse optimum: few outer iterations
