"""The three classifiers: solver certificates, agreement without shift, sample weights, references, bad input."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

from covshift.classification import (IntegratedShiftClassifier, KernelLogisticRegression,
                                     TwoStageShiftClassifier, joint_objective)
from covshift.classification._features import penalty_matrix
from covshift.exceptions import ConvergenceWarning
from covshift.weights import FCFWCS, LogisticRatio


def _linear_task(seed=0, m=150, n=150, shift=0.0):
    rng = np.random.default_rng(seed)
    X_tr = rng.normal(size=(m, 2))
    X_te = rng.normal(size=(n, 2)) + [shift, 0.0]
    y_tr = (X_tr[:, 0] + 0.5 * X_tr[:, 1] + 0.5 * rng.normal(size=m) > 0).astype(int)
    return X_tr, y_tr, X_te


def _shifted_task(seed=0):
    """Curved boundary; training sample from the left, test from the right: the shift matters."""
    rng = np.random.default_rng(seed)
    X_tr = rng.normal([-1.0, 0.0], 0.8, size=(80, 2))
    X_te = rng.normal([1.2, 0.0], 0.8, size=(100, 2))
    y_tr = (X_tr[:, 1] > 0.4 * X_tr[:, 0] ** 2 - 0.5 + 0.3 * rng.normal(size=80)).astype(int)
    return X_tr, y_tr, X_te


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("seed", [0, 1])
def test_newton_increases_the_joint_objective_and_ends_stationary(kernel, seed):
    X_tr, y_tr, X_te = _shifted_task(seed)
    model = IntegratedShiftClassifier(kernel=kernel, sigma=1.0, C_w=2.0, C_v=1.0).fit(X_tr, y_tr, X_te)
    objective = model.history_.objective
    assert model.converged_ and model.n_iter_ >= 1
    assert np.all(np.diff(objective) > 0)  # every accepted step is an ascent
    assert model.objective_ == objective[-1] and model.objective_ > model.objective_start_
    # stationarity, recomputed independently of the solver from the public fitted attributes
    F = model.feature_map_.design(X_tr)
    G = model.selector_map_.design(np.vstack([X_tr, X_te]))
    theta = np.r_[model.coef_, model.intercept_, model.selector_coef_, model.selector_intercept_]
    value, gradient, hessian = joint_objective(theta, F, G, y_tr.astype(float), penalty_matrix(F.shape[1] - 1, 2.0),
                                               penalty_matrix(G.shape[1] - 1, 1.0))
    assert value == pytest.approx(model.objective_, rel=1e-12)
    assert np.max(np.abs(gradient)) <= 1e-8 * (2 * len(X_tr) + len(X_te))
    # a local maximum: the Hessian there is negative definite (second-order condition)
    assert np.linalg.eigvalsh(hessian).max() < 0


def test_integrated_weights_and_selector_are_consistent():
    X_tr, y_tr, X_te = _shifted_task(2)
    model = IntegratedShiftClassifier(kernel="rbf", sigma=1.0).fit(X_tr, y_tr, X_te)
    q_train = 1 - model.selector_proba(X_tr)
    m, n = len(X_tr), len(X_te)
    np.testing.assert_allclose(model.weights_, (m / n) * (1 - q_train) / q_train, rtol=1e-10)
    np.testing.assert_allclose(model.predict_weights(X_tr), model.weights_, rtol=1e-12)
    # the selector sees that the test points are on the right: p(test | x) larger there
    assert model.selector_proba(X_te).mean() > model.selector_proba(X_tr).mean() + 0.2


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_without_shift_the_three_classifiers_agree(kernel):
    X_tr, y_tr, X_te = _linear_task(seed=3, m=250, n=250)
    iid = KernelLogisticRegression(kernel=kernel).fit(X_tr, y_tr)
    integrated = IntegratedShiftClassifier(kernel=kernel).fit(X_tr, y_tr, X_te)
    for weights in (LogisticRatio(), FCFWCS(sigma=1.0)):
        two_stage = TwoStageShiftClassifier(weights, KernelLogisticRegression(kernel=kernel)).fit(X_tr, y_tr, X_te)
        p_iid, p_two = iid.predict_proba(X_te)[:, 1], two_stage.predict_proba(X_te)[:, 1]
        assert np.abs(p_iid - p_two).max() < 0.1
        assert np.mean(iid.predict(X_te) == two_stage.predict(X_te)) >= 0.97
    p_int = integrated.predict_proba(X_te)[:, 1]
    assert np.abs(iid.predict_proba(X_te)[:, 1] - p_int).max() < 0.1
    assert np.mean(iid.predict(X_te) == integrated.predict(X_te)) >= 0.97
    # the joint MAP shrinks all weights (smaller weights raise the classifier term, which is <= 0),
    # but without shift they stay nearly uniform
    assert integrated.weights_.std() < 0.35 * integrated.weights_.mean()


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_sample_weight_of_ones_is_exactly_unweighted(kernel):
    X_tr, y_tr, _ = _linear_task(seed=4)
    plain = KernelLogisticRegression(kernel=kernel).fit(X_tr, y_tr)
    ones = KernelLogisticRegression(kernel=kernel).fit(X_tr, y_tr, sample_weight=np.ones(len(X_tr)))
    np.testing.assert_array_equal(plain.coef_, ones.coef_)
    assert plain.intercept_ == ones.intercept_


def test_integer_weights_equal_duplicated_points():
    X_tr, y_tr, _ = _linear_task(seed=5, m=60)
    counts = np.random.default_rng(0).integers(1, 4, len(X_tr))
    weighted = KernelLogisticRegression(kernel="linear").fit(X_tr, y_tr, sample_weight=counts)
    repeated = KernelLogisticRegression(kernel="linear").fit(np.repeat(X_tr, counts, 0), np.repeat(y_tr, counts))
    np.testing.assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-7)


def test_linear_model_matches_scikit_learn():
    X_tr, y_tr, _ = _linear_task(seed=6)
    w = np.random.default_rng(1).uniform(0.1, 2.0, len(X_tr))
    ours = KernelLogisticRegression(kernel="linear", C=0.5).fit(X_tr, y_tr, sample_weight=w)
    reference = LogisticRegression(C=0.5, tol=1e-12, max_iter=10_000).fit(X_tr, y_tr, sample_weight=w)
    np.testing.assert_allclose(ours.coef_, reference.coef_[0], rtol=1e-5)
    assert ours.intercept_ == pytest.approx(reference.intercept_[0], rel=1e-5)
    assert ours.converged_


def test_rbf_dual_coefficients_reproduce_the_scores():
    X_tr, y_tr, X_te = _shifted_task(1)
    model = KernelLogisticRegression(kernel="rbf", sigma=0.8, C=3.0).fit(X_tr, y_tr)
    K = np.exp(-((X_te[:, None, :] - X_tr[None, :, :]) ** 2).sum(-1) / (2 * 0.8**2))
    np.testing.assert_allclose(model.decision_function(X_te), K @ model.dual_coef_ + model.intercept_, atol=1e-6)


def test_labels_keep_their_names():
    X_tr, y_tr, X_te = _linear_task(seed=7)
    names = np.where(y_tr == 1, "spam", "ham")
    model = IntegratedShiftClassifier(kernel="linear").fit(X_tr, names, X_te)
    assert set(model.predict(X_te)) <= {"spam", "ham"}
    assert list(model.classes_) == ["ham", "spam"]
    np.testing.assert_allclose(model.predict_proba(X_te).sum(axis=1), 1.0)


def _estimators():
    return [KernelLogisticRegression(), TwoStageShiftClassifier(), IntegratedShiftClassifier()]


@pytest.mark.parametrize("estimator", _estimators(), ids=lambda e: type(e).__name__)
def test_bad_input_raises_plain_value_errors(estimator):
    X_tr, y_tr, X_te = _linear_task(seed=8, m=30, n=30)
    with pytest.raises(ValueError, match="exactly two classes"):
        estimator.fit(X_tr, np.zeros(len(X_tr)), X_te)
    X_nan = X_tr.copy()
    X_nan[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        estimator.fit(X_nan, y_tr, X_te)
    with pytest.raises(ValueError, match="same number of features"):
        estimator.fit(X_tr, y_tr, X_te[:, :1])
    with pytest.raises(ValueError, match=r"X_te.*0 sample\(s\).*minimum of 1"):  # scikit-learn's words
        estimator.fit(X_tr, y_tr, np.empty((0, 2)))
    with pytest.raises(ValueError, match="inconsistent numbers of samples: \\[30, 29\\]"):
        estimator.fit(X_tr, y_tr[:-1], X_te)
    fitted = estimator.fit(X_tr, y_tr, X_te)
    with pytest.raises(ValueError, match="features"):
        fitted.predict(X_te[:, :1])


def test_shift_classifiers_need_test_inputs_and_valid_parameters():
    X_tr, y_tr, _ = _linear_task(seed=9, m=30)
    with pytest.raises(ValueError, match="X_te"):
        IntegratedShiftClassifier().fit(X_tr, y_tr, None)
    with pytest.raises(ValueError, match="kernel"):
        KernelLogisticRegression(kernel="poly").fit(X_tr, y_tr)
    with pytest.raises(ValueError, match="C_v"):
        IntegratedShiftClassifier(C_v=-1.0).fit(X_tr, y_tr, X_tr)
    with pytest.raises(ValueError, match="sample_weight"):
        KernelLogisticRegression().fit(X_tr, y_tr, sample_weight=-np.ones(len(X_tr)))


def test_iteration_budget_is_reported_honestly():
    X_tr, y_tr, X_te = _shifted_task(3)
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        model = IntegratedShiftClassifier(kernel="linear", max_iter=1).fit(X_tr, y_tr, X_te)
    assert not model.converged_ and model.n_iter_ == 1


@pytest.mark.parametrize("estimator", _estimators(), ids=lambda e: type(e).__name__)
def test_scikit_learn_contract(estimator):
    X_tr, y_tr, X_te = _linear_task(seed=10, m=40, n=40)
    assert clone(estimator).get_params() == estimator.get_params()
    with pytest.raises(NotFittedError):
        clone(estimator).predict(X_te)
    fitted = clone(estimator).fit(X_tr, y_tr, X_te)
    assert fitted.predict_proba(X_te).shape == (len(X_te), 2) and 0 <= fitted.score(X_tr, y_tr) <= 1
