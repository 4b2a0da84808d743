"""One View (issue 28): one hashable value per view, built the same way by a page and a lesson, computing
through the one cache; uploaded bytes beside it by digest; pages import only teaching and cache nothing."""

import hashlib
import pathlib
import re

import pytest

from teaching import budget, catalog, lessons, settings, steps, uploaded_files
from teaching.view import AUTO, View

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _settings(**changes):
    return {**settings.defaults(), **lessons.WHY_WEIGHTS.settings, "sinc.n_tr": 120, "sinc.n_te": 80, **changes}


def test_a_view_is_one_hashable_value_of_its_settings():
    view = View.from_settings(_settings())
    assert view == View.from_settings(_settings()) and hash(view) == hash(View.from_settings(_settings()))
    assert view.sigma == AUTO and view.data_spec.name == "sinc" and view.seed == 0
    assert dict(view.data_spec.params)["n_tr"] == 120
    manual = View.from_settings(_settings(sigma_mode="manual", sigma=0.4))
    assert manual.sigma == 0.4 and manual != view
    assert View.from_settings(_settings(seed=3)).data_spec.seed == 3
    with pytest.raises(AttributeError):
        view.sigma = 0.3  # frozen


def test_the_kernel_width_is_resolved_once_per_view_and_passed_on_as_a_number():
    view = View.from_settings(_settings())
    shared = view.shared_sigma
    assert view.shared_sigma is shared and isinstance(shared.sigma, float) and shared.rule == "lcv"
    assert view.sigma_for("FCFWCS") == shared.sigma and view.sigma_for("RuLSIF") == AUTO  # RuLSIF's own CV
    assert view.weights("FCFWCS").model.sigma_ == shared.sigma
    manual = View.from_settings(_settings(sigma_mode="manual", sigma=0.4))
    assert manual.shared_sigma.rule == "manual" and manual.sigma_for("KMM") == 0.4


def test_one_views_width_does_not_wait_for_anothers(monkeypatch):
    """Two sessions' Views resolve their widths at the same time: while one waits for its worker, another's is
    computed (functools.cached_property before Python 3.12 held one lock for all instances of the class)."""
    import threading

    slow_started, release = threading.Event(), threading.Event()
    real = steps.shared_sigma

    def shared_sigma(spec, sigma):
        if spec.seed == 1:  # the slow session: its worker is busy
            slow_started.set()
            assert release.wait(30)
        return real(spec, sigma)

    monkeypatch.setattr(steps, "shared_sigma", shared_sigma)
    slow, quick = View.from_settings(_settings(seed=1)), View.from_settings(_settings(seed=2))
    waiting = threading.Thread(target=lambda: slow.shared_sigma)
    waiting.start()
    try:
        assert slow_started.wait(30)
        assert quick.shared_sigma.rule == "lcv"  # answered while the other view still waits
        assert waiting.is_alive()
    finally:
        release.set()
        waiting.join(30)
    assert slow.shared_sigma.rule == "lcv" and slow.shared_sigma is slow.shared_sigma


def test_the_median_heuristic_is_computed_once_per_data_and_is_each_estimators_own_auto_width(monkeypatch):
    # the KMM family and LogisticRatio get the data's median-heuristic width as a number (one computation for
    # the six, issue 40): the very number each computes itself from "auto", so the fits are those of "auto"
    import numpy as np

    from covshift import kernels

    view = View.from_settings(_settings(seed=917))  # a data set no other test computes: its width not yet cached
    calls = []
    real = kernels.median_heuristic
    monkeypatch.setattr(steps, "median_heuristic", lambda *a, **k: calls.append(1) or real(*a, **k))
    widths = {name: view.sigma_for(name) for name in sorted(catalog.MEDIAN_RULE)}
    assert len(calls) == 1 and len(set(widths.values())) == 1 and isinstance(widths["KMM"], float)
    points = view.data()
    for name in sorted(catalog.MEDIAN_RULE):
        own = catalog.make_weight_estimator(name, AUTO).fit(points.X_tr, points.X_te)
        passed = view.weights(name).model
        assert passed.sigma_ == own.sigma_ == widths[name]
        np.testing.assert_array_equal(passed.weights_, own.weights_)


def test_auto_has_one_spelling():
    assert catalog.make_weight_estimator("KMM", AUTO).sigma == AUTO  # passed on: KMM's "auto" is its median rule
    assert catalog.make_weight_estimator("FCFWCS", AUTO).sigma == AUTO
    with pytest.raises(ValueError, match="sigma"):
        catalog.make_weight_estimator("FCFWCS", None)
    assert budget.max_points("PFWCS", AUTO) == budget.METHOD_MAX_POINTS["PFWCS"]
    assert budget.max_points("PFWCS", 0.3) == budget.METHOD_MAX_POINTS_FIXED_SIGMA["PFWCS"]


def test_a_lesson_and_a_page_compute_through_the_same_cache_entries():
    steps.use_cache()
    try:
        run = lessons.LessonRun(lessons.WHY_WEIGHTS, seed=4)
        page = View.from_settings({**settings.defaults(), **lessons.WHY_WEIGHTS.settings, "seed": 4})
        assert page.data_spec == run.view.data_spec and page.hyper == run.view.hyper
        run.view.weights("FCFWCS")
        before = steps._CACHED["fitted_weights"].cache_info()
        page.weights("FCFWCS")
        after = steps._CACHED["fitted_weights"].cache_info()
        assert (after.hits, after.misses) == (before.hits + 1, before.misses)
    finally:
        steps.use_cache()


def test_a_view_asks_the_step_cache_once_a_run_for_its_data_and_each_prediction():
    """Issue 40: a page read a view's data and predictions 14 and 16 times a run, each a hit of the step cache
    (0.2-0.4 ms); the View keeps each answer for the run, and a new run (ui.view calls new_run) asks again, so
    that a cache emptied since is filled again. The budget is still checked on every call."""
    steps.use_cache()
    try:
        view = View.from_settings(_settings(models=["GPR"]))
        for _ in range(3):
            data, prediction = view.data(), view.prediction("GPR")
        assert view.data() is data and view.prediction("GPR") is prediction
        assert steps._CACHED["data"].cache_info().hits + steps._CACHED["data"].cache_info().misses <= 2  # GPR's fit reads it
        fitted = steps._CACHED["fitted_prediction"].cache_info()
        assert (fitted.hits, fitted.misses) == (0, 1)
        view.new_run()
        view.prediction("GPR")
        view.prediction("GPR")
        assert steps._CACHED["fitted_prediction"].cache_info().hits == 1  # asked again once
        big = View.from_settings(_settings(**{"sinc.n_tr": 2000, "sinc.n_te": 2000}))
        for _ in range(2):  # a refusal is not kept: refused again
            with pytest.raises(ValueError, match="SMTGP"):
                big.prediction("SMTGP")
    finally:
        steps.use_cache()


def test_admit_is_the_one_budget_check_and_names_the_way_out():
    view = View.from_settings(_settings(**{"sinc.n_tr": 2000, "sinc.n_te": 2000}))
    with pytest.raises(ValueError, match="limited to 1500 points"):
        view.admit(["KMM"])
    with pytest.raises(ValueError, match="SMTGP"):
        view.prediction("SMTGP")
    view.admit(["FCFWCS", "GPR"])  # within the budget: nothing raised


def test_each_budget_check_runs_once_per_view(monkeypatch):
    """Issue 38: the shared width's check, asked by admit and then by shared_sigma on first use, ran twice; a
    page asking for the same fit again re-checked it. Each distinct check now runs once per View."""
    calls = []
    real = budget.check_size
    monkeypatch.setattr(budget, "check_size", lambda names, *args: calls.append(tuple(names)) or real(names, *args))
    view = View.from_settings(_settings())
    for _ in range(2):
        view.weights("FCFWCS")
        view.shared_sigma
    assert sorted(calls) == sorted([(budget.SHARED_SIGMA,), ("FCFWCS",)]), calls
    big = View.from_settings(_settings(**{"sinc.n_tr": 2000, "sinc.n_te": 2000}))
    for _ in range(2):  # a refusal is not remembered as passed: asked again, refused again
        with pytest.raises(ValueError, match="limited to 1500 points"):
            big.admit(["KMM"])


def test_uploaded_bytes_travel_beside_the_view_by_digest():
    raw = b"x,y\n" + b"".join(f"{i / 10},{(i % 7) / 3}\n".encode() for i in range(60))
    digest = uploaded_files.add_file(raw)
    view = View.from_settings({**_settings(), "source": "csv", "csv_inputs": ["x"], "csv_outputs": ["y"]}, digest)
    assert view.data_spec.digest == digest and len(view.data().X_tr) + len(view.data().X_te) == 60
    assert steps._files_of((view.data_spec, "FCFWCS")) == ((digest, raw),)
    missing = View.from_settings({**_settings(), "source": "csv", "csv_inputs": ["x"], "csv_outputs": ["y"]}, "0" * 64)
    with pytest.raises(ValueError, match="Upload it on the Data & shift page"):
        missing.data()
    other = raw + b"6,1\n"
    other_digest = hashlib.sha256(other).hexdigest()
    with pytest.raises(ValueError, match="Upload it"):
        uploaded_files.file_bytes(other_digest)
    table = steps.compute("csv_table", (other_digest, 0), {}, files=((other_digest, other),))  # as a worker
    assert len(table.values) == 61 and uploaded_files.file_bytes(other_digest) == other


def test_pages_import_only_teaching_and_cache_nothing_themselves():
    for path in (ROOT / "pages").glob("*.py"):
        text = path.read_text()
        assert not re.search(r"^\s*(import covshift|from covshift)", text, re.M), path
        assert "st.cache_data" not in text and "st.cache_resource" not in text, path


def test_an_uploaded_file_reaches_a_worker_process_with_the_step():
    """The worker of a spawned pool has never seen the file: the step carries it (steps.compute's files)."""
    from teaching import workers

    raw = b"a,b,y\n" + b"".join(f"{i % 9},{(i * 7) % 11},{i % 5}\n".encode() for i in range(80))
    view = View.from_settings({**_settings(), "source": "csv", "csv_inputs": ["a", "b"], "csv_outputs": ["y"]},
                              uploaded_files.add_file(raw))
    steps.use_cache()
    here = view.weights("KMM").model.weights_
    pool = workers.make_executor({"COVSHIFT_WORKERS": "1"})
    try:
        assert pool.wait_started(timeout=600)  # up: the miss below goes to it (not computed here while it starts)
        steps.use_cache()  # empty: the next call is a miss, sent to the worker
        steps.use_executor(pool)
        there = view.weights("KMM").model.weights_
    finally:
        steps.use_executor(None)
        steps.use_cache()
        pool.shutdown()
    assert len(there) == len(view.data().X_tr)
    assert (here == there).all()


def test_classification_transfer_and_scaling_compute_from_the_views_own_settings():
    """Issue 38: the clf.*, dt_* and Scaling settings are hashable parts of the View; its methods take no page
    argument, and each follows its part (no View method ignores the View)."""
    view = View.from_settings(_settings(**{"clf.n": 200, "clf.steepness": 0.5, "clf.kernel": "rbf", "clf.C": 3.0,
                                           "dt_task": "multilabel", "dt_shift": "blur", "dt_l": 4, "dt_C": 10.0,
                                           "scaling_estimators": ["KMM"], "scaling_sizes": [200, 100],
                                           "sigma": 0.7}))
    assert view != View.from_settings(_settings()) and hash(view) == hash(View.from_settings(_settings(**{
        "clf.n": 200, "clf.steepness": 0.5, "clf.kernel": "rbf", "clf.C": 3.0, "dt_task": "multilabel",
        "dt_shift": "blur", "dt_l": 4, "dt_C": 10.0, "scaling_estimators": ["KMM"], "scaling_sizes": [200, 100],
        "sigma": 0.7})))
    c = view.classification
    assert (c.n, c.steepness, c.kernel, c.C, c.weights) == (200, 0.5, "rbf", 3.0, "LogisticRatio")
    assert len(view.classification_toy().X_tr) + len(view.classification_toy().X_te) == 200
    rows = view.classifiers()[0]
    assert [row["AUC"] for row in rows] == [row["AUC"] for row in steps.classifiers(
        200, 0.5, 0.3, 0, "rbf", 1.0, 3.0, 1.0, "LogisticRatio")[0]]
    t = view.domain_transfer
    assert (t.task, t.shift, t.n_labelled, t.C, t.epsilon) == ("multilabel", "blur", 4, 10.0, 1e-3)
    assert view.transfer_data() is steps.transfer_data("multilabel", "blur")
    assert view.transfer_data().y_test.ndim == 2  # the multilabel task's four attributes, not the digit
    assert View.from_settings(_settings()).domain_transfer.C == AUTO
    assert view.scaling.estimators == ("KMM",) and view.scaling.sizes == (100, 200) and view.scaling.sigma == 0.7
    assert View.from_settings(_settings(sigma_mode="auto")).scaling.sigma == settings.SETTINGS["sigma"].default
    # a lesson that does not name the page's settings gets the registry's defaults (as a page would)
    assert View.from_settings(lessons.WHY_WEIGHTS.settings).classification == View.from_settings(
        settings.defaults()).classification


def test_the_scaling_timings_are_admitted_by_the_budget_with_the_views_width():
    view = View.from_settings(_settings(sigma_mode="manual", sigma=0.3))
    limit = budget.max_points("PFWCS", 0.3)
    with pytest.raises(ValueError, match=rf"PFWCS with {2 * limit} training .* limited to {limit} points"):
        view.timing("PFWCS", 2 * limit)
    runs, iterations, limited = view.timing("FCFWCS", 100)
    assert runs and iterations >= 1 and (runs, iterations, limited) == steps.timing("FCFWCS", 100, 0.3)
