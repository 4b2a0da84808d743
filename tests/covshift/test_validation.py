"""Numerical extremes and types (issue 9, item 5).

Every public parameter and input either raises a ValueError that names it (and the data
scale where scale is the cause), or returns finite results (warnings allowed). The
hypothesis sweeps draw one extreme value at a time for one parameter of every public
estimator, for the data, and for the metrics.
"""

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from covshift import data, metrics
from covshift._validation import (MAX_ABS_VALUE, as_2d_float, check_finite, check_open_interval,
                                  check_random_state, validate_input)
from covshift.exceptions import NumericalWarning
from covshift.kernels import gaussian_kernel, scaled_exponent
from covshift.regression import GPR, WKNN, TwinGP
from covshift.weights import (AFWCS, FCFWCS, FWCS, KLIEP, KMM, PFWCS, ULSIF, EnsembleKMM,
                              LogisticRatio, RuLSIF)

RNG = np.random.default_rng(0)
X_TR, X_TE = RNG.normal(0.3, 0.6, (30, 1)), RNG.normal(0.0, 0.4, (20, 1))
Y_TR = np.sin(2 * X_TR[:, 0]) + 0.05 * RNG.normal(size=30)

#: Small, fast versions of every public estimator (fixed sigma: no cross-validation).
WEIGHTS = {
    "KLIEP": lambda: KLIEP(sigma=0.5, max_iter=30),
    "FWCS": lambda: FWCS(sigma=0.5, max_iter=50),
    "AFWCS": lambda: AFWCS(sigma=0.5, max_iter=50),
    "PFWCS": lambda: PFWCS(sigma=0.5, max_iter=50),
    "FCFWCS": lambda: FCFWCS(sigma=0.5, max_iter=50),
    "KMM": lambda: KMM(sigma=0.5),
    "EnsembleKMM": lambda: EnsembleKMM("enstr", n_parts=3, sigma=0.5),
    "LogisticRatio": lambda: LogisticRatio(sigma=0.5, n_components=20),
    "RuLSIF": lambda: RuLSIF(sigma=0.5, lam=0.1, n_centers=20),
    "ULSIF": lambda: ULSIF(sigma=0.5, lam=0.1, n_centers=20),
}
REGRESSORS = {
    "GPR": lambda: GPR(rho_x=0.3, lambda_x=0.01),
    "WKNN": lambda: WKNN(5),
    "TwinGP": lambda: TwinGP("sm", rho_x=0.3, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3, max_iter=20),
    "TwinGP-kl-knn": lambda: TwinGP("kl", rho_x=0.3, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3,
                                    max_iter=20, knn=10),
}

MAGNITUDES = st.sampled_from([1e-300, 1e-200, 1e-154, 1e-100, 1e-12, 1e-6, 0.5, 1.0, 3.0, 1e6, 1e12,
                              1e100, 1e154, 1e200, 1e300])
EXTREME_VALUES = st.one_of(
    MAGNITUDES, MAGNITUDES.map(lambda v: -v),
    st.sampled_from([0.0, 0, 1, 2, -1, 10**18, float("nan"), float("inf"), -float("inf"), True, False,
                     None, "abc", "0.5", "", 1 + 2j, [1.0], (), np.float64(0.5), np.int64(3)]),
)


def _finite(value):
    arrays = value if isinstance(value, tuple) else (value,)
    return all(np.all(np.isfinite(np.asarray(a, dtype=float))) for a in arrays)


def _run_quietly(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def _fit_weights(est):
    est = _run_quietly(lambda: est.fit(X_TR, X_TE))
    assert _finite(est.weights_) and np.all(est.weights_ >= 0)
    try:
        predicted = _run_quietly(lambda: est.predict_weights(X_TE))
    except NotImplementedError:  # KMM family: weights on the training points only
        return
    assert _finite(predicted)


def _fit_regressor(model):
    model = _run_quietly(lambda: model.fit(X_TR, Y_TR))
    assert _finite(_run_quietly(lambda: model.predict(X_TE)))


def _check(call, parameter):
    """ValueError naming the parameter, or a finite result; any other exception fails."""
    try:
        call()
    except ValueError as exc:
        assert parameter.split("_")[0].lower() in str(exc).lower(), (parameter, str(exc))


def _parameters(factory):
    params = factory().get_params()
    return sorted(params)


@pytest.mark.parametrize("name", sorted(WEIGHTS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_=st.data())
def test_every_weight_estimator_parameter_at_extremes(name, data_):
    factory = WEIGHTS[name]
    parameter = data_.draw(st.sampled_from(_parameters(factory)), label="parameter")
    value = data_.draw(EXTREME_VALUES, label="value")
    if parameter in ("max_iter", "max_inner") and isinstance(value, int) and value > 10**4:
        value = 10**4  # a huge iteration budget is valid input, just slow: bounded by tol
    if parameter == "n_jobs":
        return  # joblib's own parameter
    est = factory().set_params(**{parameter: value})
    _check(lambda: _fit_weights(est), parameter)


@pytest.mark.parametrize("name", sorted(REGRESSORS))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data_=st.data())
def test_every_regressor_parameter_at_extremes(name, data_):
    factory = REGRESSORS[name]
    parameter = data_.draw(st.sampled_from(_parameters(factory)), label="parameter")
    value = data_.draw(EXTREME_VALUES, label="value")
    if parameter == "max_iter" and isinstance(value, int) and value > 10**3:
        value = 10**3
    model = factory().set_params(**{parameter: value})
    _check(lambda: _fit_regressor(model), parameter)


DATA_SCALES = st.sampled_from([1e-300, 1e-154, 1e-50, 1e-8, 1.0, 1e8, 1e50, 1e99, 1e101, 1e154, 1e300])


@pytest.mark.parametrize("name", sorted(WEIGHTS))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scale=DATA_SCALES)
def test_weight_estimators_on_data_at_any_scale(name, scale):
    est = WEIGHTS[name]()
    if scale > MAX_ABS_VALUE:
        with pytest.raises(ValueError, match="too large to compute with.*Rescale"):
            est.fit(X_TR * scale, X_TE * scale)
    else:
        _check(lambda: _run_quietly(lambda: est.fit(X_TR * scale, X_TE * scale)), "sigma")
        if hasattr(est, "weights_"):
            assert _finite(est.weights_)


@pytest.mark.parametrize("name", sorted(REGRESSORS))
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scale=DATA_SCALES, outputs=st.booleans())
def test_regressors_on_data_at_any_scale(name, scale, outputs):
    model = REGRESSORS[name]()
    X, Y = (X_TR, Y_TR * scale) if outputs else (X_TR * scale, Y_TR)
    X_new = X_TE if outputs else X_TE * scale
    if scale > MAX_ABS_VALUE:
        with pytest.raises(ValueError, match=r"has values up to .* too large"):
            model.fit(X, Y)
        return
    fitted = _run_quietly(lambda: model.fit(X, Y))
    assert _finite(_run_quietly(lambda: fitted.predict(X_new)))


@pytest.mark.parametrize("bad,message", [
    # scikit-learn's words (validate_data), prefixed with the argument's name
    (None, "is None"), (np.array([[1 + 2j], [1.0]]), "Complex data not supported"),
    ([["a"], ["b"]], "could not convert string to float"),
    ([[1e154], [0.0]], r"values up to 1e\+154"), ([[np.nan]], "NaN"),
])
def test_bad_inputs_name_the_argument(bad, message):
    for est in [FCFWCS(sigma=0.5), KMM(sigma=0.5)]:
        with pytest.raises(ValueError, match=message) as info:
            est.fit(bad, X_TE)
        assert "X_tr" in str(info.value)
    with pytest.raises(ValueError, match=message):
        GPR().fit(X_TR, bad if bad is not None else None)


class _Subclass(np.ndarray):
    pass


@pytest.mark.parametrize("array", [
    np.arange(6.0).reshape(3, 2), np.arange(3.0), np.arange(8.0).reshape(2, 4)[:, ::2], np.empty((0, 2)),
    np.empty((3, 0)), np.zeros((2, 2, 2)), np.array([[1.0, np.nan]]), np.array([np.inf, 1.0]), np.array([[1e154]]),
    np.array([[-MAX_ABS_VALUE]]), np.array(2.0), np.arange(4.0).astype(">f8").reshape(2, 2)])
def test_float_arrays_skip_check_array_with_the_same_answers(array):
    """A float64 ndarray that already is what as_2d_float returns comes back as itself (a 1-D one as a column
    view) without check_array, and every array gets the answer that the same array as an ndarray subclass (which
    always goes through check_array) gets."""
    def answer(X):
        try:
            return as_2d_float(X, "X_tr")
        except ValueError as error:
            return str(error)
    fast, checked = answer(array), answer(array.view(_Subclass))
    if isinstance(checked, str):
        assert fast == checked
    else:
        np.testing.assert_array_equal(fast, checked)
        assert type(fast) is np.ndarray and fast.dtype == np.float64 and fast.ndim == 2
        if array.dtype == np.float64:
            assert fast.base is array or fast is array  # no copy


@pytest.mark.parametrize("before", ["new", "fitted on 2 columns", "fitted on 3 columns", "fitted on a data frame"])
@pytest.mark.parametrize("reset", [True, False])
@pytest.mark.parametrize("array", [
    np.arange(6.0).reshape(3, 2), np.arange(3.0), np.arange(8.0).reshape(2, 4)[:, ::2], np.asfortranarray(np.eye(2)),
    np.empty((0, 2)), np.empty((3, 0)), np.array([[1.0, np.nan]]), np.array([[np.inf, 1.0]]), np.array([[1e154, 0.0]]),
    np.array([[-MAX_ABS_VALUE, 0.0]]), np.arange(4.0).astype(">f8").reshape(2, 2)])
def test_estimator_inputs_skip_validate_data_with_the_same_answers(array, reset, before):
    """validate_input passes a 2-D float64 ndarray of finite values within the scale through without
    scikit-learn's validate_data (issue 40); every array, before and after a fit of either kind, gets the answer,
    warnings, n_features_in_ and feature_names_in_ that the same array as an ndarray subclass (which always goes
    through validate_data) gets."""
    pandas = pytest.importorskip("pandas")

    def answer(X):
        estimator = KMM()
        if before.startswith("fitted on") and before[-9:-8].isdigit():
            estimator.n_features_in_ = int(before[-9])
        elif before == "fitted on a data frame":
            validate_input(estimator, pandas.DataFrame({"a": [0.0, 1.0], "b": [1.0, 0.0]}), reset=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                result = validate_input(estimator, X, reset=reset, name="X_tr")
            except ValueError as error:
                result = str(error)
        state = (getattr(estimator, "n_features_in_", None), list(getattr(estimator, "feature_names_in_", [])))
        return result, [str(w.message) for w in caught], state

    (fast, fast_warnings, fast_state), (checked, checked_warnings, checked_state) = (
        answer(array), answer(array.view(_Subclass)))
    assert (fast_warnings, fast_state) == (checked_warnings, checked_state)
    if isinstance(checked, str):
        assert fast == checked
    else:
        np.testing.assert_array_equal(fast, checked)
        if type(array) is np.ndarray and array.dtype == np.float64 and array.ndim == 2:
            assert fast is array  # no copy


def test_boolean_inputs_count_as_zero_one():
    np.testing.assert_array_equal(as_2d_float([True, False]), [[1.0], [0.0]])


@pytest.mark.parametrize("value", ["abc", -1, 1.5, True, [1]])
def test_random_state_must_be_a_seed(value):
    with pytest.raises(ValueError, match="random_state"):
        FCFWCS(sigma=0.5, random_state=value).fit(X_TR, X_TE)
    with pytest.raises(ValueError, match="random_state"):
        data.sinc_shift(random_state=value)
    assert check_random_state(np.int64(3)) == 3 and check_random_state(None) is None


def test_twin_gp_theta_as_text_is_a_value_error():
    with pytest.raises(ValueError, match=r"'theta' parameter of TwinGP must be a float in the range \(0.0, 1.0\)\. Got '0.5'"):
        TwinGP(theta="0.5").fit(X_TR, Y_TR)
    assert check_open_interval(np.float32(0.5), "theta", 0, 1) == 0.5
    with pytest.raises(ValueError, match="mean_tr"):
        check_finite("1", "mean_tr")


# ------------------------------------------------------------------ the kernel exponent
@pytest.mark.parametrize("sigma", [1e-300, 1e-200, 1e-101, 1e101, 1e200, 1e300])
def test_kernel_at_extreme_widths_is_the_limit_kernel(sigma):
    A = np.array([[0.0], [1.0], [2.0]])
    K = gaussian_kernel(A, A, sigma)
    expected = np.eye(3) if sigma < 1 else np.ones((3, 3))
    np.testing.assert_array_equal(K, expected)


@settings(max_examples=50, deadline=None)
@given(d2=st.floats(0, 1e6), sigma=st.floats(1e-3, 1e3))
def test_safe_exponent_matches_the_formula(d2, sigma):
    direct = np.array([-d2 / (2 * sigma**2)])
    np.testing.assert_allclose(scaled_exponent(np.array([d2]), sigma), direct, rtol=1e-12)
    # the path used outside [1e-100, 1e100] gives the same numbers where both apply
    path = -(np.sqrt(d2) / sigma) ** 2 / 2
    np.testing.assert_allclose(path, direct[0], rtol=1e-12, atol=1e-300)


# ------------------------------------------------------------------ ill-conditioning
def test_gpr_with_a_tiny_lambda_warns_about_conditioning():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, (300, 1))
    y = np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=300)
    with pytest.warns(NumericalWarning, match=r"ill-conditioned \(condition number about .*lambda_x"):
        GPR(rho_x=0.3, lambda_x=1e-12).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", NumericalWarning)
        GPR(rho_x=0.3, lambda_x=1e-2).fit(X, y)  # well conditioned: silent


def test_twin_gp_with_tiny_lambdas_warns_about_conditioning():
    rng = np.random.default_rng(2)
    X = rng.uniform(-1, 1, (200, 1))
    y = np.sin(3 * X[:, 0])
    with pytest.warns(NumericalWarning, match="lambda"):
        TwinGP("kl", rho_x=0.5, rho_y=0.5, lambda_x=1e-13, lambda_y=1e-13).fit(X, y)


def test_condition_estimate_matches_numpy():
    from scipy.linalg import cho_factor

    from covshift.regression._common import condition_number

    A = gaussian_kernel(np.linspace(0, 1, 40)[:, None], np.linspace(0, 1, 40)[:, None], 0.2) + 1e-6 * np.eye(40)
    estimate = condition_number(A, cho_factor(A, lower=True)[0])
    exact = np.linalg.cond(A, 1)
    assert exact / 10 <= estimate <= exact * 10


# ------------------------------------------------------------------ metrics
WEIGHT_VALUES = st.lists(st.one_of(MAGNITUDES, st.just(0.0)), min_size=1, max_size=6)


@settings(max_examples=100, deadline=None)
@given(w=WEIGHT_VALUES, t=WEIGHT_VALUES)
def test_weight_metrics_are_finite_or_value_errors(w, t):
    for fn, args in [(metrics.effective_sample_size, (w,)), (metrics.max_weight, (w,)),
                     (metrics.normalized_mse, (w, w[::-1])), (metrics.normalized_mse, (w, t))]:
        try:
            value = fn(*args)
        except ValueError as exc:
            assert "weights" in str(exc)
            continue
        assert np.isfinite(value)


@settings(max_examples=100, deadline=None)
@given(a=st.lists(st.one_of(MAGNITUDES, MAGNITUDES.map(lambda v: -v)), min_size=0, max_size=6),
       shift=st.sampled_from([0.0, 1.0, 1e-300, 1e300]))
def test_error_metrics_are_finite_or_value_errors(a, shift):
    b = [x + shift for x in a]
    for fn, args, names in [(metrics.paired_ttest, (a, b), ("errors", "t-test")),
                            (metrics.certainty_error_correlation, (a, b), ("certainty", "errors")),
                            (metrics.mae, (a, b), ("y_true", "y_pred", "sample")),
                            (metrics.rmse, (a, b), ("y_true", "y_pred", "sample")),
                            (metrics.r2, (a, b), ("y_true", "y_pred", "sample"))]:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", NumericalWarning)
                value = fn(*args)
        except ValueError as exc:
            assert any(n in str(exc) for n in names), str(exc)
            continue
        assert _finite(value), (fn.__name__, a, b, value)


def test_the_metric_cases_of_the_issue():
    with pytest.raises(ValueError, match="all zero"):
        metrics.normalized_mse([0.0, 0.0], [1.0, 2.0])
    assert metrics.effective_sample_size([1e200, 1e200]) == pytest.approx(2.0)
    assert metrics.paired_ttest([0.1, 0.2, 0.3], [0.1, 0.2, 0.3]) == (0.0, 1.0)
    with pytest.warns(NumericalWarning, match="no spread"):
        t, p = metrics.paired_ttest([1.0, 2.0, 3.0], [0.5, 1.5, 2.5])
    assert t == 1e300 and p == 0.0
    with pytest.raises(ValueError, match="at least 3 test points; got 2"):
        metrics.certainty_error_correlation([0.1, 0.2], [1.0, 2.0])


def test_extreme_data_scale_is_named_when_sigma_was_not_set():
    with pytest.raises(ValueError, match="median heuristic: data scale.*rescale the data"):
        LogisticRatio().fit(X_TR * 1e-154, X_TE * 1e-154)


def test_r2_of_outputs_that_hardly_vary_warns_and_stays_finite():
    """Found by the sweep above: the true outputs [1e-300, 1e-154] have a total sum of squares
    of ~1e-308, so 1 - resid / total overflowed to -inf."""
    with pytest.warns(NumericalWarning, match="R\\^2"):
        score = metrics.r2([1e-300, 1e-154], [1.0, 1.0])
    assert np.all(score == -1e300)
    assert metrics.r2([0.0, 1.0, 2.0], [0.0, 1.0, 2.0]) == pytest.approx(1.0)


# ------------------------------------------------------------------ issue 20, item 5
def _public_estimators():
    """(name, unfitted estimator, fit) for every public estimator of ``covshift``."""
    from sklearn.base import clone

    import covshift
    from covshift.transfer import MulticlassProblem

    y_class = (X_TR[:, 0] > 0.3).astype(int)
    fits = {}
    for name, factory in WEIGHTS.items():
        fits[name] = (factory(), lambda est: est.fit(X_TR, X_TE).weights_)
    for name, factory in REGRESSORS.items():
        fits[name] = (factory(), lambda est: est.fit(X_TR, Y_TR).predict(X_TE))
    fits["HSICKNN"] = (covshift.HSICKNN(n_neighbors=10, max_iter=5), lambda est: est.fit(X_TR, Y_TR).predict(X_TE))
    fits["KTAKNN"] = (covshift.KTAKNN(n_neighbors=10, max_iter=5), lambda est: est.fit(X_TR, Y_TR).predict(X_TE))
    fits["KernelLogisticRegression"] = (covshift.KernelLogisticRegression(sigma=0.5),
                                        lambda est: est.fit(X_TR, y_class).decision_function(X_TE))
    fits["IntegratedShiftClassifier"] = (covshift.IntegratedShiftClassifier(sigma=0.5, max_iter=10),
                                         lambda est: est.fit(X_TR, y_class, X_TE).decision_function(X_TE))
    fits["StructuredSVM"] = (covshift.StructuredSVM(MulticlassProblem(2, features="random_fourier",
                                                                      n_components=20), max_iter=20),
                             lambda est: est.fit(X_TR, y_class).coef_)
    return {name: (clone(est), fit) for name, (est, fit) in fits.items()}


ESTIMATORS = _public_estimators()
SEEDED = sorted(name for name, (est, _) in ESTIMATORS.items() if "random_state" in est.get_params())


@pytest.mark.parametrize("name", SEEDED)
def test_every_estimator_takes_a_random_state_like_scikit_learn(name):
    """RandomState was refused though scikit-learn takes it everywhere. A RandomState or Generator
    gives one integer seed per fit, drawn from it (seed_of): the fit equals the fit with that seed."""
    from sklearn.base import clone

    from covshift._validation import seed_of

    est, fit = ESTIMATORS[name]
    for instance in (lambda: np.random.RandomState(7), lambda: np.random.default_rng(7)):
        with_instance = _run_quietly(lambda: fit(clone(est).set_params(random_state=instance())))
        with_seed = _run_quietly(lambda: fit(clone(est).set_params(random_state=seed_of(instance()))))
        np.testing.assert_allclose(with_instance, with_seed, rtol=1e-9, atol=1e-12)  # QP round-off
    fitted = clone(est).set_params(random_state=np.random.RandomState(7))
    _run_quietly(lambda: fit(fitted))
    assert isinstance(fitted.get_params()["random_state"], np.random.RandomState)  # left as passed


def test_estimators_whose_result_does_not_depend_on_the_seed_give_the_int_seed_result():
    """KMM with a given sigma uses no randomness: RandomState(0) gives what random_state=0 gives."""
    from covshift import KMM

    np.testing.assert_array_equal(KMM(sigma=0.5, random_state=np.random.RandomState(0)).fit(X_TR, X_TE).weights_,
                                  KMM(sigma=0.5, random_state=0).fit(X_TR, X_TE).weights_)


@pytest.mark.parametrize("generator", ["sinc_shift", "s_shape", "double_s", "circle_outputs", "arm_pose",
                                       "shift_classification_2d", "digits_center"])
def test_every_generator_takes_a_random_state_like_scikit_learn(generator):
    from covshift._validation import seed_of

    make = getattr(data, generator)
    kwargs = {"n_max": 300} if generator == "digits_center" else {}
    a = make(random_state=np.random.RandomState(3), **kwargs)
    b = make(random_state=np.random.RandomState(3), **kwargs)
    np.testing.assert_array_equal(a.X_tr, b.X_tr)
    assert make(random_state=seed_of(np.random.RandomState(3)), **kwargs).X_tr.shape[1] == a.X_tr.shape[1]
    np.testing.assert_array_equal(make(random_state=0, **kwargs).X_tr, make(random_state=0, **kwargs).X_tr)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_booleans_are_refused_for_every_numeric_parameter(name):
    """sigma=True was accepted as 1.0 (RuLSIF): every parameter that takes a number (default a
    number or None) refuses True and False with a ValueError naming it."""
    from sklearn.base import clone

    est, fit = ESTIMATORS[name]
    numeric = [p for p, v in est.get_params(deep=False).items()
               if p != "n_jobs" and not isinstance(v, bool) and (v is None or isinstance(v, (int, float)))]
    assert numeric
    accepted = []
    for parameter in numeric:
        for flag in (True, False):
            try:
                _run_quietly(lambda: fit(clone(est).set_params(**{parameter: flag})))
            except ValueError as exc:
                assert parameter.split("_")[0].lower() in str(exc).lower(), (parameter, str(exc))
            else:
                accepted.append(parameter)
    assert not accepted, accepted


def test_sigma_grids_refuse_booleans():
    from covshift import KLIEP, RuLSIF

    with pytest.raises(ValueError, match=r"sigma must be a positive number or a list.*\[True, 0.5\]"):
        RuLSIF(sigma=[True, 0.5]).fit(X_TR, X_TE)
    with pytest.raises(ValueError, match="sigma_grid must be"):
        KLIEP(sigma_grid=[0.5, True]).fit(X_TR, X_TE)


SAMPLE_WEIGHT_MODELS = ["GPR", "TwinGP", "WKNN", "HSICKNN", "KTAKNN"]


@pytest.mark.parametrize("name", SAMPLE_WEIGHT_MODELS)
@pytest.mark.parametrize("bad,message", [
    (np.ones(30) + 1j, "sample_weight: Complex data not supported"),
    (["a"] * 30, "sample_weight: could not convert string to float"),
    (np.r_[np.nan, np.ones(29)], "sample_weight: Input sample_weight contains NaN"),
    (np.r_[-1.0, np.ones(29)], r"sample_weight must be non-negative .*minimum of -1"),
    (np.ones(29), r"sample_weight needs one weight per training point \(30\); got 29"),
    (np.zeros(30), "sample_weight is zero everywhere"),
    (np.ones((30, 2)), r"sample_weight must be a 1-D array .*shape \(30, 2\)"),
    (True, r"sample_weight must be an array of weights or a number; got True"),
])
def test_sample_weight_has_one_validation_that_names_it(name, bad, message):
    """Complex weights went through with numpy's ComplexWarning (imaginary part dropped) and text
    gave "could not convert string to float" without naming sample_weight."""
    from sklearn.base import clone

    est, _ = ESTIMATORS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning on the way
        with pytest.raises(ValueError, match=message):
            clone(est).fit(X_TR, Y_TR, sample_weight=bad)


def test_sample_weight_of_the_classifier_and_a_scalar_weight():
    from covshift import KernelLogisticRegression
    from covshift._validation import check_sample_weight

    with pytest.raises(ValueError, match="sample_weight: Complex data not supported"):
        KernelLogisticRegression().fit(X_TR, (X_TR[:, 0] > 0.3).astype(int), sample_weight=np.ones(30) * 1j)
    np.testing.assert_array_equal(check_sample_weight(2.0, 3), [2.0, 2.0, 2.0])
    np.testing.assert_array_equal(check_sample_weight([[1], [0], [2]], 3), [1.0, 0.0, 2.0])


# ------------------------------------------------------------------ issue 32: scikit-learn's validation
def test_swapped_dataframe_columns_at_predict_time_are_refused():
    """Swapping DataFrame columns silently changed the output (FCFWCS, LogisticRatio, GPR,
    KernelLogisticRegression): scikit-learn's validate_data now checks the names."""
    pd = pytest.importorskip("pandas")
    from covshift import KernelLogisticRegression

    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(40, 2)), columns=["age", "dose"])
    X_new = pd.DataFrame(rng.normal(size=(10, 2)), columns=["age", "dose"])
    swapped = X_new[["dose", "age"]]
    y = (X["age"] > 0).astype(int).to_numpy()
    fitted = [(FCFWCS(sigma=0.5).fit(X, X_new), "predict_weights"),
              (LogisticRatio(sigma=0.5).fit(X, X_new), "predict_weights"),
              (GPR().fit(X, X["dose"]), "predict"),
              (KernelLogisticRegression(sigma=0.5).fit(X, y), "decision_function")]
    for est, method in fitted:
        np.testing.assert_array_equal(est.feature_names_in_, ["age", "dose"])
        getattr(est, method)(X_new)
        with pytest.raises(ValueError, match="feature names should match"):
            getattr(est, method)(swapped)
    with pytest.raises(ValueError, match="feature names should match"):
        FCFWCS(sigma=0.5).fit(X, swapped)  # the test inputs at fit time too


def test_sparse_and_one_dimensional_inputs_are_refused_in_scikit_learns_words():
    from scipy import sparse

    from covshift import StructuredSVM
    from covshift.transfer import MulticlassProblem

    with pytest.raises(TypeError, match="X_tr .*Sparse data was passed"):
        FCFWCS(sigma=0.5).fit(sparse.csr_matrix(X_TR), X_TE)
    with pytest.raises(TypeError, match="Sparse data was passed"):
        GPR().fit(sparse.csr_matrix(X_TR), Y_TR)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        GPR().fit(X_TR[:, 0], Y_TR)
    with pytest.raises(ValueError, match="Expected 2D array, got 1D array"):
        GPR().fit(X_TR, Y_TR).predict(X_TE[:, 0])
    from sklearn.exceptions import NotFittedError
    with pytest.raises(NotFittedError):
        StructuredSVM(MulticlassProblem(2)).predict(X_TE)
