import numpy as np
import pytest
from scipy import stats

from covshift import metrics


def test_nmse_is_zero_for_proportional_weights_and_scale_free():
    t = np.array([1.0, 2.0, 3.0])
    assert metrics.normalized_mse(2 * t, t) == 0.0
    assert metrics.normalized_mse([1, 1, 1], t) == pytest.approx(np.mean((1 / 3 - t / 6) ** 2))


def test_effective_sample_size_and_max_weight():
    assert metrics.effective_sample_size(np.ones(10)) == pytest.approx(10)
    assert metrics.effective_sample_size([1, 0, 0, 0]) == pytest.approx(1)
    assert metrics.max_weight([1, 1, 4]) == pytest.approx(2.0)
    with pytest.raises(ValueError):
        metrics.effective_sample_size([1, -1])


def test_weighted_mmd_zero_for_identical_samples_and_decreases_with_true_weights():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    assert metrics.weighted_mmd2(X, X, np.ones(30), 1.0) == pytest.approx(0.0, abs=1e-12)
    from covshift.data import sinc_shift

    d = sinc_shift(n_tr=400, n_te=400)
    uniform = metrics.weighted_mmd2(d.X_tr, d.X_te, np.ones(400), 0.3)
    assert metrics.weighted_mmd2(d.X_tr, d.X_te, d.true_weights, 0.3) < 0.2 * uniform


def test_regression_errors():
    y = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    p = y + np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 2.0]])
    assert metrics.mae(y, p) == pytest.approx(4 / 6)
    np.testing.assert_allclose(metrics.rmse(y, p), [np.sqrt(2 / 3), np.sqrt(4 / 3)])
    np.testing.assert_allclose(metrics.r2(y, y), [1.0, 1.0])
    np.testing.assert_allclose(metrics.euclidean_errors(y, p), [1, 1, 2])
    with pytest.raises(ValueError, match="shapes"):
        metrics.mae(y, p[:, :1])


def test_paired_ttest_matches_scipy_and_correlation_sign():
    rng = np.random.default_rng(1)
    a, b = rng.normal(1, 1, 40), rng.normal(1.5, 1, 40)
    assert metrics.paired_ttest(a, b) == pytest.approx(tuple(stats.ttest_rel(a, b)))
    errors = rng.uniform(0, 1, 50)
    r, _ = metrics.certainty_error_correlation(1 - errors + rng.normal(0, 0.05, 50), errors)
    assert r < -0.9


def test_regression_errors_are_scikit_learns_with_sample_weight():
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

    rng = np.random.default_rng(2)
    y, p, w = rng.normal(size=(20, 2)), rng.normal(size=(20, 2)), rng.uniform(0, 2, 20)
    assert metrics.mae(y, p, sample_weight=w) == pytest.approx(mean_absolute_error(y, p, sample_weight=w))
    np.testing.assert_allclose(metrics.rmse(y, p, sample_weight=w),
                               np.sqrt(mean_squared_error(y, p, sample_weight=w, multioutput="raw_values")))
    np.testing.assert_allclose(metrics.r2(y, p, sample_weight=w),
                               r2_score(y, p, sample_weight=w, multioutput="raw_values"))
    with pytest.raises(ValueError, match="sample_weight: Complex data not supported"):
        metrics.mae(y, p, sample_weight=w * 1j)


def test_r2_of_a_constant_output_is_zero_as_before():
    np.testing.assert_array_equal(metrics.r2([[1.0, 0.0], [1.0, 2.0]], [[1.0, 0.0], [1.0, 2.0]]), [0.0, 1.0])
    np.testing.assert_array_equal(metrics.r2([3.0], [3.0]), [0.0])


def test_certainty_error_bins_rank_the_points_into_equal_bins():
    rng = np.random.default_rng(0)
    certainty = 1 - 1e-3 * rng.random(103)  # crowded near 1: ranks still fill every bin
    errors = 1 - certainty + 1e-5 * rng.random(103)
    bins = metrics.certainty_error_bins(certainty, errors, 5)
    assert list(bins["count"]) == [21, 21, 21, 20, 20]
    assert np.all(np.diff(bins["certainty"]) > 0) and np.all(np.diff(bins["error"]) < 0)
    assert np.all(bins["low"] <= bins["error"]) and np.all(bins["error"] <= bins["high"])
    first = bins["members"][0]
    assert certainty[first].max() <= certainty[bins["members"][1]].min()
    assert bins["error"][0] == pytest.approx(errors[first].mean())


@pytest.mark.parametrize("n_bins", [1, 52])
def test_certainty_error_bins_refuse_a_bad_number_of_bins(n_bins):
    with pytest.raises(ValueError, match="n_bins"):
        metrics.certainty_error_bins(np.arange(103.0), np.arange(103.0), n_bins)


def test_correlation_interval_matches_fisher_z():
    low, high = metrics.correlation_interval(-0.36, 250)
    z, half = np.arctanh(-0.36), 1.959963984540054 / np.sqrt(247)
    assert (low, high) == pytest.approx((np.tanh(z - half), np.tanh(z + half)))
    assert low < -0.36 < high
    with pytest.raises(ValueError, match="n must"):
        metrics.correlation_interval(0.5, 3)
    with pytest.raises(ValueError, match="r must"):
        metrics.correlation_interval(float("nan"), 10)
