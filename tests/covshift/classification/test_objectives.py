"""Gradient and Hessian of the joint log-posterior (eq. 24) against finite differences, primal and dual."""

import numpy as np
import pytest

from covshift.classification import joint_objective, weighted_logistic_objective
from covshift.kernels import gaussian_kernel


def _problem(form, seed=0, m=12, n=9, d=3):
    rng = np.random.default_rng(seed)
    X_tr, X_te = rng.normal(size=(m, d)), rng.normal(0.5, 1.0, size=(n, d))
    y01 = (rng.random(m) < 0.5).astype(float)
    y01[:2] = [0.0, 1.0]
    X_all = np.vstack([X_tr, X_te])
    if form == "primal":
        F = np.hstack([X_tr, np.ones((m, 1))])
        G = np.hstack([X_all, np.ones((m + n, 1))])
        P_w, P_v = np.diag([0.5] * d + [0.0]), np.diag([2.0] * d + [0.0])
    else:  # the paper's dual form: F = [K_LL, 1], P = K / C
        K_w, K_v = gaussian_kernel(X_tr, X_tr, 1.3), gaussian_kernel(X_all, X_all, 1.3)
        F = np.hstack([K_w, np.ones((m, 1))])
        G = np.hstack([K_v, np.ones((m + n, 1))])
        P_w = np.zeros((m + 1, m + 1))
        P_w[:m, :m] = K_w / 0.7
        P_v = np.zeros((m + n + 1, m + n + 1))
        P_v[:m + n, :m + n] = K_v / 1.5
    theta = rng.normal(scale=0.4, size=F.shape[1] + G.shape[1])
    return theta, F, G, y01, P_w, P_v


def _central_gradient(fun, theta, h=1e-5):
    grad = np.zeros_like(theta)
    for j in range(len(theta)):
        e = np.zeros_like(theta)
        e[j] = h
        grad[j] = (fun(theta + e) - fun(theta - e)) / (2 * h)
    return grad


@pytest.mark.parametrize("form", ["primal", "dual"])
@pytest.mark.parametrize("seed", [0, 1])
def test_joint_gradient_and_hessian_match_finite_differences(form, seed):
    theta, F, G, y01, P_w, P_v = _problem(form, seed)
    value, gradient, hessian = joint_objective(theta, F, G, y01, P_w, P_v)
    assert value == pytest.approx(joint_objective(theta, F, G, y01, P_w, P_v, order=0))
    numeric = _central_gradient(lambda t: joint_objective(t, F, G, y01, P_w, P_v, order=0), theta)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-6)
    # Hessian: central differences of the analytic gradient, column by column
    h = 1e-6
    numeric_hessian = np.column_stack([
        (joint_objective(theta + h * e, F, G, y01, P_w, P_v)[1]
         - joint_objective(theta - h * e, F, G, y01, P_w, P_v)[1]) / (2 * h)
        for e in np.eye(len(theta))])
    np.testing.assert_allclose(hessian, numeric_hessian, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hessian, hessian.T, atol=1e-12)


def test_joint_objective_is_not_concave_somewhere():
    """Theorem 2: the negative Hessian has a negative eigenvalue at some parameters."""
    found = False
    for seed in range(20):
        theta, F, G, y01, P_w, P_v = _problem("primal", seed)
        theta = theta * 4.0
        hessian = joint_objective(theta, F, G, y01, P_w, P_v)[2]
        found |= np.linalg.eigvalsh(hessian).max() > 1e-8
    assert found


def test_joint_value_matches_a_direct_evaluation_of_eq_24():
    theta, F, G, y01, P_w, P_v = _problem("primal", 3)
    m, n, d_w = F.shape[0], G.shape[0] - F.shape[0], F.shape[1]
    w, v = theta[:d_w], theta[d_w:]
    p = 1 / (1 + np.exp(-F @ w))
    q = 1 / (1 + np.exp(-G @ v))
    weight = (m / n) * (1 / q[:m] - 1)
    direct = (np.sum(weight * (y01 * np.log(p) + (1 - y01) * np.log(1 - p)))
              + np.sum(np.log(q[:m])) + np.sum(np.log(1 - q[m:])) - w @ P_w @ w / 2 - v @ P_v @ v / 2)
    assert joint_objective(theta, F, G, y01, P_w, P_v, order=0) == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("form", ["primal", "dual"])
def test_weighted_logistic_derivatives(form):
    theta, F, _, y01, P_w, _ = _problem(form, 4)
    theta = theta[:F.shape[1]]
    s = np.random.default_rng(0).uniform(0.2, 3.0, len(y01))
    _, gradient, hessian = weighted_logistic_objective(theta, F, y01, s, P_w)
    numeric = _central_gradient(lambda t: weighted_logistic_objective(t, F, y01, s, P_w, order=0), theta)
    np.testing.assert_allclose(gradient, numeric, rtol=1e-6, atol=1e-6)
    h = 1e-6
    numeric_hessian = np.column_stack([
        (weighted_logistic_objective(theta + h * e, F, y01, s, P_w)[1]
         - weighted_logistic_objective(theta - h * e, F, y01, s, P_w)[1]) / (2 * h) for e in np.eye(len(theta))])
    np.testing.assert_allclose(hessian, numeric_hessian, rtol=1e-5, atol=1e-6)
