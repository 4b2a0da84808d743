import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import cdist, pdist

from covshift.kernels import gaussian_kernel, median_heuristic, squared_distances


def test_gaussian_kernel_matches_direct_formula():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(7, 3)), rng.normal(size=(5, 3))
    expected = np.exp(-cdist(A, B, "sqeuclidean") / (2 * 0.7**2))
    np.testing.assert_allclose(gaussian_kernel(A, B, 0.7), expected, rtol=1e-12, atol=1e-15)


def test_sklearn_gamma_mapping():
    from sklearn.metrics.pairwise import rbf_kernel

    rng = np.random.default_rng(1)
    A = rng.normal(size=(6, 4))
    sigma = 1.3
    np.testing.assert_allclose(gaussian_kernel(A, A, sigma), rbf_kernel(A, A, gamma=1 / (2 * sigma**2)))


finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)


@settings(max_examples=50, deadline=None)
@given(arrays(np.float64, (6, 2), elements=finite))
def test_squared_distances_non_negative_with_zero_diagonal(X):
    D = squared_distances(X, X)
    assert np.all(D >= 0)
    np.testing.assert_allclose(np.diag(D), 0.0, atol=1e-6 * (1 + np.abs(X).max() ** 2))
    K = gaussian_kernel(X, X, 1.0)
    assert np.all((K >= 0) & (K <= 1))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 40), st.integers(1, 6), st.floats(-3, 3), st.integers(0, 2**32 - 1),
       st.sampled_from(["A, B", "A, A", "A, copy of A", "Fortran A, B", "strided A, B"]))
def test_squared_distances_are_scikit_learns_to_the_last_bit(n, m, d, log_scale, seed, pair):
    """The float64 path of squared_distances (issue 40: no argument checks) gives exactly scikit-learn's
    euclidean_distances(squared=True), including the zero diagonal when both arguments are one array."""
    from sklearn.metrics.pairwise import euclidean_distances

    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(n, d)) * 10.0**log_scale, rng.normal(size=(m, d)) * 10.0**log_scale
    A, B = {"A, B": (A, B), "A, A": (A, A), "A, copy of A": (A, A.copy()), "Fortran A, B": (np.asfortranarray(A), B),
            "strided A, B": (np.repeat(A, 2, axis=0)[::2], B)}[pair]
    assert np.array_equal(squared_distances(A, B), euclidean_distances(A, B, squared=True))


def test_squared_distances_of_other_inputs_go_through_scikit_learn():
    """Lists, float32 and mismatched widths take scikit-learn's path: its numbers and its refusal."""
    from sklearn.metrics.pairwise import euclidean_distances

    A32 = np.arange(6, dtype=np.float32).reshape(3, 2)
    assert np.array_equal(squared_distances(A32, A32[:2]), euclidean_distances(A32, A32[:2], squared=True))
    assert np.array_equal(squared_distances([[0.0], [3.0]], [[1.0]]), [[1.0], [4.0]])
    with pytest.raises(ValueError, match="Incompatible dimension"):
        squared_distances(np.zeros((2, 2)), np.zeros((2, 3)))


def test_median_heuristic_is_median_pairwise_distance():
    X = np.random.default_rng(2).normal(size=(40, 3))
    assert median_heuristic(X) == pytest.approx(np.median(pdist(X)), rel=1e-10)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 3)),
              elements=st.floats(-1e3, 1e3, allow_nan=False).map(lambda v: round(v, 1))))
def test_median_heuristic_is_exactly_numpys_median_of_the_positive_distances(X):
    # one partition at the upper middle and the largest value below it (issue 40) instead of np.median: the same
    # number, odd and even counts, duplicates
    distances = pdist(X)
    positive = distances[distances > 0]
    assert median_heuristic(X) == (float(np.median(positive)) if positive.size else 1.0)


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(1, 400), elements=st.floats(1e-300, 1e300) | st.sampled_from([1.0, 2.0, 1e-3])))
def test_median_in_place_is_numpys_median_to_the_last_bit(values):
    from covshift.kernels import _median_in_place

    assert _median_in_place(values.copy()) == float(np.median(values))


def test_median_heuristic_constant_data_falls_back_to_one():
    assert median_heuristic(np.ones((5, 2))) == 1.0


@pytest.mark.parametrize("sigma", [0, -1.0, np.nan, np.inf, "wide"])
def test_bad_sigma_is_a_value_error(sigma):
    with pytest.raises(ValueError, match="sigma"):
        gaussian_kernel(np.ones((2, 1)), np.ones((2, 1)), sigma)


def test_mismatched_features_are_a_value_error():
    with pytest.raises(ValueError, match="same number of features"):
        gaussian_kernel(np.ones((2, 1)), np.ones((2, 2)), 1.0)


def test_row_scale_and_blocked_column_means():
    from covshift.kernels import kernel_column_means

    rng = np.random.default_rng(3)
    A, B = rng.normal(size=(2500, 2)), rng.normal(size=(40, 2))
    c = rng.uniform(0.5, 2.0, 2500)
    np.testing.assert_allclose(gaussian_kernel(A, B, 0.9, row_scale=c), c[:, None] * gaussian_kernel(A, B, 0.9),
                               rtol=1e-12)
    np.testing.assert_allclose(kernel_column_means(A, B, 0.9, block=700), gaussian_kernel(A, B, 0.9).mean(axis=0),
                               rtol=1e-12)


def test_pivoted_cholesky_bounds_every_entry_of_the_kernel():
    from covshift.kernels import pivoted_cholesky

    X = np.random.default_rng(3).normal(size=(200, 2))
    K = gaussian_kernel(X, X, 1.5)
    L, residual = pivoted_cholesky(X, 1.5, 1e-10, 200)
    assert len(L) < 100 and residual <= 1e-10
    # K - L'L is positive semidefinite, so its largest diagonal bounds every entry
    assert np.max(np.abs(K - L.T @ L)) <= residual + 1e-13
    assert np.min(np.linalg.eigvalsh(K - L.T @ L)) >= -1e-12
    # a looser tolerance stops earlier with a larger (still bounding) residual
    L_loose, residual_loose = pivoted_cholesky(X, 1.5, 1e-3, 200)
    assert len(L_loose) < len(L) and 1e-10 < residual_loose <= 1e-3
    assert np.max(np.abs(K - L_loose.T @ L_loose)) <= residual_loose + 1e-13


def test_pivoted_cholesky_gives_up_when_the_kernel_is_not_of_low_rank(monkeypatch):
    from covshift import kernels

    X = np.random.default_rng(4).normal(size=(100, 8))  # narrow kernel in 8-D: K is near the identity
    columns = []
    column = kernels.gaussian_kernel
    monkeypatch.setattr(kernels, "gaussian_kernel", lambda *a, **k: columns.append(1) or column(*a, **k))
    assert kernels.pivoted_cholesky(X, 0.3, 1e-12, 30) is None
    assert len(columns) == 15  # the forecast at max_rank / 2 pivots gives up
    L, residual = kernels.pivoted_cholesky(X, 0.3, 1e-12, 100)  # rank n always reaches any tolerance
    assert residual <= 1e-12 and len(L) <= 100
