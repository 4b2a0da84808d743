"""The batched fold solver of the likelihood cross-validation against single-problem solves."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from covshift.data import sinc_shift
from covshift.kernels import gaussian_kernel
from covshift.weights import FCFWCS
from covshift.weights._kliep_folds import FoldProblems
from covshift.weights.fully_corrective import _pairwise_sum, largest_ascent_step, solve_folds
from covshift.weights._kliep_problem import build_kliep_problem, choose_centers
from covshift.weights.sigma import fold_masks


def fold_problems(data, sigma, n_centers=60, n_folds=4, seed=0):
    centers = choose_centers(len(data.X_te), n_centers, seed)
    fit_te, fit_tr = fold_masks(len(data.X_te), len(data.X_tr), n_folds, seed)
    problems = FoldProblems(gaussian_kernel(data.X_te[centers], data.X_te, sigma),
                            gaussian_kernel(data.X_te[centers], data.X_tr, sigma), fit_te, fit_tr,
                            fit_te[:, centers])
    return problems, centers


def single_problem(data, problems, centers, k, sigma):
    """The KLIEP problem of fold k built from scratch by build_kliep_problem, with the fold's
    own centres (those of ``centers`` among its fitting test points)."""
    fit_te = np.flatnonzero(problems.fit_te[k])
    own = np.flatnonzero(np.isin(fit_te, centers))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return build_kliep_problem(data.X_tr[problems.fit_tr[k]], data.X_te[fit_te], own, sigma)


@pytest.mark.parametrize("sigma", [0.08, 0.3, 1.5])
def test_tight_batched_solves_are_optimal_for_each_fold(sigma):
    data = sinc_shift(n_tr=200, n_te=150, random_state=1)
    problems, centers = fold_problems(data, sigma)
    mu, n_iter, converged = solve_folds(problems, problems.start(None, np.log(problems.k_te)), tol=1e-9)
    assert converged.all() and n_iter < 200
    for k in range(len(mu)):
        problem = single_problem(data, problems, centers, k, sigma)
        fold_mu = mu[k][problems.usable[k]]  # atom order: usable centres in increasing index
        assert fold_mu.sum() == pytest.approx(1.0) and np.all(fold_mu >= 0)
        objective, gap = problem.certificate(fold_mu)
        assert gap <= 1e-9 * problems.n_fit[k]  # the optimality certificate of the single problem
        # and the same optimum as FCFWCS reaches on the fold with these centres
        assert problems.objective(problems.density(mu))[k] == pytest.approx(objective, rel=1e-12)


def test_loose_solves_stop_at_the_ranking_gap_and_scores_match_a_direct_computation():
    data = sinc_shift(n_tr=200, n_te=150, random_state=2)
    sigma = 0.3
    problems, centers = fold_problems(data, sigma)
    mu, _, converged = solve_folds(problems, problems.start(None, np.log(problems.k_te)), tol=1e-2)
    assert converged.all()
    scores = problems.held_out_scores(mu)
    for k in range(len(mu)):
        problem = single_problem(data, problems, centers, k, sigma)
        objective, gap = problem.certificate(mu[k][problems.usable[k]])
        assert 0 <= gap <= 1e-2 * problems.n_fit[k]  # the tolerance is a gap per fitting point
        alpha = mu[k] * problems.beta[k]
        w = lambda X: alpha @ gaussian_kernel(data.X_te[centers], X, sigma)  # noqa: E731
        held_te, held_tr = data.X_te[~problems.fit_te[k]], data.X_tr[~problems.fit_tr[k]]
        direct = np.mean(np.log(w(held_te))) - np.log(np.mean(w(held_tr)))
        assert scores[k] == pytest.approx(direct, rel=1e-10)


def test_warm_start_from_a_wider_width_covers_every_fitting_point():
    data = sinc_shift(n_tr=200, n_te=150, random_state=3)
    wide, _ = fold_problems(data, 1.0)
    mu, _, _ = solve_folds(wide, wide.start(None, np.log(wide.k_te)), tol=1e-6)
    narrow, _ = fold_problems(data, 0.02)
    start = narrow.start(mu)
    assert np.allclose(start.sum(axis=1), 1.0) and np.all(start[~narrow.usable] == 0)
    density = narrow.density(start)
    assert np.all(density[narrow.weight > 0] > 1e-300)
    mu, _, converged = solve_folds(narrow, start, tol=1e-6)
    assert converged.all()


def test_a_width_too_small_for_any_centre_gives_minus_infinity_not_nan():
    data = sinc_shift(n_tr=100, n_te=80, random_state=0)
    problems, _ = fold_problems(data, 1e-6, n_centers=20)
    mu, _, _ = solve_folds(problems, problems.start(None, np.log(np.maximum(problems.k_te, 1e-300))), tol=1e-2)
    scores = problems.held_out_scores(mu)
    assert not np.any(np.isnan(scores)) and np.all(scores == -np.inf)


def test_fold_solutions_agree_with_fcfwcs_when_all_test_points_are_centres():
    data = sinc_shift(n_tr=150, n_te=100, random_state=4)
    sigma = 0.25
    problems, centers = fold_problems(data, sigma, n_centers=None)
    mu, _, _ = solve_folds(problems, problems.start(None, np.log(problems.k_te)), tol=1e-9)
    for k in range(len(mu)):
        est = FCFWCS(sigma=sigma, tol=1e-9).fit(data.X_tr[problems.fit_tr[k]], data.X_te[problems.fit_te[k]])
        assert problems.objective(problems.density(mu))[k] == pytest.approx(est.objective_, rel=1e-8)


def _numpy_largest_ascent_step(weight, density, change, steps, cost=0.0):
    """The trial-step search as numpy passes (what the compiled largest_ascent_step replaced, number for number)."""
    moved = density[:, None, :] + steps[:, :, None] * change[:, None, :]
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        slope = np.sum(weight[:, None, :] * change[:, None, :] / np.maximum(moved, 1e-300), axis=2)
    ascent = slope >= np.reshape(cost, (-1, 1))
    return np.max(np.where(ascent, np.broadcast_to(steps, ascent.shape), 0.0), axis=1)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shape=st.tuples(st.integers(1, 6), st.integers(1, 13), st.integers(1, 400)),
       shared_steps=st.booleans(), scalar_cost=st.booleans(), edges=st.sampled_from(["none", "zero", "inf", "nan"]))
def test_largest_ascent_step_equals_the_numpy_passes_bitwise(seed, shape, shared_steps, scalar_cost, edges):
    # the slopes summed as np.sum sums them (pairwise), densities driven to or below 0, infinite and nan terms
    K, T, n = shape
    rng = np.random.default_rng(seed)
    weight = (rng.random((K, n)) < 0.8).astype(float)
    density = rng.random((K, n)) * 10.0 ** rng.integers(-5, 3)
    change = rng.standard_normal((K, n)) * 10.0 ** rng.integers(-5, 3)
    steps = rng.random((1 if shared_steps else K, T)) * 10.0 ** rng.integers(-8, 2)
    edge = rng.random((K, n)) < 0.05
    if edges == "zero":
        density[edge] = 0.0
    elif edges == "inf":
        change[edge] = np.inf
    elif edges == "nan":
        density[edge] = np.nan
    cost = 0.0 if scalar_cost else rng.standard_normal(K) * 10.0 ** rng.integers(-3, 3)
    np.testing.assert_array_equal(largest_ascent_step(weight, density, change, steps, cost),
                                  _numpy_largest_ascent_step(weight, density, change, steps, cost))


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 3000), zeros=st.booleans())
def test_pairwise_sum_is_numpys_sum_to_the_last_bit(seed, n, zeros):
    rng = np.random.default_rng(seed)
    values = rng.standard_normal(n + 3) * 10.0 ** rng.integers(-10, 10, size=n + 3)
    if zeros:
        values[rng.random(n + 3) < 0.3] = -0.0
    for start in (0, 3):
        expected = np.sum(values[start:start + n])
        found = 0.0 + _pairwise_sum(values, start, n)
        assert found == expected and np.signbit(found) == np.signbit(expected)
