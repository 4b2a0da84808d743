"""One door for fits (issue 38 item 3): every fit the app makes is a step of :mod:`teaching.steps` (the one
cache, the budget check before it, the executor for its misses), and every warning the app records or
silences goes through :mod:`teaching.outcomes` (its lock)."""

import concurrent.futures
import pathlib
import re
import threading
import tokenize
import warnings

import pytest

from teaching import budget, outcomes, steps
from teaching import reproduction as R
from teaching.view import TransferSettings, View

ROOT = pathlib.Path(__file__).resolve().parents[2]
APP_CODE = [p for p in sorted((ROOT / "teaching").rglob("*.py")) + sorted((ROOT / "pages").glob("*.py"))] + [
    ROOT / "app.py"]

#: The caches the app keeps besides the step cache, each with what it holds: none holds a fit.
OTHER_CACHES = {
    ("teaching/steps.py", "functools.lru_cache"): "the step cache itself (the default of use_cache)",
    ("teaching/ui/cache.py", "st.cache_data"): "the step cache itself (the app's make_cache for use_cache)",
    ("teaching/ui/cache.py", "st.cache_resource"): "plotly figures built from data the steps computed, and what a "
                                                   "page derives from them (ui.of_view: numbers, curves)",
    ("teaching/ui/session.py", "st.cache_data"): "the app's stored JSON files (assets/), parsed once per content",
    ("teaching/ui/poll.py", "st.cache_resource"): "the poll store (a database connection)",
    ("teaching/fits/classification.py", "functools.lru_cache"): "the stored Fig. 3 curves (a JSON file read)",
    ("teaching/figures/base.py", "functools.lru_cache"): "plotly's parses of property paths (pure functions of a string)",
}
CACHE_PATTERN = re.compile(r"(functools\.lru_cache|functools\.cache\b|\blru_cache\b|st\.cache_data|st\.cache_resource"
                           r"|st\.experimental_memo|st\.cache\b)")
#: What changes the process-wide warning state; only teaching/outcomes.py may (under its lock).
WARNING_STATE = re.compile(r"catch_warnings|simplefilter|filterwarnings|resetwarnings|showwarning|warnings\.filters")


def _code_lines(path):
    """(line number, code) of a file's lines, their strings and comments left out (a docstring may name a cache)."""
    lines = {}
    with tokenize.open(path) as source:
        for token in tokenize.generate_tokens(source.readline):
            if token.type in (tokenize.NAME, tokenize.OP):
                lines.setdefault(token.start[0], []).append(token.string)
    return [(number, "".join(parts)) for number, parts in sorted(lines.items())]


def test_no_cache_but_the_step_cache_holds_a_fit():
    found = {}
    for path in APP_CODE:
        for number, code in _code_lines(path):
            for match in CACHE_PATTERN.finditer(code):
                name = match.group(1).replace("functools.", "")
                kind = "functools.lru_cache" if name in ("lru_cache", "cache") else name
                found.setdefault((str(path.relative_to(ROOT)), kind), []).append(number)
    assert set(found) == set(OTHER_CACHES), {k: v for k, v in found.items() if k not in OTHER_CACHES}


def test_only_outcomes_changes_the_warning_state():
    """catch_warnings swaps process-wide state: a second place doing it races the recorded steps of other
    sessions (teaching/reproduction/registry.py did, outside outcomes' lock)."""
    offenders = [f"{path.relative_to(ROOT)}:{number}: {code.strip()}" for path in APP_CODE
                 if path != ROOT / "teaching" / "outcomes.py" for number, code in _code_lines(path)
                 if WARNING_STATE.search(code)]
    assert not offenders, offenders


def test_every_step_has_its_cache_entries_and_the_fits_go_to_the_executor():
    assert set(steps.CACHE_ENTRIES) == set(steps._STEPS)
    assert set(steps.REMOTE_STEPS) <= set(steps._STEPS)
    assert {"reproduction_row", "transfer_source", "fitted_weights"} <= set(steps.REMOTE_STEPS)
    assert "replay_document" in steps.CACHE_ENTRIES and "replay_document" not in steps.REMOTE_STEPS  # fits nothing


# ------------------------------------------------------------------ warnings: one lock
@pytest.fixture
def warning_row(monkeypatch):
    """A registered row whose run waits (up to 1 s) for another thread to start recording warnings."""
    inside, other_started = threading.Event(), threading.Event()

    def run(seed, size):
        inside.set()
        other_started.wait(timeout=1.0)  # with the lock the other thread cannot start: this waits the full second
        warnings.warn("the row's own warning, silenced", RuntimeWarning)
        return {"x": 1.0}

    row = R.Row(key="test.warnings", paper="sampling-based-kmm", where="-", claim="-", paper_values={}, run=run,
                judge=lambda values: ("reproduced", "-"), sizes={"small": "-", "full": "-"})
    monkeypatch.setitem(R.ROWS, row.key, row)
    return row, inside, other_started


def test_a_silenced_row_never_swallows_another_threads_recorded_warning(warning_row):
    """The race of issue 38: a row's silencing (catch_warnings) entered, another thread's recording entered, the
    row's left (restoring the state from before both), and the other thread's warning went unrecorded. Through
    outcomes' lock the recording waits for the row, and keeps its warning."""
    row, inside, other_started = warning_row
    row_done = threading.Event()

    def recorded_step():
        other_started.set()
        row_done.wait(timeout=5.0)  # warn only after the row has left its silencing
        warnings.warn("the step's warning", RuntimeWarning)
        return "fitted"

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        row_run = pool.submit(R.run_row, row.key, 0)
        assert inside.wait(timeout=10)
        step = pool.submit(outcomes.run_with_warnings, recorded_step)
        assert row_run.result(timeout=30) == {"x": 1.0}
        row_done.set()
        result, _, messages = step.result(timeout=30)
    assert result == "fitted" and messages == ["the step's warning"]


# ------------------------------------------------------------------ reproduction rows and the replay: steps
class Recording:
    """An executor that notes what is sent to it and computes it on ``pool`` (default: a thread of its own, for
    the default lru cache; under st.cache_data, which locks a key while it computes it, a worker process)."""

    def __init__(self, pool=None):
        self.sent, self._pool = [], pool or concurrent.futures.ThreadPoolExecutor(1)

    def submit(self, function, *args):
        self.sent.append(args[:2])  # (step name, its arguments)
        return self._pool.submit(function, *args)


@pytest.fixture
def fresh_steps():
    steps.use_cache()
    yield
    steps.use_executor(None)
    steps.use_cache()


def _stored(key, seconds_per_seed):
    return {"key": key, "small": {"seeds": [0, 1], "seconds": 2 * seconds_per_seed}}


def test_a_re_run_is_a_step_on_the_executor_and_refused_beyond_the_budget(fresh_steps):
    executor = Recording()
    steps.use_executor(executor)
    fresh = R.rerun_row(_stored("fw.table1.sinc", 0.2), 1)
    assert executor.sent == [("reproduction_row", ("fw.table1.sinc", 1, "small"))]
    assert fresh["PFWCS nnz @0.001"] == R.run_row("fw.table1.sinc", 1)["PFWCS nnz @0.001"]
    assert R.rerun_row(_stored("fw.table1.sinc", 0.2), 1) == fresh and len(executor.sent) == 1  # the cache's
    with pytest.raises(ValueError, match=r"Re-running fw\.table1\.sinc.* 12 s .*5 s.*bench/reproduce\.py --rows"):
        R.rerun_row(_stored("fw.table1.sinc", 12.0), 0)
    assert len(executor.sent) == 1  # refused before anything ran


def test_stored_rows_over_the_budget_are_refused_and_the_others_admitted():
    import json

    rows = json.loads((ROOT / "assets" / "reproduction.json").read_text())["rows"]
    for stored in rows:
        per_seed = stored["small"]["seconds"] / len(stored["small"]["seeds"])
        if per_seed > budget.BUDGET_SECONDS:
            with pytest.raises(ValueError, match="bench/reproduce.py"):
                R.admit_rerun(stored)
        else:
            R.admit_rerun(stored)


def test_the_transfer_row_uses_the_pages_source_model(fresh_steps):
    """The reproduction row of the domain-transfer paper and the Domain transfer page fit the source structural
    SVM once between them (the step transfer_source, one cache)."""
    first = R.run_row("dtso.digits.l10", 0)
    second = R.run_row("dtso.digits.l10", 1)
    page = TransferSettings("multiclass", "thicken+rotate", 10, 10.0, 1e-3)
    View(steps.BuiltInData("sinc", (), 0), domain_transfer=page).transfer_source()
    info = steps._CACHED["transfer_source"].cache_info()
    assert (info.misses, info.hits) == (1, 2)
    assert 0 < first["domain transfer"] <= 1 and 0 < second["source only"] <= 1


def test_the_replay_is_a_step_within_the_budget(fresh_steps):
    view = View(steps.BuiltInData("sinc", (("n_tr", 100), ("n_te", 60)), 0), sigma=0.3)
    document, height, meta = view.replay("PFWCS")
    assert meta["name"] == "PFWCS" and "PFWCS replay" in document and height > 0
    assert view.replay("PFWCS")[0] == document
    assert steps._CACHED["replay_document"].cache_info()[:2] == (1, 1)  # (hits, misses)
    big = View(steps.BuiltInData("sinc", (("n_tr", 3000), ("n_te", 3000)), 0), sigma=0.3)
    with pytest.raises(ValueError, match="PFWCS.*limited to"):
        big.replay("PFWCS")
    assert steps._CACHED["fitted_weights"].cache_info().misses == 1  # the refused one never ran
