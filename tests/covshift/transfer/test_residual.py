"""The regression analogue of the delta function (moved from covshift.regression)."""

import numpy as np
import pytest

from covshift.regression import GPR
from covshift.transfer import ResidualDeltaRegressor


def test_residual_delta_moves_towards_target_labels():
    rng = np.random.default_rng(0)
    X_src = rng.uniform(-2, 0, (60, 1))
    X_tgt = rng.uniform(0, 2, (8, 1))
    f = lambda x: np.sin(2 * x[:, 0])  # noqa: E731
    base = GPR(rho_x=0.5, lambda_x=0.01)
    X_eval = np.linspace(0, 2, 30)[:, None]
    plain = base.fit(X_src, f(X_src)).predict(X_eval)
    adapted = ResidualDeltaRegressor(base, C=100.0).fit(X_src, f(X_src), X_tgt, f(X_tgt)).predict(X_eval)
    assert np.mean(np.abs(adapted - f(X_eval))) < 0.5 * np.mean(np.abs(plain - f(X_eval)))
    tiny_c = ResidualDeltaRegressor(base, C=1e-9).fit(X_src, f(X_src), X_tgt, f(X_tgt)).predict(X_eval)
    np.testing.assert_allclose(tiny_c, plain, atol=1e-6)  # C -> 0: no adaptation


def test_residual_delta_rejects_mismatched_dimensions():
    with pytest.raises(ValueError, match="same input and output"):
        ResidualDeltaRegressor(GPR()).fit(np.zeros((5, 1)), np.zeros(5), np.zeros((3, 2)), np.zeros(3))
