"""One kernel-width vocabulary in the library: every width is a number or "auto" (issue 38).

"auto" is each estimator's documented rule; None, "median" or other text is refused with a ValueError
naming the parameter; the default of every width parameter is "auto".
"""

import inspect
import pathlib
import re

import numpy as np
import pytest

from covshift import (AFWCS, FCFWCS, FWCS, KLIEP, KMM, PFWCS, EnsembleKMM, LogisticRatio, RuLSIF, ULSIF, data)
from covshift.classification import IntegratedShiftClassifier, KernelLogisticRegression
from covshift.kernels import median_heuristic
from covshift.regression import GPR
from covshift.transfer import ResidualDeltaRegressor

LIBRARY = pathlib.Path(__file__).resolve().parents[2] / "covshift"
WEIGHTS = [KLIEP, FWCS, AFWCS, PFWCS, FCFWCS, KMM, EnsembleKMM, LogisticRatio, RuLSIF, ULSIF]
CLASSIFIERS = [KernelLogisticRegression, IntegratedShiftClassifier]


@pytest.mark.parametrize("cls", WEIGHTS + CLASSIFIERS)
def test_every_width_defaults_to_auto(cls):
    assert inspect.signature(cls).parameters["sigma"].default == "auto"


def test_residual_width_defaults_to_auto():
    assert inspect.signature(ResidualDeltaRegressor).parameters["rho"].default == "auto"


@pytest.mark.parametrize("cls", WEIGHTS)
@pytest.mark.parametrize("bad", [None, "median", "Auto", "0.3"])
def test_a_width_is_a_number_or_auto(cls, bad):
    shift = data.sinc_shift(n_tr=30, n_te=20, random_state=0)
    with pytest.raises(ValueError, match="sigma"):
        cls(sigma=bad).fit(shift.X_tr, shift.X_te)


@pytest.mark.parametrize("cls", [KMM, LogisticRatio])
def test_auto_is_the_median_heuristic_where_documented(cls):
    shift = data.sinc_shift(n_tr=60, n_te=40, random_state=0)
    auto = cls().fit(shift.X_tr, shift.X_te)
    median = median_heuristic(np.vstack([shift.X_tr, shift.X_te]), random_state=0)
    assert auto.sigma_ == pytest.approx(median)
    explicit = cls(sigma=median).fit(shift.X_tr, shift.X_te)
    np.testing.assert_allclose(auto.weights_, explicit.weights_)


def test_classifier_and_residual_widths_refuse_none():
    X = np.random.default_rng(0).normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(ValueError, match="sigma"):
        KernelLogisticRegression(sigma=None).fit(X, y)
    with pytest.raises(ValueError, match="rho"):
        ResidualDeltaRegressor(GPR(), rho=None).fit(X, X[:, :1], X[:5], X[:5, :1])


def test_no_width_sentinel_in_the_library():
    """No width defaults to None and no "median" spelling is left in covshift/."""
    pattern = re.compile(r"\b(sigma|rho)\s*=\s*None\b|sigma\s*==\s*\"median\"|sigma=\"median\"")
    hits = [f"{path.relative_to(LIBRARY)}:{n}" for path in LIBRARY.rglob("*.py")
            for n, line in enumerate(path.read_text().splitlines(), 1) if pattern.search(line)]
    assert not hits, hits
