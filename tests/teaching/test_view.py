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
    assert view.sigma_for("FCFWCS") == shared.sigma and view.sigma_for("KMM") == AUTO
    assert view.weights("FCFWCS").model.sigma_ == shared.sigma
    manual = View.from_settings(_settings(sigma_mode="manual", sigma=0.4))
    assert manual.shared_sigma.rule == "manual" and manual.sigma_for("KMM") == 0.4


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


def test_admit_is_the_one_budget_check_and_names_the_way_out():
    view = View.from_settings(_settings(**{"sinc.n_tr": 2000, "sinc.n_te": 2000}))
    with pytest.raises(ValueError, match="limited to 1500 points"):
        view.admit(["KMM"])
    with pytest.raises(ValueError, match="SMTGP"):
        view.prediction("SMTGP")
    view.admit(["FCFWCS", "GPR"])  # within the budget: nothing raised


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
    table = steps.compute("csv_table", (other_digest, 0, 100), {}, files=((other_digest, other),))  # as a worker
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
