"""A fixed reference workload, timed beside every benchmark run: how fast this host is in that hour.

The same code measured in two hours of the shared 2-core machine differed by up to a third (issue 40, stop 43: a
cold view 0.22 against 0.30 CPU-s). The workload uses numpy, SciPy and the interpreter only (never this project's
code, which changes), so its time compares hours, not versions: a run whose reference took 1.3 times as long ran on
a host that much slower.
"""

import time

import numpy as np
import threadpoolctl
from scipy.linalg import lapack


def _workload():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(500, 1))
    squared = (x - x.T) ** 2
    for _ in range(10):  # a lesson's GP fits: a Gaussian kernel and its Cholesky factor, on one BLAS thread
        kernel = np.exp(-squared / 0.18)
        kernel[np.diag_indices(500)] += 1e-3
        lapack.dpotrf(kernel, lower=1, clean=0)
    table = {}
    for i in range(300_000):  # the interpreter: what Streamlit's script runs and scikit-learn's checks cost
        table[i % 1000] = table.get(i % 1000, 0) + i


def reference_seconds(repeats=5):
    """CPU seconds of the reference workload on this thread, the least of ``repeats`` runs."""
    with threadpoolctl.threadpool_limits(1):
        _workload()  # first touches
        best = float("inf")
        for _ in range(repeats):
            start = time.thread_time()
            _workload()
            best = min(best, time.thread_time() - start)
    return best


def reference_sentence():
    """The sentence a benchmark's results give the host's speed in: the reference workload's CPU seconds."""
    return (f"Host reference workload (bench/_host.py: ten 500-point Gaussian kernels and Cholesky factors, a "
            f"300 000-step Python loop; the least of five runs): {reference_seconds():.3f} CPU-s.")
