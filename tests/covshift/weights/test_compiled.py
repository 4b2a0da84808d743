"""The library's one compiled Frank-Wolfe loop (covshift.weights._compiled.run_loop) against the plain-Python
reference loop (tests/references/frank_wolfe_loop.py), and the stable update of v."""

import warnings

import numpy as np
import pytest

from covshift.data import sinc_shift
from covshift.weights import AFWCS, FCFWCS, FWCS, PFWCS
from covshift.weights import _kliep_problem
from covshift.weights._line_search import log_objective
from tests.references import frank_wolfe_loop
from tests.references.frank_wolfe_loop import ActiveSet

SIGMA = 0.3


def _fit(cls, data, reference, **params):
    est = cls(**{"sigma": SIGMA, "tol": 1e-5, "max_iter": 400} | params)
    if reference:
        def solve(problem):  # the estimator's _solve, through the reference loop
            mu, est.converged_, est.n_iter_, est.history_ = frank_wolfe_loop.solve(est, problem)
            return mu

        est._solve = solve
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(data.X_tr, data.X_te)


@pytest.mark.parametrize("line_search", ["exact", "armijo"])
@pytest.mark.parametrize("cls", [FWCS, AFWCS])
def test_compiled_loop_gives_the_reference_loops_iterates(cls, line_search, paper_data):
    compiled, python = (_fit(cls, paper_data, r, line_search=line_search).history_ for r in (False, True))
    assert len(compiled) == len(python)
    for column in ["step_kind", "direction", "towards_atom", "away_atom", "active_size", "atoms_dropped",
                   "iterate_start", "iterate_atom"]:
        np.testing.assert_array_equal(getattr(compiled, column), getattr(python, column), err_msg=column)
    np.testing.assert_allclose(compiled.objective, python.objective, rtol=1e-12)
    np.testing.assert_allclose(compiled.step_size, python.step_size, rtol=1e-8, atol=1e-15)
    np.testing.assert_allclose(compiled.iterate_mu, python.iterate_mu, rtol=1e-8, atol=1e-15)
    assert np.all(np.diff(compiled.elapsed) >= 0) and compiled.elapsed[-1] > 0


def test_compiled_pairwise_loop_matches_until_round_off_breaks_a_tie(paper_data):
    # after a pairwise step that stops inside [0, rho_max] the two atoms have equal gradients (phi' = 0),
    # so the next away atom is a tie that round-off decides: the runs agree step for step at first and
    # reach the same optimum, not necessarily through the same iterates
    compiled, python = (_fit(PFWCS, paper_data, r) for r in (False, True))
    h, g = compiled.history_, python.history_
    np.testing.assert_array_equal(h.towards_atom[:5], g.towards_atom[:5])
    np.testing.assert_allclose(h.objective[:5], g.objective[:5], rtol=1e-12)
    assert compiled.objective_ == pytest.approx(python.objective_, rel=1e-3)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("line_search", ["exact", "armijo"])
@pytest.mark.parametrize("atoms", ["dense", "blocked", "low-rank"])
def test_fully_corrective_steps_of_the_loop_match_the_reference(atoms, line_search, seed, monkeypatch):
    # FCFWCS: the loop's towards step, then the corrective phase it asks Python for; on blocked and low-rank
    # atoms the loop also asks Python for the gradient, rows and density. The outer path is the same step
    # for step. Inside the corrective phase the last Newton steps before the face tolerance (1e-9 |F| here)
    # move F by round-off only, and whether one more is taken depends on the order in which F was summed
    # (the loop sums sequentially, numpy pairwise): the counts of Newton steps may differ, and with them
    # the weights on the optimum's flat directions by up to ~3e-7 (seeds 0-2), with F the same to ~1e-15.
    if atoms == "blocked":
        monkeypatch.setattr(_kliep_problem, "DENSE_ATOMS_BYTES", 0)
    elif atoms == "low-rank":
        monkeypatch.setattr(_kliep_problem, "LOW_RANK_MIN_ENTRIES", 0)
    data = sinc_shift(random_state=seed)
    compiled, python = (_fit(FCFWCS, data, r, tol=1e-8, line_search=line_search) for r in (False, True))
    h, g = compiled.history_, python.history_
    assert compiled.converged_ and python.converged_ and len(h) == len(g)
    for column in ["step_kind", "direction", "towards_atom", "active_size", "atoms_dropped", "iterate_start",
                   "iterate_atom"]:
        np.testing.assert_array_equal(getattr(h, column), getattr(g, column), err_msg=column)
    assert set(h.direction[:-1]) == {"corrective"} and h.inner_iterations.sum() > 0
    np.testing.assert_allclose(h.objective, g.objective, rtol=1e-12)
    np.testing.assert_allclose(h.iterate_mu, g.iterate_mu, rtol=0, atol=1e-6)
    assert np.all(np.diff(h.elapsed) > 0)  # timed after every iteration


@pytest.mark.parametrize("cls", [AFWCS, PFWCS])
def test_steps_on_blocked_atoms_match_the_reference(cls, paper_data, monkeypatch):
    monkeypatch.setattr(_kliep_problem, "DENSE_ATOMS_BYTES", 0)
    compiled, python = (_fit(cls, paper_data, r, n_centers=60, max_iter=60) for r in (False, True))
    h, g = compiled.history_, python.history_
    np.testing.assert_array_equal(h.towards_atom[:5], g.towards_atom[:5])
    np.testing.assert_array_equal(h.away_atom[:5], g.away_atom[:5])
    np.testing.assert_allclose(h.objective[:5], g.objective[:5], rtol=1e-12)


def test_towards_step_of_size_one_keeps_tiny_densities():
    # v + rho (A_l - v) cancels at rho = 1: where A_l is tiny beside v it gave exactly 0 (F = -inf);
    # the convex combination (1 - rho) v + rho A_l gives A_l (issue 30, against the authors' MATLAB code)
    atoms = np.array([[1.0, 1.0, 1.0], [0.5, 1e-30, 2.0]])
    mu = np.array([1.0, 0.0])
    active_set = ActiveSet(atoms, mu.copy())
    assert np.any(active_set.v + 1.0 * (atoms[1] - active_set.v) == 0)  # the old update
    active_set.towards(1, 1.0, atoms[1])
    np.testing.assert_array_equal(active_set.v, atoms[1])
    np.testing.assert_array_equal(active_set.mu, [0.0, 1.0])
    assert np.isfinite(log_objective(active_set.v))


def test_warm_up_runs_every_compiled_loop_without_warnings():
    from covshift import compiled

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled.warm_up() is None
