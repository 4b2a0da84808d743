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


from covshift.data import circle_outputs, digits_center, double_s, s_shape, selection_bias  # noqa: E402


def test_toys_shapes_and_structure():
    toy1 = s_shape()
    assert toy1.X_tr.shape == (250, 1) and toy1.X_te.shape == (250, 1)
    np.testing.assert_allclose(toy1.X_te[:, 0], toy1.Y_te[:, 0] + 0.3 * np.sin(2 * np.pi * toy1.Y_te[:, 0]),
                               atol=0.03)
    toy2 = double_s()
    assert toy2.X_tr.shape == (250, 1) and toy2.X_te.shape == (500, 1)
    assert toy2.Y_tr.min() < -0.9 and toy2.Y_tr.max() > 0.9
    circle = circle_outputs()
    np.testing.assert_allclose(np.linalg.norm(circle.Y_te, axis=1), 1.0, atol=0.15)


def test_shifted_toy_keeps_conditional_and_knows_ratio():
    shifted = s_shape(n_tr=2000, shift=3.0)
    assert shifted.X_tr[:, 0].mean() < s_shape(n_tr=2000).X_tr[:, 0].mean()
    assert shifted.density_ratio is not None and np.all(shifted.true_weights > 0)


def test_selection_bias_protocol_and_true_ratio():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(4000, 2))
    data = selection_bias(X, X[:, :1], random_state=1)
    # training points are closer to the mean than test points
    assert np.linalg.norm(data.X_tr, axis=1).mean() < np.linalg.norm(data.X_te, axis=1).mean()
    # the true ratio reweights training means onto test means (importance sampling identity)
    w = data.true_weights
    np.testing.assert_allclose(np.average(np.abs(data.X_tr), axis=0, weights=w),
                               np.abs(data.X_te).mean(axis=0), rtol=0.1)
    with pytest.raises(ValueError):
        selection_bias(X[:3], X[:3])


def test_digits_center_task():
    data = digits_center()
    assert data.X_tr.shape[1] == 48 and data.Y_tr.shape[1] == 16
    assert data.X_tr.max() <= 1.0 and data.density_ratio is not None
    by_class = digits_center(shift="class")
    assert by_class.density_ratio is None and len(by_class.X_te) > 0
    with pytest.raises(ValueError, match="shift"):
        digits_center(shift="rotation")


def test_selection_bias_with_target_training_size():
    X = np.random.default_rng(2).normal(size=(3000, 20))
    data = selection_bias(X, X[:, :2], n_tr=500, random_state=0)
    assert 430 < len(data.X_tr) < 570
    w = data.true_weights
    np.testing.assert_allclose(np.average(np.linalg.norm(data.X_tr, axis=1), weights=w),
                               np.linalg.norm(data.X_te, axis=1).mean(), rtol=0.05)


# ---------------------------------------------------------------- arm_pose (issue 13)
from covshift.data import arm_forward, arm_pose  # noqa: E402


def test_arm_pose_is_seeded_and_shaped():
    data = arm_pose(n_tr=120, n_te=80, n_distractors=4, random_state=5)
    assert data.X_tr.shape == (120, 6) and data.X_te.shape == (80, 6)
    assert data.Y_tr.shape == (120, 2) and data.Y_te.shape == (80, 2)
    again = arm_pose(n_tr=120, n_te=80, n_distractors=4, random_state=5)
    np.testing.assert_array_equal(data.X_tr, again.X_tr)
    np.testing.assert_array_equal(data.Y_te, again.Y_te)
    assert not np.array_equal(data.X_tr, arm_pose(n_tr=120, n_te=80, n_distractors=4, random_state=6).X_tr)


def test_arm_pose_inputs_are_the_noisy_hand_and_outputs_are_multi_valued():
    data = arm_pose(n_tr=400, n_te=400, noise=0.02, random_state=1)
    residual = data.X_tr[:, :2] - arm_forward(data.Y_tr)
    assert 0.01 < residual.std() < 0.03
    # elbow up and elbow down both occur, and the inverse kinematics have two branches:
    # mirroring the elbow about the shoulder-hand line reaches the same hand.
    assert 0.3 < np.mean(data.Y_tr[:, 1] > 0) < 0.7
    hand = arm_forward(data.Y_tr)
    direction = np.arctan2(hand[:, 1], hand[:, 0])
    mirrored = np.column_stack([2 * direction - data.Y_tr[:, 0], -data.Y_tr[:, 1]])
    np.testing.assert_allclose(arm_forward(mirrored), hand, atol=1e-12)


def test_arm_pose_shift_moves_the_workspace():
    shifted = arm_pose(n_tr=500, n_te=500, shift=3.0, random_state=2)
    assert shifted.X_tr[:, 0].mean() < -0.3 < 0.3 < shifted.X_te[:, 0].mean()
    none = arm_pose(n_tr=50, n_te=50, shift=0.0)
    np.testing.assert_allclose(none.true_weights, 1.0)


@pytest.mark.parametrize("shift", [1.0, 3.0])
def test_arm_pose_true_ratio_integrates_to_one(shift):
    """E_tr[w] = 1 and E_te[1 / w] = 1 by Monte Carlo on large seeded samples (4 standard errors)."""
    data = arm_pose(n_tr=60000, n_te=60000, shift=shift, n_distractors=0, random_state=11)
    for values in [data.density_ratio(data.X_tr), 1.0 / data.density_ratio(data.X_te)]:
        assert abs(values.mean() - 1.0) < 4 * values.std() / np.sqrt(len(values))


def test_arm_pose_ratio_is_the_selection_ratio():
    data = arm_pose(n_tr=30, n_te=30, shift=2.0, noise=0.0)
    x1 = data.X_tr[:, 0]
    q = 0.05 + 0.9 / (1 + np.exp(2.0 * x1))
    Z = 0.5  # the pool is symmetric in x_1 and q(-x) = 1 - q(x)
    np.testing.assert_allclose(data.true_weights, Z * (1 - q) / ((1 - Z) * q), rtol=1e-10)


@pytest.mark.parametrize("kwargs", [{"n_tr": 1}, {"n_te": 0}, {"noise": -0.1}, {"shift": -1.0},
                                    {"n_distractors": -1}])
def test_arm_pose_rejects_bad_parameters(kwargs):
    name = next(iter(kwargs))
    with pytest.raises(ValueError, match=name):
        arm_pose(**kwargs)


# ------------------------------------------------------------------ bad inputs (issue 20, item 5)
def test_selection_bias_on_a_constant_input_says_why_and_what_to_change():
    from covshift.data import selection_bias

    X = np.zeros((100, 2))
    with pytest.raises(ValueError, match=r"left 100 training and 0 test points .*X is constant .*"
                                         r"keeps everything\. Pass inputs that vary, or n_tr"):
        selection_bias(X, np.zeros(100))
    data = selection_bias(X, np.zeros(100), n_tr=50)  # the advertised way out: a plain random split
    assert len(data.X_tr) >= 2 and len(data.X_te) >= 1


@pytest.mark.parametrize("kwargs,name", [({"std_tr": 1e300}, "std_tr"), ({"std_te": 1e31}, "std_te"),
                                         ({"mean_tr": -1e40}, "mean_tr"), ({"noise": 1e300}, "noise")])
def test_sinc_shift_refuses_scales_whose_outputs_overflow(kwargs, name):
    """std_tr=1e300 returned inf outputs with numpy's overflow RuntimeWarning only."""
    with pytest.raises(ValueError, match=rf"{name}=.* is too large: .* at most 1e\+30"):
        sinc_shift(**kwargs)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the largest accepted scale: finite, silent, within the estimators' range
        data = sinc_shift(**{name: 1e30 if name.startswith(("std", "noise")) else -1e30})
    assert all(np.all(np.isfinite(a)) and np.max(np.abs(a)) <= 1e100 for a in (data.X_tr, data.Y_tr,
                                                                                data.X_te, data.Y_te))


def test_a_tiny_test_std_gives_the_limit_ratio_silently():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weights = sinc_shift(std_te=1e-300).true_weights
    assert np.all(np.isfinite(weights))


@pytest.mark.parametrize("toy", ["s_shape", "double_s"])
def test_a_shift_that_keeps_one_training_point_is_refused_by_name(toy):
    from covshift import data

    with pytest.raises(ValueError, match=r"shift=1e\+06 kept 1 of .* Use a smaller shift"):
        getattr(data, toy)(shift=1e6)
