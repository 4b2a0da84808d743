"""Structural SVM and domain transfer (domain-transfer-structured-output, eqs. 2-6, Algorithm 1).

The cutting-plane solutions are checked against an independent solve of the full 1-slack QP,
with every one of the |Y|^l constraints enumerated and written out from the definitions.
"""

import itertools
import warnings

import cvxopt
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from covshift.exceptions import ConvergenceWarning
from covshift.transfer import DomainTransferSSVM, MulticlassProblem, MultilabelProblem, StructuredSVM

EPS = 1e-4


class FixedScores:
    """A 'source model' with given score tables: f_S(x_i, y) read from a lookup by row."""

    def __init__(self, X, table):
        self.X, self.table = np.asarray(X, float), np.asarray(table, float)

    def potentials(self, X):
        rows = [int(np.flatnonzero(np.all(self.X == x, axis=1))[0]) for x in np.asarray(X, float)]
        return self.table[rows]


def _z(X):
    return np.hstack([X, np.ones((len(X), 1))])


def _multiclass_outputs(K):
    return [(k, np.eye(K)[k]) for k in range(K)]


def _multilabel_outputs(L):
    return [(np.array(y), np.array(y, float)) for y in itertools.product([0, 1], repeat=L)]


def _reference(X, Y, outputs, loss, source_score, C):
    """min 1/2||w||^2 + C xi over all |Y|^l constraints of eq. (2), by SLSQP (no shared code).

    Psi(x, y) = kron([x, 1], code(y)); f_S(x_i, y) = source_score(i, y).
    """
    Z = _z(X)
    l = len(X)
    true_codes = [next(code for y, code in outputs if np.array_equal(y, Y[i])) for i in range(l)]
    rows, rhs = [], []
    for combo in itertools.product(range(len(outputs)), repeat=l):
        g = np.mean([np.kron(Z[i], true_codes[i]) - np.kron(Z[i], outputs[k][1])
                     for i, k in enumerate(combo)], axis=0)
        b = np.mean([loss(Y[i], outputs[k][0]) - (source_score(i, Y[i]) - source_score(i, outputs[k][0]))
                     for i, k in enumerate(combo)])
        rows.append(g)
        rhs.append(b)
    A, b = np.array(rows), np.array(rhs)
    m = A.shape[1]
    cons = [{"type": "ineq", "fun": lambda v: A @ v[:m] - b + v[m],
             "jac": lambda v: np.hstack([A, np.ones((len(A), 1))])},
            {"type": "ineq", "fun": lambda v: v[m:], "jac": lambda v: np.eye(m + 1)[m:]}]
    res = minimize(lambda v: 0.5 * v[:m] @ v[:m] + C * v[m], np.zeros(m + 1),
                   jac=lambda v: np.concatenate([v[:m], [C]]), constraints=cons, method="SLSQP",
                   options={"ftol": 1e-12, "maxiter": 500})
    assert res.success, res.message
    return res.x[:m], res.fun, A, b


def _tiny(seed, l=4, d=2):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(l, d)), rng


def _check_against_reference(model, X, Y, outputs, loss, source_score, C):
    w_ref, objective_ref, A, b = _reference(X, Y, outputs, loss, source_score, C)
    # The working-set QP is a relaxation: its optimum is at most the full optimum; adding epsilon
    # to xi makes its solution feasible for every constraint, so the full optimum is at most
    # objective + C epsilon. Strong convexity in w then bounds ||w - w*||^2 by 2 C epsilon.
    assert model.converged_
    assert model.objective_ <= objective_ref + 1e-6
    assert objective_ref <= model.objective_ + C * EPS + 1e-6
    assert np.sum((model.coef_ - w_ref) ** 2) <= 2 * C * EPS + 1e-6
    # The final most violated constraint, over all |Y|^l of them, is within epsilon.
    worst = np.max(b - A @ model.coef_) - model.slack_
    assert worst <= EPS + 1e-9
    assert model.violation_ == pytest.approx(worst, abs=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("C", [0.5, 5.0])
def test_structured_svm_matches_full_qp_multiclass(seed, C):
    X, rng = _tiny(seed)
    Y = rng.integers(0, 3, size=len(X))
    model = StructuredSVM(MulticlassProblem(3), C=C, epsilon=EPS, random_state=seed).fit(X, Y)
    _check_against_reference(model, X, Y, _multiclass_outputs(3), lambda y, p: float(y != p),
                             lambda i, y: 0.0, C)


@pytest.mark.parametrize("seed", [0, 1])
def test_domain_transfer_matches_full_qp_with_source_scores(seed):
    X, rng = _tiny(seed)
    Y = rng.integers(0, 3, size=len(X))
    table = rng.normal(scale=0.7, size=(len(X), 3))
    C = 2.0
    model = DomainTransferSSVM(FixedScores(X, table), MulticlassProblem(3), C=C, epsilon=EPS,
                               random_state=seed).fit(X, Y)
    _check_against_reference(model, X, Y, _multiclass_outputs(3), lambda y, p: float(y != p),
                             lambda i, y: table[i, y], C)
    # eq. (1): the target scores are the source scores plus the delta w' Psi.
    delta = _z(X) @ model.coef_.reshape(3, 3)
    np.testing.assert_allclose(model.potentials(X), table + delta)


def test_domain_transfer_matches_full_qp_multilabel():
    X, rng = _tiny(3, l=3)
    Y = rng.integers(0, 2, size=(len(X), 2))
    table = rng.normal(scale=0.5, size=(len(X), 2))
    C = 3.0
    model = DomainTransferSSVM(FixedScores(X, table), MultilabelProblem(2), C=C, epsilon=EPS).fit(X, Y)
    _check_against_reference(model, X, Y, _multilabel_outputs(2), lambda y, p: float(np.mean(y != p)),
                             lambda i, y: float(table[i] @ y), C)


def test_joint_feature_maps_are_the_kronecker_products():
    X, rng = _tiny(4, l=5, d=3)
    Z = _z(X)
    y = rng.integers(0, 4, size=5)
    mc = MulticlassProblem(4).fit(X)
    np.testing.assert_allclose(mc.joint_features(mc.embed(X), y), [np.kron(z, np.eye(4)[k]) for z, k in zip(Z, y)])
    Y = rng.integers(0, 2, size=(5, 3))
    ml = MultilabelProblem(3).fit(X)
    np.testing.assert_allclose(ml.joint_features(ml.embed(X), Y), [np.kron(z, yy) for z, yy in zip(Z, Y)])


@settings(max_examples=60, deadline=None)
@given(n_labels=st.integers(1, 6), seed=st.integers(0, 2**31 - 1))
def test_hamming_loss_augmented_inference_matches_brute_force(n_labels, seed):
    rng = np.random.default_rng(seed)
    potentials = rng.normal(scale=0.5, size=(4, n_labels))
    Y = rng.integers(0, 2, size=(4, n_labels))
    problem = MultilabelProblem(n_labels)
    found = problem.loss_augmented_argmax(potentials, Y)
    for i in range(4):
        values = [np.mean(Y[i] != np.array(y)) + potentials[i] @ np.array(y)
                  for y in itertools.product([0, 1], repeat=n_labels)]
        assert np.mean(Y[i] != found[i]) + potentials[i] @ found[i] == pytest.approx(max(values), abs=1e-12)


def test_multiclass_loss_augmented_inference_matches_brute_force():
    rng = np.random.default_rng(0)
    potentials = rng.normal(size=(20, 5))
    Y = rng.integers(0, 5, size=20)
    found = MulticlassProblem(5).loss_augmented_argmax(potentials, Y)
    for i in range(20):
        values = [float(Y[i] != k) + potentials[i, k] for k in range(5)]
        assert float(Y[i] != found[i]) + potentials[i, found[i]] == pytest.approx(max(values))


def _source_and_target(seed=0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3, size=(3, 2))
    y_src = rng.integers(0, 3, size=60)
    X_src = centres[y_src] + rng.normal(size=(60, 2))
    y_tgt = rng.integers(0, 3, size=8)
    X_tgt = centres[y_tgt] @ np.array([[0, -1], [1, 0]]) + rng.normal(size=(8, 2))  # rotated target
    return X_src, y_src, X_tgt, y_tgt


def test_transfer_with_c_zero_or_tiny_is_the_source_model():
    X_src, y_src, X_tgt, y_tgt = _source_and_target()
    source = StructuredSVM(MulticlassProblem(3), C=10.0, epsilon=1e-3).fit(X_src, y_src)
    exact = DomainTransferSSVM(source, MulticlassProblem(3), C=0.0).fit(X_tgt, y_tgt)
    np.testing.assert_array_equal(exact.coef_, 0.0)
    np.testing.assert_array_equal(exact.potentials(X_src), source.potentials(X_src))
    tiny = DomainTransferSSVM(source, MulticlassProblem(3), C=1e-8).fit(X_tgt, y_tgt)
    assert np.linalg.norm(tiny.coef_) <= 1e-7
    np.testing.assert_allclose(tiny.potentials(X_src), source.potentials(X_src), atol=1e-6)
    np.testing.assert_array_equal(tiny.predict(X_src), source.predict(X_src))


def test_transfer_fits_the_target_labels_better_than_the_source():
    X_src, y_src, X_tgt, y_tgt = _source_and_target()
    source = StructuredSVM(MulticlassProblem(3), C=10.0, epsilon=1e-3).fit(X_src, y_src)
    transfer = DomainTransferSSVM(source, MulticlassProblem(3), C=10.0, epsilon=1e-3).fit(X_tgt, y_tgt)
    assert transfer.score(X_tgt, y_tgt) > source.score(X_tgt, y_tgt)


def test_history_and_attributes():
    X_src, y_src, _, _ = _source_and_target()
    model = StructuredSVM(MulticlassProblem(3), C=5.0, epsilon=1e-3).fit(X_src, y_src)
    h = model.history_
    assert len(h.violation) == model.n_iter_
    np.testing.assert_array_equal(h.working_set_size, np.arange(1, model.n_iter_ + 1))
    assert model.working_set_size_ == model.n_iter_
    assert h.violation[-1] == model.violation_ <= 1e-3 < h.violation[0]
    assert np.all(np.diff(h.objective) >= -1e-6)  # more constraints never lower the QP optimum
    assert model.objective_ == pytest.approx(0.5 * model.coef_ @ model.coef_ + 5.0 * model.slack_)


def test_cvxopt_global_options_untouched():
    before = dict(cvxopt.solvers.options)
    X_src, y_src, _, _ = _source_and_target()
    StructuredSVM(MulticlassProblem(3)).fit(X_src, y_src)
    assert dict(cvxopt.solvers.options) == before


def test_iteration_budget_warns_and_reports_not_converged():
    X_src, y_src, _, _ = _source_and_target()
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        model = StructuredSVM(MulticlassProblem(3), C=10.0, epsilon=1e-6, max_iter=2).fit(X_src, y_src)
    assert not model.converged_ and model.n_iter_ == 2


@pytest.mark.parametrize("features", ["random_fourier", "nystroem"])
def test_kernel_features_separate_what_a_linear_map_cannot(features):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(120, 2))
    y = (np.linalg.norm(X, axis=1) > 0.6).astype(int)  # a disc inside a ring
    linear = StructuredSVM(MulticlassProblem(2), C=50.0, epsilon=1e-3).fit(X, y)
    kernel = StructuredSVM(MulticlassProblem(2, features=features, n_components=60, sigma=0.5),
                           C=50.0, epsilon=1e-3).fit(X, y)
    assert kernel.score(X, y) >= 0.9 > linear.score(X, y) + 0.1


@pytest.mark.parametrize("features", ["random_fourier", "nystroem"])
def test_the_feature_width_is_a_sigma_as_every_kernel_width(features):
    """sigma is the width of exp(-||a - b||^2 / (2 sigma^2)): scikit-learn's gamma = 1 / (2 sigma^2); the
    default sqrt(10) is gamma = 0.05 (to the last bit of the features' gamma but one), "auto" the median
    heuristic on the fit inputs."""
    from covshift.kernels import median_heuristic

    X = np.random.default_rng(1).normal(size=(50, 3))
    problem = MulticlassProblem(2, features=features, n_components=20).fit(X)
    assert problem.embedding_.gamma == pytest.approx(0.05, rel=1e-15)
    assert problem.sigma_ == pytest.approx(np.sqrt(10.0))
    auto = MulticlassProblem(2, features=features, n_components=20, sigma="auto").fit(X)
    assert auto.sigma_ == pytest.approx(median_heuristic(X, random_state=0))
    assert auto.embedding_.gamma == pytest.approx(1 / (2 * auto.sigma_ ** 2))
    for bad in (None, "median", 0.0, True):
        with pytest.raises(ValueError, match="'sigma' parameter of MulticlassProblem must be"):
            MulticlassProblem(2, features=features, sigma=bad).fit(X)


def test_bad_input_gives_plain_value_errors():
    X_src, y_src, X_tgt, y_tgt = _source_and_target()
    source = StructuredSVM(MulticlassProblem(3), C=1.0, epsilon=1e-2).fit(X_src, y_src)
    with pytest.raises(ValueError, match="outside the output set"):
        StructuredSVM(MulticlassProblem(3)).fit(X_src, np.where(y_src == 2, 3, y_src))
    with pytest.raises(ValueError, match="outside the output set"):
        MultilabelProblem(2).check_outputs(np.array([[0, 2]]))
    with pytest.raises(ValueError, match="l >= 1"):
        DomainTransferSSVM(source, MulticlassProblem(3)).fit(np.zeros((0, 2)), np.zeros(0, int))
    X_nan = X_tgt.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DomainTransferSSVM(source, MulticlassProblem(3)).fit(X_nan, y_tgt)
    with pytest.raises(ValueError, match="NaN"):
        StructuredSVM(MulticlassProblem(3)).fit(X_src, np.where(y_src == 2, np.nan, y_src))
    with pytest.raises(ValueError, match="must match"):
        StructuredSVM(MulticlassProblem(3)).fit(X_src, y_src[:-1])
    with pytest.raises(ValueError, match="same output structure"):
        DomainTransferSSVM(source, MulticlassProblem(4)).fit(X_tgt, y_tgt)
    with pytest.raises(ValueError, match="'source_model' parameter of DomainTransferSSVM must be an object implementing 'potentials'"):
        DomainTransferSSVM(object(), MulticlassProblem(3)).fit(X_tgt, y_tgt)
    with pytest.raises(ValueError, match="'C' parameter of StructuredSVM must be .* Got -1.0"):
        StructuredSVM(MulticlassProblem(3), C=-1.0).fit(X_src, y_src)
    with pytest.raises(ValueError, match="'features' parameter of MulticlassProblem must be .* Got 'poly'"):
        StructuredSVM(MulticlassProblem(3, features="poly")).fit(X_src, y_src)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DomainTransferSSVM(source, MulticlassProblem(3)).fit(X_tgt[:1], y_tgt[:1])  # l = 1 is fine


def test_a_frozen_source_model_survives_sklearn_clone():
    from sklearn.base import clone
    from sklearn.frozen import FrozenEstimator

    X_src, y_src, X_tgt, y_tgt = _source_and_target()
    source = StructuredSVM(MulticlassProblem(3), C=10.0, epsilon=1e-3).fit(X_src, y_src)
    model = DomainTransferSSVM(FrozenEstimator(source), MulticlassProblem(3), C=0.0)
    np.testing.assert_array_equal(clone(model).fit(X_tgt, y_tgt).predict(X_src), source.predict(X_src))
