"""covshift.diagnostics on scikit-learn's bundled data sets (no downloads, nothing made here)."""

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.datasets import load_diabetes, load_wine
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LogisticRegression, Ridge, RidgeClassifier
from sklearn.model_selection import KFold, cross_val_score
from sklearn.neighbors import KNeighborsRegressor
from sklearn.tree import DecisionTreeClassifier

from covshift import cross_validation, diagnostics, metrics, two_sample
from covshift.diagnostics import (effective_sample_size, feature_shift, iw_cv_error, two_sample_test,
                                  weight_summary)
from covshift.kernels import gaussian_kernel, median_heuristic
from covshift.model_selection import iwcv_score

DIABETES = load_diabetes().data  # 442 x 10
WINE = load_wine().data  # 178 x 13
BMI = 2  # the diabetes column "bmi"
TREE = DecisionTreeClassifier(max_depth=2, random_state=0)  # cheap to refit


def random_halves(X, rng):
    order = rng.permutation(len(X))
    half = len(X) // 2
    return X[order[:half]], X[order[half:]]


def selection_bias(X, column, strength, rng):
    """Test = a random half; training = the other half, each row kept with probability
    sigmoid(strength * z) where z is the row's standardised value in ``column``."""
    X_te, pool = random_halves(X, rng)
    z = (pool[:, column] - X[:, column].mean()) / X[:, column].std()
    keep = rng.random(len(pool)) < 1.0 / (1.0 + np.exp(-strength * z))
    return pool[keep], X_te


# ---------------------------------------------------------------------- calibration
def null_p_values(X, method, n_splits, n_permutations, seed):
    rng = np.random.default_rng(seed)
    return np.array([two_sample_test(*random_halves(X, rng), method=method,
                                     n_permutations=n_permutations, random_state=rng).p_value
                     for _ in range(n_splits)])


def assert_calibrated(p_values):
    """False positives at 5 % within the 99.9 % binomial interval of 5 %, and no KS rejection
    of uniformity at 0.001 (99 permutations: the p-values lie on a grid of step 0.01, which
    a KS test against the continuous uniform does not notice at this sample size)."""
    low, high = stats.binom.interval(0.999, len(p_values), 0.05)
    false_positives = int(np.sum(p_values <= 0.05))
    assert low <= false_positives <= high, (false_positives, len(p_values))
    assert stats.kstest(p_values, "uniform").pvalue > 1e-3
    assert np.all((p_values > 0) & (p_values <= 1))


@pytest.mark.slow
def test_mmd_p_values_are_calibrated_over_null_splits():
    # measured: 9 of 200 splits below 0.05 (4.5 %), KS p = 0.96; 1.5 s on an idle machine
    assert_calibrated(null_p_values(DIABETES, "mmd", n_splits=200, n_permutations=99, seed=0))


@pytest.mark.slow
def test_classifier_p_values_are_calibrated_over_null_splits():
    # measured: 11 of 200 splits below 0.05 (5.5 %) on wine; about 3 s
    assert_calibrated(null_p_values(WINE, "classifier", n_splits=200, n_permutations=99, seed=0))


@pytest.mark.slow
def test_a_refitted_classifier_is_calibrated_too():
    # the generic path (any scikit-learn classifier, refitted per fold and permutation):
    # 60 null splits x 20 statistics x 5 folds = 6000 tree fits, about 10 s
    rng = np.random.default_rng(3)
    p = np.array([two_sample_test(*random_halves(WINE, rng), method="classifier", n_permutations=19,
                                  random_state=rng, classifier=TREE).p_value for _ in range(60)])
    assert np.sum(p <= 0.05) <= stats.binom.ppf(0.999, 60, 0.05)
    assert stats.kstest(p, "uniform").pvalue > 1e-3


# ---------------------------------------------------------------------- power
@pytest.mark.parametrize("method", ["mmd", "classifier"])
def test_selection_bias_on_one_column_is_detected_and_that_column_ranked_first(method):
    # strength 2: rows with bmi one standard deviation above the mean are kept 88 % of the
    # time, one below 12 %. Measured over 20 seeds: both methods detect 20 / 20, bmi first 20 / 20
    detected, first = 0, 0
    for seed in range(8):
        X_tr, X_te = selection_bias(DIABETES, BMI, 2.0, np.random.default_rng(100 + seed))
        detected += two_sample_test(X_tr, X_te, method=method, n_permutations=199,
                                    random_state=seed).p_value < 0.05
        first += feature_shift(X_tr, X_te).ranking[0] == BMI
    assert detected >= 7 and first >= 7, (detected, first)


def test_feature_shift_finds_the_selected_wine_column():
    column = 0  # alcohol
    X_tr, X_te = selection_bias(WINE, column, 3.0, np.random.default_rng(0))
    result = feature_shift(X_tr, X_te)
    assert result.ranking[0] == column
    assert result.p_value[column] < 0.05


def test_a_change_of_spread_only_is_seen_by_mmd_and_a_tree_not_by_the_linear_classifier():
    # bmi alone; training rows kept with probability growing with |z|: the spread grows by
    # about 40 %, the mean stays. MMD (characteristic kernel) and a depth-2 tree see it; the
    # default linear classifier, documented to look at means, does not (measured over 6
    # seeds: MMD and tree p at their minimum in 6 / 6, linear p < 0.05 in 0 / 6)
    mmd, tree, linear = 0, 0, 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X_te, pool = random_halves(DIABETES[:, [BMI]], rng)
        z = np.abs((pool[:, 0] - DIABETES[:, BMI].mean()) / DIABETES[:, BMI].std())
        X_tr = pool[rng.random(len(pool)) < np.clip(z - 0.5, 0.05, 1.0)]
        mmd += two_sample_test(X_tr, X_te, n_permutations=199, random_state=0).p_value < 0.05
        tree += two_sample_test(X_tr, X_te, "classifier", n_permutations=39, random_state=0,
                                classifier=TREE).p_value < 0.05
        linear += two_sample_test(X_tr, X_te, "classifier", n_permutations=199,
                                  random_state=0).p_value < 0.05
    assert mmd == 4 and tree >= 3 and linear <= 1, (mmd, tree, linear)


# ---------------------------------------------------------------------- the statistics themselves
def test_mmd_statistic_is_the_unbiased_estimate_of_gretton_eq_3():
    X_tr, X_te = DIABETES[:40], DIABETES[40:70]
    result = two_sample_test(X_tr, X_te, n_permutations=5, random_state=0)
    pooled = np.vstack([X_tr, X_te])
    pooled = (pooled - pooled.mean(0)) / pooled.std(0)
    sigma = median_heuristic(pooled, max_samples=len(pooled))
    A, B = pooled[:40], pooled[40:]
    Kxx, Kyy, Kxy = gaussian_kernel(A, A, sigma), gaussian_kernel(B, B, sigma), gaussian_kernel(A, B, sigma)
    n, m = 40, 30
    expected = ((Kxx.sum() - np.trace(Kxx)) / (n * (n - 1)) + (Kyy.sum() - np.trace(Kyy)) / (m * (m - 1))
                - 2 * Kxy.mean())
    assert result.statistic == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_p_value_counts_the_null_as_documented_and_is_reproducible():
    X_tr, X_te = selection_bias(WINE, 0, 1.0, np.random.default_rng(1))
    for method in ["mmd", "classifier"]:
        result = two_sample_test(X_tr, X_te, method=method, n_permutations=49, random_state=7)
        null = result.null_distribution
        assert null.shape == (49,) and result.n_permutations == 49 and result.method == method
        assert result.p_value == pytest.approx((1 + np.sum(null >= result.statistic)) / 50)
        again = two_sample_test(X_tr, X_te, method=method, n_permutations=49, random_state=7)
        assert again.statistic == result.statistic and np.array_equal(again.null_distribution, null)
        assert (result.n_tr, result.n_te) == (len(X_tr), len(X_te))
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.p_value = 0.5
        with pytest.raises(ValueError):
            null[0] = 1.0  # read-only


def test_identical_points_give_p_value_one():
    X = np.tile(DIABETES[:1], (20, 1))
    assert two_sample_test(X[:10], X[10:], n_permutations=30, random_state=0).p_value == 1.0


def test_the_closed_form_classifier_is_a_ridge_classifier():
    # the vectorised default and the generic refit path agree exactly with the same ridge model
    X_tr, X_te = DIABETES[:150], DIABETES[150:260]
    fast = two_sample_test(X_tr, X_te, method="classifier", n_permutations=15, random_state=3)
    slow = two_sample_test(X_tr, X_te, method="classifier", n_permutations=15, random_state=3,
                           classifier=RidgeClassifier(alpha=two_sample.RIDGE_ALPHA))
    assert fast.statistic == pytest.approx(slow.statistic, abs=1e-12)
    np.testing.assert_allclose(fast.null_distribution, slow.null_distribution, atol=1e-12)


def test_large_samples_are_subsampled_with_a_warning(monkeypatch):
    monkeypatch.setattr(two_sample, "MAX_TEST_POINTS", 100)
    with pytest.warns(UserWarning, match="random subset of 100"):
        result = two_sample_test(DIABETES[:300], DIABETES[300:], n_permutations=9, random_state=0)
    assert (result.n_tr, result.n_te) == (100, 100)


def test_feature_shift_is_ks_per_column():
    X_tr, X_te = DIABETES[:200], DIABETES[200:]
    result = feature_shift(X_tr, X_te)
    for j in range(X_tr.shape[1]):
        ks = stats.ks_2samp(X_tr[:, j], X_te[:, j])
        assert result.statistic[j] == pytest.approx(ks.statistic)
        assert result.p_value[j] == pytest.approx(ks.pvalue)
    assert np.all(np.diff(result.statistic[result.ranking]) <= 0)
    assert feature_shift(X_tr[:, 0], X_te[:, 0]).statistic.shape == (1,)  # a 1-D input: one column


# ---------------------------------------------------------------------- weights
# zero or within twelve decades: the plain formula neither underflows nor overflows there
WEIGHTS = st.lists(st.one_of(st.just(0.0), st.floats(1e-6, 1e6)), min_size=1, max_size=50).filter(
    lambda w: max(w) > 0)


def test_one_effective_sample_size():
    assert diagnostics.effective_sample_size is metrics.effective_sample_size


@settings(max_examples=200, deadline=None)
@given(w=WEIGHTS, scale=st.floats(1e-6, 1e6))
def test_effective_sample_size_is_kish_and_scale_free(w, scale):
    w = np.array(w)
    assert effective_sample_size(w) == pytest.approx(w.sum() ** 2 / np.sum(w**2), rel=1e-9)
    assert effective_sample_size(scale * w) == pytest.approx(effective_sample_size(w), rel=1e-9)
    assert 1.0 - 1e-9 <= effective_sample_size(w) <= len(w) * (1 + 1e-9)
    summary, scaled = weight_summary(w), weight_summary(scale * w)
    for field in ["ess", "ess_fraction", "max_weight", "top_share"]:
        assert getattr(scaled, field) == pytest.approx(getattr(summary, field), rel=1e-9)


def test_weight_summary_by_hand():
    w = np.r_[np.ones(199), 101.0]  # n = 200, total 300: the top 1 % is the 2 largest points
    s = weight_summary(w)
    assert s.n == 200
    assert s.ess == pytest.approx(300**2 / (199 + 101**2))
    assert s.ess_fraction == pytest.approx(s.ess / 200)
    assert s.max_weight == pytest.approx(101 / 1.5)
    assert s.top_share == pytest.approx(102 / 300)
    equal = weight_summary(np.full(50, 3.0))  # 1 point = the top 1 % of 50
    assert (equal.ess, equal.ess_fraction, equal.max_weight) == pytest.approx((50, 1, 1))
    assert equal.top_share == pytest.approx(1 / 50)


# ---------------------------------------------------------------------- IWCV
def test_unit_weights_give_the_unweighted_error_exactly():
    X, y = load_diabetes(return_X_y=True)
    result = iw_cv_error(Ridge(1.0), X, y, np.ones(len(X)), cv=5, random_state=0)
    assert result.weighted == result.unweighted
    np.testing.assert_array_equal(result.weighted_folds, result.unweighted_folds)
    ordinary = -cross_val_score(Ridge(1.0), X, y, cv=KFold(5, shuffle=True, random_state=0),
                                scoring="neg_mean_squared_error").mean()
    assert result.unweighted == pytest.approx(ordinary, rel=1e-12)
    assert result.n_folds == 5 and result.weighted_folds.shape == (5,)


def test_iw_cv_error_by_hand_on_a_tiny_example():
    # leave-one-out (cv = n) with the weighted mean as the model: the fold of point i is
    # predicted by the weighted mean of the other three outputs
    X, y, w = np.arange(4.0)[:, None], np.array([0.0, 1.0, 2.0, 4.0]), np.array([1.0, 2.0, 1.0, 0.5])
    predictions = [(2 * 1 + 1 * 2 + 0.5 * 4) / 3.5, (1 * 0 + 1 * 2 + 0.5 * 4) / 2.5,
                   (1 * 0 + 2 * 1 + 0.5 * 4) / 3.5, (1 * 0 + 2 * 1 + 1 * 2) / 4.0]
    losses = (y - np.array(predictions)) ** 2  # 144/49, 0.36, 36/49, 9
    result = iw_cv_error(DummyRegressor(), X, y, w, cv=4, random_state=0)
    assert result.weighted == pytest.approx(np.mean(w * losses))
    assert result.unweighted == pytest.approx(np.mean(losses))
    np.testing.assert_allclose(np.sort(result.weighted_folds), np.sort(w * losses))


def test_iwcv_score_is_the_weighted_value_of_iw_cv_error():
    X, y = load_diabetes(return_X_y=True)
    w = np.exp(X[:, BMI] / X[:, BMI].std())
    for model in [Ridge(1.0), KNeighborsRegressor(5)]:  # with and without sample_weight in fit
        result = iw_cv_error(model, X, y, w, cv=4, random_state=2)
        assert iwcv_score(model, X, y, w, n_folds=4, random_state=2) == result.weighted
        assert result.weighted != pytest.approx(result.unweighted)
    generator = iw_cv_error(Ridge(), X, y, w, random_state=np.random.default_rng(0))
    assert np.isfinite(generator.weighted)


# ---------------------------------------------------------------------- refusals
GOOD_TR, GOOD_TE = DIABETES[:30], DIABETES[30:60]


def with_value(X, value):
    X = X.copy()
    X[3, 2] = value
    return X


@pytest.mark.parametrize("kwargs, name", [
    (dict(X_tr=GOOD_TR[:1]), "X_tr"),
    (dict(X_te=GOOD_TE[:1]), "X_te"),
    (dict(X_te=GOOD_TE[:, :5]), "X_te"),
    (dict(X_tr=with_value(GOOD_TR, np.nan)), "X_tr"),
    (dict(X_te=with_value(GOOD_TE, np.inf)), "X_te"),
    (dict(X_tr=np.full((5, 10), "a")), "X_tr"),
    (dict(X_tr=None), "X_tr"),
    (dict(n_permutations=0), "n_permutations"),
    (dict(n_permutations=True), "n_permutations"),
    (dict(n_permutations=10.5), "n_permutations"),
    (dict(method="ks"), "method"),
    (dict(method=["mmd"]), "method"),
    (dict(random_state=-1), "random_state"),
    (dict(random_state="seed"), "random_state"),
    (dict(classifier=LogisticRegression()), "classifier"),
])
def test_two_sample_test_refuses_bad_input_by_name(kwargs, name):
    arguments = dict(X_tr=GOOD_TR, X_te=GOOD_TE, n_permutations=5)
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=name):
        two_sample_test(**arguments)


@pytest.mark.parametrize("X_tr, X_te, name", [
    (GOOD_TR[:1], GOOD_TE, "X_tr"), (GOOD_TR, GOOD_TE[:, :3], "X_te"),
    (with_value(GOOD_TR, -np.inf), GOOD_TE, "X_tr"), (GOOD_TR, [["x"] * 10] * 4, "X_te"),
])
def test_feature_shift_refuses_bad_input_by_name(X_tr, X_te, name):
    with pytest.raises(ValueError, match=name):
        feature_shift(X_tr, X_te)


@pytest.mark.parametrize("w", [[], [1.0, -1.0], [1.0, np.nan], [0.0, 0.0], None, ["a", "b"], [1 + 1j]])
def test_weight_summary_refuses_bad_weights_by_name(w):
    with pytest.raises(ValueError, match="w"):
        weight_summary(w)


@pytest.mark.parametrize("kwargs, name", [
    (dict(weights=np.ones(10)), "weights"),
    (dict(weights=-np.ones(30)), "weights"),
    (dict(weights=np.r_[np.ones(29), np.nan]), "weights"),
    (dict(weights=None), "weights"),
    (dict(y_tr=np.ones(12)), "y_tr"),
    (dict(X_tr=with_value(GOOD_TR, np.nan)), "X_tr"),
    (dict(cv=1), "cv"),
    (dict(cv=True), "cv"),
    (dict(random_state=1.5), "random_state"),
])
def test_iw_cv_error_refuses_bad_input_by_name(kwargs, name):
    arguments = dict(model=Ridge(), X_tr=GOOD_TR, y_tr=np.arange(30.0), weights=np.ones(30))
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=name):
        iw_cv_error(**arguments)


def test_no_app_imports():
    import sys

    for library in (diagnostics, two_sample, cross_validation):
        source = open(library.__file__).read()
        for module in ["streamlit", "plotly", "pandas"]:
            assert f"import {module}" not in source and f"from {module}" not in source
    assert "covshift.diagnostics" in sys.modules

