"""The integrated classifier against an independent reference: eq. 24 of discriminative-covariate-shift
written from its definition on the raw inputs (no design matrices, no feature maps, no Newton code),
maximised by scipy.optimize on tiny problems; plus the model's documented weight behaviour."""

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from covshift.classification import IntegratedShiftClassifier
from covshift.kernels import gaussian_kernel


def _tiny_task(seed=0, m=14, n=10):
    rng = np.random.default_rng(seed)
    X_tr = rng.normal([-0.5, 0.0], 1.0, size=(m, 2))
    X_te = rng.normal([0.8, 0.0], 1.0, size=(n, 2))
    y_tr = (X_tr[:, 1] + 0.3 * X_tr[:, 0] + 0.6 * rng.normal(size=m) > 0).astype(int)
    return X_tr, y_tr, X_te


def eq24_linear(params, X_tr, y01, X_te, C_w, C_v):
    """log p(w, v | L, T) of eq. 24 with p_i = p(y=1|x_i; w), q_i = p(sigma=1|x_i; v) (eqs. 13-14), the ML class
    ratio m/n (appendix A) and Gaussian priors of variances C_w, C_v (eq. 15); free intercepts b, c."""
    d = X_tr.shape[1]
    w, b, v, c = params[:d], params[d], params[d + 1:2 * d + 1], params[2 * d + 1]
    m, n = len(X_tr), len(X_te)
    p = expit(X_tr @ w + b)
    q_tr, q_te = expit(X_tr @ v + c), expit(X_te @ v + c)
    classifier = (m / n) * np.sum((1 / q_tr - 1) * (y01 * np.log(p) + (1 - y01) * np.log(1 - p)))
    selector = np.sum(np.log(q_tr)) + np.sum(np.log(1 - q_te))  # sigma = 1 on L, 0 on T
    return classifier + selector - w @ w / (2 * C_w) - v @ v / (2 * C_v)


def eq24_dual(params, X_tr, y01, X_te, sigma, C_w, C_v):
    """Eq. 24 in the dual form (eqs. 17-22): f(x) = sum_{j in L} alpha_j k(x, x_j) + b,
    u(x) = sum_{j in L and T} beta_j k(x, x_j) + c, priors alpha'K_L alpha / 2C_w and beta'K_LT beta / 2C_v."""
    m, n = len(X_tr), len(X_te)
    X_all = np.vstack([X_tr, X_te])
    K_w, K_v = gaussian_kernel(X_tr, X_tr, sigma), gaussian_kernel(X_all, X_all, sigma)
    alpha, b, beta, c = params[:m], params[m], params[m + 1:m + 1 + m + n], params[-1]
    p = expit(K_w @ alpha + b)
    q = expit(K_v @ beta + c)
    classifier = (m / n) * np.sum((1 / q[:m] - 1) * (y01 * np.log(p) + (1 - y01) * np.log(1 - p)))
    selector = np.sum(np.log(q[:m])) + np.sum(np.log(1 - q[m:]))
    return classifier + selector - alpha @ K_w @ alpha / (2 * C_w) - beta @ K_v @ beta / (2 * C_v)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_linear_solution_is_the_scipy_maximum_of_eq24_from_the_iid_start(seed):
    X_tr, y_tr, X_te = _tiny_task(seed)
    C_w, C_v = 2.0, 0.5  # distinct, so swapping the two priors would be caught
    model = IntegratedShiftClassifier(kernel="linear", C_w=C_w, C_v=C_v).fit(X_tr, y_tr, X_te)
    ours = np.r_[model.coef_, model.intercept_, model.selector_coef_, model.selector_intercept_]
    y01 = y_tr.astype(float)
    negative = lambda t: -eq24_linear(t, X_tr, y01, X_te, C_w, C_v)  # noqa: E731
    assert -negative(ours) == pytest.approx(model.objective_, rel=1e-10)
    # scipy from the same (iid) start finds the same local maximum
    iid_start = np.r_[model.iid_coef_, model.iid_intercept_, np.zeros(3)]
    iid_start[3:] = _selector_alone(X_tr, X_te, C_v)
    reference = minimize(negative, iid_start, method="BFGS", options={"gtol": 1e-9, "maxiter": 5000})
    assert -reference.fun <= model.objective_ + 1e-8
    np.testing.assert_allclose(ours, reference.x, atol=2e-4)


def _selector_alone(X_tr, X_te, C_v):
    """ML-MAP logistic selector (training = 1, test = 0), by scipy: the start of section 5.3."""
    X_all = np.vstack([X_tr, X_te])
    s = np.r_[np.ones(len(X_tr)), np.zeros(len(X_te))]

    def negative(t):
        u = X_all @ t[:-1] + t[-1]
        return -np.sum(s * np.log(expit(u)) + (1 - s) * np.log(expit(-u))) + t[:-1] @ t[:-1] / (2 * C_v)

    return minimize(negative, np.zeros(X_all.shape[1] + 1), method="BFGS", options={"gtol": 1e-10}).x


def test_kernel_solution_is_a_maximum_of_the_dual_eq24():
    X_tr, y_tr, X_te = _tiny_task(3, m=10, n=8)
    sigma, C_w, C_v = 1.2, 3.0, 0.7
    model = IntegratedShiftClassifier(kernel="rbf", sigma=sigma, C_w=C_w, C_v=C_v).fit(X_tr, y_tr, X_te)
    beta = model.selector_map_.dual_coef(model.selector_coef_)
    ours = np.r_[model.dual_coef_, model.intercept_, beta, model.selector_intercept_]
    y01 = y_tr.astype(float)
    negative = lambda t: -eq24_dual(t, X_tr, y01, X_te, sigma, C_w, C_v)  # noqa: E731
    assert -negative(ours) == pytest.approx(model.objective_, rel=1e-10)
    # no ascent from our point: scipy started there gains (essentially) nothing
    reference = minimize(negative, ours, method="BFGS", options={"gtol": 1e-10, "maxiter": 5000})
    assert -reference.fun <= model.objective_ + 1e-7
    np.testing.assert_allclose(model.decision_function(X_te),
                               gaussian_kernel(X_te, X_tr, sigma) @ reference.x[:len(X_tr)] + reference.x[len(X_tr)],
                               atol=1e-3)


def test_without_shift_the_paper_weights_have_mean_near_one_but_joint_optimum_lowers_them():
    """Eq. 7 with the true posterior has E_train[weight] = 1; the classifier term of eq. 24,
    sum_i omega_i log p(y_i|x_i) <= 0, rewards smaller omega, so at the joint optimum the mean weight
    is below the selector-alone one (a property of the paper's criterion, cf. its disjoint case)."""
    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(size=(400, 2)), rng.normal(size=(400, 2))
    y_tr = (X_tr[:, 0] + rng.normal(size=400) > 0).astype(int)
    model = IntegratedShiftClassifier(kernel="linear", C_w=1.0, C_v=1.0).fit(X_tr, y_tr, X_te)
    start_weights = (400 / 400) * np.exp(-(X_tr @ _selector_alone(X_tr, X_te, 1.0)[:2]
                                           + _selector_alone(X_tr, X_te, 1.0)[2]))
    assert abs(start_weights.mean() - 1.0) < 0.02
    assert model.weights_.mean() < start_weights.mean() - 0.05
