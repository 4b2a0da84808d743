"""DomainTransferSSVM(C="auto"): C chosen by cross-validation over a grid that starts at the source model.

Checked: the grid and the rule of :func:`choose_C` on hand-made losses, the held-out losses
against fits written out fold by fold, the folds, the warm-started path, the cost in QP solves,
parameter checks, and on the digits that "auto" is never clearly below the source model and
stays ahead of a model trained on the target labels alone.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from covshift.transfer import DomainTransferSSVM, MulticlassProblem, MultilabelProblem, StructuredSVM
from covshift.transfer import _working_set, ssvm
from covshift.transfer.data import digits_transfer, draw_labelled


def _source_and_target(seed=0, l=12):
    """Three Gaussian classes; the target is the source rotated by 90 degrees (a strong shift)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3, size=(3, 2))
    y_src = rng.integers(0, 3, size=60)
    X_src = centres[y_src] + rng.normal(size=(60, 2))
    y_tgt = rng.integers(0, 3, size=l)
    X_tgt = centres[y_tgt] @ np.array([[0, -1], [1, 0]]) + rng.normal(size=(l, 2))
    return X_src, y_src, X_tgt, y_tgt


@pytest.fixture(scope="module")
def toy():
    X_src, y_src, X_tgt, y_tgt = _source_and_target()
    source = StructuredSVM(MulticlassProblem(3), C=10.0, epsilon=1e-3).fit(X_src, y_src)
    return source, X_src, X_tgt, y_tgt


def test_auto_is_the_default_and_is_stored_unchanged(toy):
    source = toy[0]
    model = DomainTransferSSVM(source, MulticlassProblem(3))
    assert model.C == "auto" and model.get_params()["C"] == "auto"
    assert clone(DomainTransferSSVM(source, MulticlassProblem(3), C=0.5)).C == 0.5


def test_the_grid_starts_at_the_source_model(toy):
    source, X_src, X_tgt, y_tgt = toy
    grid = np.array(ssvm.AUTO_C_GRID)
    assert grid[0] == 0.0 and np.all(np.diff(grid) > 0)
    at_source = DomainTransferSSVM(source, MulticlassProblem(3), C=grid[0]).fit(X_tgt, y_tgt)
    np.testing.assert_array_equal(at_source.coef_, 0.0)
    np.testing.assert_array_equal(at_source.predict(X_src), source.predict(X_src))
    np.testing.assert_array_equal(at_source.predict(X_tgt), source.predict(X_tgt))


def test_auto_keeps_a_grid_C_and_refits_there_on_all_labels(toy):
    source, _, X_tgt, y_tgt = toy
    model = DomainTransferSSVM(source, MulticlassProblem(3)).fit(X_tgt, y_tgt)
    np.testing.assert_array_equal(model.C_grid_, ssvm.AUTO_C_GRID)
    assert model.C_ in model.C_grid_
    assert model.C_ == model.C_grid_[ssvm.choose_C(model.cv_losses_)]
    assert model.cv_losses_.shape == (len(ssvm.AUTO_C_GRID), len(y_tgt))
    np.testing.assert_allclose(model.cv_scores_, 1.0 - model.cv_losses_.mean(axis=1))
    assert model.n_folds_ == 5
    # The target is the source rotated by 90 degrees: the labels support a delta.
    assert model.C_ > 0 and model.cv_scores_[model.C_grid_ == model.C_][0] > model.cv_scores_[0]
    # The final fit is the fit with that number given as C (same seed, same data).
    fixed = DomainTransferSSVM(source, MulticlassProblem(3), C=model.C_).fit(X_tgt, y_tgt)
    np.testing.assert_array_equal(model.coef_, fixed.coef_)
    assert model.n_iter_ == fixed.n_iter_


def test_held_out_losses_are_those_of_fits_on_the_other_folds(toy, monkeypatch):
    """cv_losses_[j, i] = L(y_i, argmax_y f_S(x_i, y) + w_{-k(i)}(C_j)' Psi(x_i, y)), with w_{-k}
    fitted on the folds other than x_i's, written out here fold by fold with cold fits."""
    source, _, X_tgt, y_tgt = toy
    monkeypatch.setattr(ssvm, "AUTO_EPSILON", 0.0)  # the warm path then stops where cold fits do
    eps = 1e-6
    model = DomainTransferSSVM(source, MulticlassProblem(3), epsilon=eps).fit(X_tgt, y_tgt)
    folds = ssvm.cv_folds(y_tgt, np.random.default_rng(0))  # drawn first from the seed
    expected = np.zeros_like(model.cv_losses_)
    for j, C in enumerate(ssvm.AUTO_C_GRID):
        for k in range(folds.max() + 1):
            held = folds == k
            fit = DomainTransferSSVM(source, MulticlassProblem(3), C=C, epsilon=eps).fit(X_tgt[~held], y_tgt[~held])
            expected[j, held] = fit.predict(X_tgt[held]) != y_tgt[held]
    np.testing.assert_array_equal(model.cv_losses_, expected)
    # row 0 is the source model's own loss on the labelled examples
    np.testing.assert_array_equal(model.cv_losses_[0], source.predict(X_tgt) != y_tgt)


def test_held_out_hamming_losses_for_multilabel_outputs():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 3))
    Y = (X @ rng.normal(size=(3, 2)) > 0).astype(int)
    source = StructuredSVM(MultilabelProblem(2), C=1.0).fit(X[:20], 1 - Y[:20])  # the wrong way round
    model = DomainTransferSSVM(source, MultilabelProblem(2)).fit(X[20:], Y[20:])
    np.testing.assert_allclose(model.cv_losses_[0], np.mean(source.predict(X[20:]) != Y[20:], axis=1))
    assert set(np.unique(model.cv_losses_)) <= {0.0, 0.5, 1.0}
    assert model.C_ in model.C_grid_


def test_choose_C_on_hand_made_losses():
    # the lowest mean loss wins, the smaller C on a tie
    losses = np.array([[1, 1, 1, 0, 0, 0], [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]], float)
    assert ssvm.choose_C(losses) == 2
    # one example more right than the source model is not enough: gain 1/l = its standard error
    assert ssvm.choose_C(np.array([[1, 0, 0, 0, 0], [0, 0, 0, 0, 0]], float)) == 0
    # two more right, none more wrong: mean gain 0.4 > sd / sqrt(5) = 0.245
    assert ssvm.choose_C(np.array([[1, 1, 0, 0, 0], [0, 0, 0, 0, 0]], float)) == 1
    # two gained, one lost, l = 6: mean gain 1/6 < sd(d) / sqrt(6) = 0.307
    assert ssvm.choose_C(np.array([[1, 1, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0]], float)) == 0
    # the source model itself best: kept
    assert ssvm.choose_C(np.array([[0, 0, 0, 1], [1, 1, 0, 1]], float)) == 0
    # l = 1: nothing was held out
    assert ssvm.choose_C(np.full((3, 1), np.nan)) == 0


@pytest.mark.parametrize("seed", range(5))
def test_choose_C_is_the_paired_one_standard_error_rule(seed):
    rng = np.random.default_rng(seed)
    losses = rng.integers(0, 2, size=(5, 15)).astype(float)
    losses[0] = 1.0 - (rng.random(15) < 0.3)  # a source model that is often wrong
    mean = losses.mean(axis=1)
    best = int(np.argmin(mean))  # np.argmin returns the first, i.e. the smallest C, on a tie
    d = losses[0] - losses[best]
    expected = best if d.mean() > np.sqrt(np.sum((d - d.mean()) ** 2) / 14) / np.sqrt(15) else 0
    assert ssvm.choose_C(losses) == expected


def test_one_label_keeps_the_source_model(toy):
    source, X_src, X_tgt, y_tgt = toy
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = DomainTransferSSVM(source, MulticlassProblem(3)).fit(X_tgt[:1], y_tgt[:1])
    assert model.C_ == 0.0 and np.all(np.isnan(model.cv_scores_))
    np.testing.assert_array_equal(model.predict(X_src), source.predict(X_src))


def test_folds_leave_one_out_for_few_labels_then_five_stratified():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 10, size=4)
    np.testing.assert_array_equal(np.sort(ssvm.cv_folds(y, rng)), np.arange(4))
    for y in (rng.integers(0, 10, size=23), np.repeat([0, 1, 2], [12, 7, 4]), rng.integers(0, 2, size=(17, 4))):
        folds = ssvm.cv_folds(y, rng)
        assert set(folds) == set(range(5))
        sizes = np.bincount(folds)
        assert sizes.max() - sizes.min() <= 1
        keys = np.unique(y.reshape(len(y), -1), axis=0, return_inverse=True)[1].ravel()
        for key in np.unique(keys):  # every output value spread over the folds as evenly as it can be
            per_fold = np.bincount(folds[keys == key], minlength=5)
            assert per_fold.max() - per_fold.min() <= 1


def test_a_warm_started_fit_reaches_the_cold_optimum(toy):
    source, _, X_tgt, y_tgt = toy
    problem = MulticlassProblem(3).fit(X_tgt)
    Z, offset = problem.embed(X_tgt), source.potentials(X_tgt)
    small = _working_set.cutting_plane(problem, Z, y_tgt, offset, 0.1, 1e-6, 1000, np.random.default_rng(0))
    warm = _working_set.cutting_plane(problem, Z, y_tgt, offset, 10.0, 1e-6, 1000, np.random.default_rng(1),
                              warm_start=small.working_set)
    cold = _working_set.cutting_plane(problem, Z, y_tgt, offset, 10.0, 1e-6, 1000, np.random.default_rng(1))
    assert warm.converged and cold.converged
    # Both are within C epsilon of the optimum of eq. (2): objectives and w agree to that accuracy
    # (strong convexity: ||w - w*||^2 <= 2 C epsilon).
    assert abs(warm.objective - cold.objective) <= 10.0 * 1e-6 + 1e-9
    assert np.sum((warm.coef - cold.coef) ** 2) <= 4 * 2 * 10.0 * 1e-6
    assert len(warm.working_set[1]) == len(small.working_set[1]) + warm.n_iter - 1  # it kept the old set


def test_bad_C_values_are_refused_by_name(toy):
    source, _, X_tgt, y_tgt = toy
    for bad in (-1, "abc", "AUTO", float("nan"), float("inf"), True, None, [1.0], 1 + 1j):
        with pytest.raises(ValueError, match=r"'C' parameter of DomainTransferSSVM must be .*\[0.0, inf\) or .*'auto'"):
            DomainTransferSSVM(source, MulticlassProblem(3), C=bad).fit(X_tgt, y_tgt)
    with pytest.raises(ValueError, match=r"'C' parameter of StructuredSVM must be .*\[0.0, inf\)\. Got 'auto'"):
        StructuredSVM(MulticlassProblem(3), C="auto").fit(X_tgt, y_tgt)
    for bad in (-1, 1.5, "0"):
        with pytest.raises(ValueError, match="random_state"):
            DomainTransferSSVM(source, MulticlassProblem(3), random_state=bad).fit(X_tgt, y_tgt)


def test_a_number_as_C_is_fitted_as_given(toy):
    source, _, X_tgt, y_tgt = toy
    model = DomainTransferSSVM(source, MulticlassProblem(3), C=np.float64(2.0)).fit(X_tgt, y_tgt)
    assert model.C_ == 2.0 and model.n_folds_ == 0
    np.testing.assert_array_equal(model.C_grid_, [2.0])
    assert model.cv_losses_.shape == (1, len(y_tgt)) and np.all(np.isnan(model.cv_scores_))


def _count_qp_solves(monkeypatch):
    calls = []
    original = _working_set.solve_working_set

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_working_set, "solve_working_set", counted)
    return calls


@pytest.fixture(scope="module")
def digits_sources():
    """Source models on the digits, as the app and bench/transfer.py fit them."""
    out = {}
    for shift in ("blur", "thicken+rotate"):
        data = digits_transfer(shift=shift, random_state=0)
        out[shift] = data, StructuredSVM(MulticlassProblem(10), C=10.0, epsilon=1e-2).fit(data.X_source, data.y_source)
    return out


def test_the_search_costs_a_few_fits(digits_sources, monkeypatch):
    """Every fold walks the grid with warm starts for at most the QP solves of one fit at the
    largest C on all l labels, so the search and the final fit cost at most n_folds + 1 such fits."""
    data, source = digits_sources["thicken+rotate"]
    calls = _count_qp_solves(monkeypatch)
    for seed in range(3):
        idx = draw_labelled(len(data.y_pool), 20, random_state=seed)
        del calls[:]
        X, y = data.X_pool[idx], data.y_pool[idx]
        DomainTransferSSVM(source, MulticlassProblem(10), C=max(ssvm.AUTO_C_GRID)).fit(X, y)
        one_fit = len(calls)
        del calls[:]
        model = DomainTransferSSVM(source, MulticlassProblem(10)).fit(X, y)
        assert len(calls) <= (model.n_folds_ + 1) * one_fit, (len(calls), one_fit)


def test_tiny_C_on_the_digits_is_the_source_model(digits_sources):
    data, source = digits_sources["blur"]
    idx = draw_labelled(len(data.y_pool), 20, random_state=0)
    for C in (0.0, 1e-8):
        model = DomainTransferSSVM(source, MulticlassProblem(10), C=C).fit(data.X_pool[idx], data.y_pool[idx])
        np.testing.assert_array_equal(model.predict(data.X_test), source.predict(data.X_test))


@pytest.mark.slow
@pytest.mark.parametrize("shift, l", [("blur", 10), ("blur", 20), ("thicken+rotate", 20)])
def test_auto_is_never_clearly_below_the_source_and_ahead_of_target_only(digits_sources, shift, l):
    """Over 10 draws of the l labelled target digits (paired: every method sees the same draw),
    on a mild shift (blur, the source model keeps 0.86) and a strong one (thicker strokes rotated
    by 15 degrees, 0.21): the mean accuracy gain of C="auto" over the source model is not below
    minus two standard errors of the paired differences (not clearly below), and the mean gain
    over a structural SVM trained on the l labels alone (at the bench's C = 10) is positive."""
    data, source = digits_sources[shift]
    source_acc = source.score(data.X_test, data.y_test)
    auto, target_only = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a fit that runs out of iterations would make this unfair
        for seed in range(10):
            idx = draw_labelled(len(data.y_pool), l, random_state=seed)
            X, y = data.X_pool[idx], data.y_pool[idx]
            auto.append(DomainTransferSSVM(source, MulticlassProblem(10)).fit(X, y).score(data.X_test, data.y_test))
            target_only.append(StructuredSVM(MulticlassProblem(10), C=10.0).fit(X, y).score(data.X_test, data.y_test))
    over_source = np.array(auto) - source_acc
    over_target = np.array(auto) - np.array(target_only)
    standard_error = over_source.std(ddof=1) / np.sqrt(len(over_source))
    assert over_source.mean() >= -2 * standard_error, (over_source.mean(), standard_error)
    assert over_target.mean() > 0, over_target
