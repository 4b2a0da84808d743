import numpy as np
import pytest
from scipy import stats

from covshift.data import sinc_shift


def test_sinc_shift_shapes_defaults_and_seed():
    data = sinc_shift()
    assert data.X_tr.shape == (500, 1) and data.X_te.shape == (300, 1)
    assert data.Y_tr.shape == (500, 1) and data.Y_te.shape == (300, 1)
    again = sinc_shift()
    np.testing.assert_array_equal(data.X_tr, again.X_tr)
    assert not np.array_equal(data.X_tr, sinc_shift(random_state=1).X_tr)


def test_sinc_shift_true_ratio_is_ratio_of_normal_densities():
    data = sinc_shift(mean_tr=0.5, std_tr=0.5, mean_te=0.0, std_te=0.3)
    x = data.X_tr[:, 0]
    expected = stats.norm(0, 0.3).pdf(x) / stats.norm(0.5, 0.5).pdf(x)
    np.testing.assert_allclose(data.true_weights, expected, rtol=1e-10)
    # E_tr[w] = 1 for a density ratio: check by quadrature.
    grid = np.linspace(-5, 6, 20001)[:, None]
    mass = np.trapezoid(data.density_ratio(grid) * stats.norm(0.5, 0.5).pdf(grid[:, 0]), grid[:, 0])
    assert mass == pytest.approx(1.0, abs=1e-6)


@pytest.mark.parametrize("kwargs", [{"n_tr": 0}, {"std_te": -1.0}, {"noise": -0.1}])
def test_sinc_shift_rejects_bad_parameters(kwargs):
    with pytest.raises(ValueError):
        sinc_shift(**kwargs)
