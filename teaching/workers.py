"""Where the view pipeline's fits run: in the app's process, on a pool of local processes, or on a Dask cluster.

The Streamlit server runs every session's script in a thread of one Python process, so the
pure-Python part of the fits (Frank-Wolfe iterations, the QP solver's loop) shares one
interpreter lock. :func:`make_executor` gives :func:`teaching.views.use_executor` an executor
chosen by environment variables:

- ``COVSHIFT_DASK_SCHEDULER`` (an address such as ``tcp://10.0.0.5:8786``): a
  ``dask.distributed.Client`` on that scheduler (``pip install distributed``), whose workers
  import this package (install it there too);
- else ``COVSHIFT_WORKERS`` (default: the number of cores; 0 for none): a
  ``concurrent.futures.ProcessPoolExecutor`` of that many spawned processes.
"""

import concurrent.futures
import multiprocessing
import os


def make_executor(environ=None):
    """The executor the environment asks for (see the module docstring), or None (compute in-process).

    Raises ValueError naming the variable when COVSHIFT_WORKERS is not a whole number >= 0.
    """
    environ = os.environ if environ is None else environ
    scheduler = environ.get("COVSHIFT_DASK_SCHEDULER", "").strip()
    if scheduler:
        from distributed import Client  # the [dask] extra

        return Client(scheduler, set_as_default=False)
    text = environ.get("COVSHIFT_WORKERS", "").strip()
    try:
        workers = int(text) if text else (os.cpu_count() or 1)
    except ValueError:
        raise ValueError(f"COVSHIFT_WORKERS must be a whole number of processes (0: none), got {text!r}") from None
    if workers < 0:
        raise ValueError(f"COVSHIFT_WORKERS must be >= 0, got {workers}")
    if workers == 0:
        return None
    # spawn: the server process has many threads (and BLAS state) that a fork would copy half-way
    pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
    for _ in range(workers):  # start them now (a pool starts workers on demand), loading the pipeline
        pool.submit(ready)
    return pool


def ready():
    """Load the pipeline (numpy, scipy, scikit-learn, the solvers): a worker's first task. Returns the pid."""
    from teaching import views  # noqa: F401

    return os.getpid()
