"""Bounded work, one policy (issue 9, item 3): sizes from the time budget, memory refusals."""

import time

import numpy as np
import pytest

from covshift import limits
from teaching import budget

from teaching import catalog
from covshift.regression import GPR, TwinGP
from covshift.regression.tgp import _kernel_block
from covshift.kernels import gaussian_kernel
from covshift.weights import FCFWCS, KLIEP, KMM, EnsembleKMM, LogisticRatio, RuLSIF


def _points(n, d=1, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


# ------------------------------------------------------------------ sizes from the budget
def test_every_catalog_method_has_a_budgeted_size():
    names = set(catalog.WEIGHT_ESTIMATORS) | {n.replace("IW-", "") for n in catalog.REGRESSORS}
    assert names | {budget.SHARED_SIGMA} == set(budget.METHOD_MAX_POINTS)
    assert all(budget.max_points(n) >= budget.SIZE_LADDER[0] for n in catalog.REGRESSORS)
    assert budget.max_points("IW-SMTGP") == budget.max_points("SMTGP")


def test_dataset_slider_maxima_come_from_the_limits():
    for name, (_, params) in catalog.DATASETS.items():
        for size in ("n_tr", "n_te"):
            if size in params:
                default, low, high, _ = params[size]
                assert high == budget.dataset_size_max(name)
                assert low <= default <= high
    assert catalog.DATASETS["digits"][1]["n_tr"][2] <= budget.DIGITS_MAX_TRAIN


def test_the_slowest_selected_method_decides_sizes():
    slow = "SMTGP"
    fast = max(budget.METHOD_MAX_POINTS, key=budget.METHOD_MAX_POINTS.get)
    assert budget.max_points_for([fast, slow]) == budget.max_points(slow) < budget.max_points(fast)
    assert budget.max_points_for([fast]) == budget.max_points(fast)
    assert budget.max_points_for([]) == max(budget.METHOD_MAX_POINTS.values())
    with pytest.raises(ValueError, match=rf"{slow} with .* limited to {budget.max_points(slow)}"):
        budget.check_size([fast, slow], budget.max_points(slow) + 1, 10)
    budget.check_size([fast, slow], budget.max_points(slow), budget.max_points(slow))
    with pytest.raises(ValueError, match="Unknown method"):
        budget.max_points("NOPE")


def test_the_rows_of_an_upload_are_what_every_method_handles_whatever_the_width_rule():
    """The row cap of an upload is one number (issue 38): the slowest method's limit over both width rules, so
    no method is refused on the rows kept and no choice on a page changes them."""
    methods = [name for name in budget.METHOD_MAX_POINTS if name != budget.SHARED_SIGMA]
    assert budget.CSV_MAX_ROWS == min(budget.max_points(name, sigma) for name in methods for sigma in ("auto", 0.3))
    assert budget.CSV_MAX_ROWS >= budget.MIN_POINTS[0]
    for sigma in ("auto", 0.3):  # training and test parts are each at most the whole
        budget.check_size([*methods, *(f"IW-{m}" for m in budget.REGRESSION_MODELS)], budget.CSV_MAX_ROWS,
                          budget.CSV_MAX_ROWS, sigma)


# ------------------------------------------------------------------ memory refusals
def _refuses_fast(fit, *patterns):
    start = time.process_time()  # CPU time: a busy machine does not inflate it as it does wall time
    with pytest.raises(ValueError) as info:
        fit()
    assert time.process_time() - start < 5.0  # refused before allocating or computing
    message = str(info.value)
    for pattern in ["limit of", *patterns]:
        assert pattern in message, message
    return message


def test_kliep_family_memory_is_bounded_by_blocked_atoms_and_checked(monkeypatch):
    from covshift.weights._kliep_problem import DENSE_ATOMS_BYTES, ROW_CACHE_BYTES

    # at 50,000 x 50,000 the atoms (18.6 GiB dense) are computed in blocks: bounded memory
    needed = limits.check_kliep_memory("FCFWCS", None, 50_000, DENSE_ATOMS_BYTES, ROW_CACHE_BYTES)
    assert needed < 0.2 * limits.MEMORY_LIMIT_BYTES
    assert limits.check_kliep_memory("KLIEP", 100, 300, DENSE_ATOMS_BYTES, ROW_CACHE_BYTES) == 2 * 8 * 100 * 300
    # with a lower limit the refusal comes before any allocation and names n_centers
    monkeypatch.setattr(limits, "MEMORY_LIMIT_BYTES", 64 * 1024**2)
    X = _points(50_000)
    _refuses_fast(lambda: FCFWCS(sigma=0.5).fit(X, X), "limit of 64 MiB", "50000 Gaussian centres x 50000",
                  "n_centers")
    with pytest.raises(ValueError, match="n_centers"):
        KLIEP(sigma=0.5, n_centers=None).fit(_points(10), X)


def test_gpr_and_twin_gp_at_20000_refuse_with_their_way_out():
    X, y = _points(20_000), np.zeros(20_000)
    _refuses_fast(lambda: GPR().fit(X, y), "20000 x 20000", "WKNN")
    _refuses_fast(lambda: TwinGP().fit(X, y), "Twin GP kernel systems", "knn")


def test_twin_gp_with_knn_at_20000_needs_no_dense_kernel():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, (20_000, 1))
    y = np.sin(3 * X[:, 0])
    model = TwinGP("kl", rho_x=0.3, rho_y=0.5, lambda_x=1e-3, lambda_y=1e-3, knn=30).fit(X, y)
    assert model.Kx_ is None and model.Ky_ is None
    pred = model.predict(np.array([[0.0], [0.5]]))
    np.testing.assert_allclose(pred, np.sin(3 * np.array([0.0, 0.5])), atol=0.1)


def test_local_kernel_block_equals_the_block_of_the_full_kernel():
    Z = _points(40, d=3)
    idx = np.random.default_rng(1).integers(0, 40, size=(5, 7))
    full = gaussian_kernel(Z, Z, 0.8)
    np.testing.assert_allclose(_kernel_block(None, Z, idx, 0.8), _kernel_block(full, Z, idx, 0.8),
                               rtol=1e-12, atol=1e-14)


def test_kmm_family_refuses_with_vfkmm_as_the_way_out():
    X = _points(20_000)
    _refuses_fast(lambda: EnsembleKMM("ens", sigma=1.0).fit(X, X), "EnsembleKMM('ens')", "strategy='vf'")
    with pytest.raises(ValueError, match="VFKMM"):
        KMM(sigma=1.0).fit(_points(6000), _points(10))
    with pytest.raises(ValueError, match=r"VFKMM"):
        limits.check_kmm_memory("KMM", 6000, 10, "Use VFKMM.")


def test_feature_based_estimators_refuse_with_their_parameter():
    X = _points(20_000)
    _refuses_fast(lambda: RuLSIF(sigma=1.0, lam=0.1, n_centers=5000).fit(X, X), "n_centers")
    _refuses_fast(lambda: LogisticRatio(n_components=20_000).fit(X, X), "n_components")


def test_memory_helpers():
    assert limits.dense_bytes((10, 10), (5,), copies=2) == 2 * 8 * 105
    assert limits.format_bytes(3 * 1024**3) == "3 GiB" and limits.format_bytes(10) == "10 bytes"
    assert limits.check_memory(100, "x", "y") == 100


def test_a_fixed_sigma_has_its_own_limits_for_the_kliep_family_only():
    for name, fixed in budget.METHOD_MAX_POINTS_FIXED_SIGMA.items():
        assert budget.max_points(name, sigma=0.3) == fixed
        assert budget.max_points(name) == budget.METHOD_MAX_POINTS[name]
    assert budget.max_points("GPR", sigma=0.3) == budget.max_points("GPR")
    assert budget.max_points_for(["FCFWCS"], sigma=0.3) == budget.METHOD_MAX_POINTS_FIXED_SIGMA["FCFWCS"]


def test_a_method_over_budget_at_any_size_asks_for_a_fixed_sigma(monkeypatch):
    # a measured limit of 0 (FWCS with sigma "auto" before the solvers were sped up)
    monkeypatch.setitem(budget.METHOD_MAX_POINTS, "FWCS", 0)
    with pytest.raises(ValueError, match="at any size.*fixed sigma"):
        budget.check_size("FWCS", 20, 20)
    budget.check_size("FWCS", 20, 20, sigma=0.3)


def test_kernel_system_models_are_limited_by_their_effective_size():
    """A Twin GP's cost grows as n_tr^3 + n_tr^2 n_te: the digits view (485 training and 1312
    test images) is within SMTGP's equal-size limit, a large training set is not."""
    assert budget.effective_size("IW-SMTGP", 485, 1312) == 676
    budget.check_size("SMTGP", 485, 1312)  # allowed
    with pytest.raises(ValueError, match="SMTGP"):
        budget.check_size("SMTGP", budget.max_points("SMTGP") + 1, 10)
    assert budget.effective_size("KMM", 485, 1312) == 1312  # others: the larger side


def test_kernel_classifiers_refuse_before_the_dense_kernel_features():
    from covshift.classification import IntegratedShiftClassifier, KernelLogisticRegression

    X, y = _points(20_000), np.arange(20_000) % 2
    _refuses_fast(lambda: KernelLogisticRegression().fit(X, y), "20000 training basis points", "kernel='linear'")
    _refuses_fast(lambda: IntegratedShiftClassifier().fit(X[:2000], y[:2000], X),
                  "2000 training and 22000 selector basis points", "random subset")
    # the linear form has no n x n arrays and is not refused
    assert KernelLogisticRegression(kernel="linear").fit(X, y).coef_.shape == (X.shape[1],)


def test_structural_svms_refuse_before_the_joint_features(monkeypatch):
    from covshift.transfer import DomainTransferSSVM, MulticlassProblem, StructuredSVM

    monkeypatch.setattr(limits, "MEMORY_LIMIT_BYTES", 1024**2)
    X, y = _points(2000, d=10), np.arange(2000) % 10
    # Psi is 2000 x (11 x 10) floats, 3 copies: 5.3 MB > 1 MiB
    _refuses_fast(lambda: StructuredSVM(MulticlassProblem(10)).fit(X, y),
                  "StructuredSVM joint features (2000 examples x 110 features)", "n_components")
    source = StructuredSVM(MulticlassProblem(10)).fit(X[:100], y[:100])
    _refuses_fast(lambda: DomainTransferSSVM(source, MulticlassProblem(10)).fit(X, y), "DomainTransferSSVM")


def test_a_refusal_names_faster_methods_of_the_same_kind():
    """A regression model's refusal suggests faster models, a weight estimator's faster weight
    estimators (the regression page used to suggest KLIEP, LogisticRatio, RuLSIF for an SMTGP)."""
    with pytest.raises(ValueError, match=r"limited to 1000 points each\. Use fewer points or a faster model "
                                         r"\(WKNN, IW-GPR, IW-KLTGP\)"):
        budget.check_size("IW-SMTGP", 2000, 2000)
    with pytest.raises(ValueError, match=r"faster weight estimator \(KLIEP, LogisticRatio, RuLSIF\)"):
        budget.check_size("KMM", 3000, 3000)
    with pytest.raises(ValueError, match=r"limited to 10000 points each\. Use fewer points\.$"):
        budget.check_size("WKNN", 20000, 20000)
