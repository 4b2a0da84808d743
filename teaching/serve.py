"""The one start-up of a server process (:func:`start`, called first by app.py): fit workers, step cache, thread limit, warm-up.

Importing :mod:`teaching` changes nothing in the process (no environment variable, no thread
limit, no cache, no child process); a server gets all of it from one call, once. The fit workers
start after the server's first view (:func:`script_finished`): on two cores, two workers loading
the pipeline beside the server made the teacher's first figure wait ~20 s (issue 40). While the
first run loads the app's modules, the page shows a frame (:func:`loading`) that has the browser
load its plotting code meanwhile.
"""

import gc
import logging
import os
import sys
import threading
import time

from teaching import workers

_LOG = logging.getLogger("covshift")
_LOCK = threading.Lock()
_STARTED = {}


def loading():
    """On the server's first script run, before :func:`start`: a frame at the top of the page saying the app is
    loading, with an empty plotly figure in it; after that run, None. Returns the ``st.empty`` holding it, which
    app.py empties once the page can be drawn.

    The first run spends ~2 CPU-s importing the app's libraries (scikit-learn, SciPy, numba, ...), while the
    browser, which has loaded Streamlit's page, waits. The empty figure has it load and compile Streamlit's
    plotly component (~1 CPU-s in Chromium) in that time: without it, that began only when the first lesson's
    figure arrived, ~2-3 s before the figure was drawn (bench/first_figure.py, issue 40).

    Under :func:`start`'s lock: drawing the figure imports plotly (and numpy), and sessions whose first runs
    overlap (a class opening the link before anyone else did) must not import the same libraries in parallel
    threads, whose import locks then hand one of them a partially initialised numpy (an exception on 4-5 of 20
    pages, tests/teaching/test_first_runs.py).
    """
    with _LOCK:
        if _STARTED:
            return None
        import streamlit as st

        frame = st.empty()
        with frame.container():
            st.caption("Loading the app: a server's first page takes a few seconds.")
            st.plotly_chart({"data": [{"type": "scatter", "x": [], "y": []}], "layout": {
                "height": 120, "margin": {"l": 0, "r": 0, "t": 0, "b": 0},
                "xaxis": {"visible": False}, "yaxis": {"visible": False}}},
                config={"staticPlot": True, "displayModeBar": False}, key="covshift-loading")
        return frame


def start(environ=None):
    """Install, once per process, what a server needs; later calls return what the first installed.

    - the view pipeline's steps cached in ``st.cache_data``, shared by every session
      (:func:`teaching.ui.cache.step_cache`);
    - one BLAS / OpenMP thread per computation (``COVSHIFT_BLAS_THREADS`` changes it): a server
      runs many sessions at once, their views are the parallel work, and the lessons' kernel
      matrices (a few hundred points) are too small to split; multithreaded OpenBLAS on a busy
      2-core machine spins its threads (a 500 x 500 Cholesky factorisation then costs 0.1 CPU-s
      instead of 0.001, bench/results/view_cost.md);
    - in a Streamlit runtime, the fit workers of :func:`teaching.workers.make_executor`
      (``COVSHIFT_WORKERS``, default one per core; 0: compute in this process), started by a
      background thread :data:`FIRST_DRAW_SECONDS` after the first script run is over (:func:`script_finished`,
      called by app.py; the browser draws its figures meanwhile) or
      :data:`FIRST_VIEW_SECONDS` have passed: the first view (the teacher's, right after ``streamlit run``)
      is computed here with the cores to itself, instead of waiting for workers that load the same
      libraries on the same cores; until the workers are up, every view is computed here;
    - with workers, and unless ``COVSHIFT_WARM=0``, the same thread then computes every lesson's views
      once (:func:`warm`), one computation at a time, so that a class's first views are cached;
    - the app's modules imported and every object alive then moved out of the garbage collector's
      sight (``gc.freeze``): a full collection over the ~260 000 objects of the loaded libraries (numpy,
      scipy, scikit-learn, plotly, numba, Streamlit) held the interpreter lock ~130 ms. Streamlit's own
      full collection after every script run (``runner.postScriptGC``) is off in .streamlit/config.toml:
      the objects made after the freeze still cost it 20-60 ms per run; Python's generational
      collections, which free every cycle, walk the libraries' objects no more either.

    Returns {"executor": the installed executor or None, "threads": BLAS threads, "warming": thread or None}
    ("warming": the thread that starts the workers, then warms the lessons).
    """
    environ = os.environ if environ is None else environ
    with _LOCK:
        if _STARTED:
            return _STARTED
        import streamlit as st
        import threadpoolctl

        from teaching import steps
        from teaching.ui import cache

        _quiet_logs()
        threads = int(environ.get("COVSHIFT_BLAS_THREADS", "1"))
        threadpoolctl.threadpool_limits(threads)  # the libraries the imports above loaded
        executor = workers.make_executor(environ, threads=threads, start=False) if st.runtime.exists() else None
        steps.use_cache(cache.step_cache)
        steps.use_executor(executor)
        warm_lessons = executor is not None and environ.get("COVSHIFT_WARM", "1").strip() != "0"
        starting = None
        if isinstance(executor, workers.ProcessFits):
            starting = threading.Thread(target=_start_workers, args=(executor, warm_lessons),
                                        name="covshift-workers", daemon=True)
        elif warm_lessons:
            starting = threading.Thread(target=warm, name="covshift-warm-up", daemon=True)
        _LOG.info(_summary(executor, threads, warm_lessons))
        import teaching.ui  # noqa: F401  (the app's modules, what app.py imports next: before the freeze)

        gc.freeze()
        _STARTED.update(executor=executor, threads=threads, warming=starting)
        if starting is not None:
            starting.start()
        return _STARTED


#: Seconds the server computes its views alone at most before it starts its fit workers anyway (a safety net:
#: app.py reports the end of every run, however it ended).
FIRST_VIEW_SECONDS = 60.0
#: Seconds the workers wait after the first run before they start: the browser is still drawing that run's figures
#: (plotly, ~1-3 CPU-s in Chromium), which two workers loading the libraries (~2.5 CPU-s each) slowed on two cores.
FIRST_DRAW_SECONDS = 2.0
_FIRST_RUN = threading.Event()


def script_finished():
    """Called by app.py after each script run: the first one lets the fit workers start (:func:`start`)."""
    _FIRST_RUN.set()


def _start_workers(executor, warm_lessons):
    """Start ``executor``'s worker processes :data:`FIRST_DRAW_SECONDS` after the first script run (or
    :data:`FIRST_VIEW_SECONDS`); then, if ``warm_lessons``, warm the lessons on them (:func:`warm`)."""
    _FIRST_RUN.wait(FIRST_VIEW_SECONDS)
    time.sleep(FIRST_DRAW_SECONDS)
    try:
        executor.start()
    except Exception as exc:  # the server stops; or no process can be started: every view is computed here
        if not sys.is_finalizing():
            _LOG.warning("the fit workers could not be started (%s: %s); views are computed in the server",
                         type(exc).__name__, exc)
        return
    if warm_lessons:
        executor.wait_started()
        warm(delay=0.0)


def _summary(executor, threads, warming):
    if executor is None:
        where = "fits computed in the server process (COVSHIFT_WORKERS=0)"
    elif isinstance(executor, workers.DaskFits):
        where = f"fits on the Dask cluster {executor.client.scheduler.address}"
    else:
        where = f"{executor.workers} fit worker process(es) (COVSHIFT_WORKERS)"
    limit = f", a computation stopped after {executor.limit:g} s" if executor is not None else ""
    return (f"{where}, {threads} BLAS thread(s) each{limit}"
            + ("; warming the lessons in the background" if warming else ""))


def warm(delay=2.0):
    """Compute every lesson's claims once (their fits are the lessons' views), lesson after lesson.

    Runs in a background thread of the server, one computation at a time and only while no view's
    computation is in flight (:func:`teaching.workers.background`): a student's view never waits
    for it. Failures are logged, never raised. Returns the seconds it took (None if the server stopped first).
    """
    from teaching import lessons

    time.sleep(delay)  # the first page view, which started the server's work, goes first
    began, warmed = time.perf_counter(), 0
    for lesson in lessons.LESSONS.values():
        try:
            with workers.background():
                lessons.check(lesson)
            warmed += 1
        except Exception as exc:  # a lesson that cannot be warmed is computed when it is opened
            if sys.is_finalizing() or "shutdown" in str(exc):  # the server stops: so does the warm-up
                return None
            _LOG.warning("the lesson %r could not be warmed: %s: %s", lesson.title, type(exc).__name__, exc)
    seconds = time.perf_counter() - began
    _LOG.info("%d of the %d lessons are warmed (%.1f s)", warmed, len(lessons.LESSONS), seconds)
    return seconds


class _DropThreadWarnings(logging.Filter):
    """Streamlit's "missing ScriptRunContext" warning, said for every cached step the warm-up thread calls."""

    def filter(self, record):
        return "missing ScriptRunContext" not in record.getMessage()


def _quiet_logs():
    """The operator's terminal: covshift's own lines (workers, faults, warm-up), none of the warm-up's noise."""
    if not _LOG.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("covshift: %(message)s"))
        _LOG.addHandler(handler)
        _LOG.setLevel(logging.INFO)
        _LOG.propagate = False
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(_DropThreadWarnings())
