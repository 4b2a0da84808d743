"""Where the view pipeline's fits run (this process, local worker processes, a Dask cluster), surviving their faults.

The Streamlit server runs every session's script in a thread of one Python process, so the
pure-Python part of the fits (Frank-Wolfe iterations, the QP solver's loop) shares one
interpreter lock. :func:`make_executor` gives :func:`teaching.steps.use_executor` an executor
chosen by environment variables:

- ``COVSHIFT_DASK_SCHEDULER`` (an address such as ``tcp://10.0.0.5:8786``): a
  ``dask.distributed.Client`` on that scheduler, whose workers import this package (install it
  there too), wrapped in :class:`DaskFits`;
- else ``COVSHIFT_WORKERS`` (default: the number of cores; 0 for none): :class:`ProcessFits`, a
  pool of that many worker processes (joblib's loky executor).

Faults cost one view, never the server. A worker that dies while it computes (``kill -9``, the
out-of-memory killer) is replaced and the computation is tried once more; if that dies too, the
view gets a :class:`Refused` sentence. A computation that runs longer than ``COVSHIFT_FIT_LIMIT``
seconds (default :data:`LIMIT_SECONDS`, twelve times the app's budget for one computation,
:data:`teaching.budget.BUDGET_SECONDS`) is stopped, its worker replaced, and the view refused
with a sentence naming the limit. The pool never stays broken.
"""

import concurrent.futures
import contextlib
import logging
import os
import threading
import time

from teaching import budget

#: Seconds a computation may run on a worker before it is stopped (COVSHIFT_FIT_LIMIT changes it):
#: far beyond the budget every size the app admits keeps (bench/limits.py), so only a runaway is stopped.
LIMIT_SECONDS = 12 * budget.BUDGET_SECONDS
#: The BLAS / OpenMP variables a worker reads when its numerical libraries load.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: Idle seconds after which loky lets a worker go (restarted on the next fit): a class's break, not a pause.
IDLE_SECONDS = 3600

_LOG = logging.getLogger("covshift.workers")
_THREAD = threading.local()  # .background: this thread's computations yield to the views'


@contextlib.contextmanager
def background():
    """Within it, this thread's computations on :class:`ProcessFits` wait until no view's computation is
    in flight (the server's warm-up: a student's view never queues behind it)."""
    outer, _THREAD.background = getattr(_THREAD, "background", False), True
    try:
        yield
    finally:
        _THREAD.background = outer


class Refused(ValueError):
    """A computation the workers could not finish (stopped at the time limit, or its worker died twice).

    A ValueError, as every refusal of the app: the pages show its sentence where the result would be.
    """


def make_executor(environ=None, threads=1, start=True):
    """The executor the environment asks for (see the module docstring), or None (compute in-process).

    ``threads``: BLAS / OpenMP threads of each local worker process; ``start=False``: local workers are started
    by :meth:`ProcessFits.start` (or the first computation sent to them), not now. Raises ValueError naming the
    variable when COVSHIFT_WORKERS or COVSHIFT_FIT_LIMIT is not a valid number.
    """
    environ = os.environ if environ is None else environ
    limit = _limit(environ)
    scheduler = environ.get("COVSHIFT_DASK_SCHEDULER", "").strip()
    if scheduler:
        from distributed import Client  # the [dask] extra

        return DaskFits(Client(scheduler, set_as_default=False), limit)
    text = environ.get("COVSHIFT_WORKERS", "").strip()
    try:
        workers = int(text) if text else (os.cpu_count() or 1)
    except ValueError:
        raise ValueError(f"COVSHIFT_WORKERS must be a whole number of processes (0: none), got {text!r}") from None
    if workers < 0:
        raise ValueError(f"COVSHIFT_WORKERS must be >= 0, got {workers}")
    if workers == 0:
        return None
    return ProcessFits(workers, limit, threads, start=start)


def _limit(environ):
    text = environ.get("COVSHIFT_FIT_LIMIT", "").strip()
    try:
        limit = float(text) if text else LIMIT_SECONDS
    except ValueError:
        raise ValueError(f"COVSHIFT_FIT_LIMIT must be a number of seconds, got {text!r}") from None
    if not limit > 0:
        raise ValueError(f"COVSHIFT_FIT_LIMIT must be > 0 seconds, got {limit:g}")
    return limit


def ready():
    """Load the pipeline (numpy, scipy, scikit-learn, the solvers) and the compiled Frank-Wolfe and Twin-GP
    loops (:func:`covshift.compiled.warm_up`: numba's on-disk cache, or a compilation of ~18 CPU-s the first
    time after an installation), so a student's first view does not pay for them. Returns the pid."""
    from covshift import compiled
    from teaching import steps  # noqa: F401

    compiled.warm_up()

    return os.getpid()


def _stopped(limit):
    return Refused(f"This computation ran for more than {limit:g} s, the server's limit for one computation "
                   f"({limit / budget.BUDGET_SECONDS:g} times the {budget.BUDGET_SECONDS:g} s budget), and was "
                   "stopped. Choose fewer points or a faster method; the other views go on.")


DIED_TWICE = ("The worker process computing this view stopped twice (killed, or out of memory), so nothing is "
              "shown. Choose fewer points, or press R to try once more; the other views go on.")


class ProcessFits:
    """Worker processes for the fits (loky's executor: a dead worker breaks the pool, which is then replaced).

    ``submit(function, *args).result()`` is what :mod:`teaching.steps` calls; the result waits for
    the computation, tries it once more on a fresh pool when its worker died, and stops it (killing
    the pool's workers, which are replaced at once) when it has run more than ``limit`` seconds.
    ``prepare``: every worker's first task (default :func:`ready`; None: none). ``start=False``: no process
    is started until :meth:`start` (or the first :meth:`submit`): a server starts its workers after its first
    view, so that they do not compete with it for the cores (:mod:`teaching.serve`); until they have loaded
    the pipeline, :meth:`takes_work` is False and :mod:`teaching.steps` computes the views in the server.
    The time counts from when the computation is handed to a worker (loky hands one more than it
    has workers, so it may include one computation's wait), not while it queues or the workers start.
    Stopping a runaway ends the other computations running beside it: they are tried once more.
    """

    def __init__(self, workers, limit=LIMIT_SECONDS, threads=1, prepare=ready, start=True):
        self.workers, self.limit, self._prepare = int(workers), float(limit), prepare
        self._busy, self._idle = 0, threading.Condition()  # the views' computations in flight
        self._env = {variable: str(int(threads)) for variable in THREAD_VARIABLES}
        self._lock = threading.Lock()
        self._pool, self._starting = None, []
        self._started, self._up = threading.Event(), False
        self.replaced = 0  # pools replaced after a fault (for the operator's log and the tests)
        if start:
            self.start()

    def start(self):
        """Start the worker processes, each loading the pipeline (once; later calls do nothing). Returns self."""
        with self._lock:
            if self._pool is None:
                self._pool = self._new_pool()
                self._started.set()
        return self

    def takes_work(self):
        """True once every worker has loaded the pipeline (:meth:`wait_started`), and always for the background
        thread (:func:`background`, which waits for them); False while they start, or before :meth:`start`:
        a view then computes in the calling process rather than waiting for them (only at the first start)."""
        if self._up or getattr(_THREAD, "background", False):
            return True
        self._up = self._started.is_set() and all(future.done() for future in self._starting)
        return self._up  # once up, always: workers replaced after a fault are waited for, as the time limit needs

    def _new_pool(self):
        from joblib.externals.loky.process_executor import ProcessPoolExecutor

        pool = ProcessPoolExecutor(self.workers, timeout=IDLE_SECONDS, env=self._env)
        # start them now, each loading the pipeline (no computation's time counts before they are up)
        self._starting = [pool.submit(self._prepare) for _ in range(self.workers)] if self._prepare else []
        return pool

    def _replace(self, broken):
        """A fresh pool instead of ``broken`` (once, however many views found it broken)."""
        with self._lock:
            if self._pool is not broken:
                return self._pool
            broken.shutdown(wait=False, kill_workers=True)
            self._pool = self._new_pool()
            self.replaced += 1
            return self._pool

    def _submit(self, function, args):
        """(pool, future) of ``function(*args)``; a pool found broken is replaced first."""
        pool = self._pool
        try:
            return pool, pool.submit(function, *args)
        except (concurrent.futures.BrokenExecutor, RuntimeError) as exc:  # broken, or shut down by another view
            if "interpreter shutdown" in str(exc):  # the server stops: no new workers
                raise
            if isinstance(exc, concurrent.futures.BrokenExecutor):
                _LOG.warning("a worker process had stopped (%s); the workers were replaced", type(exc).__name__)
            pool = self._replace(pool)
            return pool, pool.submit(function, *args)

    def submit(self, function, *args):
        if self._pool is None:
            self.start()
        if getattr(_THREAD, "background", False):
            self.wait_started()
            with self._idle:
                self._idle.wait_for(lambda: self._busy == 0)
            return _Job(self, function, args)
        with self._idle:
            self._busy += 1
        try:
            return _Job(self, function, args, on_done=self._done)
        except BaseException:
            self._done()
            raise

    def wait_started(self, timeout=None):
        """Wait until the workers are started (:meth:`start`) and every one has loaded the pipeline; True if
        they all have within ``timeout`` seconds (None: however long it takes)."""
        began = time.monotonic()
        if not self._started.wait(timeout):
            return False
        left = None if timeout is None else max(0.0, timeout - (time.monotonic() - began))
        return not concurrent.futures.wait(self._starting, left).not_done

    def _done(self):
        with self._idle:
            self._busy -= 1
            self._idle.notify_all()

    def shutdown(self, wait=True):
        with self._lock:
            if self._pool is not None:
                self._pool.shutdown(wait=wait, kill_workers=not wait)

    def _wait(self, pool, future):
        """The result of ``future``; stops the pool's workers when it has run more than the limit."""
        started = None
        while True:
            now = time.monotonic()
            if started is None and future.running() and all(f.done() for f in self._starting):
                started = now  # handed to a worker (or next in line for one: loky queues one more)
            wait = 0.2 if started is None else max(0.01, started + self.limit - now)
            try:
                return future.result(timeout=wait)
            except concurrent.futures.TimeoutError:
                if started is not None and time.monotonic() - started >= self.limit:
                    _LOG.warning("a computation ran over %g s and was stopped; its worker processes were replaced",
                                 self.limit)
                    self._replace(pool)
                    raise _stopped(self.limit) from None


class _Job:
    """A computation submitted to :class:`ProcessFits`; ``result()`` retries it once if its worker died."""

    def __init__(self, fits, function, args, on_done=None):
        self.fits, self.function, self.args, self.on_done = fits, function, args, on_done
        self.pool, self.future = fits._submit(function, args)

    def result(self):
        try:
            return self._result()
        finally:
            if self.on_done is not None:
                self.on_done()
                self.on_done = None

    def _result(self):
        for attempt in (1, 2):
            try:
                return self.fits._wait(self.pool, self.future)
            except (concurrent.futures.BrokenExecutor, concurrent.futures.CancelledError, RuntimeError) as exc:
                if isinstance(exc, Refused) or not _lost_worker(exc):
                    raise
                _LOG.warning("a worker process stopped (%s); it was replaced%s", type(exc).__name__,
                             " and the computation is tried once more" if attempt == 1 else "")
                self.fits._replace(self.pool)
                if attempt == 2:
                    raise Refused(DIED_TWICE) from None
                self.pool, self.future = self.fits._submit(self.function, self.args)
        raise AssertionError("unreachable")


def _lost_worker(exc):
    """True for the errors of a pool whose worker died or that was shut down under the computation."""
    from joblib.externals.loky.process_executor import ShutdownExecutorError

    return isinstance(exc, (concurrent.futures.BrokenExecutor, concurrent.futures.CancelledError,
                            ShutdownExecutorError))


class DaskFits:
    """A ``dask.distributed.Client`` with the same promises as :class:`ProcessFits`.

    Dask itself recomputes on another worker what a lost worker held (up to the scheduler's
    ``allowed-failures``); a computation Dask gives up on (``KilledWorker``) or whose connection
    broke is submitted once more, then refused with a sentence. One that runs over ``limit``
    seconds (counted from its submission: the cluster is large enough not to queue it long) is
    cancelled, the worker computing it restarted when it has a nanny, and the view refused.
    """

    def __init__(self, client, limit=LIMIT_SECONDS):
        self.client, self.limit = client, float(limit)

    def submit(self, function, *args):
        return _DaskJob(self, function, args)

    def close(self):
        self.client.close()

    def _stop(self, future):
        """Cancel ``future`` and restart the worker that computes it (a thread cannot be stopped otherwise)."""
        try:
            busy = [worker for worker, keys in self.client.processing().items() if future.key in keys]
            future.cancel()
            if busy:
                self.client.restart_workers(busy, timeout=30)
        except Exception as exc:  # no nanny (an in-process cluster), or the worker left already
            _LOG.warning("the worker of a stopped computation could not be restarted: %s", exc)


class _DaskJob:
    def __init__(self, fits, function, args):
        self.fits, self.function, self.args = fits, function, args
        self.future = fits.client.submit(function, *args, pure=False)

    def result(self):
        from distributed.scheduler import KilledWorker

        lost = (KilledWorker, concurrent.futures.CancelledError, OSError)  # OSError: CommClosedError
        deadline = time.monotonic() + self.fits.limit
        for attempt in (1, 2):
            try:
                return self.future.result(timeout=max(0.01, deadline - time.monotonic()))
            except TimeoutError:  # before OSError, its base
                self.fits._stop(self.future)
                raise _stopped(self.fits.limit) from None
            except lost as exc:
                _LOG.warning("a Dask worker was lost (%s)%s", type(exc).__name__,
                             "; the computation is tried once more" if attempt == 1 else "")
                if attempt == 2:
                    raise Refused(DIED_TWICE) from None
                self.future = self.fits.client.submit(self.function, *self.args, pure=False)
                deadline = time.monotonic() + self.fits.limit
        raise AssertionError("unreachable")
