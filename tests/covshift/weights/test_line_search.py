import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from covshift.weights._line_search import armijo_line_search, exact_line_search, log_objective


def _phi(v, d, rho):
    return log_objective(v + rho * d)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.05, 3.0))
def test_exact_line_search_maximises_phi(seed, rho_max):
    rng = np.random.default_rng(seed)
    v = rng.uniform(0.1, 2.0, 30)
    d = rng.normal(size=30)
    slope = float(np.sum(d / v))
    if slope <= 0:
        d = -d
        slope = -slope
    rho = exact_line_search(v, d, rho_max, slope)
    neg = d < 0
    upper = min(rho_max, np.min(-v[neg] / d[neg]) * (1 - 1e-9) if neg.any() else rho_max)
    reference = minimize_scalar(lambda r: -_phi(v, d, r), bounds=(0, upper), method="bounded",
                                options={"xatol": 1e-12})
    assert 0 <= rho <= rho_max
    assert _phi(v, d, rho) >= -reference.fun - 1e-9


def test_exact_line_search_returns_bound_when_still_ascending():
    v = np.ones(5)
    d = np.full(5, 0.5)
    assert exact_line_search(v, d, 0.7, 2.5) == 0.7


def test_exact_line_search_no_ascent_returns_zero():
    assert exact_line_search(np.ones(3), -np.ones(3), 1.0, -3.0) == 0.0


def test_armijo_satisfies_sufficient_increase():
    rng = np.random.default_rng(3)
    v = rng.uniform(0.5, 1.5, 20)
    d = rng.normal(size=20) * 0.3 + 0.2
    slope = float(np.sum(d / v))
    F0 = log_objective(v)
    rho = armijo_line_search(v, d, 1.0, slope, F0, c=0.5, shrink=0.5)
    assert rho > 0
    assert log_objective(v + rho * d) >= F0 + 0.5 * rho * slope
    # the first trial is the Newton step (capped at rho_max); a later trial means the
    # previous (larger) one failed the test
    first = min(1.0, slope / np.sum((d / v) ** 2))
    assert rho <= first
    if rho < first:
        assert not log_objective(v + 2 * rho * d) >= F0 + 0.5 * 2 * rho * slope


def test_armijo_falls_back_to_exact_search_when_backtracking_cannot_progress():
    # one test point with a density of 1e-30 (small sigma): phi'(0) ~ 1e30, and the
    # sufficient-increase test only passes for steps of order 1e-30 that change nothing
    v = np.array([1e-30, 1.0, 1.0, 1.0])
    d = np.array([0.5, -0.2, 0.1, -0.1])
    slope = float(np.sum(d / v))
    rho = armijo_line_search(v, d, 1.0, slope, log_objective(v))
    assert rho == exact_line_search(v, d, 1.0, slope)
    assert rho > 0.1
    assert log_objective(v + rho * d) > log_objective(v) + 60  # the tiny density recovers


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.floats(1e-3, 3.0))
def test_armijo_step_is_feasible_and_ascends(seed, rho_max):
    rng = np.random.default_rng(seed)
    v = rng.uniform(0.1, 2.0, 30) * 10.0 ** rng.integers(-40, 1, 30)
    d = rng.normal(size=30) * v.max()
    slope = float(np.sum(d / v))
    if slope <= 0:
        d, slope = -d, -slope
    F0 = log_objective(v)
    rho = armijo_line_search(v, d, rho_max, slope, F0)
    assert 0 < rho <= rho_max
    assert log_objective(v + rho * d) > F0


def test_log_objective_is_minus_inf_outside_domain():
    assert log_objective(np.array([1.0, 0.0])) == -np.inf
    assert log_objective(np.array([1.0, -1e-3])) == -np.inf
    assert log_objective(np.array([1.0, np.e])) == pytest.approx(1.0)


def test_exact_line_search_is_accurate_on_a_million_points():
    # one compiled pass per trial step, summed in order: no BLAS threads, the optimum to round-off
    rng = np.random.default_rng(6)
    v = rng.uniform(0.5, 2.0, 10**6)
    d = rng.normal(size=10**6)
    slope = float(np.sum(d / v))
    if slope <= 0:
        d, slope = -d, -slope
    rho = exact_line_search(v, d, 10.0, slope)
    neg = d < 0
    upper = min(10.0, float(np.min(-v[neg] / d[neg])))
    assert 0 < rho < upper
    assert abs(np.sum(d / (v + rho * d))) <= 1e-8 * np.sum(np.abs(d / (v + rho * d)))
