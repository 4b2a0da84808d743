"""Replay of a Frank-Wolfe run from its history: sparse steps that rebuild every iterate, and step
kinds that match what each step did to the active set."""

import warnings

import numpy as np
import pytest

from covshift.data import sinc_shift
from covshift.exceptions import ConvergenceWarning
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS
from covshift.weights.replay import replay_iterates, replay_steps, step_changes

SOLVERS = [FWCS, AFWCS, PFWCS, FCFWCS]


@pytest.fixture(scope="module")
def runs():
    data = sinc_shift(n_tr=200, n_te=150, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return {cls.__name__: cls(sigma=0.3, tol=1e-8, max_iter=400).fit(data.X_tr, data.X_te) for cls in SOLVERS}


@pytest.mark.parametrize("name", [cls.__name__ for cls in SOLVERS])
def test_sparse_steps_rebuild_every_iterate(runs, name):
    est = runs[name]
    hist = est.history_
    steps = replay_steps(est)
    assert len(steps) == len(hist) - 1
    iterates = list(replay_iterates(steps, len(hist.beta)))
    assert len(iterates) == len(hist)
    for t, mu in enumerate(iterates):
        exact = hist.mu_at(t)
        np.testing.assert_array_equal(mu > 0, exact > 0)  # the same active set at every t
        # float64 products of at most len(hist) scale factors: round-off only
        np.testing.assert_allclose(mu, exact, rtol=1e-12, atol=0)
    np.testing.assert_allclose(hist.beta * iterates[-1], est.alpha_, rtol=1e-12)
    # sparse: a pairwise step touches its two atoms (a third only if one is pruned), towards/away steps one
    touched = np.diff(steps.touched_start)
    if name == "PFWCS":
        assert touched.max() <= 3 and np.all(steps.scale[touched > 0] > 0)
    if name in ("FWCS", "AFWCS"):
        assert touched.max() <= 1


@pytest.mark.parametrize("name", [cls.__name__ for cls in SOLVERS])
def test_each_recorded_step_kind_matches_the_change_of_the_active_set(runs, name):
    hist = runs[name].history_
    kinds = set()
    for t in range(len(hist) - 1):
        kind, direction = hist.step_kind[t], hist.direction[t]
        entered, left = step_changes(runs[name], t)
        before, after = hist.iterate(t)[0], hist.iterate(t + 1)[0]
        toward, away = hist.towards_atom[t], hist.away_atom[t]
        kinds.add(kind)
        if kind == "swap":  # the away atom left and l_FW, not active before, entered (eq. 31)
            assert direction == "pairwise" and list(left) == [away] and list(entered) == [toward]
            assert len(after) == len(before)
        elif kind == "drop":
            if direction == "corrective":  # atoms reached 0 in the corrective phase
                assert len(left) >= 1 and toward in after
            else:  # eqs. 27 and 31: the away atom left, nothing entered
                assert direction in ("away", "pairwise") and list(left) == [away] and entered.size == 0
                assert len(after) == len(before) - 1
        else:  # a good step removes no atom; a towards or pairwise one may add l_FW
            assert kind == "good" and left.size == 0 and set(entered) <= {toward}
            assert direction != "towards" or toward in after
    expected = {"FWCS": {"good"}, "AFWCS": {"good", "drop"}, "PFWCS": {"good", "drop", "swap"},
                "FCFWCS": {"good", "drop"}}[name]
    assert kinds == expected  # the run shows every kind its solver can take (section III-B)
    assert hist.step_kind[-1] == "final"


def test_replay_needs_a_frank_wolfe_history(paper_data):
    kliep = KLIEP(sigma=0.3, n_centers=50).fit(paper_data.X_tr, paper_data.X_te)
    with pytest.raises(ValueError, match="Frank-Wolfe"):
        replay_steps(kliep)
