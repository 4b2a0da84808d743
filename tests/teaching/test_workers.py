"""The view pipeline's fits on another executor: a local process pool and a Dask cluster give the same views,
survive a worker that dies and stop a runaway; importing the app starts nothing (issues 28 and 30)."""

import concurrent.futures
import json
import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
import threadpoolctl

from teaching import lessons, settings, steps, workers
from teaching.view import View

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _view(seed=5):
    """A fresh View (its kernel width not resolved yet) of the Why-weights lesson with ``seed``."""
    return View.from_settings({**settings.defaults(), **lessons.LESSONS["Why weights"].settings, "seed": seed})


@pytest.fixture
def fresh_cache():
    steps.use_cache()
    yield
    steps.use_executor(None)
    steps.use_cache()


def _same_on(executor, seed, threads=1):
    """The FCFWCS weights and a GPR prediction computed in-process, then on ``executor``: identical
    (here with the BLAS threads of the executor's workers: the sums then run in one order)."""
    with threadpoolctl.threadpool_limits(threads):
        here = _view(seed).weights("FCFWCS").model.weights_
        predicted_here = _view(seed).prediction("IW-GPR").model["mean"]
    steps.use_cache()  # empty: the next calls are misses, sent to the executor
    steps.use_executor(executor)
    there = _view(seed).weights("FCFWCS").model.weights_
    predicted_there = _view(seed).prediction("IW-GPR").model["mean"]
    np.testing.assert_array_equal(here, there)
    np.testing.assert_array_equal(predicted_here, predicted_there)


class Counting:
    """An executor that runs in-process and counts what it was sent."""

    def __init__(self):
        self.sent = []

    def submit(self, function, *args):
        self.sent.append(args[0])
        future = concurrent.futures.Future()
        try:
            future.set_result(function(*args))
        except Exception as exc:  # as a pool does: raised again by result()
            future.set_exception(exc)
        return future


def test_only_cache_misses_of_the_fits_are_sent(fresh_cache):
    executor = Counting()
    steps.use_executor(executor)
    _view().weights("FCFWCS")
    _view().weights("FCFWCS")
    assert executor.sent == ["shared_sigma", "fitted_weights"]  # data is cheap; the second call is a hit


def test_a_budget_refusal_reaches_the_caller_from_the_executor(fresh_cache):
    executor = Counting()
    steps.use_executor(executor)
    with pytest.raises(ValueError, match="n_labels"):
        _view().few_labels(2.5)
    assert executor.sent == ["shared_sigma", "few_labels"]  # the View's width, then the step: its weights were fitted where it ran


def test_a_process_pool_gives_the_same_view(fresh_cache):
    pool = workers.make_executor({"COVSHIFT_WORKERS": "1"})
    try:
        assert isinstance(pool, workers.ProcessFits) and pool.wait_started(timeout=600)  # not computed here then
        _same_on(pool, 6)
    finally:
        pool.shutdown()


class Spy:
    """Passes computations on to ``fits`` and counts them; asks ``fits`` whether it takes work."""

    def __init__(self, fits):
        self.fits, self.sent = fits, []

    def takes_work(self):
        return self.fits.takes_work()

    def submit(self, function, *args):
        self.sent.append(args[0])
        return self.fits.submit(function, *args)


def test_views_are_computed_here_until_the_workers_are_up_then_on_them(fresh_cache):
    """A server's first views do not wait for its workers to start (issue 40): here while they start, there after."""
    fits = workers.ProcessFits(1, limit=600, start=False)
    spy = Spy(fits)
    try:
        steps.use_executor(spy)
        assert not fits.takes_work()
        here = _view(seed=10).weights("FCFWCS").model.weights_
        assert spy.sent == [] and fits._pool is None  # computed in this process; no worker started for it
        fits.start()
        assert fits.wait_started(timeout=600)  # the workers have loaded the pipeline: from now on they compute
        assert fits.takes_work()
        steps.use_cache()
        there = _view(seed=10).weights("FCFWCS").model.weights_
        assert spy.sent == ["shared_sigma", "fitted_weights"]
        np.testing.assert_array_equal(here, there)
    finally:
        fits.shutdown(wait=False)


class Starting(Counting):
    """An executor whose workers are still starting (takes_work False), counting what it was sent."""

    def takes_work(self):
        return False


def test_while_the_workers_start_one_computation_at_a_time_is_made_here(fresh_cache):
    executor = Starting()
    steps.use_executor(executor)
    _view(seed=11).weights("FCFWCS")
    assert executor.sent == []  # the first view: here, at once (its nested steps too)
    with steps._STARTING_SLOT:  # another view computes here right now: this one waits for the workers
        _view(seed=12).weights("FCFWCS")
    assert executor.sent == ["shared_sigma", "fitted_weights"]


def test_the_background_thread_waits_for_workers_that_are_not_started():
    fits = workers.ProcessFits(1, limit=600, prepare=None, start=False)
    results = {}

    def warm_up():
        with workers.background():
            assert fits.takes_work()  # it waits for the workers, never computes in the server
            results["sum"] = fits.submit(sum, [1, 2]).result()

    thread = threading.Thread(target=warm_up)
    try:
        thread.start()
        thread.join(timeout=300)
        assert results == {"sum": 3}  # its computation started the workers and ran there
        assert fits.wait_started(timeout=0)
    finally:
        fits.shutdown(wait=False)


def test_a_dask_cluster_gives_the_same_view(fresh_cache):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        client = workers.make_executor({"COVSHIFT_DASK_SCHEDULER": cluster.scheduler_address})
        try:
            assert isinstance(client, workers.DaskFits) and isinstance(client.client, distributed.Client)
            _same_on(client, 7, threads=None)  # its worker is a thread of this process
        finally:
            client.close()


@pytest.mark.parametrize("text", ["two", "-1", "1.5"])
def test_a_bad_worker_count_names_the_variable(text):
    with pytest.raises(ValueError, match="COVSHIFT_WORKERS"):
        workers.make_executor({"COVSHIFT_WORKERS": text})


@pytest.mark.parametrize("text", ["soon", "0", "-3"])
def test_a_bad_time_limit_names_the_variable(text):
    with pytest.raises(ValueError, match="COVSHIFT_FIT_LIMIT"):
        workers.make_executor({"COVSHIFT_WORKERS": "1", "COVSHIFT_FIT_LIMIT": text})


# ------------------------------------------------------------------ faults survived (issue 30, item 3)
def _die():
    """A computation whose worker is killed as it runs (what the out-of-memory killer does)."""
    os.kill(os.getpid(), signal.SIGKILL)


class KillsItsWorker:
    """Hands the first computation to ``fits``, then kills the worker process that holds it (kill -9)."""

    def __init__(self, fits, pid):
        self.fits, self.pid, self.killed = fits, pid, False

    def submit(self, function, *args):
        job = self.fits.submit(function, *args)
        if not self.killed:
            os.kill(self.pid, signal.SIGKILL)
            self.killed = True
        return job


@pytest.fixture
def one_worker():
    fits = workers.ProcessFits(1, limit=600)
    assert fits.wait_started(timeout=600)  # up and ready: the views below are sent to it, never computed here
    yield fits
    fits.shutdown(wait=False)


def test_a_worker_killed_during_a_view_costs_nothing_and_the_next_views_succeed(fresh_cache, one_worker):
    expected = _view(seed=8).weights("FCFWCS").model.weights_  # in this process
    other = _view(seed=9).weights("FCFWCS").model.weights_
    steps.use_cache()
    pid = one_worker.submit(os.getpid).result()
    steps.use_executor(KillsItsWorker(one_worker, pid))
    got = _view(seed=8).weights("FCFWCS").model.weights_  # its worker died under it: tried once more
    np.testing.assert_array_equal(got, expected)
    assert one_worker.replaced == 1 and one_worker.submit(os.getpid).result() != pid
    np.testing.assert_array_equal(_view(seed=9).weights("FCFWCS").model.weights_, other)
    assert one_worker.replaced == 1  # the pool was not broken again


def test_a_computation_that_kills_its_worker_twice_is_refused_and_the_pool_lives_on():
    fits = workers.ProcessFits(1, limit=600, prepare=None)
    try:
        with pytest.raises(workers.Refused, match="stopped twice"):
            fits.submit(_die).result()
        assert fits.replaced == 2
        assert fits.submit(sum, [1, 2, 3]).result() == 6
    finally:
        fits.shutdown(wait=False)


def test_a_runaway_computation_is_stopped_at_the_limit_and_refused():
    fits = workers.ProcessFits(1, limit=600, prepare=None)
    try:
        fits.submit(os.getpid).result()  # the worker is up (its start-up is not the computation's time)
        fits.limit = 1.0
        began = time.monotonic()
        with pytest.raises(workers.Refused, match=r"more than 1 s.*stopped"):
            fits.submit(time.sleep, 600).result()
        assert time.monotonic() - began < 120  # stopped at the limit (plus a busy machine's delays), not after 600 s
        assert fits.replaced == 1
        fits.limit = 600.0  # the fresh worker's start on a busy machine can take more than a second: no runaway
        assert fits.submit(sum, [1, 2]).result() == 3  # a fresh worker takes the next view
    finally:
        fits.shutdown(wait=False)


def test_views_running_beside_a_stopped_runaway_are_tried_again():
    fits = workers.ProcessFits(2, limit=600, prepare=None)
    try:
        fits.submit(os.getpid).result()
        fits.limit = 3.0
        results = {}
        slow = threading.Thread(target=lambda: results.update(beside=fits.submit(time.sleep, 2.5).result()))
        with pytest.raises(workers.Refused):
            runaway = fits.submit(time.sleep, 600)
            slow.start()
            runaway.result()
        slow.join(timeout=300)
        assert "beside" in results  # None: time.sleep's result, computed (again) on the fresh pool
    finally:
        fits.shutdown(wait=False)


def _sleep_then_clock(seconds):
    time.sleep(seconds)
    return time.time()


def test_the_warm_up_waits_for_the_views_in_flight():
    fits = workers.ProcessFits(2, limit=600, prepare=None)
    try:
        fits.submit(os.getpid).result()
        clocks = {}

        def warm_up():
            with workers.background():
                clocks["warm"] = fits.submit(_sleep_then_clock, 0).result()

        view = fits.submit(_sleep_then_clock, 1.0)  # a student's view in flight; a worker is free
        thread = threading.Thread(target=warm_up)
        thread.start()
        clocks["view"] = view.result()
        thread.join(timeout=300)
        assert clocks["warm"] >= clocks["view"]  # it waited, although the second worker was idle
    finally:
        fits.shutdown(wait=False)


# ------------------------------------------------------------------ no work at import (issue 28, item 4)
_IMPORT_THEN_START = """
import gc, json, os, threading
import numpy, scipy, sklearn, streamlit, plotly, threadpoolctl  # the libraries' own import-time settings
before, blas = dict(os.environ), threadpoolctl.threadpool_info()
threads = {t.name for t in threading.enumerate()}
import teaching.ui, teaching.ui.cache, teaching.steps, teaching.workers, teaching.serve
from teaching import serve, steps
children = [c for task in os.listdir("/proc/self/task") for c in open(f"/proc/self/task/{task}/children").read().split()]
seen = {"changed": {k: v for k, v in os.environ.items() if before.get(k) != v},
        "removed": sorted(set(before) - set(os.environ)), "children": children,
        "blas_same": threadpoolctl.threadpool_info() == blas,
        "new_threads": sorted({t.name for t in threading.enumerate()} - threads),
        "executor": repr(steps.use_executor(None)), "frozen": gc.get_freeze_count() > 0}
first, second = serve.start(), serve.start()  # outside a Streamlit runtime: no workers
seen["start"] = {"same": first is second, "executor": repr(first["executor"]), "threads": first["threads"],
                 "blas": sorted({i["num_threads"] for i in threadpoolctl.threadpool_info()}),
                 "frozen": gc.get_freeze_count() > 0}  # the loaded libraries out of the post-run collections
print(json.dumps(seen))
"""


def test_importing_the_app_starts_nothing_and_changes_no_setting_until_start():
    environ = {k: v for k, v in os.environ.items() if k not in workers.THREAD_VARIABLES}
    environ["PYTHONPATH"] = ROOT
    out = subprocess.run([sys.executable, "-c", _IMPORT_THEN_START], capture_output=True, text=True, cwd=ROOT,
                         env=environ, timeout=600, check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen == {"changed": {}, "removed": [], "children": [], "blas_same": True, "new_threads": [],
                    "executor": "None", "frozen": False,
                    "start": {"same": True, "executor": "None", "threads": 1, "blas": [1], "frozen": True}}


def _die_once(marker, value):
    """Kills its worker process the first time (``marker`` does not exist yet), then returns ``value``."""
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.kill(os.getpid(), signal.SIGKILL)
    return value


def test_a_lost_dask_worker_means_a_retry_and_a_runaway_a_refusal(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=40) as cluster:
        fits = workers.make_executor({"COVSHIFT_DASK_SCHEDULER": cluster.scheduler_address})
        try:
            assert fits.submit(_die_once, str(tmp_path / "died"), 7).result() == 7  # its worker died under it
            assert (tmp_path / "died").exists()
            assert fits.submit(sum, [1, 2]).result() == 3  # the next views succeed
            fits.limit = 2.0
            with pytest.raises(workers.Refused, match=r"more than 2 s.*stopped"):  # a runaway: its worker restarted
                fits.submit(time.sleep, 600).result()
            fits.limit = 120.0  # a restarted worker may take a while to come back on a busy machine
            assert fits.submit(sum, [3, 4]).result() == 7  # its one thread was not left sleeping: restarted
        finally:
            fits.close()


def test_the_server_starts_its_workers_after_its_first_script_run(monkeypatch):
    """teaching.serve: the first view has the cores to itself; the workers start FIRST_DRAW_SECONDS after its run
    is over, while the browser draws its figures (issue 40)."""
    from teaching import serve

    class Executor:
        def __init__(self):
            self.started = threading.Event()

        def start(self):
            self.started.set()

    executor = Executor()
    monkeypatch.setattr(serve, "_FIRST_RUN", threading.Event())
    thread = threading.Thread(target=serve._start_workers, args=(executor, False), daemon=True)
    thread.start()
    assert not executor.started.wait(0.5)  # the first run is not over
    serve.script_finished()
    assert not executor.started.wait(serve.FIRST_DRAW_SECONDS / 4)  # the browser draws the first figures
    assert executor.started.wait(60)
    thread.join(timeout=60)


_FIRST_RUN = """
import json
from streamlit.testing.v1 import AppTest
from teaching import serve
first = AppTest.from_file("app.py", default_timeout=900).run()
seen = {"before": [c.value for c in first.caption if c.value.startswith("Loading the app")],
        "titles": [t.value for t in first.title], "exceptions": [e.value for e in first.exception],
        "charts": len(first.get("plotly_chart")), "later": serve.loading() is None}
again = AppTest.from_file("app.py", default_timeout=900).run()
seen["charts_again"] = len(again.get("plotly_chart"))
print(json.dumps(seen))
"""


def test_the_first_run_draws_a_loading_frame_then_the_page_without_it():
    """teaching.serve.loading (issue 40): the server's first run shows a frame with an empty figure while it loads
    the app (the browser loads its plotly code meanwhile; bench/first_figure.py measures it); once the page is
    drawn, nothing of it is left: the first run shows the same figures as the next."""
    environ = {**os.environ, "PYTHONPATH": ROOT, "COVSHIFT_WORKERS": "0", "COVSHIFT_WARM": "0"}
    out = subprocess.run([sys.executable, "-c", _FIRST_RUN], capture_output=True, text=True, cwd=ROOT, env=environ,
                         timeout=1200, check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["exceptions"] == [] and seen["titles"] == ["Covariate shift, step by step"]
    assert seen["before"] == []  # the frame was emptied before the page was drawn
    assert seen["charts"] == seen["charts_again"] >= 1  # the page's own figures, no empty one left over
    assert seen["later"]  # once the server has started, no run shows the frame
