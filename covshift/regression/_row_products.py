"""Matrix products whose every entry is one fused multiply-add chain over k in order (:func:`rows_times`): the numbers
of a row do not depend on the other rows of the product, as a Twin GP's prediction of a test point must not depend on
the batch it came in (see :meth:`covshift.regression.TwinGP._batch_cost`).

The entries are computed in tiles of a few rows and 8-wide vectors of columns, each tile's vectors kept in registers
over the whole sum (:func:`_tile_kernel`, written as LLVM vector code: numba's own vectoriser keeps to 256-bit vectors
on processors that prefer them, a third less than the 512-bit vectors of processors with AVX-512). A vector lane is one
entry, so the tiling changes only which entries are computed together, never an entry's arithmetic:
out[m, n] = fma(A[m, K-1], B[K-1, n], ... fma(A[m, 1], B[1, n], fma(A[m, 0], B[0, n], 0.0))).
"""

import numba
import numpy as np
from llvmlite import ir
from llvmlite.binding import get_host_cpu_features
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

#: Entries of a vector: 8 float64, one AVX-512 register (two AVX2 registers where there is no AVX-512).
LANES = 8


def _tile_kernel(rows, vectors):
    """A compiled ``tile(A, m, B, n, out)``: out[m:m + rows, n:n + vectors * LANES] = A[m:m + rows] @ B[:, n:...],
    each entry one fused multiply-add chain over k in order (the module's docstring); its rows x vectors sums held in
    registers over the whole k loop, so that they are independent chains the processor overlaps. C-ordered float64
    arrays; the caller keeps the tile inside A, B and out."""

    @intrinsic
    def tile(typingctx, A, m, B, n, out):
        if not all(isinstance(a, types.Array) and a.layout == "C" and a.ndim == 2 and a.dtype == types.float64
                   for a in (A, B, out)):
            return None
        return types.void(A, m, B, n, out), codegen

    def codegen(context, builder, signature, args):
        A, m, B, n, out = (context.make_array(t)(context, builder, a) if isinstance(t, types.Array) else a
                           for t, a in zip(signature.args, args))
        K, width_B, width_out = (builder.extract_value(array.shape, 1) for array in (A, B, out))
        vector = ir.VectorType(ir.DoubleType(), LANES)
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(vector, [vector] * 3),
                                             f"llvm.fma.v{LANES}f64")
        first = [builder.add(m, ir.Constant(m.type, i)) for i in range(rows)]
        a_rows = [builder.gep(A.data, [builder.mul(row, K)]) for row in first]
        sums = [[cgutils.alloca_once_value(builder, ir.Constant(vector, [0.0] * LANES)) for _ in range(vectors)]
                for _ in range(rows)]
        b_row = cgutils.alloca_once_value(builder, builder.gep(B.data, [n]))
        broadcast = ir.Constant(ir.VectorType(ir.IntType(32), LANES), [0] * LANES)
        with cgutils.for_range(builder, K) as loop:
            b = builder.load(b_row)
            b_vectors = [builder.load(builder.bitcast(builder.gep(b, [ir.Constant(n.type, LANES * j)]),
                                                      vector.as_pointer()), align=8) for j in range(vectors)]
            builder.store(builder.gep(b, [width_B]), b_row)
            for i in range(rows):
                a = builder.load(builder.gep(a_rows[i], [loop.index]))
                a = builder.shuffle_vector(builder.insert_element(ir.Constant(vector, ir.Undefined), a,
                                                                  ir.Constant(ir.IntType(32), 0)),
                                           ir.Constant(vector, ir.Undefined), broadcast)
                for j in range(vectors):
                    builder.store(builder.call(fma, [a, b_vectors[j], builder.load(sums[i][j])]), sums[i][j])
        for i in range(rows):
            start = builder.add(builder.mul(first[i], width_out), n)
            for j in range(vectors):
                target = builder.gep(out.data, [builder.add(start, ir.Constant(n.type, LANES * j))])
                builder.store(builder.load(sums[i][j]), builder.bitcast(target, vector.as_pointer()), align=8)
        return context.get_dummy_value()

    return tile


def _compiles_for_avx512():
    """Whether numba compiles for a processor with AVX-512 (32 vector registers, each of LANES float64): its target's
    features, NUMBA_CPU_FEATURES or the host's, as numba's code generator reads them."""
    features = numba.config.CPU_FEATURES or get_host_cpu_features().flatten()
    return "+avx512f" in features.split(",")


#: The tiles' shapes, by the registers of the processor numba compiles for: at least 8 sums per tile (a fused
#: multiply-add's latency is about 4 cycles, two start per cycle), all of them, a vector of B and a row's number in
#: registers. With AVX-512 (32 registers of 8 float64): tiles of 8 rows x 3 vectors (each vector of B read serves 8
#: rows: 62 against 47 GF/s with tiles of 4 rows, at 200 x 300 @ 300 x 600); else (AVX2: 16 registers of 4 float64, a
#: vector of LANES takes two; tiles of 8 rows spilled to memory, 20 against 40 GF/s) tiles of 4 rows x 1 vector.
#: TILE_ROWS: the rows of the main tile; WIDE: vectors per tile by its rows (4 and TILE_ROWS rows: STRIP).
AVX512 = _compiles_for_avx512()
TILE_ROWS, STRIP = (8, 3) if AVX512 else (4, 1)
WIDE = {1: 8, 2: 4, 3: 3, 4: 3, 8: 3} if AVX512 else {1: 4, 2: 2, 3: 2, 4: 1, 8: 1}
_wide1, _wide2, _wide3, _wide4, _wide8 = (_tile_kernel(rows, WIDE[rows]) for rows in (1, 2, 3, 4, 8))
_one1, _one2, _one3, _one4, _one8 = (_tile_kernel(rows, 1) for rows in (1, 2, 3, 4, 8))
#: The kernels of the main tile (TILE_ROWS rows), chosen once here rather than in every pass of :func:`_tiles`.
_wide_main, _one_main = (_wide8, _one8) if TILE_ROWS == 8 else (_wide4, _one4)


@njit(cache=True, nogil=True)
def _tiles(A, B, out):
    """The rows of A in tiles of TILE_ROWS, then (tiles of 8) one of four as the rows left allow (the last one to
    three rows: :func:`_last_rows`), column strip by column strip (each strip of B read for every tile of rows while
    it is in the cache): strips of STRIP vectors, then of one, the last of them ending at the last column (at least
    LANES columns)."""
    M, N = A.shape[0], B.shape[1]
    main = M - M % TILE_ROWS
    four = main if TILE_ROWS == 8 and M % 8 >= 4 else -1
    n = 0
    while n + STRIP * LANES <= N:
        for m in range(0, main, TILE_ROWS):
            _wide_main(A, m, B, n, out)
        if four >= 0:
            _wide4(A, four, B, n, out)
        n += STRIP * LANES
    while n < N:  # the last strip ends at N: its columns before n again, with the same numbers
        n = min(n, N - LANES)
        for m in range(0, main, TILE_ROWS):
            _one_main(A, m, B, n, out)
        if four >= 0:
            _one4(A, four, B, n, out)
        n += LANES


@njit(cache=True, nogil=True)
def _last_rows(A, B, out, rows):
    """The last ``rows`` (1-3) rows of A: strips of WIDE[rows] vectors, then of one, as :func:`_tiles`."""
    M, N = A.shape[0], B.shape[1]
    m, n = M - rows, 0
    while n + WIDE_COLUMNS[rows] <= N:
        if rows == 3:
            _wide3(A, m, B, n, out)
        elif rows == 2:
            _wide2(A, m, B, n, out)
        else:
            _wide1(A, m, B, n, out)
        n += WIDE_COLUMNS[rows]
    while n < N:  # as in _tiles
        n = min(n, N - LANES)
        if rows == 3:
            _one3(A, m, B, n, out)
        elif rows == 2:
            _one2(A, m, B, n, out)
        else:
            _one1(A, m, B, n, out)
        n += LANES


#: Columns of a wide tile by its rows (:data:`WIDE` times LANES), as numba reads a tuple.
WIDE_COLUMNS = (0, WIDE[1] * LANES, WIDE[2] * LANES, WIDE[3] * LANES)


@njit(cache=True, nogil=True, fastmath={"contract"})
def _entries(A, B, out):
    """out = A @ B one entry at a time: the same chain, four terms a line (contracted to fused multiply-adds)."""
    K = A.shape[1]
    K4 = K - K % 4
    for m in range(A.shape[0]):
        for n in range(B.shape[1]):
            acc = 0.0
            for k in range(0, K4, 4):
                acc = acc + A[m, k] * B[k, n] + A[m, k + 1] * B[k + 1, n] + A[m, k + 2] * B[k + 2, n] \
                    + A[m, k + 3] * B[k + 3, n]
            for k in range(K4, K):
                acc = acc + A[m, k] * B[k, n]
            out[m, n] = acc


@njit(cache=True, nogil=True)
def _rows_times(A, B, out):
    """out = A @ B (C-ordered float64), each entry one fused multiply-add chain over k in order: tiles of rows
    (:func:`_tiles`; a last one to three rows, :func:`_last_rows`) over the columns in strips of whole vectors;
    with fewer than LANES columns (the chain rule's products by the outputs) one entry at a time."""
    M, N = A.shape[0], B.shape[1]
    if N < LANES:
        _entries(A, B, out)
        return out
    _tiles(A, B, out)
    if M % 4:
        _last_rows(A, B, out, M % 4)
    return out


def rows_times(A, B):
    """A @ B with every row's numbers independent of the other rows: BLAS picks its kernel, and so
    its rounding, by the shape and by a row's place in its tile (one row: gemv; the last rows of a
    tile: an edge kernel), so a test point's prediction would depend on the batch it came in."""
    A = np.ascontiguousarray(A, dtype=np.float64)
    B = np.ascontiguousarray(B, dtype=np.float64)
    return _rows_times(A, B, np.empty((A.shape[0], B.shape[1])))
