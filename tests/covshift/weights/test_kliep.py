"""KLIEP (projected gradient ascent) reaches the optimum of its own centre problem."""

import numpy as np
import pytest

from covshift.data import sinc_shift
from covshift.exceptions import ConvergenceWarning
from covshift.weights import KLIEP
from covshift.weights._kliep_problem import build_kliep_problem
from tests.references.kliep_cvxopt import kliep_reference_optimum


def _reference_objective(est, data):
    """cvxopt optimum of the same 100-centre problem KLIEP solved."""
    problem = build_kliep_problem(data.X_tr, data.X_te, est.center_index_, est.sigma_)
    return kliep_reference_optimum(problem.atoms)[1]


@pytest.mark.parametrize("seed", [777, 0, 1])
@pytest.mark.parametrize("sigma", [0.1, 0.3])
def test_kliep_reaches_the_cvxopt_optimum_of_its_centre_problem(seed, sigma):
    data = sinc_shift(random_state=seed)
    est = KLIEP(sigma=sigma, n_centers=100).fit(data.X_tr, data.X_te)
    F_ref = _reference_objective(est, data)
    assert est.converged_
    assert est.duality_gap_ <= est.tol * abs(est.objective_)
    # the certificate holds: F <= F* <= F + gap
    assert est.objective_ <= F_ref + 1e-8
    assert F_ref - est.objective_ <= est.duality_gap_ + 1e-8
    assert abs(F_ref - est.objective_) <= 1e-4 * abs(F_ref)
    assert est.weights_.mean() == pytest.approx(1.0) and np.all(est.alpha_ >= 0)


def test_history_records_the_gap_and_ends_at_the_certificate(paper_data):
    est = KLIEP(sigma=0.3, tol=1e-6).fit(paper_data.X_tr, paper_data.X_te)
    hist = est.history_
    assert set(hist) == {"objective", "gap", "step_size", "elapsed"}
    assert len(hist["objective"]) == est.n_iter_ + 1
    assert hist["objective"][-1] == pytest.approx(est.objective_, rel=1e-10)
    assert hist["gap"][-1] == pytest.approx(est.duality_gap_, rel=1e-6, abs=1e-9)
    assert hist["gap"][-1] <= 1e-6 * abs(est.objective_) < hist["gap"][0]
    # the step size adapts: it is not one fixed schedule value
    assert len(np.unique(hist["step_size"])) > 2


@pytest.mark.parametrize("momentum", [True, False])
def test_plain_and_accelerated_projected_gradient_both_ascend(paper_data, momentum):
    est = KLIEP(sigma=0.3, momentum=momentum, max_iter=300, tol=1e-12)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        est.fit(paper_data.X_tr, paper_data.X_te)
    objective = est.history_["objective"]
    assert not est.converged_ and est.n_iter_ == 300
    assert objective[-1] > objective[0]
    if not momentum:  # plain projected gradient with sufficient increase is monotone
        assert np.all(np.diff(objective) >= -1e-9)


def test_sugiyama_projection_is_kept_and_reports_convergence_honestly(paper_data):
    with pytest.warns(ConvergenceWarning, match="projection='exact'"):
        est = KLIEP(sigma=0.3, projection="sugiyama", max_iter=500).fit(paper_data.X_tr, paper_data.X_te)
    assert est.converged_ == (est.duality_gap_ <= est.tol * abs(est.objective_))
    assert not est.converged_
    assert np.isfinite(est.objective_) and est.weights_.mean() == pytest.approx(1.0)


def test_kliep_rejects_bad_parameters(paper_data):
    for params, name in [({"projection": "nearest"}, "projection"), ({"momentum": "yes"}, "momentum"),
                         ({"tol": -1.0}, "tol"), ({"max_iter": 1.5}, "max_iter")]:
        with pytest.raises(ValueError, match=name):
            KLIEP(sigma=0.3, **params).fit(paper_data.X_tr, paper_data.X_te)
