"""The Twin GP's fixed-order products (covshift.regression._row_products.rows_times): every entry one fused
multiply-add chain over k in order, whatever the shape and the entry's place in its tile, so a row's numbers are
those of the row alone."""

from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from covshift.regression._row_products import rows_times


def _fma_chain(a, b):
    """sum_k a_k b_k as fma(a_K-1, b_K-1, ... fma(a_0, b_0, 0.0)), each step rounded once (exact rational
    arithmetic, then float's correct rounding)."""
    total = 0.0
    for x, y in zip(a, b):
        total = float(Fraction(x) * Fraction(y) + Fraction(total))
    return total


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), shape=st.tuples(st.integers(0, 19), st.integers(0, 13), st.integers(0, 70)),
       zeros=st.booleans())
def test_every_entry_is_one_fused_chain_in_order_and_a_row_alone_is_the_same(seed, shape, zeros):
    # 0-19 rows: tiles of eight, then of four and three, a last one or two rows; 0-70 columns: under one vector (8),
    # the wide strips of every tile (24, 32, 64 columns) and the last strip that ends at the last column
    M, K, N = shape
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(M, K)) * 10.0 ** rng.integers(-6, 7, size=(M, 1))
    B = rng.normal(size=(K, N))
    if zeros:
        A[rng.random(A.shape) < 0.3] = 0.0
    product = rows_times(A, B)
    expected = np.array([[_fma_chain(A[m], B[:, n]) for n in range(N)] for m in range(M)]).reshape(M, N)
    np.testing.assert_array_equal(product, expected)
    for m in range(M):
        np.testing.assert_array_equal(rows_times(A[m:m + 1], B), product[m:m + 1])
