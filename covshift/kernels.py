"""Gaussian kernel and the median heuristic.

One parametrisation everywhere: k(a, b) = exp(-||a - b||^2 / (2 sigma^2)).
Papers that write the bandwidth as ``2 rho^2 = c`` mean sigma = sqrt(c / 2);
scikit-learn's ``gamma`` is 1 / (2 sigma^2).
"""

import numpy as np
from scipy.spatial.distance import pdist
from sklearn.metrics.pairwise import euclidean_distances

from ._validation import as_2d_float, as_generator, check_positive, is_dask_array


def squared_distances(A, B):
    """Pairwise squared Euclidean distances ``||a||^2 + ||b||^2 - 2 a.b``, clipped at 0.

    scikit-learn's ``euclidean_distances(A, B, squared=True)``: exactly 0 on the diagonal when A is
    B. The only array of size n x m is the output. Two 2-D float64 ndarrays (what the library's
    kernels pass, checked already) take scikit-learn's own float64 arithmetic here, step for step
    (the same numbers), without its checks of the arguments and the arrays (~0.1-0.4 ms a call,
    most of it looking for data-frame types; a likelihood cross-validation of sigma and a lesson's
    eight estimators make ~20 calls, issue 40); anything else goes through scikit-learn.

    Parameters
    ----------
    A : array-like of shape (n, d)
        First points.
    B : array-like of shape (m, d)
        Second points.

    Returns
    -------
    ndarray of shape (n, m)
        The squared distances.
    """
    if not (_plain_float64(A) and _plain_float64(B) and A.shape[1] == B.shape[1]):
        return euclidean_distances(A, B, squared=True)
    # sklearn.metrics.pairwise._euclidean_distances for float64, with row_norms' einsum
    A_norms = np.einsum("ij,ij->i", A, A)[:, None]
    B_norms = A_norms.T if B is A else np.einsum("ij,ij->i", B, B)[None, :]
    distances = -2 * (A @ B.T)
    distances += A_norms
    distances += B_norms
    np.maximum(distances, 0.0, out=distances)
    if B is A:
        np.fill_diagonal(distances, 0.0)
    return distances


def _plain_float64(X):
    return type(X) is np.ndarray and X.dtype == np.float64 and X.ndim == 2


def gaussian_kernel(A, B, sigma, row_scale=None):
    """Gaussian kernel matrix K[i, j] = exp(-``||A_i - B_j||^2`` / (2 sigma^2)).

    Built in place in one float64 array of shape (len(A), len(B)): the expansion
    trick, then an in-place scale and exp (no temporaries of that size).

    Parameters
    ----------
    A : array-like of shape (n, d)
        Rows of the kernel.
    B : array-like of shape (m, d)
        Columns of the kernel.
    sigma : float > 0
        Kernel width.
    row_scale : ndarray of shape (n,), optional
        Positive factors c_i: returns c_i K[i, j], folded into the exponent (no extra pass).

    Returns
    -------
    ndarray of shape (n, m)
        K.

    Examples
    --------
    >>> import numpy as np
    >>> from covshift.kernels import gaussian_kernel
    >>> K = gaussian_kernel(np.zeros((2, 1)), np.array([[0.0], [1.0]]), sigma=1.0)
    >>> K.shape, float(K[0, 0]), round(float(K[0, 1]), 4)
    ((2, 2), 1.0, 0.6065)
    """
    sigma = check_positive(sigma, "sigma (kernel width)")
    A = as_2d_float(A, "A")
    B = as_2d_float(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"Kernel inputs need the same number of features; got {A.shape[1]} and {B.shape[1]}."
        )
    K = squared_distances(A, B)
    scaled_exponent(K, sigma)
    if row_scale is not None:
        K += np.log(row_scale)[:, None]
    np.exp(K, out=K)
    return K


#: Widths whose square (and its reciprocal) is a normal float64 with room to spare.
_SAFE_WIDTH = (1e-100, 1e100)


def scaled_exponent(d2, sigma):
    """In place: d2 <- -d2 / (2 sigma^2), the Gaussian kernel exponent, for any sigma > 0.

    For sigma in [1e-100, 1e100] one multiplication; outside, sigma**2 would underflow to 0
    or overflow to inf (and 0 * inf = NaN at zero distance), so the exponent is formed as
    -(sqrt(d2) / sigma)^2 / 2 instead: zero distances give 0 (k = 1) and the others
    saturate at -inf (k = 0) or 0 (k = 1), as the kernel does in the limit.

    Parameters
    ----------
    d2 : ndarray
        Squared distances, overwritten.
    sigma : float > 0
        Kernel width.

    Returns
    -------
    ndarray
        ``d2`` itself.
    """
    scale = exponent_scale(sigma)
    with np.errstate(over="ignore", under="ignore"):
        if scale is not None:
            d2 *= scale
        else:
            np.sqrt(d2, out=d2)
            d2 /= sigma
            np.square(d2, out=d2)
            d2 *= -0.5
    return d2


def exponent_scale(sigma):
    """The factor -1 / (2 sigma^2) by which :func:`scaled_exponent` multiplies squared distances, or None for a
    width outside [1e-100, 1e100], where it forms the exponent another way.

    Parameters
    ----------
    sigma : float > 0
        Kernel width.

    Returns
    -------
    float or None
        -0.5 / sigma^2, or None.
    """
    return -0.5 / (sigma * sigma) if _SAFE_WIDTH[0] <= sigma <= _SAFE_WIDTH[1] else None


def gaussian_from_squared_distances(d2, sigma):
    """exp(-d2 / (2 sigma^2)) of an array of squared distances (a new array), safe for any sigma.

    Parameters
    ----------
    d2 : array-like
        Squared distances.
    sigma : float > 0
        Kernel width.

    Returns
    -------
    ndarray
        The kernel values, of the shape of ``d2``.
    """
    out = np.array(d2, dtype=np.float64, copy=True)
    return np.exp(scaled_exponent(out, float(sigma)), out=out)


def kernel_column_means(A, B, sigma, block=1024):
    """mean_i k(A_i, B_j) for every j, computed in blocks of rows of A (bounded memory).

    Parameters
    ----------
    A : array-like of shape (n, d)
        Rows of the kernel.
    B : array-like of shape (m, d)
        Columns of the kernel.
    sigma : float > 0
        Kernel width.
    block : int, default 1024
        Rows of A per block.

    Returns
    -------
    ndarray of shape (m,)
        The column means.
    """
    total = np.zeros(len(B))
    for start in range(0, len(A), block):
        total += gaussian_kernel(A[start:start + block], B, sigma).sum(axis=0)
    return total / len(A)


#: Default size of one kernel block (float64 bytes): small enough to stay in cache, so the
#: passes over a block (distances, scale, exp, product) do not go to main memory.
BLOCK_BYTES = 2**21


def kernel_blocks(A, B, sigma, row_scale=None, block_bytes=BLOCK_BYTES):
    """Yield (columns, K) with K = (c_i k(A_i, B_j))_(i, j in columns), over column blocks of B.

    Memory O(len(A) * block): one buffer is reused, so consume each block before the
    next. The exponent log c_i - ``||A_i - B_j||^2`` / (2 sigma^2) is built by one matrix
    product and two broadcast additions, clipped at log c_i (distance >= 0), then
    exponentiated in place.

    Parameters
    ----------
    A : array-like of shape (n, d)
        Rows of the kernel.
    B : array-like of shape (m, d)
        Columns of the kernel.
    sigma : float > 0
        Kernel width.
    row_scale : ndarray of shape (n,) or None, default None
        Positive factors c_i of the rows (None: all 1).
    block_bytes : int, default BLOCK_BYTES
        Size of one kernel block in bytes.

    Yields
    ------
    columns : slice
        The columns of B in this block.
    K : ndarray of shape (n, block)
        Their kernel values (a reused buffer).
    """
    sigma = check_positive(sigma, "sigma (kernel width)")
    A, B = as_2d_float(A, "A"), as_2d_float(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(
            f"Kernel inputs need the same number of features; got {A.shape[1]} and {B.shape[1]}."
        )
    block = _block_length(len(A), block_bytes)
    if not _SAFE_WIDTH[0] <= sigma <= _SAFE_WIDTH[1]:
        # sigma**2 would under/overflow: the safe exponent of gaussian_kernel, block by block
        for start in range(0, len(B), block):
            columns = slice(start, min(start + block, len(B)))
            yield columns, gaussian_kernel(A, B[columns], sigma, row_scale)
        return
    scale = -0.5 / sigma**2
    log_c = np.zeros(len(A)) if row_scale is None else np.log(row_scale)
    row_term = (scale * np.einsum("ij,ij->i", A, A) + log_c)[:, None]
    col_term = scale * np.einsum("ij,ij->i", B, B)
    A_scaled = (-2.0 * scale) * A
    buffer = np.empty(len(A) * min(block, len(B)))
    for start in range(0, len(B), block):
        columns = slice(start, min(start + block, len(B)))
        K = buffer[:len(A) * (columns.stop - start)].reshape(len(A), -1)  # C-contiguous
        np.dot(A_scaled, B[columns].T, out=K)
        K += row_term
        K += col_term[None, columns]
        np.minimum(K, log_c[:, None], out=K)
        np.exp(K, out=K)
        yield columns, K


def kernel_rows(A, B, sigma, row_scale=None):
    """gaussian_kernel(A, B, sigma, row_scale) for a few rows A; B may be a dask array (chunk-wise).

    Parameters
    ----------
    A : array-like of shape (n, d)
        Rows of the kernel.
    B : array-like of shape (m, d)
        Columns of the kernel.
    sigma : float > 0
        Kernel width.
    row_scale : ndarray of shape (n,) or None, default None
        Positive factors c_i of the rows (None: all 1).

    Returns
    -------
    ndarray of shape (n, m)
        The kernel rows.
    """
    if is_dask_array(B):
        return np.concatenate(_over_dask_chunks(lambda b: gaussian_kernel(A, b, sigma, row_scale), B), axis=1)
    return gaussian_kernel(A, B, sigma, row_scale)


def _block_length(n_rows, block_bytes):
    """How many columns a float64 block of ``n_rows`` rows may have within ``block_bytes``."""
    return max(1, int(block_bytes) // (8 * max(n_rows, 1)))


def _over_dask_chunks(function, B, *args, per_chunk=None):
    """function(chunk of B, *args, *per_chunk[rows]) for every row chunk of the dask array B, computed
    by dask (the local scheduler or a cluster); returns the list of results in order."""
    import dask

    B = B.rechunk({1: -1})
    starts = np.cumsum((0,) + B.chunks[0])
    tasks = []
    for begin, end, block in zip(starts[:-1], starts[1:], B.to_delayed().ravel()):
        extra = [] if per_chunk is None else [per_chunk[begin:end]]
        tasks.append(dask.delayed(function)(block, *args, *extra))
    return list(dask.compute(*tasks))


def kernel_matvec(A, B, sigma, u, row_scale=None, block_bytes=BLOCK_BYTES):
    """(c_i k(A_i, B_j))_ij @ u for every i, over column blocks of B (memory O(len(A) * block)).

    The kernel matrix is never stored: each block of columns is built, multiplied by
    the matching part of u and dropped. Exact float64, the same numbers as
    ``gaussian_kernel(A, B, sigma, row_scale) @ u`` up to round-off. B may be a dask
    array: the same blocked sum then runs chunk-wise on dask's scheduler.

    Parameters
    ----------
    A : array-like of shape (n, d)
        Rows of the kernel.
    B : array-like of shape (m, d)
        Columns of the kernel.
    sigma : float > 0
        Kernel width.
    u : array-like of shape (m,)
        The vector.
    row_scale : ndarray of shape (n,) or None, default None
        Positive factors c_i of the rows (None: all 1).
    block_bytes : int, default BLOCK_BYTES
        Size of one kernel block in bytes.

    Returns
    -------
    ndarray of shape (n,)
        The product.
    """
    u = np.asarray(u, dtype=float)
    if is_dask_array(B):
        parts = _over_dask_chunks(lambda b, ub: kernel_matvec(A, b, sigma, ub, row_scale, block_bytes),
                                  B, per_chunk=u)
        return np.sum(parts, axis=0)
    out = np.zeros(len(A))
    for columns, K in kernel_blocks(A, B, sigma, row_scale, block_bytes):
        out += K @ u[columns]
    return out


def kernel_vecmat(weights, A, B, sigma, row_scale=None, block_bytes=BLOCK_BYTES):
    """weights @ (c_i k(A_i, B_j))_ij, i.e. sum_i weights_i c_i k(A_i, B_j) for every j, in blocks.

    Parameters
    ----------
    weights : array-like of shape (n,)
        The vector.
    A : array-like of shape (n, d)
        Rows of the kernel.
    B : array-like of shape (m, d)
        Columns of the kernel.
    sigma : float > 0
        Kernel width.
    row_scale : ndarray of shape (n,) or None, default None
        Positive factors c_i of the rows (None: all 1).
    block_bytes : int, default BLOCK_BYTES
        Size of one kernel block in bytes.

    Returns
    -------
    ndarray of shape (m,)
        The product.
    """
    weights = np.asarray(weights, dtype=float)
    if is_dask_array(B):
        return np.concatenate(_over_dask_chunks(
            lambda b: kernel_vecmat(weights, A, b, sigma, row_scale, block_bytes), B))
    out = np.empty(len(B))
    for columns, K in kernel_blocks(A, B, sigma, row_scale, block_bytes):
        out[columns] = weights @ K
    return out


def kernel_column_max(A, B, sigma, row_scale=None, block_bytes=BLOCK_BYTES):
    """max_i c_i k(A_i, B_j) for every j, over column blocks of B (bounded memory; B may be dask).

    Parameters
    ----------
    A : array-like of shape (n, d)
        Rows of the kernel.
    B : array-like of shape (m, d)
        Columns of the kernel.
    sigma : float > 0
        Kernel width.
    row_scale : ndarray of shape (n,) or None, default None
        Positive factors c_i of the rows (None: all 1).
    block_bytes : int, default BLOCK_BYTES
        Size of one kernel block in bytes.

    Returns
    -------
    ndarray of shape (m,)
        The column maxima.
    """
    if is_dask_array(B):
        return np.concatenate(_over_dask_chunks(
            lambda b: kernel_column_max(A, b, sigma, row_scale, block_bytes), B))
    out = np.empty(len(B))
    for columns, K in kernel_blocks(A, B, sigma, row_scale, block_bytes):
        out[columns] = K.max(axis=0, initial=0.0)
    return out


def pivoted_cholesky(X, sigma, tol, max_rank):
    """Low-rank factor of the Gaussian kernel matrix of X by greedy pivoted Cholesky.

    Finds L of shape (rank, n) with K ~ L' L, K[i, j] = k(X_i, X_j), adding at each step
    the point of largest residual diagonal as a pivot (Harbrecht, Peters and Schneider,
    "On the low-rank approximation by the pivoted Cholesky decomposition", 2012), and
    stops when max_i (K - L'L)_ii <= tol. The residual K - L'L is positive semidefinite,
    so ``|K_ij - (L'L)_ij|`` <= sqrt(E_ii E_jj) <= that maximum for every entry: the returned
    residual bounds the error of every entry (up to the round-off of the factor, of
    order rank * machine epsilon). Costs rank kernel columns (rank * n evaluations) and
    O(n rank^2) operations; K is never formed.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        Points.
    sigma : float > 0
        Kernel width.
    tol : float
        Largest residual diagonal accepted.
    max_rank : int
        Give up (return None) when this many pivots do not reach ``tol``, or already at
        max_rank / 2 pivots when the decay of the residual over the last quarter of the
        pivots, continued geometrically, would not even reach sqrt(tol) (a kernel far from
        low rank costs half the columns only; the residual of a Gaussian kernel falls
        faster and faster, so the geometric forecast is pessimistic, hence the margin).

    Returns
    -------
    tuple or None
        (L, residual) with L of shape (rank, n) and residual = max_i (K - L'L)_ii, or None.
    """
    X = as_2d_float(X, "X")
    diagonal = np.ones(len(X))  # k(x, x) = 1
    L = np.empty((max(int(max_rank), 0), len(X)))
    largest = []  # residual before each pivot
    for rank in range(len(L) + 1):
        pivot = int(np.argmax(diagonal))
        largest.append(float(diagonal[pivot]))
        if diagonal[pivot] <= tol:
            return L[:rank], max(float(diagonal[pivot]), 0.0)
        if rank == len(L) or (8 <= rank == len(L) // 2 and len(L) < len(X) and
                              _geometric_forecast(largest, len(L)) > np.sqrt(tol)):
            return None
        column = gaussian_kernel(X[pivot:pivot + 1], X, sigma)[0]
        column -= L[:rank, pivot] @ L[:rank]
        column /= np.sqrt(diagonal[pivot])
        L[rank] = column
        diagonal -= column * column
        np.maximum(diagonal, 0.0, out=diagonal)
        diagonal[pivot] = 0.0
    return None  # pragma: no cover (the loop returns)


def _geometric_forecast(largest, max_rank):
    """The residual after max_rank pivots if it kept falling at its rate over the last quarter of the pivots."""
    now, recent = largest[-1], max(2, (len(largest) - 1) // 4)
    rate = (now / largest[-1 - recent]) ** (1.0 / recent) if largest[-1 - recent] > 0 else 0.0
    return now * rate ** (max_rank - (len(largest) - 1))


def median_heuristic(X, max_samples=1000, random_state=0):
    """Median of the pairwise Euclidean distances of ``X`` (a subsample if large).

    Zero distances (duplicate points) are ignored; returns a positive width even
    for constant data (falls back to 1.0).

    Parameters
    ----------
    X : array-like of shape (n, d)
        Points.
    max_samples : int, default 1000
        Use a seeded subsample of this many points beyond.
    random_state : None, int, RandomState or Generator, default 0
        Seeds the subsample.

    Returns
    -------
    float
        The median distance.

    Examples
    --------
    >>> import numpy as np
    >>> from covshift.kernels import median_heuristic
    >>> median_heuristic(np.array([[0.0], [1.0], [3.0]]))
    2.0
    """
    X = as_2d_float(X, "X")
    if X.shape[0] > max_samples:
        rng = as_generator(random_state)
        X = X[rng.choice(X.shape[0], max_samples, replace=False)]
    distances = pdist(X)  # each pair once, no n x n matrix
    positive = distances[distances > 0]  # a copy of our own (no NaN), partitioned in place
    if positive.size == 0:
        return 1.0
    return _median_in_place(positive)


def _median_in_place(values):
    """``np.median(values)`` of a 1-D float array without NaN, reordering ``values``: one partition at the upper
    middle, then the largest value below it, where np.median partitions at both middles and at the end (its NaN
    check), ~4x the time (3.4 against 0.9 ms for the 320 000 distances of 800 points; issue 40). The two middle
    values are averaged by np.mean as np.median averages them: the same number."""
    middle = values.size // 2
    values.partition(middle)
    if values.size % 2:
        return float(values[middle])
    return float(np.mean(np.array([values[:middle].max(), values[middle]])))
