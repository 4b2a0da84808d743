"""The compiled Frank-Wolfe loop (covshift.weights._compiled) against the Python loop, and the stable update of v."""

import warnings

import numpy as np
import pytest

from covshift.weights import AFWCS, FWCS, PFWCS
from covshift.weights._line_search import log_objective
from covshift.weights.active_set import ActiveSet

SIGMA = 0.3


def _fit(cls, data, compiled, **params):
    est = cls(sigma=SIGMA, tol=1e-5, max_iter=400, **params)
    if not compiled:
        est._compiled_rule = None  # the Python loop of fw_loop.run_frank_wolfe
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(data.X_tr, data.X_te)


@pytest.mark.parametrize("line_search", ["exact", "armijo"])
@pytest.mark.parametrize("cls", [FWCS, AFWCS])
def test_compiled_loop_gives_the_python_loops_iterates(cls, line_search, paper_data):
    compiled, python = (_fit(cls, paper_data, c, line_search=line_search).history_ for c in (True, False))
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
    compiled, python = (_fit(PFWCS, paper_data, c) for c in (True, False))
    h, g = compiled.history_, python.history_
    np.testing.assert_array_equal(h.towards_atom[:5], g.towards_atom[:5])
    np.testing.assert_allclose(h.objective[:5], g.objective[:5], rtol=1e-12)
    assert compiled.objective_ == pytest.approx(python.objective_, rel=1e-3)


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
