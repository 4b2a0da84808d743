"""Issue 37, item 6: the library at the edges. A kernel width so large or small that every weight or prediction
is degenerate gives a NumericalWarning naming the parameter and a finite result, never a bare OverflowError or
NaN; the KLIEP family's solvers honour a size guard beside the memory guard (FWCS on 50 000 points ran 176 s)."""

import time
import warnings

import numpy as np
import pytest

from covshift import limits
from covshift.exceptions import NumericalWarning
from covshift.regression import HSICKNN, KTAKNN
from covshift.weights import AFWCS, FCFWCS, FWCS, KLIEP, PFWCS, ULSIF, RuLSIF


def _toy(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 2))
    return X, np.sin(X[:, 0]) + 0.1 * rng.normal(size=60), rng.normal(0.5, 1.0, size=(30, 2))


def _recorded(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [w for w in caught if issubclass(w.category, NumericalWarning)]


@pytest.mark.parametrize("model", [HSICKNN, KTAKNN])
@pytest.mark.parametrize("rho_x", [1e300, 1e-300])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_kernel_dependence_knn_at_extreme_input_widths_warns_and_stays_finite(model, rho_x, seed):
    X, y, X_te = _toy(seed)
    predictions, caught = _recorded(lambda: model(n_neighbors=10, rho_x=rho_x).fit(X, y).predict(X_te))
    assert np.all(np.isfinite(predictions)) and predictions.shape == (len(X_te),)
    assert caught and f"rho_x={rho_x:.3g}" in str(caught[0].message), [str(w.message) for w in caught]
    _, quiet = _recorded(lambda: model(n_neighbors=10, rho_x=1.0).fit(X, y).predict(X_te))
    assert not quiet  # an ordinary width says nothing


@pytest.mark.parametrize("estimator", [KLIEP, FCFWCS, FWCS, AFWCS, PFWCS, RuLSIF, ULSIF])
def test_a_width_far_above_the_data_gives_uniform_weights_with_a_warning_naming_sigma(estimator):
    X_tr, _, X_te = _toy()
    fitted, caught = _recorded(lambda: estimator(sigma=1e300).fit(X_tr, X_te))
    assert np.all(np.isfinite(fitted.weights_)) and np.allclose(fitted.weights_, 1.0)
    assert any("sigma=1e+300" in str(w.message) and "uniform" in str(w.message) for w in caught), \
        [str(w.message) for w in caught]
    _, quiet = _recorded(lambda: estimator(sigma=1.0).fit(X_tr, X_te))
    assert not [w for w in quiet if "so large" in str(w.message)]


@pytest.mark.parametrize("estimator", [FWCS, FCFWCS, KLIEP])
def test_the_kliep_family_refuses_more_atoms_than_the_size_guard_before_computing(estimator):
    X = np.random.default_rng(0).normal(size=(50_000, 1))
    start = time.process_time()  # CPU time: a busy machine does not inflate it
    with pytest.raises(ValueError, match=r"50000 test points .* size limit .* n_centers=") as info:
        estimator(sigma=0.5, n_centers=None).fit(X, X)
    assert time.process_time() - start < 5.0, str(info.value)
    suggested = int(str(info.value).rsplit("n_centers=", 1)[1].rstrip("."))
    assert limits.check_kliep_size("FWCS", suggested, 50_000) <= limits.MAX_ATOM_ENTRIES
    assert limits.check_kliep_size("FCFWCS", 200, 10**6) <= limits.MAX_ATOM_ENTRIES  # bench/weights.py's large run
