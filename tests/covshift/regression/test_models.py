import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF
from sklearn.neighbors import KNeighborsRegressor

from covshift.regression import GPR, WKNN, rho_from_paper


def _data(seed=0, n=50):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, (n, 2))
    Y = np.column_stack([np.sin(X[:, 0]), X[:, 1] ** 2]) + rng.normal(0, 0.1, (n, 2))
    return X, Y, rng.uniform(-2, 2, (20, 2))


@pytest.mark.parametrize("normalize_y", [False, True])
def test_gpr_matches_sklearn_with_fixed_kernel(normalize_y):
    X, Y, Xt = _data()
    ours = GPR(rho_x=0.8, lambda_x=0.05, normalize_y=normalize_y).fit(X, Y[:, 0])
    ref = GaussianProcessRegressor(RBF(0.8), alpha=0.05, optimizer=None, normalize_y=normalize_y)
    ref.fit(X, Y[:, 0])
    mean, std = ours.predict(Xt, return_std=True)
    ref_mean, ref_std = ref.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(std, ref_std, rtol=1e-6, atol=1e-8)


def test_gpr_weights_act_as_per_point_noise():
    X, Y, Xt = _data()
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    ours = GPR(rho_x=0.8, lambda_x=0.05).fit(X, Y, sample_weight=w).predict(Xt)
    ref = GaussianProcessRegressor(RBF(0.8), alpha=0.05 / w, optimizer=None).fit(X, Y).predict(Xt)
    np.testing.assert_allclose(ours, ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(GPR().fit(X, Y).predict(Xt),
                                  GPR().fit(X, Y, sample_weight=np.ones(len(X))).predict(Xt))


def test_gpr_multi_output_is_independent_per_output():
    X, Y, Xt = _data()
    both = GPR().fit(X, Y).predict(Xt)
    np.testing.assert_allclose(both[:, 1], GPR().fit(X, Y[:, 1]).predict(Xt))


def test_wknn_with_unit_weights_is_distance_weighted_knn():
    X, Y, Xt = _data()
    ours = WKNN(n_neighbors=4).fit(X, Y).predict(Xt)
    ref = KNeighborsRegressor(n_neighbors=4, weights="distance").fit(X, Y).predict(Xt)
    np.testing.assert_allclose(ours, ref, rtol=1e-6)


def test_wknn_respects_sample_weight():
    X = np.array([[0.0], [1.0]])
    y = np.array([0.0, 10.0])
    assert WKNN(2).fit(X, y, sample_weight=[1.0, 0.0]).predict([[0.5]])[0] == pytest.approx(0.0)
    assert WKNN(2).fit(X, y, sample_weight=[1.0, 3.0]).predict([[0.5]])[0] == pytest.approx(7.5)


def test_tuned_gpr_maximises_the_marginal_likelihood_of_the_same_model():
    from sklearn.gaussian_process.kernels import WhiteKernel

    from covshift.data import s_shape
    from covshift.regression import tuned_gpr

    data = s_shape(random_state=0)
    model = tuned_gpr(data.X_tr, data.Y_tr)
    assert model.normalize_y and 0 < model.rho_x < 1.0  # narrower than Toy 1's TGP width 1.58
    # the same model in scikit-learn: its log marginal likelihood is maximal at (rho, lam)
    gp = GaussianProcessRegressor(RBF(model.rho_x) + WhiteKernel(model.lambda_x), normalize_y=True,
                                  optimizer=None).fit(data.X_tr, data.Y_tr)
    theta = gp.kernel_.theta
    best = gp.log_marginal_likelihood(theta)
    for shift in [(0.1, 0), (-0.1, 0), (0, 0.1), (0, -0.1)]:
        assert gp.log_marginal_likelihood(theta + np.array(shift)) <= best + 1e-9
    # and our GPR with those values predicts as scikit-learn's
    np.testing.assert_allclose(model.fit(data.X_tr, data.Y_tr).predict(data.X_te).reshape(-1),
                               gp.predict(data.X_te).reshape(-1), rtol=1e-6, atol=1e-8)
    # it beats the papers' over-smooth GPR on Toy 1
    paper = GPR(rho_x=rho_from_paper(5.0), lambda_x=1e-4).fit(data.X_tr, data.Y_tr).predict(data.X_te).reshape(-1)
    tuned = model.predict(data.X_te).reshape(-1)
    assert np.mean(np.abs(tuned - data.Y_te[:, 0])) < np.mean(np.abs(paper - data.Y_te[:, 0]))


def test_spd_cholesky_factor_and_jitter_on_a_singular_matrix():
    import warnings

    from covshift.exceptions import NumericalWarning
    from covshift.regression._common import spd_cholesky

    rng = np.random.default_rng(2)
    M = rng.normal(size=(30, 30))
    A = M @ M.T + 30 * np.eye(30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumericalWarning)
        L = np.tril(spd_cholesky(A))
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=1e-12, atol=1e-12)
    singular = np.ones((5, 5))  # rank one: needs the jitter
    with pytest.warns(NumericalWarning, match="numerically singular.*lam"):
        L = np.tril(spd_cholesky(singular, "test matrix", "lam"))
    assert np.all(np.isfinite(L))
    np.testing.assert_allclose(L @ L.T, singular, atol=1e-5)


def test_gpr_with_a_zero_weight_ignores_that_point():
    X, Y, Xt = _data()
    w = np.ones(len(X))
    w[0] = 0.0
    Y_moved = Y.copy()
    Y_moved[0] += 100.0  # a point with weight 0 may say anything
    np.testing.assert_allclose(GPR(rho_x=0.8, lambda_x=0.05).fit(X, Y_moved, sample_weight=w).predict(Xt),
                               GPR(rho_x=0.8, lambda_x=0.05).fit(X[1:], Y[1:]).predict(Xt), rtol=1e-8, atol=1e-10)
