"""The view pipeline's fits on another executor: a local process pool and a Dask cluster give the same views."""

import concurrent.futures

import numpy as np
import pytest

from teaching import lessons, settings, views, workers
from teaching.view import View


def _view(seed=5):
    """A fresh View (its kernel width not resolved yet) of the Why-weights lesson with ``seed``."""
    return View.from_settings({**settings.defaults(), **lessons.LESSONS["Why weights"].settings, "seed": seed})


@pytest.fixture
def fresh_cache():
    views.use_cache()
    yield
    views.use_executor(None)
    views.use_cache()


def _same_on(executor, seed):
    """The FCFWCS weights and a GPR prediction computed in-process, then on ``executor``: identical."""
    here = _view(seed).weights("FCFWCS").model.weights_
    predicted_here = _view(seed).prediction("IW-GPR").model["mean"]
    views.use_cache()  # empty: the next calls are misses, sent to the executor
    views.use_executor(executor)
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
    views.use_executor(executor)
    _view().weights("FCFWCS")
    _view().weights("FCFWCS")
    assert executor.sent == ["shared_sigma", "fitted_weights"]  # data is cheap; the second call is a hit


def test_a_budget_refusal_reaches_the_caller_from_the_executor(fresh_cache):
    executor = Counting()
    views.use_executor(executor)
    with pytest.raises(ValueError, match="n_labels"):
        _view().few_labels(2.5)
    assert executor.sent == ["shared_sigma", "few_labels"]  # the View's width, then the step: its weights were fitted where it ran


def test_a_process_pool_gives_the_same_view(fresh_cache):
    pool = workers.make_executor({"COVSHIFT_WORKERS": "1"})
    try:
        _same_on(pool, 6)
    finally:
        pool.shutdown()


def test_a_dask_cluster_gives_the_same_view(fresh_cache):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        client = workers.make_executor({"COVSHIFT_DASK_SCHEDULER": cluster.scheduler_address})
        try:
            assert isinstance(client, distributed.Client)
            _same_on(client, 7)
        finally:
            client.close()


@pytest.mark.parametrize("text", ["two", "-1", "1.5"])
def test_a_bad_worker_count_names_the_variable(text):
    with pytest.raises(ValueError, match="COVSHIFT_WORKERS"):
        workers.make_executor({"COVSHIFT_WORKERS": text})


def test_no_workers_computes_in_process():
    assert workers.make_executor({"COVSHIFT_WORKERS": "0"}) is None
