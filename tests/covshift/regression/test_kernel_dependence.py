"""HSIC-KNN and KTA-KNN: criteria against an explicit (K + 1) x (K + 1) reference, gradients
against finite differences, stationarity of the batched optimiser, weights, input checks."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from covshift.kernels import gaussian_kernel
from covshift.regression import HSICKNN, KTAKNN
from covshift.regression.tgp import COST_NOISE

MODELS = [HSICKNN, KTAKNN]


def _toy(seed=0, n=60, m=12):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 2))
    Y = np.column_stack([np.sin(2 * X[:, 0]) + X[:, 1], np.cos(X[:, 0]) * X[:, 1]]) + rng.normal(0, 0.05, (n, 2))
    return X, Y, rng.uniform(-1, 1, (m, 2)), rng.uniform(0.2, 3.0, n)


def _model(cls, **kw):
    return cls(**{**dict(n_neighbors=15, rho_x=0.6, rho_y=0.5), **kw})


def _explicit_criterion(cls, model, x, y, w=None):
    """The criterion of one test point from the full joint kernel matrices (no shortcuts)."""
    idx = model.neighbors_.kneighbors(x[None, :], return_distance=False)[0]
    w = np.ones(len(model.X_train_)) if w is None else w
    Xj = np.vstack([model.X_train_[idx], x])
    Yj = np.vstack([model.Y_train_[idx], y])
    Kx, Ky = gaussian_kernel(Xj, Xj, model.rho_x), gaussian_kernel(Yj, Yj, model.rho_y)
    p = np.append(w[idx], 1.0)
    p /= p.sum()
    if cls is HSICKNN:
        H = np.eye(len(p)) - np.outer(np.ones(len(p)), p)
        P = np.diag(p)
        return np.trace(P @ H @ Kx @ H.T @ P @ H @ Ky @ H.T)
    inner = lambda A, B: p @ (A * B) @ p  # noqa: E731
    return inner(Kx, Ky) / np.sqrt(inner(Kx, Kx) * inner(Ky, Ky))


def test_unweighted_hsic_is_the_textbook_formula():
    """With w = 1, HSIC_p = tr(K_X H K_Y H) / n^2 (Gretton et al. 2005, eq. 4 up to (n-1) vs n)."""
    X, Y, Xt, _ = _toy()
    model = _model(HSICKNN).fit(X, Y)
    y = np.array([0.3, -0.2])
    idx = model.neighbors_.kneighbors(Xt[:1], return_distance=False)[0]
    Xj, Yj = np.vstack([X[idx], Xt[0]]), np.vstack([Y[idx], y])
    n = len(Xj)
    H = np.eye(n) - np.ones((n, n)) / n
    textbook = np.trace(gaussian_kernel(Xj, Xj, 0.6) @ H @ gaussian_kernel(Yj, Yj, 0.5) @ H) / n**2
    local = model._local(Xt[:1])
    assert -model.cost_and_gradient(y[None, :], local)[0][0] == pytest.approx(textbook, rel=1e-10)


@pytest.mark.parametrize("cls", MODELS)
@pytest.mark.parametrize("weighted", [False, True])
def test_batched_criterion_matches_explicit_reference(cls, weighted):
    X, Y, Xt, w = _toy()
    model = _model(cls).fit(X, Y, sample_weight=w if weighted else None)
    Yh = np.random.default_rng(2).normal(0, 0.7, (len(Xt), 2))
    cost, _ = model.cost_and_gradient(Yh, model._local(Xt))
    reference = [_explicit_criterion(cls, model, Xt[i], Yh[i], w if weighted else None)
                 for i in range(len(Xt))]
    np.testing.assert_allclose(-cost, reference, rtol=1e-9, atol=1e-13)


@pytest.mark.parametrize("cls", MODELS)
@pytest.mark.parametrize("weighted", [False, True])
def test_gradient_matches_finite_differences(cls, weighted):
    X, Y, Xt, w = _toy()
    model = _model(cls).fit(X, Y, sample_weight=w if weighted else None)
    local = model._local(Xt)
    Yh = np.random.default_rng(1).normal(0, 0.7, (len(Xt), 2))
    _, grad = model.cost_and_gradient(Yh, local)
    h = 1e-3
    numeric = np.zeros_like(Yh)
    for d in range(2):
        E = np.zeros_like(Yh)
        E[:, d] = h
        f = [model.cost_and_gradient(Yh + k * E, local)[0] for k in (-2, -1, 1, 2)]
        numeric[:, d] = (f[0] - 8 * f[1] + 8 * f[2] - f[3]) / (12 * h)
    scale = np.abs(grad).max()
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-8 * scale)


@pytest.mark.parametrize("cls", MODELS)
@pytest.mark.parametrize("weighted", [False, True])
def test_prediction_is_stationary_for_the_explicit_criterion(cls, weighted):
    """At the batched prediction, the explicit per-point criterion has zero gradient, and
    scipy's BFGS on the explicit criterion from the same start finds no better point."""
    X, Y, Xt, w = _toy()
    sw = w if weighted else None
    model = _model(cls, max_iter=200).fit(X, Y, sample_weight=sw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Y_hat = model.predict(Xt)
    start = model._initial_outputs(Xt, model._local(Xt))
    h = 1e-5
    for i in range(len(Xt)):
        explicit = lambda y, i=i: -_explicit_criterion(cls, model, Xt[i], y, sw)  # noqa: E731
        grad = [(explicit(Y_hat[i] + h * e) - explicit(Y_hat[i] - h * e)) / (2 * h) for e in np.eye(2)]
        value = abs(explicit(Y_hat[i]))
        assert np.max(np.abs(grad)) <= 1e-5 * max(value, 1e-3) / model.rho_y, (i, grad)
        reference = minimize(explicit, start[i], method="BFGS", options={"gtol": 1e-12})
        # the engine stops once a decrease is below the cost's round-off, COST_NOISE (1 + |f|)
        assert explicit(Y_hat[i]) <= reference.fun + COST_NOISE * (1 + value)


@pytest.mark.parametrize("cls", MODELS)
def test_zero_weight_removes_a_point(cls):
    X, Y, Xt, w = _toy()
    w = w.copy()
    w[::4] = 0.0
    keep = w > 0
    full = _model(cls, n_neighbors=200).fit(X, Y, sample_weight=w)
    reduced = _model(cls, n_neighbors=200).fit(X[keep], Y[keep], sample_weight=w[keep])
    Yh = np.random.default_rng(3).normal(0, 0.7, (len(Xt), 2))
    np.testing.assert_allclose(full.cost_and_gradient(Yh, full._local(Xt))[0],
                               reduced.cost_and_gradient(Yh, reduced._local(Xt))[0], rtol=1e-10)


@pytest.mark.parametrize("cls", MODELS)
def test_certainty_is_the_criterion_and_alignment_is_at_most_one(cls):
    X, Y, Xt, _ = _toy()
    model = _model(cls).fit(X, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Y_hat, value = model.predict(Xt, return_certainty=True)
    reference = [_explicit_criterion(cls, model, Xt[i], Y_hat[i]) for i in range(len(Xt))]
    np.testing.assert_allclose(value, reference, rtol=1e-9)
    if cls is KTAKNN:
        assert np.all((value > 0) & (value <= 1 + 1e-12))


@pytest.mark.parametrize("cls", MODELS)
def test_recovers_a_smooth_function(cls):
    """On a noiseless 1-D function both predictors carry the signal: their error is under half
    that of the best constant (they are not regressors, so they overshoot; Table 3 of
    sharma-mittal-tgp has them behind kNN too)."""
    x = np.linspace(0, 1, 200)[:, None]
    y = np.sin(2 * np.pi * x[:, 0])
    xt = np.linspace(0.05, 0.95, 30)[:, None]
    model = cls(n_neighbors=20, rho_x=0.1, rho_y=0.3).fit(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = model.predict(xt)
    assert pred.shape == (30,)
    truth = np.sin(2 * np.pi * xt[:, 0])
    assert np.mean(np.abs(pred - truth)) < 0.5 * np.mean(np.abs(truth - np.median(truth)))


@pytest.mark.parametrize("cls", MODELS)
@pytest.mark.parametrize("params, word", [(dict(n_neighbors=0), "n_neighbors"), (dict(rho_x=-1.0), "rho_x"),
                                          (dict(rho_y=0.0), "rho_y"), (dict(init="nearest"), "init")])
def test_bad_parameters_name_the_parameter(cls, params, word):
    X, Y, Xt, _ = _toy()
    with pytest.raises(ValueError, match=word):
        cls(**params).fit(X, Y).predict(Xt)


@pytest.mark.parametrize("cls", MODELS)
def test_bad_weights_raise(cls):
    X, Y, _, _ = _toy()
    with pytest.raises(ValueError, match="sample_weight"):
        cls().fit(X, Y, sample_weight=-np.ones(len(X)))
