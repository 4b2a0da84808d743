"""Where naive KLIEP code fails: underflow, out-of-support centres, degenerate sizes, bad input."""

import warnings

import numpy as np
import pytest

from covshift.exceptions import NumericalWarning
from covshift.kernels import median_heuristic
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS

ALL = [KLIEP, FWCS, AFWCS, PFWCS, FCFWCS]


def _assert_sane(est, n_tr):
    assert est.weights_.shape == (n_tr,)
    assert np.all(np.isfinite(est.weights_)) and np.all(est.weights_ >= 0)
    assert est.weights_.mean() == pytest.approx(1.0)
    assert np.isfinite(est.objective_)


@pytest.mark.parametrize("cls", ALL)
def test_tiny_sigma_on_5d_data_warns_and_stays_finite(cls):
    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(size=(80, 5)), rng.normal(0.3, 1.0, size=(60, 5))
    with pytest.warns(NumericalWarning):
        est = cls(sigma=0.01, max_iter=200).fit(X_tr, X_te)
    _assert_sane(est, 80)
    assert np.all(np.isfinite(est.predict_weights(X_te)))


@pytest.mark.parametrize("cls", ALL)
def test_small_sigma_starting_vertex_with_zero_density(cls):
    # 1-D, sigma small enough that one atom covers only its neighbours: the paper's start gives F = -inf
    rng = np.random.default_rng(1)
    X_tr, X_te = rng.normal(0.0, 1.0, (200, 1)), rng.normal(0.0, 1.0, (100, 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = cls(sigma=0.02, max_iter=300).fit(X_tr, X_te)
    assert any(issubclass(w.category, NumericalWarning) for w in caught)
    _assert_sane(est, 200)


@pytest.mark.parametrize("cls", ALL)
def test_test_point_outside_training_support_is_excluded_with_count(cls):
    rng = np.random.default_rng(2)
    X_tr = rng.normal(0.0, 0.5, (100, 1))
    X_te = np.vstack([rng.normal(0.0, 0.5, (49, 1)), [[40.0]]])
    with pytest.warns(NumericalWarning, match=r"1 of \d+ Gaussian centres"):
        est = cls(sigma=0.5, n_centers=None).fit(X_tr, X_te)
    _assert_sane(est, 100)
    assert est.n_excluded_centers_ == 1 and 49 not in est.center_index_
    assert np.all(np.isfinite(est.predict_weights(X_te)))


@pytest.mark.parametrize("cls", ALL)
def test_duplicates_single_test_point_and_high_dimension(cls):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    _assert_sane(cls(sigma=1.0).fit(np.vstack([X, X]), np.vstack([X[:10], X[:10]])), 60)
    single = cls(sigma=1.0).fit(X, X[:1])
    _assert_sane(single, 30)
    assert np.count_nonzero(single.alpha_) == 1
    wide_tr, wide_te = rng.normal(size=(40, 300)), rng.normal(0.1, 1.0, size=(30, 300))
    _assert_sane(cls(sigma=median_heuristic(np.vstack([wide_tr, wide_te]))).fit(wide_tr, wide_te), 40)


def test_sigma_auto_with_one_test_point_falls_back_to_median():
    X = np.random.default_rng(4).normal(size=(20, 1))
    with pytest.warns(UserWarning, match="median"):
        est = FCFWCS(sigma="auto").fit(X, X[:1])
    assert np.isfinite(est.sigma_)


GOOD = np.zeros((5, 2))


@pytest.mark.parametrize("X_tr,X_te,message", [
    # scikit-learn's words (validate_data), prefixed with the argument's name
    (np.array([[np.nan, 1.0]] * 5), GOOD, "X_tr .*contains NaN"),
    (GOOD, np.array([[np.inf, 1.0]] * 5), "X_te .*contains infinity"),
    (np.zeros((0, 2)), GOOD, r"X_tr .*0 sample\(s\) .*minimum of 1"),
    (GOOD, np.zeros((0, 2)), r"X_te .*0 sample\(s\) .*minimum of 1"),
    (GOOD, np.zeros((5, 3)), "same number of features"),
    (np.zeros((2, 2, 2)), GOOD, "X_tr .*dim 3"),
    ([["a", "b"]], GOOD, "X_tr .*could not convert string to float"),
])
@pytest.mark.parametrize("cls", ALL)
def test_bad_input_is_a_plain_value_error(cls, X_tr, X_te, message):
    with pytest.raises(ValueError, match=message):
        cls(sigma=1.0).fit(X_tr, X_te)


@pytest.mark.parametrize("params,message", [
    ({"sigma": -1.0}, "sigma"), ({"sigma": "wide"}, "sigma"), ({"sigma": None}, "sigma"),
    ({"tol": 0.0}, "tol"), ({"max_iter": -1}, "max_iter"), ({"line_search": "wolfe"}, "line_search"),
    ({"n_centers": 0}, "n_centers"), ({"armijo_c": 1.5}, "armijo_c"),
])
def test_bad_parameters_are_plain_value_errors(params, message):
    with pytest.raises(ValueError, match=message):
        PFWCS(**params).fit(GOOD, GOOD + 0.1)


def test_predict_weights_checks_features_and_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        FWCS().predict_weights(GOOD)
    est = FCFWCS(sigma=1.0).fit(np.random.default_rng(0).normal(size=(10, 2)), GOOD + 0.1)
    with pytest.raises(ValueError, match="X has 3 features, but FCFWCS is expecting 2"):
        est.predict_weights(np.zeros((3, 3)))


# ------------------------------------------------ kernel underflow outside the KLIEP family (issue 20)
def _kernel_estimators(sigma):
    from covshift.weights import KMM, ULSIF, EnsembleKMM, LogisticRatio, RuLSIF

    return [KMM(sigma=sigma), EnsembleKMM("enstr", n_parts=2, sigma=sigma),
            RuLSIF(sigma=sigma, lam=0.1, n_centers=20), ULSIF(sigma=sigma, lam=0.1, n_centers=20),
            LogisticRatio(sigma=sigma, n_components=20)]


@pytest.mark.parametrize("sigma", [1e-12, 1e-50])
@pytest.mark.parametrize("index", range(5))
def test_a_collapsed_kernel_warns_with_kliep_check_and_stays_finite(index, sigma):
    """sigma = 1e-12 makes the Gaussian kernel the identity: KLIEP warned, KMM, RuLSIF, ULSIF and
    LogisticRatio returned weights silently. The same check (mean kernel mass <= MIN_MEAN_KERNEL)
    now warns with the count for all of them."""
    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(size=(40, 2)), rng.normal(0.5, 1.0, size=(30, 2))
    est = _kernel_estimators(sigma)[index]
    with pytest.warns(NumericalWarning, match=r"no kernel mass on the training points .*sigma is too "
                                              r"small for the data \(the kernel matrix is numerically"):
        est.fit(X_tr, X_te)
    assert np.all(np.isfinite(est.weights_)) and est.weights_.mean() == pytest.approx(1.0)


@pytest.mark.parametrize("index", range(5))
def test_a_sensible_sigma_gives_no_underflow_warning(index):
    rng = np.random.default_rng(0)
    X_tr, X_te = rng.normal(size=(40, 2)), rng.normal(0.5, 1.0, size=(30, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumericalWarning)
        _kernel_estimators(1.0)[index].fit(X_tr, X_te)


def test_the_warning_counts_only_the_unsupported_test_points():
    from covshift.weights import KMM

    X_tr = np.linspace(0, 1, 30)[:, None]
    X_te = np.vstack([np.linspace(0, 1, 10)[:, None], [[40.0], [50.0]]])
    with pytest.warns(NumericalWarning, match="KMM: 2 of 12 test points have"):
        KMM(sigma=0.3).fit(X_tr, X_te)
